"""``textqa qa select`` and ``textqa qa answer-type``."""
from __future__ import annotations

import sys
from pathlib import Path

from evaluation.io import EvalInputError
from textqa.paths import artifacts_dir
from textqa.stdin import stdin_lines

MAX_QUESTION_WORDS = 200


def add_common(p) -> None:
    p.add_argument("--model", type=Path, default=None, help="QA artifact (default: <artifacts>/qa)")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                "or ./artifacts)")


def _load(args):
    from models.artifact import ArtifactError
    from models.qa.store import load_qa
    try:
        return load_qa(args.model or artifacts_dir(args.artifacts) / "qa")
    except ArtifactError as e:
        raise EvalInputError(str(e)) from e


def check_question(where: str, q: str) -> str:
    if not q.strip():
        raise EvalInputError(f"{where}: empty question")
    n = len(q.split())
    if n > MAX_QUESTION_WORDS:
        raise EvalInputError(f"{where}: question of {n} words is over the limit of {MAX_QUESTION_WORDS}")
    return q


def run_answer_type(args) -> int:
    from models.qa.nlp import parse
    model = _load(args)
    questions = [check_question(f"<stdin>:{i}", l) for i, l in enumerate(stdin_lines(), start=1)]
    if not questions:
        return 0
    for label in model.answer_types.predict(parse(questions)):
        sys.stdout.write(label + "\n")
    return 0


def run_select(args) -> int:
    from models.qa.nlp import parse
    from models.qa.trecqa import TrecQAError, read_trecqa
    model = _load(args)
    try:
        pairs = read_trecqa(args.trecqa)
    except TrecQAError as e:
        raise EvalInputError(str(e)) from e
    qtypes = model.answer_types.distribution(parse([p.question.text for p in pairs]))
    for p, qt in zip(pairs, qtypes):
        scores = model.selector.scores(p.question, [c for _, c in p.candidates], qt)
        for i, s in enumerate(scores):
            sys.stdout.write(f"{p.qid}\t{i}\t{s:.6f}\n")
    return 0


def register(sub) -> None:
    qa = sub.add_parser("qa", help="use the trained QA models",
                        description="Question answering models (Lita & Carbonell 2004, 2008).")
    qs = qa.add_subparsers(dest="action", required=True, metavar="ACTION")
    at = qs.add_parser("answer-type", help="UIUC COARSE:fine answer types of questions (stdin, one a line)",
                       description="Read questions from stdin, one a line; write their COARSE:fine answer types.")
    add_common(at)
    at.set_defaults(func=run_answer_type)
    se = qs.add_parser("select", help="score TrecQA candidate sentences",
                       description="Score every candidate sentence of a TrecQA file; write "
                                   "'qid<TAB>index<TAB>score', index = the candidate's 0-based position in its "
                                   "<QApairs> block in file order.")
    add_common(se)
    se.add_argument("--trecqa", type=Path, required=True, help="TrecQA XML (.gz accepted)")
    se.set_defaults(func=run_select)
