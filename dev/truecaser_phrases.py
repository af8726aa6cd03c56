"""Issue 14 items 2 and 6: the cased-phrase scores (``textqa.models.truecaser.phrases``) measured
on dev and on the two news sets, by weight and by the table's minimum count.

For each minimum count the table is counted from the default model's training text (the dev
sentences removed, as training removes them) and swapped into the default truecaser; each weight
is then set on the model (``phrase_weight``; 0 is the paper's trigram decoder) and the three sets
are lowercased, truecased and scored.  Dev, WSJ section 20 and the Reuters-21578 test split are all
text the table and the LM have not seen; the weight is chosen on dev alone.

    python dev/truecaser_phrases.py [--weights 0 0.25 0.5 0.75 1 2] [--min-counts 2 3]

Needs the default truecaser artifact (``make train``); about 5 minutes (the corpus is cached).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    from bench.truecaser import default_model_and_sets, score_cells
    from textqa.models.truecaser.phrases import PhraseTable
    from textqa.runtime.paths import PUNKT_DIR, cache_dir
    from textqa.training.corpus import drop_overlap, tokenized_corpus
    from textqa.training.truecaser import DEFAULT_DATA
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--weights", type=float, nargs="+", default=[0.0, 0.25, 0.5, 0.75, 1.0, 2.0],
                   help="phrase weights to score (default: 0 0.25 0.5 0.75 1 2)")
    p.add_argument("--min-counts", type=int, nargs="+", default=[2, 3],
                   help="minimum counts of the phrase table to score (default: 2 3)")
    args = p.parse_args(argv)
    model, dev, sets = default_model_and_sets()
    print("training text ...", file=sys.stderr, flush=True)
    train, _ = drop_overlap(tokenized_corpus(DEFAULT_DATA, PUNKT_DIR, cache_dir(), n_jobs=2), dev)
    print("| table min count | phrases | weight | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets) + " |")
    print("|---:|---:|---:|" + "---:|" * (2 * len(sets)))
    for min_count in args.min_counts:
        print(f"phrase table, min count {min_count} ...", file=sys.stderr, flush=True)
        model.phrases_ = PhraseTable.build(train, min_count)
        for w in args.weights:
            model.set_params(phrase_weight=w)
            print(f"| {min_count} | {len(model.phrases_):,} | {w:g} | " + " | ".join(score_cells(model, sets)) + " |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
