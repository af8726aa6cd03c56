"""How the default truecaser's dev F1 grows with its training text.

The default training text (two 2015 Wikipedia parts and the Reuters training documents, 38.6 M
tokens after the dev overlap is dropped) is cut into blocks of 500 consecutive sentences; the
subset of ``1/k`` keeps every k-th block, so each subset samples the whole corpus (every part,
every stretch of articles) rather than its beginning.  Each subset is written as tokenized text
and trained with ``textqa train truecaser --pretokenized`` (every default setting), and the
training run's own dev scores are read from the artifact's manifest; the full corpus is the
artifact given with ``--artifacts`` (the default model).

    python dev/truecaser_learning_curve.py [--fractions 8 4 2] [--work DIR] [--artifacts DIR]

About 1-2 minutes and up to 3.7 GB per subset; the subsets and their artifacts stay in ``--work``
(a temp dir by default), so a second run only reads them.

    python dev/truecaser_learning_curve.py --parts 1 2 3 [--work DIR] [--artifacts DIR]

trains instead on the first k of the four Wikipedia parts (whole articles, in dump order) with all
of the default's news text, for each k given, with ``textqa train truecaser --data ...`` (every
default setting; each file's tokenization is cached in ``.cache/``), and scores every model on dev,
WSJ section 20 and the Reuters test split: 8-20 minutes per model on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BLOCK = 500


def write_subsets(work: Path, fractions: list[int]) -> dict[int, Path]:
    """{k: tokenized text of every k-th block of the default training sentences}, written once."""
    from bench.truecaser import dev_sentences
    from textqa.runtime.paths import PUNKT_DIR, cache_dir
    from textqa.training.corpus import drop_heldout_paragraphs, tokenized_paragraphs
    from textqa.training.truecaser import DEFAULT_DATA
    paths = {k: work / f"train-1-of-{k}.txt" for k in fractions}
    if all(p.exists() for p in paths.values()):
        return paths
    paras = tokenized_paragraphs(DEFAULT_DATA, PUNKT_DIR, cache_dir(), n_jobs=2)
    sents, _ = drop_heldout_paragraphs(paras, dev_sentences())
    for k, path in paths.items():
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(s + "\n" for i, s in enumerate(sents) if (i // BLOCK) % k == 0)
    return paths


def main(argv=None) -> int:
    from textqa.runtime.paths import artifacts_dir
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fractions", type=int, nargs="+", default=[8, 4, 2],
                   help="train on 1/k of the default text for each k (default: 8 4 2)")
    p.add_argument("--parts", type=int, nargs="+", default=None, metavar="K",
                   help="train on the first K Wikipedia parts (1-3) and the news text, for each K given")
    p.add_argument("--work", type=Path, default=None, help="folder for the subsets and their artifacts")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root of the full-corpus model")
    args = p.parse_args(argv)
    if args.parts:
        return by_parts(args)
    if any(k < 2 for k in args.fractions):
        p.error("each fraction k must be 2 or more (the full corpus is the --artifacts model)")
    work = args.work or Path(tempfile.mkdtemp(prefix="truecaser-curve-"))
    work.mkdir(parents=True, exist_ok=True)
    subsets = write_subsets(work, sorted(set(args.fractions)))
    rows = []
    for k, text in sorted(subsets.items(), reverse=True):
        out = work / f"model-1-of-{k}"
        if not (out / "manifest.json").exists():
            print(f"training on 1/{k} of the default text", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "textqa.training.truecaser", "--data", str(text),
                            "--pretokenized", "--out", str(out)], check=True)
        rows.append((f"1/{k}", out / "manifest.json"))
    rows.append(("all (the default model)", artifacts_dir(args.artifacts) / "truecaser" / "manifest.json"))
    print("| training text | tokens | dev accuracy | dev P | dev R | dev F1 | unigram baseline dev F1 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, manifest in rows:
        m = json.loads(manifest.read_text())
        v, b = m["metrics"]["viterbi"], m["metrics"]["unigram_baseline"]
        print(f"| {name} | {m['training_tokens']:,} | {v['accuracy']:.2f} | {v['precision']:.2f} | {v['recall']:.2f} "
              f"| {v['f1']:.2f} | {b['f1']:.2f} |")
    return 0


def by_parts(args) -> int:
    """The learning curve over whole Wikipedia parts, scored on the three sets."""
    from bench.truecaser import default_model, dev_sentences, score_cells, scoring_sets
    from textqa.runtime.paths import artifacts_dir
    from textqa.training.truecaser import DEFAULT_DATA
    wiki = [p for p in DEFAULT_DATA if p.name.startswith("enwiki_")]
    news = [p for p in DEFAULT_DATA if p not in wiki]
    if any(not 1 <= k < len(wiki) for k in args.parts):
        raise SystemExit(f"each --parts K must be 1 to {len(wiki) - 1} (all {len(wiki)} is the --artifacts model)")
    work = args.work or Path(tempfile.mkdtemp(prefix="truecaser-curve-"))
    rows = []
    for k in sorted(set(args.parts)):
        out = work / f"parts-{k}" / "truecaser"
        if not (out / "manifest.json").exists():
            print(f"training on {k} Wikipedia part(s) and the news text", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "textqa.training.truecaser", "--data", *map(str, wiki[:k] + news),
                            "--out", str(out)], check=True)
        rows.append((f"{k} part{'s' * (k > 1)}", out))
    rows.append((f"{len(wiki)} parts (the default model)", artifacts_dir(args.artifacts) / "truecaser"))
    sets = scoring_sets(dev_sentences())
    print("| Wikipedia text | training tokens | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets) + " |")
    print("|---|---:|" + "---:|" * 2 * len(sets))
    for name, path in rows:
        m = json.loads((path / "manifest.json").read_text())
        print(f"| {name} | {m['training_tokens']:,} | " + " | ".join(score_cells(default_model(path.parent), sets))
              + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
