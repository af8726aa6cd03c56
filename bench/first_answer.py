"""The first hour on a fresh clone: how long ``make run`` takes to answer its first curl line, and
until all four answer.

    python -m bench.first_answer [--repo .] [--port 8190] [--timeout 3600] [--keep DIR]

Clones the repository's committed HEAD into a temporary folder (no ``.venv``, no ``artifacts``,
no ``.cache``: what a new user has), runs ``make run PORT=...`` there, and polls the README's four
curl requests every 5 seconds, recording when each first answers 200.  Ctrl-C or the timeout stops
``make run`` (its process group).  The install reuses pip's own download cache, as a second clone
on the same machine would.  Writes the "first answer" section of ``bench/RESULTS.md``.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench.report import write_section

ROOT = Path(__file__).resolve().parents[1]
REQUESTS = {
    "icd9": ("/v1/icd9/code", {"documents": [{"id": "1", "text": "Three day history of cough. No focal pneumonia."}]}),
    "qa": ("/v1/qa/answer", {"question": "What is the capital of France?", "top_k": 5}),
    "blanc": ("/v1/blanc/score", {"pairs": [{"hypothesis": "The cat sat on a mat.",
                                             "references": ["The cat sat on the mat."]}]}),
    "truecaser": ("/v1/truecase", {"text": "the president of the united states visited new york on monday."}),
}


def status_of(base: str, path: str, body: dict) -> int:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return 0


def wikipedia_joined(base: str) -> bool:
    """Whether ``/v1/models`` says that QA's default collection reads Wikipedia now."""
    try:
        with urllib.request.urlopen(base + "/v1/models", timeout=30) as resp:
            line = json.loads(resp.read())["models"]["qa"].get("collection") or ""
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, ValueError, KeyError):
        return False
    return line.startswith("default: Wikipedia")


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo", type=Path, default=ROOT)
    p.add_argument("--port", type=int, default=8190)
    p.add_argument("--timeout", type=float, default=3600)
    p.add_argument("--keep", type=Path, default=None, help="clone here and keep it (default: a temporary folder)")
    args = p.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="textqa-first-hour-"))
    clone = work / "textqa"
    subprocess.run(["git", "clone", "--quiet", str(args.repo), str(clone)], check=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()
    base = f"http://127.0.0.1:{args.port}"
    log = open(work / "make-run.log", "wb")
    start = time.monotonic()
    proc = subprocess.Popen(["make", "run", f"PORT={args.port}"], cwd=clone, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True, env={k: v for k, v in os.environ.items()
                                                         if not k.startswith(("TEXTQA_", "VIRTUAL_ENV"))})
    first: dict[str, float] = {}
    listening = wikipedia = None
    try:
        while (time.monotonic() - start < args.timeout and (len(first) < len(REQUESTS) or wikipedia is None)
               and proc.poll() is None):
            if listening is None and b"Listening at:" in (work / "make-run.log").read_bytes():
                listening = time.monotonic() - start
                print(f"[first answer] server listening after {listening / 60:.1f} min", file=sys.stderr, flush=True)
            for name, (path, body) in REQUESTS.items():
                if name not in first and listening is not None and status_of(base, path, body) == 200:
                    first[name] = time.monotonic() - start
                    print(f"[first answer] {name} answers after {first[name] / 60:.1f} min", file=sys.stderr, flush=True)
            if wikipedia is None and "qa" in first and wikipedia_joined(base):
                wikipedia = time.monotonic() - start
                print(f"[first answer] QA reads Wikipedia after {wikipedia / 60:.1f} min", file=sys.stderr, flush=True)
            time.sleep(5)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        log.close()
    if not first:
        print((work / "make-run.log").read_text(errors="replace")[-3000:], file=sys.stderr)
    date = datetime.date.today().isoformat()
    lines = ["## First answer on a fresh clone (`python -m bench.first_answer`)", "",
             f"Measured {date} on commit {commit}, {os.cpu_count()} cores ({cpu_name()}): `git clone`, then `make run` "
             "(venv and install, the C++ build, the server, the trainings behind it), polling the README's curl lines "
             "and `/v1/models` every 5 s. Until QA's Wikipedia index is built, QA answers from the news pool.", "",
             "| | minutes after `make run` started |", "|---|---:|"]
    if listening is not None:
        lines.append(f"| server listening (install and build done) | {listening / 60:.1f} |")
    for name in REQUESTS:
        lines.append(f"| {name} answers | {first[name] / 60:.1f} |" if name in first else f"| {name} answers | not within "
                     f"{args.timeout / 60:.0f} min |")
    if len(first) == len(REQUESTS):
        lines.append(f"| first model answers / all four answer | {min(first.values()) / 60:.1f} / "
                     f"{max(first.values()) / 60:.1f} |")
    lines.append(f"| QA's default collection reads Wikipedia (its index built after the four models; `/v1/models` "
                 f"says so) | {wikipedia / 60:.1f} |" if wikipedia is not None else
                 "| QA's default collection reads Wikipedia | not within the timeout |")
    write_section(ROOT / "bench" / "RESULTS.md", "first-answer", lines, extra=("textqa",))
    print("\n".join(lines))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if len(first) == len(REQUESTS) else 1


if __name__ == "__main__":
    sys.exit(main())
