"""The default truecaser's additions to the paper's decoder, switched on and off
one at a time, on dev and on the two news sets.

Rows: the paper's trigram decoder (``textqa truecase --decoder trigram``: trigram LM + OOV model),
then + cased-phrase scores (``phrase_weight``), + part-by-part casing of unseen compounds
(``compound_casing``), and both (the default); the OOV model's share is measured by switching it
off in the last row (``oov_weight=0``: unseen words get the LM's UNKNOWN_* classes only, paper
section 2.3).  Dev, WSJ section 20 and the Reuters-21578 test split are all text the model has not
seen; nothing is chosen here.  For a model trained with ``--discriminative``, the rows are decoded
without the pass and a last row with it (the model's LM was trained without the held-out text);
likewise for a model with a class LM (the default since it became one), without the class LM and a
row with it, and for one with a sentence-context model (the default since it became one), without
it and a last row with it.

    python dev/truecaser_ablation.py [--artifacts DIR]

Needs the default truecaser artifact (``make train``); about a minute.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textqa.models.truecaser.options import TRIGRAM_DECODER  # noqa: E402 (after the path set-up)

ROWS = [
    ("paper's trigram decoder + OOV model (`--decoder trigram`)", dict(TRIGRAM_DECODER)),
    ("+ cased phrases", dict(phrase_weight=0.5, compound_casing=False)),
    ("+ compound casing", dict(phrase_weight=0.0, compound_casing=True)),
    ("+ both (the default without its class LM and sentence-context model: `--no-class-lm --no-context`)",
     dict(phrase_weight=0.5, compound_casing=True)),
    ("same without the OOV model (`oov_weight=0`)", dict(phrase_weight=0.5, compound_casing=True, oov_weight=0.0)),
]


def main(argv=None) -> int:
    from bench.truecaser import default_model_and_sets, score_cells
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: artifacts/)")
    args = p.parse_args(argv)
    model, _, sets = default_model_and_sets(args.artifacts)
    defaults = model.get_params()
    print("| decoder | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets) + " |")
    print("|---|" + "---:|" * (2 * len(sets)))
    rows = [(name, {"discriminative": "none", "class_lm_weight": 0.0, "context_weight": 0.0, **params})
            for name, params in ROWS]
    if getattr(model, "reranker_", None) is not None:
        rows.append((f"default + discriminative pass ({defaults['discriminative']})",
                     dict(phrase_weight=0.5, compound_casing=True, discriminative=defaults["discriminative"])))
    ctx = getattr(model, "context_", None)
    if getattr(model, "classes_", None) is not None:
        rows.append((f"+ class LM ({len(model.classes_.names)} classes, order {model.class_lm_.order}, weight "
                     f"{defaults['class_lm_weight']:g})" + ("" if ctx else ": the default"),
                     dict(phrase_weight=0.5, compound_casing=True, class_lm_weight=defaults["class_lm_weight"],
                          context_weight=0.0)))
    if ctx is not None:
        rows.append((f"**+ sentence-context model ({len(ctx):,} words, weight {defaults['context_weight']:g}): the "
                     f"default**", dict(phrase_weight=0.5, compound_casing=True,
                                        class_lm_weight=defaults["class_lm_weight"] if model.classes_ else 0.0,
                                        context_weight=defaults["context_weight"])))
    for name, params in rows:
        model.set_params(**{**{k: defaults[k] for k in ("phrase_weight", "compound_casing", "oov_weight",
                                                        "context_weight")}, **params})
        print(f"| {name} | " + " | ".join(score_cells(model, sets)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
