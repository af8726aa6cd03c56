"""How far one machine goes for the truecaser's LM -> bench/RESULTS.md (``make bench``,
``python -m bench.lm_scale``).

Trains the truecaser (``textqa train truecaser --pretokenized``, default settings) on the first
quarter, half and all of the tokenized default corpus (the training's own cache,
``.cache/tokenized-*.txt.gz``, made by ``make train``), in one process, and on the half with
``--scheduler local --workers 2`` (the counting as a Dask map-reduce): wall time and peak resident
memory of every process (sampled every 0.2 s), with the training tokens and distinct n-grams the
artifact records.  The fitted line (MB per million tokens) says how big a corpus fits a machine.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    from bench.batch import run
    from bench.report import write_section

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", type=Path, default=None, help="tokenized sentences, one a line "
                                                             "(default: the default training corpus as "
                                                             "'make train' caches it tokenized in .cache/)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = p.parse_args(argv)
    if args.corpus is None:
        from textqa.runtime.paths import cache_dir
        from textqa.training.corpus import cached_sentences
        from textqa.training.truecaser import DEFAULT_DATA
        lines = cached_sentences(DEFAULT_DATA, cache_dir())
        if lines is None:
            raise SystemExit("the default corpus is not tokenized in .cache/ yet: run 'make train' first (it caches "
                             "each training file tokenized), or give --corpus")
    elif not args.corpus.exists():
        raise SystemExit(f"no tokenized corpus {args.corpus}")
    else:
        with gzip.open(args.corpus, "rt", encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f]
    n_lines = len(lines)
    dev = ROOT / "data" / "truecase" / "val_input.txt.gz"
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-lm-") as tmp:
        tmp = Path(tmp)
        cuts = {}
        for share in (0.25, 0.5, 1.0):
            path = tmp / f"corpus-{share}.txt"
            with open(path, "w", encoding="utf-8") as out:
                out.writelines(line + "\n" for line in lines[:int(n_lines * share)])
            cuts[share] = path
        for share, scheduler in ((0.25, None), (0.5, None), (1.0, None), (0.5, "local")):
            print(f"training on {share:.0%} of the corpus" + (" on a LocalCluster" if scheduler else ""),
                  file=sys.stderr)
            dest = tmp / f"tc-{share}-{scheduler}"
            cmd = ["train", "truecaser", "--data", cuts[share], "--pretokenized", "--dev", dev, "--out", dest]
            if scheduler:
                cmd += ["--scheduler", scheduler, "--workers", "2"]
            secs, own, children, _ = run(cmd)      # children: the cluster's workers
            m = json.loads((dest / "manifest.json").read_text())
            tokens, ngrams = m["training_tokens"], m["ngram_counts"]
            workers = sorted(children.values(), reverse=True)[:2] if scheduler else []
            rows.append((share, scheduler, secs, own, workers, tokens, ngrams, m["metrics"]["viterbi"]["f1"]))
            shutil.rmtree(dest)
    mb = lambda b: b / 2**20
    local = [(r[5], mb(r[3])) for r in rows if not r[1]]
    slope = (local[-1][1] - local[0][1]) / ((local[-1][0] - local[0][0]) / 1e6)
    lines = ["## How far one machine goes: truecaser LM training (`make bench`, `python -m bench.lm_scale`)", "",
             f"Run on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores; the default "
             f"tokenized training corpus ({n_lines:,} sentences) cut to a quarter, a half and all of it; default "
             "settings, dev F1 on the bundled Wikipedia dev set.", "",
             "| corpus | where | seconds | tokens | distinct trigrams | peak RSS (MB) | dev F1 |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for share, scheduler, secs, own, workers, tokens, ngrams, f1 in rows:
        where = "one process" if not scheduler else "LocalCluster, 2 workers"
        rss = f"{mb(own):,.0f}" + (f" client; workers {', '.join(f'{mb(w):,.0f}' for w in workers)}" if workers else "")
        lines.append(f"| {share:.0%} | {where} | {secs:,.0f} | {tokens:,} | {ngrams['3']:,} | {rss} | {f1:.2f} |")
    lines += ["", f"- One process needs about **{slope:,.0f} MB more per million training tokens** (fitted between "
                  "the smallest and the largest run); see the README for what that means."]
    write_section(args.out, "lm_scale", lines)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
