"""The default truecaser's four decode-time weights tuned together, and whether the tuning generalises.

Each weight of the default decoder was chosen on its own, at the time it joined the model: the class
LM's (``class_lm_weight``) and the cased phrases' (``phrase_weight``) before the sentence-context
model, the sentence-context model's (``context_weight``) and the OOV model's (``oov_weight``) after.
This script tunes them together by coordinate ascent on dev F1 (each weight in turn over its grid,
the others held, until a round changes nothing), which needs no retraining: every setting is one
``set_params`` and one decode of dev.

To see how much of a gain is dev's noise, the tuning is also cross-validated: dev is cut into blocks
of 100 consecutive sentences, the even blocks are one half and the odd blocks the other; the weights
tuned on one half are scored on the other.  A gain that holds out of the half it was tuned on is
one the benchmark's test split can expect; what only the tuned half shows is noise.  The weights
tuned on the whole of dev are then scored on WSJ section 20 and the Reuters-21578 test split, which
play no part in the choice.

    python dev/truecaser_joint_weights.py [--artifacts DIR] [--rounds 3]

Needs the default truecaser artifact (``make train``); about 3 s a setting on dev.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GRID = {
    "class_lm_weight": (0.1, 0.15, 0.2, 0.25, 0.3, 0.4),
    "phrase_weight": (0.25, 0.5, 0.75, 1.0),
    "context_weight": (0.25, 0.5, 0.75, 1.0),
    "oov_weight": (1.0, 1.5, 2.0, 2.5, 3.0),
}
BLOCK = 100
COUNTS = ("proposed", "gold_cased", "correct_cased")


def sentence_counts(gold: list[str], pred: list[str]) -> np.ndarray:
    """Per sentence, the (proposed, gold cased, correct cased) counts of :func:`.score_truecase`
    (Susanto et al. 2016's word-level scores), summable over any subset of the sentences."""
    from textqa.evaluation.truecase import score_truecase
    scores = (score_truecase([g], [p], keep_errors=0) for g, p in zip(gold, pred))
    return np.array([[getattr(s, f) for f in COUNTS] for s in scores], dtype=np.int64)


def f1(counts: np.ndarray) -> float:
    """F1 of summed :func:`sentence_counts`, as :class:`.TruecaseScores` computes it."""
    from textqa.evaluation.truecase import TruecaseScores
    return TruecaseScores(**{f: int(c) for f, c in zip(COUNTS, counts)}).f1


def tune(score, start: dict, rounds: int, log) -> dict:
    """Coordinate ascent of ``score(params)`` from ``start`` over :data:`GRID`; ties keep the current value."""
    best = dict(start)
    best_score = score(best)
    for r in range(rounds):
        changed = False
        for name, values in GRID.items():
            for v in values:
                if v == best[name]:
                    continue
                trial = {**best, name: v}
                s = score(trial)
                if s > best_score + 1e-9:
                    best, best_score, changed = trial, s, True
            log(f"round {r + 1}, {name}: {best} -> {best_score:.2f}")
        if not changed:
            break
    return best


def main(argv=None) -> int:
    from bench.truecaser import default_model_and_sets, score_cells
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: artifacts/)")
    p.add_argument("--rounds", type=int, default=3, help="at most this many rounds of coordinate ascent")
    args = p.parse_args(argv)
    model, dev, sets = default_model_and_sets(args.artifacts)
    defaults = {k: model.get_params()[k] for k in GRID}
    lower = [g.lower() for g in dev]
    blocks = np.arange(len(dev)) // BLOCK
    halves = {"even": blocks % 2 == 0, "odd": blocks % 2 == 1}
    memo: dict = {}
    t0 = time.perf_counter()

    def counts(params: dict) -> np.ndarray:
        key = tuple(sorted(params.items()))
        if key not in memo:
            model.set_params(**params)
            memo[key] = sentence_counts(dev, model.predict(lower))
        return memo[key]

    def log(msg):
        print(f"[{time.perf_counter() - t0:6.0f} s, {len(memo)} settings] {msg}", file=sys.stderr, flush=True)

    print("| tuned on | weights (class LM, phrases, sentence context, OOV) | even-block F1 | odd-block F1 | dev F1 |")
    print("|---|---|---:|---:|---:|")

    def row(name, params):
        c = counts(params)
        cells = [f"{f1(c[m].sum(0)):.2f}" for m in halves.values()] + [f"{f1(c.sum(0)):.2f}"]
        w = ", ".join(f"{params[k]:g}" for k in GRID)
        print(f"| {name} | {w} | " + " | ".join(cells) + " |", flush=True)

    row("(the default)", defaults)
    tuned = {}
    for half, mask in halves.items():
        tuned[half] = tune(lambda prm, m=mask: f1(counts(prm)[m].sum(0)), defaults, args.rounds, log)
        row(f"{half} blocks", tuned[half])
    tuned["dev"] = tune(lambda prm: f1(counts(prm).sum(0)), defaults, args.rounds, log)
    row("all of dev", tuned["dev"])

    print("\n| weights | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets) + " |")
    print("|---|" + "---:|" * (2 * len(sets)))
    for name, params in (("the default", defaults), ("tuned on all of dev", tuned["dev"])):
        model.set_params(**params)
        print(f"| {name} | " + " | ".join(score_cells(model, sets)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
