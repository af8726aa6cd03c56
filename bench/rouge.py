"""ROUGE benchmark -> bench/RESULTS.md (``make bench``, ``python -m bench.rouge``).

On NIST's DUC 2006 package (bundled; 45 summarizers x 200 jackknife evaluations, NIST's options
``-n 4 -w 1.2 -m -2 4 -u -c 95 -r 1000 -f A -p 0.5 -t 0 -d``):

* agreement of ``textqa eval rouge`` with NIST's official output (lines identical / lines);
* its time (in process, and as a command with its peak memory), and ROUGE-1.5.5.pl's on the same
  subset when perl with XML::DOM and DB_File is there (the Perl script is slow: it runs on the first
  ``--perl-evals`` evaluations of one summarizer, and ``textqa eval rouge`` on the same subset, both
  as commands, each in a process of its own: time, peak resident memory, and whether their output
  lines are identical);
* how far Google's ``rouge-score`` (0.1.2, Porter stemming on) is from ROUGE-1.5.5: system-level
  recall of ROUGE-1, -2 and -L (per evaluation the mean over its three models, then the mean over
  the first ``--rouge-score-evals`` evaluations) against the official per-evaluation recall
  averaged over the same evaluations: mean and largest absolute difference, and the Kendall tau
  of the two rankings of the 45 summarizers.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NIST = ["-n", "4", "-w", "1.2", "-m", "-2", "4", "-u", "-c", "95", "-r", "1000", "-f", "A", "-p", "0.5", "-t", "0", "-d"]
PERL = ROOT.parent / "shared" / "reference" / "ROUGE-1.5.5" / "ROUGE-1.5.5.pl"


def official(duc: Path) -> dict:
    out: dict = {}
    for line in open(duc / "rougejk.m.out", encoding="latin-1"):
        if not line.startswith(("---", "...")):
            out.setdefault(line.split(" ", 1)[0], []).append(line.rstrip("\n"))
    return out


def run_textqa(duc: Path, evals, peers) -> tuple[dict, float]:
    from textqa.evaluation.rouge import Options
    from textqa.evaluation.rouge_run import evaluate, format_result
    o = Options(max_n=4, weight="1.2", skip="4", unigrams=True, stem=True, per_eval=True)
    t = time.perf_counter()
    lines: dict = {}
    for res in evaluate(evals, peers, o):
        lines.setdefault(res.peer, []).extend(x for x in format_result(res, o) if not x.startswith(("---", "...")))
    return lines, time.perf_counter() - t


def perl_available() -> bool:
    if not PERL.exists() or not shutil.which("perl"):
        return False
    return subprocess.run(["perl", "-MXML::DOM", "-MDB_File", "-e", "1"], capture_output=True).returncode == 0


MEASURE = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
out = subprocess.run(sys.argv[1:], check=True, capture_output=True, text=True, encoding="latin-1").stdout
seconds = time.perf_counter() - t
sys.stdout.write(f"{seconds} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}\n" + out)
"""


def measured(cmd: list[str]) -> tuple[float, float, list[str]]:
    """(seconds, peak RSS in MB, output lines) of a command run in a process of its own."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], check=True, capture_output=True, text=True,
                         encoding="latin-1").stdout.splitlines()
    seconds, rss = map(float, out[0].split())
    return seconds, rss, out[1:]


def textqa_command(config: Path, *peers: str) -> list[str]:
    return [sys.executable, "-m", "textqa.cli", "eval", "rouge", *NIST, str(config), *peers]


def run_perl(duc: Path, config: Path, peer: str, work: Path) -> tuple[float, float, list[str]]:
    """ROUGE-1.5.5.pl on ``config`` for one peer: (seconds, peak RSS in MB, output lines); its data
    directory gets the exception database built from WordNet's lists (adj, adv, noun, verb) as NIST's was."""
    data = work / "perl-data"
    data.mkdir()
    src = PERL.parent / "data"
    shutil.copy(src / "smart_common_words.txt", data)
    exc = [str(src / "WordNet-2.0-Exceptions" / f"{p}.exc") for p in ("adj", "adv", "noun", "verb")]
    subprocess.run(["perl", "-MDB_File", "-e", 'tie %d,"DB_File",shift,O_CREAT|O_RDWR,0640,$DB_HASH or die;'
                    'for $f (@ARGV){open(I,$f)||die;while(<I>){chomp;@t=split(/\\s+/);$d{$t[0]}=$t[1];}close I}',
                    str(data / "WordNet-2.0.exc.db"), *exc], check=True)
    return measured(["perl", str(PERL), "-e", str(data), *NIST, str(config), peer])


def subset_config(duc: Path, n_evals: int, out: Path) -> Path:
    import re
    text = (duc / "rougejk.in").read_text(encoding="latin-1")
    text = text.replace("/home/barney1/duc/duc2006/eval/peers", str(duc / "peers"))
    text = text.replace("/home/barney1/duc/duc2006/eval/models", str(duc / "models"))
    blocks = re.findall(r"<EVAL.*?</EVAL>", text, re.S)[:n_evals]
    out.write_text('<ROUGE_EVAL version="1.5.5">\n' + "\n".join(blocks) + "\n</ROUGE_EVAL>\n", encoding="latin-1")
    return out


KINDS = (("rouge1", "ROUGE-1"), ("rouge2", "ROUGE-2"), ("rougeL", "ROUGE-L"), ("rougeLsum", "ROUGE-L"))


def rouge_score_gap(duc: Path, evals, gold: dict) -> tuple[list[str], float]:
    """System-level recall by rouge-score vs ROUGE-1.5.5's (official per-evaluation recall,
    averaged over the same evaluations)."""
    from rouge_score import rouge_scorer
    from scipy.stats import kendalltau
    scorer = rouge_scorer.RougeScorer([k for k, _ in KINDS], use_stemmer=True)
    text = {}

    def read(p: Path) -> str:
        if p not in text:
            text[p] = p.read_text(encoding="latin-1")
        return text[p]

    t = time.perf_counter()
    sums: dict = {}
    for e in evals:
        models = [read(p) for p in e.model_paths()]
        for pid in e.peers:
            peer = read(e.peer_path(pid))
            scores = [scorer.score(m, peer) for m in models]
            acc = sums.setdefault(pid, {k: 0.0 for k, _ in KINDS} | {"n": 0})
            for k, _ in KINDS:
                acc[k] += sum(s[k].recall for s in scores) / len(scores)
            acc["n"] += 1
    seconds = time.perf_counter() - t
    wanted = {e.id for e in evals}
    rows = ["| rouge-score | ROUGE-1.5.5 | mean abs. difference | largest | Kendall tau, 45-system rankings |",
            "|---|---|---:|---:|---:|"]
    for k, tag in KINDS:
        ours, theirs = [], []
        for pid, acc in sums.items():
            r = [float(x.split()[4][2:]) for x in gold[pid]
                 if x.startswith(f"{pid} {tag} Eval ") and x.split()[3].rsplit(".", 1)[0] in wanted]
            ours.append(sum(r) / len(r))
            theirs.append(acc[k] / acc["n"])
        diffs = [abs(a - b) for a, b in zip(ours, theirs)]
        tau = kendalltau(ours, theirs).statistic
        rows.append(f"| {k} recall | {tag} recall | {sum(diffs) / len(diffs):.4f} | {max(diffs):.4f} | {tau:.3f} |")
    rows.append("| (none) | ROUGE-W-1.2, ROUGE-SU4 | | | |")
    return rows, seconds


def main(argv=None) -> int:
    from bench.report import write_section
    from textqa.evaluation.rouge_input import read_config
    from textqa.runtime.paths import DATA_DIR
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--perl-evals", type=int, default=200,
                   help="evaluations of summarizer 1 the Perl script runs on (default 200: all of them)")
    p.add_argument("--rouge-score-evals", type=int, default=40,
                   help="evaluations rouge-score runs on (it is slow; default 40 of 200)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-rouge-") as tmp:
        work = Path(tmp)
        with tarfile.open(DATA_DIR / "eval" / "rouge" / "duc2006_rouge.tar.gz") as t:
            t.extractall(work, filter="data")
        duc = work / "ROUGE"
        gold = official(duc)
        evals = read_config(duc / "rougejk.in", str(duc / "peers"), str(duc / "models"))
        from textqa.evaluation.rouge_input import all_peers
        peers = all_peers(evals)
        lines, seconds = run_textqa(duc, evals, peers)
        same = sum(a == b for pid in peers for a, b in zip(lines[pid], gold[pid]))
        total = sum(len(gold[pid]) for pid in peers)
        mine_lens_ok = all(len(lines[pid]) == len(gold[pid]) for pid in peers)
        print(f"textqa: {same}/{total} official lines identical, {seconds:.1f} s")
        full = work / "full.in"
        full.write_text((duc / "rougejk.in").read_text(encoding="latin-1")
                        .replace("/home/barney1/duc/duc2006/eval/peers", str(duc / "peers"))
                        .replace("/home/barney1/duc/duc2006/eval/models", str(duc / "models")), encoding="latin-1")
        cmd_seconds, cmd_rss, _ = measured(textqa_command(full, "-a"))
        config = subset_config(duc, args.perl_evals, work / "sub.in")
        sub_seconds, sub_rss, sub_lines = measured(textqa_command(config, "1"))
        if perl_available():
            perl_seconds, perl_rss, perl_lines = run_perl(duc, config, "1", work)
            agree = sum(a == b for a, b in zip(sub_lines, perl_lines))
            perl_row = (f"| summarizer 1 over the first {args.perl_evals} evaluations (each as a command) | "
                        f"{sub_seconds:.2f} s, {sub_rss:,.0f} MB | {perl_seconds:.1f} s, {perl_rss:,.0f} MB | "
                        f"{perl_seconds / sub_seconds:.1f}x |")
            perl_note = (f"On that subset the two commands' output is **{agree:,} of {len(perl_lines):,} lines "
                         f"identical**{'' if len(sub_lines) == len(perl_lines) else ' (line counts differ)'}. "
                         "Times and peak resident memory are each command's whole process (start-up, reading, "
                         "scoring, the bootstrap).")
        else:
            perl_row = ("| ROUGE-1.5.5.pl | | not run: needs perl with XML::DOM and DB_File "
                        "(Debian: apt-get install libxml-dom-perl) | |")
            perl_note = ""
        gap, rs_seconds = rouge_score_gap(duc, evals[:args.rouge_score_evals], gold)
    lines_out = [
        "## ROUGE (`textqa eval rouge`, NIST's DUC 2006 package)",
        "",
        f"Official ROUGE-1.5.5 output reproduced: **{same:,} of {total:,} lines identical**"
        f"{'' if mine_lens_ok else ' (line counts differ)'} (45 summarizers, ROUGE-1..4, L, W-1.2, SU4: "
        "every Eval line and every Average_R/P/F line with its 95% interval).",
        "",
        "| run | textqa | ROUGE-1.5.5.pl | speed-up |",
        "|---|---:|---:|---:|",
        f"| all 45 summarizers x 200 evaluations x 7 measures (in process) | {seconds:.1f} s | | |",
        f"| the same as a command (`textqa eval rouge -a`) | {cmd_seconds:.1f} s, {cmd_rss:,.0f} MB | | |",
        perl_row,
        "",
        *([perl_note, ""] if perl_note else []),
        f"Google's `rouge-score` 0.1.2 (stemming on) against ROUGE-1.5.5 (the official per-evaluation recall), "
        f"system level over the first {args.rouge_score_evals} evaluations (rouge-score took {rs_seconds:.0f} s); "
        "`rougeL` is one LCS over the whole summary, `rougeLsum` the union LCS over sentences as ROUGE-1.5.5:",
        "",
        *gap,
    ]
    # the commands ran in subprocesses: name what they measured
    write_section(args.out, "rouge", lines_out, extra=("textqa.cli.eval.rouge", "textqa.metrics.rouge",
                                                        "textqa.runtime.metric_input"))
    print("\n".join(lines_out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
