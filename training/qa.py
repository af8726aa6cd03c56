"""Train the QA components (Lita & Carbonell 2004, 2008) that exist so far, with their evaluations.

1. Answer types: the UIUC coarse:fine classifier on ``train_5500.label`` (5-fold cross-validated
   coarse and fine accuracy, then a model on all of it).
2. Answer sentence selection: the ranker of :mod:`models.qa.selection` trained on TrecQA TRAIN
   (C chosen by question-grouped cross-validation on TRAIN), scored on the clean DEV questions
   (MAP and MRR, ties broken against the system, with 95% bootstrap intervals).

The instance-based answer extraction (question frames, clusters, query-content and extraction
models) is not built yet.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from textqa.paths import DATA_DIR, artifacts_dir

QA = DATA_DIR / "qa"
UIUC = QA / "uiuc_qc" / "train_5500.label.gz"
TRAIN = QA / "trecqa" / "train-less-than-40.manual-edit.xml.gz"
DEV = QA / "trecqa" / "dev-less-than-40.manual-edit.xml.gz"
CLEAN = QA / "trecqa" / "clean-dev.qids"
DEFAULT_DATA = [UIUC, TRAIN, DEV, CLEAN]
C_GRID = (0.01, 0.1, 1.0, 10.0)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--uiuc", type=Path, default=UIUC, help="UIUC question-classification training file")
    p.add_argument("--train", type=Path, default=TRAIN, help="TrecQA TRAIN (labelled candidates)")
    p.add_argument("--dev", type=Path, default=DEV, help="TrecQA DEV, for reporting")
    p.add_argument("--clean-qids", type=Path, default=CLEAN, help="DEV questions with correct and incorrect candidates")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds for the answer-type classifier")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--out", type=Path, default=None, help="artifact folder (default: <artifacts>/qa)")
    p.add_argument("--artifacts", type=Path, default=None,
                   help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")


def ranking_scores(pairs, scores_per_pair, qids=None) -> dict:
    """MAP and MRR with ties broken against the system (incorrect candidates first among equal
    scores), over questions with at least one correct candidate (``qids`` restricts further)."""
    aps, rrs = [], []
    for p, s in zip(pairs, scores_per_pair):
        if qids is not None and p.qid not in qids:
            continue
        labels = np.array([l for l, _ in p.candidates])
        if not labels.any():
            continue
        rel = labels[np.lexsort((labels, -np.asarray(s)))]
        prec = np.cumsum(rel) / np.arange(1, len(rel) + 1)
        aps.append(float((prec * rel).sum() / rel.sum()))
        rrs.append(1.0 / (int(np.argmax(rel)) + 1))
    from evaluation.stats import bootstrap_ci
    mean = lambda x: float(np.mean(x)) if len(x) else 0.0
    ci = lambda x: list(bootstrap_ci(mean, x)) if len(x) >= 2 else [mean(x), mean(x)]
    return {"map": mean(aps), "mrr": mean(rrs), "questions": len(aps), "map_ci95": ci(aps), "mrr_ci95": ci(rrs)}


def answer_type_cv(docs, labels, folds: int, seed: int) -> dict:
    from sklearn.model_selection import KFold

    from models.qa.answer_type import AnswerTypeClassifier
    labels = np.array(labels)
    coarse_ok = fine_ok = 0
    for tr, te in KFold(folds, shuffle=True, random_state=seed).split(docs):
        pred = AnswerTypeClassifier().fit([docs[i] for i in tr], list(labels[tr])).predict([docs[i] for i in te])
        coarse_ok += sum(p.split(":")[0] == g.split(":")[0] for p, g in zip(pred, labels[te]))
        fine_ok += sum(p == g for p, g in zip(pred, labels[te]))
    return {"folds": folds, "seed": seed, "coarse_accuracy": coarse_ok / len(docs),
            "fine_accuracy": fine_ok / len(docs), "questions": len(docs)}


def choose_c(train, qtypes, pool, folds: int, seed: int) -> tuple[float, dict]:
    """C of the selection ranker by question-grouped cross-validation on TRAIN (MAP)."""
    from models.qa.selection import SentenceSelector
    rng = np.random.default_rng(seed)
    fold = rng.permutation(len(train)) % folds
    results = {}
    for C in C_GRID:
        maps = []
        for f in range(folds):
            tr = [i for i in range(len(train)) if fold[i] != f]
            te = [i for i in range(len(train)) if fold[i] == f]
            sel = SentenceSelector(C).fit([train[i] for i in tr], [qtypes[i] for i in tr], pool)
            scores = [sel.scores(train[i].question, [c for _, c in train[i].candidates], qtypes[i]) for i in te]
            maps.append(ranking_scores([train[i] for i in te], scores)["map"])
        results[C] = float(np.mean(maps))
    return max(results, key=results.get), results


def run(args: argparse.Namespace) -> int:
    from models.qa.answer_type import AnswerTypeClassifier, read_uiuc
    from models.qa.nlp import parse
    from models.qa.selection import SentenceSelector
    from models.qa.store import save_qa
    from models.qa.trecqa import read_qids, read_trecqa
    from training.corpus import file_fingerprint

    t0 = time.perf_counter()
    say = lambda msg: print(f"[qa {time.perf_counter() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)
    try:
        uiuc = read_uiuc(args.uiuc)
        train, dev = read_trecqa(args.train), read_trecqa(args.dev)
        clean = read_qids(args.clean_qids)
    except (ValueError, OSError) as e:
        raise SystemExit(f"error: {e}") from e
    out = args.out or artifacts_dir(args.artifacts) / "qa"
    say(f"parsing {len(uiuc)} UIUC questions with spaCy")
    docs = parse([q.question for q in uiuc])
    labels = [q.label for q in uiuc]
    metrics = {}
    if args.folds > 1:
        say(f"answer types: {args.folds}-fold cross-validation")
        metrics["answer_type_cv"] = answer_type_cv(docs, labels, args.folds, args.seed)
    answer_types = AnswerTypeClassifier().fit(docs, labels)
    say("answer sentence selection: choosing C on TRAIN")
    qt_train = answer_types.distribution(parse([p.question.text for p in train]))
    qt_dev = answer_types.distribution(parse([p.question.text for p in dev]))
    pool = [c for p in train + dev for _, c in p.candidates]
    C, by_c = choose_c(train, qt_train, pool, 5, args.seed)
    selector = SentenceSelector(C).fit(train, qt_train, pool)
    dev_scores = [selector.scores(p.question, [c for _, c in p.candidates], qt) for p, qt in zip(dev, qt_dev)]
    metrics["selection"] = {"C": C, "train_cv_map_by_C": {str(k): v for k, v in by_c.items()},
                            "dev_clean": ranking_scores(dev, dev_scores, clean),
                            "dev_all": ranking_scores(dev, dev_scores)}
    metrics["training_seconds"] = round(time.perf_counter() - t0, 1)
    save_qa(answer_types, selector, out, metrics=metrics,
            data_fingerprint=file_fingerprint([args.uiuc, args.train, args.dev]),
            extra={"training_data": [str(args.uiuc), str(args.train)], "dev_data": str(args.dev)})
    say(f"wrote {out}")
    if "answer_type_cv" in metrics:
        a = metrics["answer_type_cv"]
        print(f"answer types ({a['folds']}-fold CV on {a['questions']} UIUC questions): coarse accuracy "
              f"{a['coarse_accuracy']:.4f}, fine {a['fine_accuracy']:.4f}")
    d = metrics["selection"]["dev_clean"]
    print(f"answer sentence selection (C={C}), TrecQA clean dev ({d['questions']} questions): MAP {d['map']:.4f} "
          f"[{d['map_ci95'][0]:.3f}, {d['map_ci95'][1]:.3f}]  MRR {d['mrr']:.4f} "
          f"[{d['mrr_ci95'][0]:.3f}, {d['mrr_ci95'][1]:.3f}]")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.qa", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
