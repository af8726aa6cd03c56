"""Scoring in Python (``textqa.metrics``) against its peers -> the "metrics" section of bench/RESULTS.md
(``python -m bench.metrics``).

WER over 1 M words: the dev set's Wikipedia sentences (``data/truecase/val_input.txt.gz``, real
text) cut into utterances of 100 words, each word then deleted, substituted or followed by an
inserted word with a fixed seed (the edits are synthetic, about 10% of the words), as two lists of
10,000 strings.  Each scorer runs in a fresh process of its own (time of the scoring call, best of
``--rounds``; peak resident memory of the process):

* ``textqa.metrics.WER()``: sclite's costs and alignment (what ``textqa eval wer`` reports);
* ``textqa.metrics.WER(costs="levenshtein", case_sensitive=True)``: jiwer's definition;
* the peer, jiwer 4 ``process_words`` (RapidFuzz's C++ Levenshtein);
* the command, ``textqa eval wer REF.stm HYP.ctm --json``, on the same words written as an STM
  reference (one segment per utterance) and a CTM hypothesis (a word a line, timed inside its
  segment): the whole process, reading the files included.
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS, PER_UTTERANCE = 1_000_000, 100

RUN = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
refs, hyps = json.load(open({data!r}))
which = {which!r}
if which == "jiwer":
    import jiwer
    go = lambda: jiwer.process_words(refs, hyps)
    rate = lambda o: o.wer
    parts = lambda o: (o.hits, o.substitutions, o.deletions, o.insertions)
else:
    from textqa.metrics import WER
    metric = WER() if which == "sclite" else WER(costs="levenshtein", case_sensitive=True)
    metric.corpus_score(hyps[:2], refs[:2])            # compile / load the alignment before timing
    go = lambda: metric.corpus_score(hyps, refs)
    rate = lambda o: o.rate
    parts = lambda o: (o.correct, o.substitutions, o.deletions, o.insertions)
t = time.perf_counter()
out = go()
seconds = time.perf_counter() - t
print(json.dumps({{"seconds": seconds, "rate": rate(out), "parts": parts(out),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def corpus(path: Path) -> tuple[list[str], list[str]]:
    words = []
    with gzip.open(ROOT / "data" / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        for line in f:
            words += line.split()
    rng = random.Random(2026)
    vocab = words[:50_000]
    refs, hyps = [], []
    for u in range(WORDS // PER_UTTERANCE):
        ref = [words[(u * PER_UTTERANCE + k) % len(words)] for k in range(PER_UTTERANCE)]
        hyp = []
        for w in ref:
            x = rng.random()
            if x < 0.03:
                continue
            hyp.append(rng.choice(vocab) if x < 0.07 else w)
            if x > 0.97:
                hyp.append(rng.choice(vocab))
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    path.write_text(json.dumps([refs, hyps]))
    return refs, hyps


def files(refs: list[str], hyps: list[str], folder: Path) -> tuple[Path, Path]:
    """The utterances as an STM reference (segment u from 10u to 10u + 10 seconds) and a CTM hypothesis
    (each word timed inside its utterance's segment)."""
    stm, ctm = folder / "ref.stm", folder / "hyp.ctm"
    with open(stm, "w", encoding="utf-8") as f:
        for u, ref in enumerate(refs):
            f.write(f"bench A spk {10 * u}.00 {10 * u + 10}.00 {ref}\n")
    with open(ctm, "w", encoding="utf-8") as f:
        for u, hyp in enumerate(hyps):
            words = hyp.split()
            for k, w in enumerate(words):
                f.write(f"bench A {10 * u + 9 * k / max(len(words), 1):.3f} 0.010 {w}\n")
    return stm, ctm


COMMAND = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
out = json.loads(subprocess.run(sys.argv[1:], check=True, capture_output=True, text=True).stdout)["overall"]
print(json.dumps({"seconds": time.perf_counter() - t, "rate": out["wer"],
                  "parts": (out["correct"], out["substitutions"], out["deletions"], out["insertions"]),
                  "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def run(which: str, data: Path) -> dict:
    if which == "command":
        stm, ctm = data.parent / "ref.stm", data.parent / "hyp.ctm"
        cmd = [sys.executable, "-c", COMMAND, sys.executable, "-m", "textqa.cli", "eval", "wer", str(stm), str(ctm),
               "--json"]
    else:
        cmd = [sys.executable, "-c", RUN.format(root=str(ROOT), data=str(data), which=which)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    from bench.report import write_section
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3, help="runs of each scorer, in turn; the fastest is kept")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = p.parse_args(argv)
    names = {"sclite": "`textqa.metrics.WER()` (sclite's costs and alignment)",
             "levenshtein": "`WER(costs=\"levenshtein\", case_sensitive=True)` (jiwer's definition)",
             "jiwer": "peer: jiwer 4 `process_words`",
             "command": "`textqa eval wer REF.stm HYP.ctm --json` (the whole command, reading the files)"}
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as tmp:
        data = Path(tmp) / "wer.json"
        refs, hyps = corpus(data)
        files(refs, hyps, Path(tmp))
        best: dict = {}
        for r in range(args.rounds):
            for which in names:
                print(f"bench: WER over 1 M words, {which} (round {r + 1} of {args.rounds})...", file=sys.stderr)
                res = run(which, data)
                if which not in best or res["seconds"] < best[which]["seconds"]:
                    best[which] = res
    peer = best["jiwer"]["seconds"]
    rows = [f"| {names[w]} | {b['seconds']:.2f} | {peer / b['seconds']:.2f}x | {b['rss_mb']:,.0f} | "
            f"{b['rate']:.6f} | {' / '.join(map(str, b['parts']))} |" for w, b in best.items()]
    same = best["levenshtein"]["parts"] == best["jiwer"]["parts"]
    errors = {w: sum(best[w]["parts"][1:]) for w in ("sclite", "levenshtein")}
    lines = [
        "## Scoring in Python (`python -m bench.metrics`)",
        "",
        f"WER over {WORDS:,} reference words: {len(refs):,} utterances of {PER_UTTERANCE} words of the dev set's "
        "Wikipedia sentences (real text), with about 10% synthetic edits (seeded deletions, substitutions and "
        f"insertions). Each scorer in a fresh process, the fastest of {args.rounds} runs of the scoring call; "
        "peak RSS of the whole process.",
        "",
        "| scorer | seconds | x jiwer's speed | peak RSS (MB) | WER | C / S / D / I |",
        "|---|---:|---:|---:|---:|---|",
        *rows,
        "",
        f"- With unit costs, textqa's counts {'equal' if same else 'DIFFER FROM'} jiwer's, C / S / D / I alike. "
        f"sclite's costs (substitution 4, insertion and deletion 3) find {errors['sclite']:,} errors against "
        f"{errors['levenshtein']:,} at unit cost, and split them differently.",
        f"- The command's counts {'equal' if best['command']['parts'] == best['sclite']['parts'] else 'DIFFER FROM'} "
        "`WER()`'s: the same words, read from the STM and CTM files, scored by the same object.",
    ]
    # the scorers ran in subprocesses: name what they measured
    write_section(args.out, "metrics", lines, extra=("textqa.metrics", "textqa.evaluation.wer", "textqa.runtime",
                                                      "textqa.cli.eval.wer"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
