"""Golden sentence scores from KenLM's ``lmplz`` for ``tests/truecaser/test_lm.py``.

The project's own Kneser-Ney estimator (``textqa/models/truecaser/lm.py``) works at any order; this
script records what ``lmplz`` (interpolated modified Kneser-Ney, the reference implementation)
gives on a small slice of real text, so the tests can check the estimator against it without
Boost.  Training text: the first 2,000 lines of ``data/truecase/val_input.txt.gz`` (tokenized
Wikipedia); scored: the next 300 lines, each as the sum of the log10 probabilities of its words
seen in training and of ``</s>`` (the two give ``<unk>`` itself different probabilities; as a
context it is the same).  Orders 2 to 5, and count pruning (``lmplz --prune``) at orders 3, 4 and 5
(``PRUNED``; the thresholds of the orders not given repeat the last one).

    make lmplz && python dev/truecaser_lmplz_golden.py [--out tests/fixtures/lmplz/golden.json]
"""
from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from dev.truecaser_order import LMPLZ  # noqa: E402

N_TRAIN, N_TEST = 2000, 300
PRUNED = {"3 prune 0 0 1": (3, [0, 0, 1]), "4 prune 0 1 2": (4, [0, 1, 2]), "5 prune 0 0 1": (5, [0, 0, 1])}


def slices():
    """(training lines, scored lines) of the dev file, as the tests read them."""
    with gzip.open(ROOT / "data" / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        lines = [l.split() for _, l in zip(range(N_TRAIN + N_TEST), f)]
    return [s for s in lines[:N_TRAIN] if s], [s for s in lines[N_TRAIN:] if s]


def score_seen(lm, sentence: str) -> float:
    """log10 P of the words of ``sentence`` that ``lm`` knows, and of ``</s>``, in context."""
    return sum(lp for lp, _, oov in lm.full_scores(sentence) if not oov)


def main(argv=None) -> int:
    import kenlm
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "lmplz" / "golden.json")
    args = p.parse_args(argv)
    if not LMPLZ.exists():
        raise SystemExit(f"error: {LMPLZ} missing; run 'make lmplz' (needs root for the Boost packages)")
    train, test = slices()
    out = {"training_lines": N_TRAIN, "scored_lines": N_TEST, "sentences": [" ".join(s) for s in test],
           "log10_scores": {}}
    with tempfile.TemporaryDirectory() as tmp:
        text = Path(tmp) / "train.txt"
        text.write_text("".join(" ".join(s) + "\n" for s in train), encoding="utf-8")
        runs = {str(order): (order, []) for order in (2, 3, 4, 5)} | PRUNED
        for name, (order, prune) in runs.items():
            arpa = Path(tmp) / "lm.arpa"
            prune_args = ["--prune", *map(str, prune)] if prune else []
            with open(text, "rb") as src, open(arpa, "wb") as dst:
                subprocess.run([str(LMPLZ), "-o", str(order), *prune_args, "--discount_fallback", "-S", "20%",
                                "-T", tmp], stdin=src, stdout=dst, stderr=subprocess.DEVNULL, check=True)
            lm = kenlm.Model(str(arpa))
            out["log10_scores"][name] = [round(score_seen(lm, s), 5) for s in out["sentences"]]
            out.setdefault("ngram_counts", {})[name] = [int(l.split("=")[1]) for l in
                                                        arpa.read_text(encoding="utf-8").split("\n\n")[0].splitlines()[1:]]
    args.out.write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(test)} sentences, orders 2-5, {len(PRUNED)} pruned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
