"""Why a partition decodes more slowly in a Dask worker -> bench/RESULTS.md (``python -m bench.batch_worker``).

The same truecaser partitions (``--partitions`` of ``--lines`` lowercased dev lines each, the input of
``bench.batch``) are decoded by ``textqa batch``'s own task function (``textqa.cli.batch.run_partition``)
in several settings, one fresh process each, and timed inside the process that decodes them, after
the model's load and one warm-up partition:

* a plain process, in its main thread and in a second thread (the main thread waiting), as a Dask
  worker runs a task in a thread of its executor;
* the same with glibc's malloc as a Dask worker has it: ``MALLOC_TRIM_THRESHOLD_=65536``, which
  distributed's nanny sets before it starts a worker (``distributed.nanny.pre-spawn-environ``); and
  with one malloc arena (``MALLOC_ARENA_MAX=1``: a second thread allocates from the main arena);
* a second thread beside a busy asyncio loop in the main thread (timers every 10 ms that take the
  GIL, as a worker's event loop and profiler do);
* a real ``LocalCluster`` worker started as ``textqa batch`` starts it (forkserver, the task's modules
  preloaded; ``textqa.runtime.dask_cluster.LOCAL_WORKER_ENV``), with distributed's malloc setting
  put back, and with distributed's default profiler and monitor intervals put back.

For each: the decoding's wall seconds, the CPU seconds of the decoding thread, the process's minor
page faults and the decoding thread's involuntary context switches, so that each candidate cause is
measured alone.  A setting is run ``--repeat`` times and the fastest run is reported.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: What distributed's nanny sets in the environment before it starts a worker process (its
#: ``distributed.nanny.pre-spawn-environ`` default): glibc reads it when the process starts.
DASK_MALLOC = {"MALLOC_TRIM_THRESHOLD_": "65536"}


def partitions(n: int, lines: int) -> list[tuple[int, int, bytes]]:
    """(first line, byte offset, bytes) of ``n`` partitions of ``lines`` lowercased dev lines, as
    ``bench.batch`` makes its input (the dev input repeated)."""
    from textqa.runtime.paths import DATA_DIR
    from textqa.training.corpus import read_lines
    dev = [l.strip() for l in read_lines(DATA_DIR / "truecase" / "val_input.txt.gz") if l.strip()]
    out, i, offset = [], 0, 0
    for _ in range(n):
        data = "".join(dev[(i + k) % len(dev)].lower() + "\n" for k in range(lines)).encode()
        out.append((i + 1, offset, data))
        i, offset = i + lines, offset + len(data)
    return out


def _thread_usage() -> tuple[float, int]:
    u = resource.getrusage(resource.RUSAGE_THREAD)
    return u.ru_utime + u.ru_stime, u.ru_nivcsw


def decode_all(folder: str, n: int, lines: int) -> dict:
    """Load the truecaser as a batch worker does, decode one warm-up partition, then time ``n``
    partitions in the calling thread: wall and thread CPU seconds, minor faults, involuntary
    switches, garbage collections."""
    import gc

    from textqa.cli import batch
    from textqa.models.artifact import artifact_id, load_manifest
    parts = partitions(n + 1, lines)
    model_id = artifact_id(load_manifest(Path(folder), expect_name="truecaser"))
    opts = {"tokenized": True, "baseline": False}

    def one(first, offset, data):
        return batch.run_partition("truecaser", folder, model_id, {}, opts, "bench", first, first, offset, data)

    t = time.perf_counter()
    one(*parts[0])                          # the load and the first touch of the model's pages
    warm = time.perf_counter() - t
    gcs = sum(s["collections"] for s in gc.get_stats())
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    cpu0, ivcsw0 = _thread_usage()
    t = time.perf_counter()
    for p in parts[1:]:
        one(*p)
    wall = time.perf_counter() - t
    cpu1, ivcsw1 = _thread_usage()
    return {"wall": wall, "cpu": cpu1 - cpu0, "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults,
            "ivcsw": ivcsw1 - ivcsw0, "gc": sum(s["collections"] for s in gc.get_stats()) - gcs,
            "load_and_warm": warm, "tokens": sum(len(d.split()) for _, _, d in parts[1:]),
            "trim_threshold": os.environ.get("MALLOC_TRIM_THRESHOLD_")}


def _busy_loop(stop: threading.Event) -> None:
    """An asyncio loop with timers every 10 ms that each take the GIL briefly (a worker's event loop,
    heartbeats and profiler sampling)."""
    import asyncio

    async def tick():
        while not stop.is_set():
            sum(range(2000))               # ~30 us of Python under the GIL
            await asyncio.sleep(0.01)
    asyncio.run(tick())


def child(args) -> dict:
    """One setting in this process: ``--child main|thread|thread+loop|dask``."""
    if args.child == "main":
        return decode_all(args.folder, args.partitions, args.lines)
    if args.child == "dask":
        return in_dask(Path(args.folder), json.loads(args.config), args.partitions, args.lines)
    from concurrent.futures import ThreadPoolExecutor
    stop = threading.Event()
    if args.child == "thread+loop":
        with ThreadPoolExecutor(1) as pool:
            future = pool.submit(decode_all, args.folder, args.partitions, args.lines)
            _busy_loop_until(future, stop)
            return future.result()
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(decode_all, args.folder, args.partitions, args.lines).result()


def _busy_loop_until(future, stop: threading.Event) -> None:
    future.add_done_callback(lambda _: stop.set())
    _busy_loop(stop)


def plain(folder: Path, mode: str, env: dict, n: int, lines: int, config: dict | None = None) -> dict:
    """One setting in a fresh process (a Dask setting too: a process's forkserver, and with it the
    environment its workers start with, is made once)."""
    cmd = [sys.executable, "-m", "bench.batch_worker", "--child", mode, "--folder", str(folder),
           "--partitions", str(n), "--lines", str(lines), "--config", json.dumps(config or {})]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env})
    if r.returncode:
        raise SystemExit(f"bench: {mode} failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def in_dask(folder: Path, config: dict, n: int, lines: int) -> dict:
    """One task in a one-worker LocalCluster started as ``textqa batch`` starts it, under ``config``."""
    import dask

    from textqa.runtime import dask_cluster
    with dask.config.set(config), \
            dask_cluster.cluster("local", 1, "bench", preload=("textqa.cli.batch", "bench.batch_worker")) as client:
        return client.submit(decode_all, str(folder), n, lines, pure=False).result()


#: distributed's defaults for what ``dask_cluster.LOCAL_QUIET`` turns down, as the user's environment
#: would set them (which ``textqa batch`` then leaves as they are)
DASK_DEFAULT_MONITORS = {"DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "True",
                         "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "100ms",
                         "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "500ms",
                         "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "20ms"}

SETTINGS = [        # (label, kind, environment, distributed's config)
    ("plain process, main thread", "main", {}, {}),
    ("plain process, a second thread", "thread", {}, {}),
    ("plain process, a second thread, one malloc arena (`MALLOC_ARENA_MAX=1`)", "thread", {"MALLOC_ARENA_MAX": "1"}, {}),
    ("plain process, a second thread beside a busy asyncio loop (GIL taken every 10 ms)", "thread+loop", {}, {}),
    ("plain process, main thread, `MALLOC_TRIM_THRESHOLD_=65536` (the nanny's setting)", "main", DASK_MALLOC, {}),
    ("plain process, a second thread, `MALLOC_TRIM_THRESHOLD_=65536`", "thread", DASK_MALLOC, {}),
    ("Dask worker with the nanny's `MALLOC_TRIM_THRESHOLD_=65536` (distributed's default)", "dask", DASK_MALLOC, {}),
    ("Dask worker as `textqa batch` starts it (without that setting)", "dask", {}, {}),
    ("same, with distributed's default profiler and monitors (`textqa batch` turns them down: "
     "`dask_cluster.LOCAL_QUIET`)", "dask", DASK_DEFAULT_MONITORS, {}),
]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=None)
    p.add_argument("--partitions", type=int, default=8, help="partitions timed (default 8, after one warm-up)")
    p.add_argument("--lines", type=int, default=10000, help="lines a partition (default 10,000, textqa batch's)")
    p.add_argument("--repeat", type=int, default=3, help="runs of each setting; the fastest is reported")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    p.add_argument("--child", choices=("main", "thread", "thread+loop", "dask"), help=argparse.SUPPRESS)
    p.add_argument("--folder", help=argparse.SUPPRESS)
    p.add_argument("--config", default="{}", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(args)))
        return 0
    from bench.report import write_section
    from textqa.runtime.paths import artifacts_dir
    folder = artifacts_dir(args.artifacts) / "truecaser"
    rows = []
    for label, mode, env, config in SETTINGS:
        runs = [plain(folder, mode, env, args.partitions, args.lines, config) for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["wall"])
        rows.append((label, best, [r["wall"] for r in runs]))
        walls = ", ".join(f"{r['wall']:.2f}" for r in runs)
        print(f"bench: {label}: {best['wall']:.2f} s (runs {walls}), "
              f"cpu {best['cpu']:.2f} s, {best['faults']:,} faults", file=sys.stderr, flush=True)
    base = rows[0][1]["wall"]
    tokens = rows[0][1]["tokens"]
    lines = ["## Why a partition decodes more slowly in a Dask worker (`python -m bench.batch_worker`)", "",
             f"Run on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores: {args.partitions} "
             f"partitions of {args.lines:,} lowercased dev lines ({tokens:,} tokens) decoded by `textqa batch`'s "
             "task function with the default truecaser, timed inside the process after the load and one warm-up "
             f"partition; each setting in a fresh process, best of {args.repeat}.", "",
             "| setting | seconds | x main thread | thread CPU s | minor page faults | involuntary switches |"
             " runs (s) |", "|---|---:|---:|---:|---:|---:|---|"]
    for label, r, walls in rows:
        lines.append(f"| {label} | {r['wall']:.2f} | {r['wall'] / base:.2f} | {r['cpu']:.2f} | {r['faults']:,} | "
                     f"{r['ivcsw']:,} | {', '.join(f'{w:.2f}' for w in walls)} |")
    by = {label: r for label, r, _ in rows}
    nanny, ours = by[SETTINGS[6][0]], by[SETTINGS[7][0]]
    lines += ["", f"- distributed's `MALLOC_TRIM_THRESHOLD_` makes glibc map every allocation above 128 KB afresh: "
              f"{nanny['faults']:,} minor page faults in a worker against {ours['faults']:,} without it, and "
              f"{by[SETTINGS[4][0]]['faults']:,} in a plain process given it. A worker as `textqa batch` starts it "
              f"decodes at **{ours['wall'] / base:.2f}x** the plain process's time ({nanny['wall'] / base:.2f}x with "
              "the setting).",
              "- Runs of one setting differ by up to a fifth on this machine; the page faults do not."]
    write_section(args.out, "batch-worker", lines, extra=("textqa.cli", "textqa.runtime"))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
