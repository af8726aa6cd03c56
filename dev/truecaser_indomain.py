"""The truecaser on Wikipedia text like its training text but not trained on.

Dev (Coster & Kauchak) is 2010 Wikipedia sentences picked for a simplification corpus; the LM
learns from a 2015 dump.  How much of the gap to the target is that mismatch?  A model
trained with ``textqa train truecaser --discriminative ...`` keeps one block of 500 consecutive
training sentences in 40 out of everything it learns (LM, casing table, phrase table, OOV model;
:func:`textqa.models.truecaser.rerank.held_out`).  This script rebuilds that split from the
default training data (it must match the artifact's manifest), keeps the Wikipedia blocks, and
scores each decoder of ``dev/truecaser_ablation.py`` on them and on dev, all without the
discriminative pass (whose weights were learned on exactly these sentences).

    textqa train truecaser --discriminative local --out DIR   # 3 minutes, 3.8 GB
    python dev/truecaser_indomain.py --artifacts DIR [--errors N]

``--errors N`` also prints N random errors of the default decoder on the held-out text with their
context, for reading.  Takes about a minute (the tokenised corpus cached by the training run).
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dev.truecaser_ablation import ROWS  # noqa: E402 (after the path set-up)


def held_out_wikipedia(expected: int) -> list[str]:
    """The Wikipedia sentences the ``--discriminative`` training run held out of the default data
    (``expected``: the number held out in all, from the artifact's manifest, as a check)."""
    from textqa.models.truecaser import rerank
    from textqa.runtime.paths import PUNKT_DIR, cache_dir
    from bench.truecaser import dev_sentences
    from textqa.training.corpus import drop_overlap, tokenized_corpus
    from textqa.training.truecaser import DEFAULT_DATA
    sents = tokenized_corpus(DEFAULT_DATA, PUNKT_DIR, cache_dir(), n_jobs=2)
    sents, _ = drop_overlap(sents, dev_sentences())
    n_wiki = len(sents) - len(tokenized_corpus([p for p in DEFAULT_DATA if "reuters" in str(p)], PUNKT_DIR,
                                               cache_dir(), n_jobs=2))
    mask = rerank.held_out(len(sents))
    if sum(mask) != expected:
        raise SystemExit(f"the artifact held out {expected:,} sentences, the default data's split gives "
                         f"{sum(mask):,}: was it trained on other data or with --max-sentences?")
    return [s for i, (s, h) in enumerate(zip(sents, mask)) if h and i < n_wiki]


def main(argv=None) -> int:
    from textqa.evaluation.truecase import score_truecase
    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.runtime.paths import artifacts_dir
    from bench.truecaser import dev_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root of a --discriminative model")
    p.add_argument("--errors", type=int, default=0, help="print this many random held-out errors of the default")
    args = p.parse_args(argv)
    folder = artifacts_dir(args.artifacts) / "truecaser"
    service = TruecaserService.load(folder)
    model = service.model
    expected = service.manifest.get("metrics", {}).get("training_sentences_held_out_for_discriminative")
    if getattr(model, "reranker_", None) is None or not expected:
        raise SystemExit(f"{folder} was not trained with --discriminative: it held nothing out "
                         "(train one with `textqa train truecaser --discriminative local --out DIR`)")
    held = held_out_wikipedia(expected)
    dev = dev_sentences()
    print(f"held-out Wikipedia: {len(held):,} sentences, {sum(len(s.split()) for s in held):,} tokens",
          file=sys.stderr)
    defaults = model.get_params()
    sets = {"held-out Wikipedia (2015)": held, "dev (Coster & Kauchak)": dev}
    print("| decoder | " + " | ".join(f"{n} accuracy | P | R | F1" for n in sets) + " |")
    print("|---|" + "---:|" * (4 * len(sets)))
    for name, params in ROWS:
        model.set_params(**{**{k: defaults[k] for k in ("phrase_weight", "compound_casing", "oov_weight")},
                            "discriminative": "none", **params})
        cells, preds = [], {}
        for set_name, gold in sets.items():
            preds[set_name] = model.predict([s.lower() for s in gold])
            s = score_truecase(gold, preds[set_name])
            cells += [f"{s.accuracy:.2f}", f"{s.precision:.2f}", f"{s.recall:.2f}", f"{s.f1:.2f}"]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
        if args.errors and name.startswith("**"):
            errors = [(g.split(), o.split(), i) for g, o in zip(held, preds["held-out Wikipedia (2015)"])
                      for i, (a, b) in enumerate(zip(g.split(), o.split())) if a != b]
            for g, o, i in random.Random(0).sample(errors, min(args.errors, len(errors))):
                print("  " + " ".join(f"[{g[j]}|{o[j]}]" if j == i else g[j]
                                      for j in range(max(0, i - 6), min(len(g), i + 5))), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
