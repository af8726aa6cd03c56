"""Exact answers by cross-validation over the training questions: a steadier signal than the 82 dev
questions for choosing between extraction-model variants.

The training questions (TREC 8, 9 and 2002 with NIST patterns, ``textqa train qa``'s default) are
split into ``--folds`` folds by a seeded permutation; for each fold the instance-based system is
trained on the others and answers the fold from the artifact's collection, with the artifact's
answer-type classifier and sentence ranker.  Each variant (``NAME:param=value,...``, parameters of
:class:`textqa.models.qa.system.InstanceQA`) is scored on the same folds: MRR@5 and accuracy@1
over all folds' questions, and the per-question difference to the first variant with a 95%
bootstrap interval.  The sentence ranker was trained on TrecQA TRAIN, whose 94 questions are
TREC 8 questions: those (7% of the questions) see a ranker fitted on their own sentences.

``python dev/qa_cv.py --artifact artifacts/qa base:sentence_ranker=False new:sentence_ranker=True``
(about 40 s per fold and variant on 2 cores).
"""
from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def parse_variant(text: str) -> tuple[str, dict]:
    name, _, rest = text.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise SystemExit(f"error: variant {text!r}: {item!r} is not param=value")
        try:
            params[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[key] = value
    return name, params


def main(argv=None) -> int:
    from textqa.evaluation.stats import bootstrap_ci
    from textqa.models.qa.nlp import parse
    from textqa.models.qa.store import load_qa
    from textqa.models.qa.system import InstanceQA
    from textqa.training import qa as T
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("variants", nargs="+", help="NAME:param=value,... (InstanceQA parameters); the first is the base")
    p.add_argument("--artifact", type=Path, default=Path("artifacts/qa"), help="a trained QA artifact")
    p.add_argument("--questions", type=Path, nargs="+", default=T.TREC_QUESTIONS)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--types", choices=("artifact", "unseen"), default="unseen",
                   help="type every question with the artifact's answer-type classifier (it has seen most TREC "
                        "8-9 questions) or with one trained without the training questions (default; as "
                        "'textqa train qa' types its training questions)")
    args = p.parse_args(argv)
    variants = [parse_variant(v) for v in args.variants]
    import inspect
    known = set(inspect.signature(InstanceQA).parameters)
    for name, params in variants:
        if set(params) - known:
            p.error(f"variant {name!r}: unknown parameter(s) {', '.join(sorted(set(params) - known))}; "
                    f"InstanceQA takes {', '.join(sorted(known))}")
    if len({name for name, _ in variants}) != len(variants):
        p.error("variant names must differ")
    model = load_qa(args.artifact)
    questions = T.read_questions(args.questions)
    docs = parse([q["question"] for q in questions])
    typer = model.answer_types
    if args.types == "unseen":
        from textqa.models.qa.answer_type import read_uiuc
        labelled = read_uiuc(T.UIUC)
        typer = T.unseen_answer_types(labelled, parse([q.question for q in labelled]), questions)
    uiuc, fine = zip(*T.typed_questions(typer, docs))
    fold = np.random.default_rng(args.seed).permutation(len(questions)) % args.folds
    rr = {name: np.zeros(len(questions)) for name, _ in variants}
    for f in range(args.folds):
        tr = [i for i in range(len(questions)) if fold[i] != f]
        te = [i for i in range(len(questions)) if fold[i] == f]
        for name, params in variants:
            t = time.perf_counter()
            qa = InstanceQA(**{"n_jobs": 2, **params}).fit([questions[i] for i in tr], [docs[i] for i in tr], model.index,
                                          uiuc=[uiuc[i] for i in tr], selector=model.selector,
                                          fine=[fine[i] for i in tr])
            results = [qa.answer(docs[i], model.index, 5, uiuc[i], fine[i]) for i in te]
            held = [SimpleNamespace(qid=questions[i]["qid"]) for i in te]
            for k, r in T.reciprocal_ranks(results, held, {q.qid: questions[i]["patterns"] for q, i in zip(held, te)}):
                rr[name][te[k]] = r
            print(f"fold {f + 1}/{args.folds} {name}: MRR@5 {rr[name][te].mean():.4f} "
                  f"({time.perf_counter() - t:.0f} s)", file=sys.stderr, flush=True)
    base = variants[0][0]
    print(f"{args.folds}-fold CV over {len(questions)} training questions (seed {args.seed})")
    print("| variant | MRR@5 | accuracy@1 | MRR@5 minus base [95% CI] |")
    print("|---|---:|---:|---|")
    for name, _ in variants:
        d = rr[name] - rr[base]
        lo, hi = bootstrap_ci(np.mean, d) if name != base else (0.0, 0.0)
        print(f"| {name} | {rr[name].mean():.4f} | {(rr[name] == 1.0).mean():.4f} | "
              f"{d.mean():+.4f} [{lo:+.4f}, {hi:+.4f}] |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
