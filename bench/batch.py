"""``textqa batch`` benchmark -> bench/RESULTS.md (``make bench``, ``python -m bench.batch``).

In one run, on inputs made by repeating the bundled data to size (the same lines again, ICD-9
records with new ids):

* ``textqa batch truecase --tokenized`` on ``--lines`` tokenized lines (default 1,000,000) and
  ``textqa batch icd9`` on ``--docs`` CMC records (default 100,000): lines or documents per second
  of the single-process command (``textqa truecase --tokenized``, ``textqa icd9 code``) and of
  ``textqa batch --scheduler local`` with 1 and 2 workers, end to end (process start, cluster
  start, model loads, reading, writing); every output is checked byte-identical to the
  single-process one;
* the per-partition overhead: the ICD-9 run again with partitions of 100 documents instead of
  10,000, (extra seconds) / (extra partitions);
* the peak memory of the client and of each worker process (RSS, sampled every 0.2 s), the peak of
  the client's descendants' summed proportional set size (PSS, once a second: the workers share the
  model's pages with the forkserver that loaded it, which RSS counts once in each), and the time one
  process takes to load each model.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class PeakRSS:
    """Peak resident memory of a process and of each of its descendants, sampled."""

    def __init__(self, pid: int):
        import psutil
        self.root, self.peak, self._stop = psutil.Process(pid), {}, threading.Event()
        self.pss = 0        # peak of the descendants' summed PSS
        self.direct: set = set()      # the pids of its own children (a forkserver; the workers are its children)
        self._samples = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        import psutil
        while not self._stop.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                return
            for p in procs:
                try:
                    if p.ppid() == self.root.pid:
                        self.direct.add(p.pid)
                    rss = p.memory_info().rss
                    self.peak[p.pid] = max(self.peak.get(p.pid, 0), rss)
                except psutil.Error:
                    pass
            if self._samples % 5 == 0 and len(procs) > 1:
                self.pss = max(self.pss, sum(map(_pss, procs[1:])))
            self._samples += 1
            self._stop.wait(0.2)

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join()
        return self.peak


def _pss(proc) -> int:
    """A process's proportional set size in bytes (``/proc/PID/smaps_rollup``; 0 if it is gone)."""
    try:
        with open(f"/proc/{proc.pid}/smaps_rollup") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("Pss:"))
    except (OSError, StopIteration):
        return 0


def run(cmd: list, stdin=None, stdout=None) -> tuple[float, int, dict, int]:
    """(wall seconds, the command's peak RSS, {grandchild pid: peak RSS}, the peak of all its
    descendants' summed PSS), in bytes; it must succeed.  The grandchildren are a local cluster's
    workers (its forkserver's children)."""
    t = time.perf_counter()
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as fin, \
            open(stdout, "wb") if stdout else open(os.devnull, "wb") as fout:
        proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", *map(str, cmd)], stdin=fin, stdout=fout,
                                stderr=subprocess.PIPE, cwd=ROOT)
        rss = PeakRSS(proc.pid)
        _, err = proc.communicate()
    peak = rss.stop()
    if proc.returncode:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed:\n{err.decode()[-2000:]}")
    own = peak.pop(proc.pid, 0)
    workers = {pid: b for pid, b in peak.items() if pid not in rss.direct}
    return time.perf_counter() - t, own, workers, rss.pss


def side_by_side(cmd: list, src: Path, kind: str, folder: Path, ref: Path) -> float:
    """Wall seconds of the single-process command run on each half of ``src``'s lines at once, in two
    plain processes: what two cores give without Dask, the bound of a two-worker batch run on this
    machine (whose client, scheduler and workers share the same cores).  Their outputs, one after
    the other, must be the single command's."""
    lines = src.read_bytes().splitlines(keepends=True)
    halves = [folder / f"{kind}-half{i}.in" for i in (0, 1)]
    halves[0].write_bytes(b"".join(lines[:len(lines) // 2]))
    halves[1].write_bytes(b"".join(lines[len(lines) // 2:]))
    outs = [h.with_suffix(".out") for h in halves]
    t = time.perf_counter()
    procs = []
    for half, out in zip(halves, outs):
        args = [str(half) if str(a) == str(src) else str(a) for a in cmd]
        fin = open(half, "rb") if kind == "truecase" else open(os.devnull, "rb")
        procs.append((subprocess.Popen([sys.executable, "-m", "textqa.cli", *args], stdin=fin, stdout=open(out, "wb"),
                                       stderr=subprocess.DEVNULL, cwd=ROOT), fin))
    for proc, fin in procs:
        if proc.wait():
            raise SystemExit(f"{kind}: a half failed")
        fin.close()
    took = time.perf_counter() - t
    if b"".join(o.read_bytes() for o in outs) != ref.read_bytes():
        raise SystemExit(f"{kind}: the two halves' outputs differ from the single process's")
    for f in halves + outs:
        f.unlink()
    return took


def make_inputs(folder: Path, n_lines: int, n_docs: int) -> tuple[Path, Path]:
    from textqa.models.icd9.records import read_cmc_xml
    from textqa.runtime.paths import DATA_DIR
    with gzip.open(DATA_DIR / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        lines = [l for l in f if l.strip()]
    text = folder / "lines.txt"
    with open(text, "w", encoding="utf-8") as out:
        for i in range(n_lines):
            out.write(lines[i % len(lines)])
    records = read_cmc_xml(DATA_DIR / "icd9" / "cmc2007_train_dev80.xml.gz")
    docs = folder / "records.jsonl"
    with open(docs, "w", encoding="utf-8") as out:
        for i in range(n_docs):
            r = records[i % len(records)]
            out.write(json.dumps({"id": f"{r.id}-{i // len(records)}", "sections": r.sections}) + "\n")
    return text, docs


def load_seconds(kind: str, folder: Path) -> float:
    code = {"truecase": "from textqa.models.truecaser.service_api import TruecaserService as M; M.load",
            "icd9": "from textqa.models.icd9.store import load_coder as load; load"}[kind]
    script = (f"import time; {code.split(';')[0]}; t = time.perf_counter(); "
              f"{code.split(';')[1].strip()}({str(folder)!r}); print(time.perf_counter() - t)")
    return float(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                                cwd=ROOT).stdout)


def main(argv=None) -> int:
    from bench.report import write_section
    from textqa.runtime.paths import artifacts_dir

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=None)
    p.add_argument("--lines", type=int, default=1_000_000, help="tokenized lines to truecase (default 1,000,000)")
    p.add_argument("--docs", type=int, default=500_000,
                   help="ICD-9 records to code (default 500,000: about half a minute for one process, so that "
                        "the cluster's start is not most of a run)")
    p.add_argument("--rounds", type=int, default=2,
                   help="runs of every configuration, in turn; each one's quickest is kept (default 2)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = p.parse_args(argv)
    arts = artifacts_dir(args.artifacts)
    mb = lambda b: b / 2**20
    rows, notes = [], []
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        tmp = Path(tmp)
        print(f"making inputs: {args.lines:,} lines, {args.docs:,} records", file=sys.stderr)
        text, docs = make_inputs(tmp, args.lines, args.docs)
        jobs = {"truecase": (text, args.lines, "lines", ["truecase", "--tokenized", "--model", arts / "truecaser"],
                             ["--tokenized", "--model", arts / "truecaser"], "textqa truecase --tokenized < IN"),
                "icd9": (docs, args.docs, "documents", ["icd9", "code", "--jsonl", docs, "--model", arts / "icd9"],
                         ["--model", arts / "icd9"], "textqa icd9 code --jsonl IN")}
        for kind, (src, n, unit, single_cmd, opts, single_name) in jobs.items():
            ref = tmp / f"{kind}.single"
            # every configuration once a round, in turn, each one's quickest run kept: the machine's
            # speed drifts over minutes, and a drift then reaches the single process and the batch runs
            # alike instead of favouring whichever ran in a faster minute
            runs: dict = {}         # configuration -> [(seconds, client or own peak RSS, workers' peak RSS)]
            for round_ in range(args.rounds):
                print(f"{kind}: single process (round {round_ + 1} of {args.rounds})", file=sys.stderr)
                secs, own, _, _ = run(single_cmd, stdin=src if kind == "truecase" else None, stdout=ref)
                runs.setdefault("single", []).append((secs, own, [], 0))
                runs.setdefault("bound", []).append((side_by_side(single_cmd, src, kind, tmp, ref), float("nan"), [], 0))
                for workers in (1, 2):
                    print(f"{kind}: batch, {workers} worker(s) (round {round_ + 1} of {args.rounds})", file=sys.stderr)
                    out = tmp / f"{kind}.{workers}"
                    secs, client, peak, pss = run(["batch", kind, src, out, "--workers", workers, *opts])
                    if out.read_bytes() != ref.read_bytes():
                        raise SystemExit(f"{kind}: textqa batch output differs from {single_name}")
                    big = sorted(peak.values(), reverse=True)[:workers]      # the workers
                    runs.setdefault(workers, []).append((secs, client, big, pss))
                    out.unlink()
            quickest = {key: min(rs, key=lambda r: r[0]) for key, rs in runs.items()}   # a row: its quickest run
            base = n / quickest["single"][0]
            for key, name in (("single", single_name),
                              ("bound", "upper bound: the two halves of IN, one such command each, side by side"),
                              (1, f"textqa batch {kind} --workers 1"), (2, f"textqa batch {kind} --workers 2")):
                secs, rss, big, pss = quickest[key]
                rows.append((kind, name, secs, n / secs, (n / secs) / base, mb(rss),
                             ", ".join(f"{mb(b):,.0f}" for b in big) or "-", f"{mb(pss):,.0f}" if pss else "-"))
            notes.append(f"- {kind}, seconds round by round: " + "; ".join(
                f"{label} " + ", ".join(f"{r[0]:.1f}" for r in runs[key])
                for key, label in (("single", "single process"), ("bound", "upper bound"), (1, "1 worker"),
                                   (2, "2 workers"))) + ".")
        size = max(1, args.docs // 1000)
        print(f"icd9: partitions of {size} (overhead)", file=sys.stderr)
        out = tmp / "icd9.small"
        small, _, _, _ = run(["batch", "icd9", docs, out, "--workers", 2, "--partition-size", size, "--model",
                           arts / "icd9"])
        if out.read_bytes() != (tmp / "icd9.single").read_bytes():
            raise SystemExit(f"icd9: output with partitions of {size} differs")
        large = next(r[2] for r in rows if r[1] == "textqa batch icd9 --workers 2")
        n_small, n_large = -(-args.docs // size), -(-args.docs // 10000)
        overhead = (small - large) / (n_small - n_large)
        # the fixed cost of a run: the same command on the 782 records once (one partition), in which
        # the process's and the cluster's start and stop are most of the time
        few = tmp / "few.jsonl"
        with open(docs, "rb") as f:
            few.write_bytes(b"".join(next(f) for _ in range(min(782, args.docs))))
        fixed = min(run(["batch", "icd9", few, tmp / "few.out", "--workers", 2, "--model", arts / "icd9"])[0]
                    for _ in range(3))
        fixed_single = min(run(["icd9", "code", "--jsonl", few, "--model", arts / "icd9"], stdout=tmp / "few.ref")[0]
                           for _ in range(3))
        if (tmp / "few.out").read_bytes() != (tmp / "few.ref").read_bytes():
            raise SystemExit("icd9: the one-partition batch output differs from textqa icd9 code's")
        loads = {k: load_seconds(k, arts / d) for k, d in (("truecase", "truecaser"), ("icd9", "icd9"))}

    lines = ["## Batch inference on Dask (`make bench`, `python -m bench.batch`)", "",
             f"Run on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, one machine; "
             f"inputs: the bundled truecaser dev input repeated to {args.lines:,} tokenized lines, the 782 CMC "
             f"2007 records repeated to {args.docs:,} (new ids). Times are end to end (process start, "
             "LocalCluster start, model loads, reading, writing); every batch output was checked byte-identical "
             f"to the single-process command's. Default partitions (10,000 lines). Each configuration runs once a round, "
             f"in turn, over {args.rounds} rounds; the table keeps each one's quickest run.", "",
             "| model | command | seconds | items/s | x single | client peak RSS (MB) | worker peak RSS (MB) "
             "| forkserver and workers, peak PSS (MB) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for kind, name, secs, rate, ratio, client, workers, pss in rows:
        shown = name if name.startswith("upper bound") else f"`{name}`"
        mem = "-" if client != client else f"{client:,.0f}"          # nan: not measured
        lines.append(f"| {kind} | {shown} | {secs:,.1f} | {rate:,.0f} | {ratio:.2f} | {mem} | {workers} | {pss} |")
    lines += ["",
              f"- Per-partition overhead: **{overhead * 1000:.1f} ms** per partition (ICD-9 with 2 workers: "
              f"{n_small:,} partitions of {size:,} documents took {small:.1f} s, {n_large} of 10,000 took {large:.1f} s).",
              f"- Fixed cost of a run: `textqa batch icd9 --workers 2` on the 782 records (one partition) takes "
              f"**{fixed:.1f} s** end to end (best of 3), against {fixed_single:.1f} s for `textqa icd9 code`: "
              f"starting and stopping the local cluster (a scheduler, two nannies, two workers) costs about "
              f"{fixed - fixed_single:.1f} s a run, which an input must outweigh (at {args.docs:,} records the "
              f"2-worker run spends {max(0.0, large - fixed):.1f} s past it).",
              f"- Model load in a process of its own: truecaser {loads['truecase']:.2f} s, ICD-9 "
              f"{loads['icd9']:.2f} s. A local cluster's forkserver loads the model once, while the scheduler "
              "and the nannies start, and its workers fork with it loaded; a worker's RSS counts the pages it "
              "shares with the forkserver and the other worker, the PSS column divides them among the processes.",
              "- One worker can beat the single process: the client reads and writes while the worker computes "
              "(two processes). Two workers on 2 cores share them with the client and the scheduler; the "
              "upper-bound row is what the two cores give two plain processes with no Dask at all, each "
              "loading the model itself. See `docs/scaling.md` for what these numbers mean on 10 and 100 "
              "machines.", *notes]
    write_section(args.out, "batch", lines, extra=("textqa.models", "textqa.cli", "textqa.runtime"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
