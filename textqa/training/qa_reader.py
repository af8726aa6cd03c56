"""The QA answer reader (:class:`textqa.models.qa.merging.AnswerReader`), trained by distant supervision.

For every training question the fitted instance-based system retrieves and reads as it does when
answering (:meth:`InstanceQA.evidence`): the answers it merges from the retrieved sentences are the
reader's examples, labelled right when they match the question's accepted answers (DrQA's exact
match) or its NIST patterns.  A question none of whose answers is right teaches nothing and is left
out (DrQA did the same).  The questions are the open-domain sets in ``data/qa/open`` (WebQuestions
training questions, Natural Questions open dev less its first 1,000, TriviaQA dev) and the TREC 2004
and 2005 series with their targets; questions the instance-based system was trained on are left out,
since its strategies' scores, which the reader reads, are fitted to them.

A learning curve (dev accuracy@1 and MRR@5 by the number of training questions read: 866, twice,
four times, all) says whether more questions would still help; the held-out questions' evidence is
gathered once and scored by each reader.
"""
from __future__ import annotations

import random
import sys
import time

import numpy as np

from textqa.models.qa.answers import keywords, pattern_match
from textqa.models.qa.merging import AnswerReader
from textqa.models.qa.questions import QuestionFileError, TrainingQuestion, question_key, read_training_questions, typed_questions
from textqa.runtime.paths import DATA_DIR

OPEN = DATA_DIR / "qa" / "open"
NQ_DEV = OPEN / "nq_open" / "dev.tsv.gz"
NQ_SECOND_OPINION = 1000          # NQ open dev's first questions: never trained on (the bench's second opinion)
READER_QUESTIONS = [OPEN / "webquestions" / f"{n}.json.gz" for n in ("trainmodel", "val", "devtest")] + [
    NQ_DEV, OPEN / "triviaqa" / "dev.tsv.gz",
    DATA_DIR / "qa" / "trec_qa" / "derived" / "trec13.targets1-31.jsonl",
    DATA_DIR / "qa" / "trec_qa" / "derived" / "trec14.jsonl.gz"]
CURVE_BASE = 866                  # the TREC 8/9 questions the reader of 2004 was trained on


def add_arguments(p) -> None:
    p.add_argument("--reader-questions", type=str, nargs="*", default=[], metavar="FILE",
                   help="questions that train the answer reader by distant supervision (.jsonl TREC with patterns, "
                        ".tsv NQ/TriviaQA, .json WebQuestions); 'open': the open-domain sets in data/qa/open and "
                        "TREC 2004-2005; none (the default): no reader, answers ranked by the merged strategy score")
    p.add_argument("--reader-max", type=int, default=0, metavar="N",
                   help="train the reader on the first N of its questions (shuffled with --seed; 0: all)")
    p.add_argument("--paragraphs", type=int, default=30, metavar="N",
                   help="a collection's best paragraphs whose sentences are read for a question (default 30)")
    p.add_argument("--learning-curve", action="store_true",
                   help="also train readers on 866, 1,732, 3,464... of the questions and score each on the held-out "
                        "questions (--eval-questions)")


def reader_questions(files, exclude_keys: set, max_n: int, seed: int) -> list:
    """The reader's training questions: ``files`` less the questions whose key is in ``exclude_keys`` and
    NQ open dev's first :data:`NQ_SECOND_OPINION`, shuffled (``seed``), the first ``max_n`` (0: all)."""
    out = []
    for f in files:
        qs = read_training_questions(f)
        if str(f).endswith(str(NQ_DEV.relative_to(DATA_DIR))) or f == NQ_DEV:
            qs = qs[NQ_SECOND_OPINION:]
        out += [q for q in qs if question_key(q.question) not in exclude_keys]
    random.Random(seed).shuffle(out)
    return out[:max_n] if max_n else out


def evidence_rows(instance, questions, docs, typed, source, say=None, desc="reading") -> list:
    """For each question: (its merged answers' texts, their merged scores, their feature rows, each
    answer's label); a question with no content word gives None.  ``source()``: what one question
    retrieves from (a fresh :class:`QuestionSource` each); ``questions``: objects with ``matches(text)``."""
    from tqdm import tqdm  # deferred: loads tqdm
    out = []
    t0 = time.perf_counter()
    for q, doc, (u, f) in tqdm(list(zip(questions, docs, typed)), desc=desc, unit="q", file=sys.stderr,
                               disable=None, mininterval=2):
        if not keywords(doc):
            out.append(None)
            continue
        src = source()
        ev = instance.evidence(doc, src, u, f)
        answers, X = instance.answer_rows(ev, src)
        labels = np.array([any(q.matches(ev.data[i][1].text) for i in a.mentions) for a in answers], dtype=int)
        out.append(([a.text for a in answers], np.array([a.score for a in answers]), X, labels))
    if say:
        say(f"{desc}: {len(questions)} questions in {time.perf_counter() - t0:.0f} s")
    return out


_MODELS: dict = {}


def rows_of(task) -> list:
    """:func:`evidence_rows` of one chunk of questions, in whatever process runs it (a worker of joblib's
    pool or of a Dask cluster): ``task`` = (QA artifact folder, collections folder, collection name,
    paragraphs, sentences, questions).  The artifact is loaded once per process."""
    from textqa.models.qa.nlp import parse
    from textqa.models.qa.retrieval import QuestionSource
    from textqa.models.qa.store import load_qa
    path, collections_root, collection, n_par, n_sent, questions = task
    key = (str(path), str(collections_root))
    if key not in _MODELS:
        _MODELS.clear()
        model = load_qa(path)
        model.collections_root = collections_root
        _MODELS[key] = model
    model = _MODELS[key]
    inst = model.instance
    inst.paragraphs, inst.answer_k = n_par, n_sent
    collections, pool = model.sources(collection)
    docs = parse([q.question for q in questions])
    return evidence_rows(inst, questions, docs, typed_questions(model.answer_types, docs),
                         lambda: QuestionSource(collections, pool, n_par))


def rows_in_parallel(path, collections_root, collection: str, n_par: int, n_sent: int, questions, n_jobs: int = 2,
                     chunk: int = 100, say=None, desc: str = "reading") -> list:
    """:func:`rows_of` over ``questions`` in chunks, on ``n_jobs`` processes (joblib; on a Dask cluster when
    the caller runs inside :func:`textqa.runtime.dask_cluster.joblib_on`), in order."""
    from joblib import Parallel, delayed  # deferred: loads joblib, numpy, psutil
    tasks = [(path, collections_root, collection, n_par, n_sent, questions[i:i + chunk])
             for i in range(0, len(questions), chunk)]
    out, t = [], time.perf_counter()
    for rows in Parallel(n_jobs=n_jobs, return_as="generator")(delayed(rows_of)(x) for x in tasks):
        out += rows
        if say:
            say(f"{desc}: {len(out):,}/{len(questions):,} questions, {time.perf_counter() - t:.0f} s")
    return out


def fit_reader(rows, C: float = 1.0) -> AnswerReader | None:
    """The reader fitted on the questions of ``rows`` that have a right answer among their answers."""
    keep = [r for r in rows if r is not None and r[3].any() and not r[3].all()]
    if not keep:
        return None
    return AnswerReader(C).fit(np.vstack([r[2] for r in keep]), np.concatenate([r[3] for r in keep]))


def held_out_scores(reader, rows, patterns: list) -> dict:
    """accuracy@1 and MRR@5 of ``reader`` (None: the merged score) over held-out ``rows``, judged by each
    question's NIST ``patterns``; and the share of questions whose right answer is among those read."""
    rr, reached = [], []
    for r, pats in zip(rows, patterns):
        if r is None:
            rr.append(0.0)
            reached.append(False)
            continue
        texts, merged, X, _ = r
        scores = reader.scores(X) if reader is not None else merged
        order = np.argsort(-scores, kind="stable")
        right = [pattern_match(pats, texts[i]) for i in order[:5]]
        rr.append(next((1.0 / (i + 1) for i, ok in enumerate(right) if ok), 0.0))
        reached.append(any(pattern_match(pats, t) for t in texts))
    rr = np.array(rr)
    reached = np.array(reached)
    return {"acc1": float(np.mean(rr == 1.0)) if len(rr) else 0.0, "mrr5": float(np.mean(rr)) if len(rr) else 0.0,
            "answer_reached": float(np.mean(reached)) if len(reached) else 0.0,
            "reader_share": float(np.mean(rr[reached] == 1.0)) if reached.any() else 0.0, "questions": len(rr)}


def learning_curve(rows, held_rows, held_patterns, say=None) -> list[dict]:
    """Held-out scores of readers trained on the first 866, 1,732, 3,464... questions of ``rows`` and on all."""
    sizes = []
    n = CURVE_BASE
    while n < len(rows):
        sizes.append(n)
        n *= 2
    sizes.append(len(rows))
    out = []
    for n in sizes:
        reader = fit_reader(rows[:n])
        scores = held_out_scores(reader, held_rows, held_patterns)
        out.append({**{k: round(v, 4) if isinstance(v, float) else v for k, v in scores.items()},
                    "held_out_questions": scores["questions"], "questions": n})
        if say:
            say(f"reader learning curve: {n} questions: held-out accuracy@1 {scores['acc1']:.3f}, MRR@5 "
                f"{scores['mrr5']:.3f}")
    return out


def questions_for(args, questions, held_out) -> tuple[list, list]:
    """(the files of ``--reader-questions``, the reader's training questions: those files less ``questions``,
    the instance-based system's own, and ``held_out``), read before any training starts, so that a bad
    file stops the command at once with its name (``SystemExit``)."""
    exclude = {question_key(q["question"]) for q in [*questions, *held_out]}
    files = [f for name in args.reader_questions for f in (READER_QUESTIONS if name == "open" else [name])]
    try:
        return files, reader_questions(files, exclude, args.reader_max, args.seed)
    except (QuestionFileError, OSError) as e:
        raise SystemExit(f"error: --reader-questions: {e}") from None


def train_answer_reader(args, out, model_parts: dict, collections_root, collection: str, reader: tuple, held_out,
                        metrics: dict, say) -> None:
    """Fit the answer reader on ``reader`` (:func:`questions_for`) and set it on ``model_parts["instance"]``; the held-out questions' scores (and with
    ``--learning-curve``, the curve) into ``metrics``.  The questions are read in ``--jobs`` processes (or
    on the Dask cluster), each loading the model as it stands (``model_parts``, saved to a folder beside
    ``out`` for them and removed after)."""
    import shutil
    import tempfile
    from pathlib import Path

    from textqa.models.qa.store import save_qa
    files, qs = reader
    instance = model_parts["instance"]
    say(f"answer reader: {len(qs):,} training questions (distant supervision), {instance.paragraphs} paragraphs "
        f"and {instance.answer_k} sentences each, on {args.jobs} process(es)")
    t = time.perf_counter()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".qa-reader-", dir=Path(out).parent))
    try:
        save_qa(model_parts["answer_types"], model_parts["selector"], scratch / "qa", instance=instance,
                index=model_parts["index"])
        read = lambda items, desc: rows_in_parallel(scratch / "qa", collections_root, collection,  # noqa: E731
                                                   instance.paragraphs, instance.answer_k, items,
                                                   n_jobs=min(args.jobs, 2), say=say, desc=desc)
        rows = read(qs, "reader questions")
        held = [TrainingQuestion(q["qid"], q["question"], q["patterns"]) for q in held_out]
        held_rows = read(held, "held-out questions") if held else []
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    instance.reader_ = fit_reader(rows)
    used = sum(1 for r in rows if r is not None and r[3].any() and not r[3].all())
    info = {"questions": len(qs), "questions_with_a_right_answer_read": used, "paragraphs": instance.paragraphs,
            "sentences": instance.answer_k, "files": [str(f) for f in files],
            "seconds": round(time.perf_counter() - t, 1)}
    if held:
        patterns = [q.patterns for q in held]
        info["held_out"] = held_out_scores(instance.reader_, held_rows, patterns)
        info["merged_score_only"] = held_out_scores(None, held_rows, patterns)
        if args.learning_curve:
            info["learning_curve"] = learning_curve(rows, held_rows, patterns, say)
    metrics["reader"] = info
