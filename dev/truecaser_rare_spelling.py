"""Issue 14, accuracy: the OOV model's spelling evidence for rare known words too (not kept).

The default decoder scores an unseen word's casings with the character-level OOV model
(:mod:`textqa.models.truecaser.oov`).  A word seen only a few times has casing counts that are
nearly as thin ("calvados": 3 times lowercase, 3 times capitalised), so this adds the same evidence,
``W * (log10 P(class | spelling) - log10 P(class))``, to each candidate casing of a known word
seen at most K times in training with two or more candidates, on top of everything the default
decoder scores (added to the emission scores, as the phrase scores are, so the search stays exact).
K = 0 or W = 0 gives the default's scores (a check of the script).

    python dev/truecaser_rare_spelling.py [--max-counts 5 10 20] [--weights 0.5 1] [--artifacts DIR]

Needs the default truecaser artifact; about 6 s a setting on dev, WSJ section 20 and the
Reuters-21578 test split.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def add_rare_spelling(model, setting: dict) -> None:
    """Make ``model`` add the OOV model's spelling evidence, weighted ``setting["w"]``, to the
    candidates of known words seen at most ``setting["K"]`` times (read at each batch)."""
    from bench.truecaser import add_emission_scores
    from textqa.models.truecaser.casing import case_class
    forms, ratios = model.casing_.forms, {}

    def scores(low, sent_off):
        out, k, w = {}, setting["K"], setting["w"]
        if not w:
            return out
        for i, word in enumerate(low):
            f = forms.get(word)
            if not f or len(f) < 2 or sum(c for _, c in f) > k:
                continue
            cands = model._candidate_forms(word)
            if len(cands) < 2:
                continue
            if word not in ratios:
                ratios[word] = model.oov_.log10_ratio([word])[0]
            out[i] = [w * ratios[word].get(case_class(c), 0.0) for c in cands]
        return out
    add_emission_scores(model, scores)


def main(argv=None) -> int:
    from bench.truecaser import default_model_and_sets, score_cells
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--max-counts", type=int, nargs="+", default=[5, 10, 20],
                   help="K: known words seen at most this many times get the evidence")
    p.add_argument("--weights", type=float, nargs="+", default=[0.5, 1.0], help="W: its weight")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: artifacts/)")
    args = p.parse_args(argv)
    model, _, sets = default_model_and_sets(args.artifacts)
    setting = {"K": 0, "w": 0.0}
    add_rare_spelling(model, setting)
    print("| max count K | weight W | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets) + " |")
    print("|---:|---:|" + "---:|" * (2 * len(sets)))
    for k, w in [(0, 0.0)] + [(k, w) for k in args.max_counts for w in args.weights]:
        setting.update(K=k, w=w)
        print(f"| {k} | {w:g} | " + " | ".join(score_cells(model, sets)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
