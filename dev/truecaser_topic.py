"""Issue 14, accuracy: the sentence-context model's settings (:mod:`textqa.models.truecaser.context`).

Each ambiguous known word gets a logistic regression of its casing given the other words of its
sentence, added to the search's emission scores with weight W (docs/truecaser.md, "The sentence's
words").  This script refits that part of the default artifact on its own training text for each
sample cap and C given, with the product's code (:meth:`Truecaser.fit_context`), and scores each
weight W on dev, WSJ section 20 and the Reuters-21578 test split.  Nothing but the model's own
training text is used to fit; choose on dev.

    python dev/truecaser_topic.py [--caps 3000 10000] [--C 1] [--weights 0.5 0.75 1] [--min-weight 0.2]

Needs the default artifact and its tokenized training text in ``.cache/`` (``textqa train
truecaser`` writes both); about 2 minutes to read the samples, 2 (cap 3,000) to 4 (cap 10,000)
minutes to fit, then 20 s a weight.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    from bench.truecaser import default_model_and_sets, score_cells, training_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", type=Path, default=None,
                   help="tokenized training text (default: the default corpus as training caches it in .cache/)")
    p.add_argument("--caps", type=int, nargs="+", default=[3000, 10000], help="samples per word and casing")
    p.add_argument("--C", type=float, nargs="+", default=[1.0], help="inverse L2 strength(s) (default 1)")
    p.add_argument("--weights", type=float, nargs="+", default=[0.5, 0.75, 1.0])
    p.add_argument("--min-weight", type=float, default=0.2, help="weights kept: |w| above this (default 0.2)")
    p.add_argument("--max-lines", type=int, default=0, help="read only the first N training lines")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: artifacts/)")
    args = p.parse_args(argv)
    t0 = time.time()
    say = lambda msg: print(f"[{time.time() - t0:5.0f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    model, dev, sets = default_model_and_sets(args.artifacts)
    sentences = training_sentences(model, dev, args.corpus, args.max_lines)   # as `textqa train truecaser` trains
    say(f"{len(sentences):,} training sentences")
    print("| samples a casing | C | W | weights kept | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets) + " |")
    print("|---:|---:|---:|---:|" + "---:|" * (2 * len(sets)))
    model.set_params(context_weight=0.0)
    print("| | | 0 | | " + " | ".join(score_cells(model, sets)) + " |", flush=True)
    for cap in args.caps:
        for C in args.C:
            model.set_params(context_cap=cap, context_C=C, context_min_weight=args.min_weight)
            model.fit_context(sentences, progress=say)
            for w in args.weights:
                model.set_params(context_weight=w)
                print(f"| {cap:,} | {C:g} | {w:g} | {len(model.context_.data):,} | "
                      + " | ".join(score_cells(model, sets)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
