"""The installed wheel against the repository's ``.venv``: the same truecaser, the same text, the same
output, and the tokens/s of each.

    python -m bench.wheel [--artifacts artifacts] [--lines 20000]

Installs a fresh clone of HEAD with ``pip install .`` into a virtualenv that ``python3 -m venv`` has
just made (as ``make test-wheel`` and a user outside the repository do: KenLM from the vendored
source, nothing added to the venv), and decodes the lowercased dev input (repeated to ``--lines`` lines) with the default truecaser in
each environment, best of three, in process.  Writes the "wheel" section of ``bench/RESULTS.md``.
"""
from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.report import write_section

ROOT = Path(__file__).resolve().parents[1]
SNIPPET = """
import gzip, json, sys, time
import textqa
service = textqa.load(sys.argv[1])
model = service.model
lines = [l.split() for l in gzip.open(sys.argv[2], "rt", encoding="utf-8").read().splitlines() if l.strip()]
lines = (lines * (int(sys.argv[3]) // len(lines) + 1))[: int(sys.argv[3])]
n = sum(map(len, lines))
model.predict_tokens(lines[:200])
best, out = None, None
for _ in range(3):
    t = time.perf_counter()
    out = model.predict_tokens(lines)
    dt = time.perf_counter() - t
    best = dt if best is None else min(best, dt)
print(json.dumps({"tokens": n, "seconds": best, "search": model.search_status(), "where": textqa.__file__,
                  "digest": hash(tuple(map(tuple, out)))}))
"""


def measure(python: str, artifact: Path, lines: int, cwd: Path) -> dict:
    r = subprocess.run([python, "-c", SNIPPET, str(artifact), str(ROOT / "data" / "truecase" / "val_input.txt.gz"),
                        str(lines)], cwd=cwd, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin",
                                                                                 "PYTHONHASHSEED": "0"})
    if r.returncode != 0:
        raise SystemExit(r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--artifacts", type=Path, default=ROOT / "artifacts")
    p.add_argument("--lines", type=int, default=20000)
    args = p.parse_args(argv)
    artifact = (args.artifacts / "truecaser").resolve()
    with tempfile.TemporaryDirectory(prefix="textqa-wheel-bench-") as tmp:
        work = Path(tmp)
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(work / "src")], check=True)
        base = getattr(sys, "_base_executable", None) or "python3"
        subprocess.run([base, "-m", "venv", str(work / "venv")], check=True)
        started = time.perf_counter()
        subprocess.run([str(work / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", "."],
                       cwd=work / "src", check=True)
        install_seconds = time.perf_counter() - started
        (work / "elsewhere").mkdir()
        repo = measure(sys.executable, artifact, args.lines, ROOT)
        installed = measure(str(work / "venv" / "bin" / "python"), artifact, args.lines, work / "elsewhere")
    speed = {k: v["tokens"] / v["seconds"] for k, v in (("repo", repo), ("wheel", installed))}
    lines = ["## The installed wheel against the repository's `.venv` (`python -m bench.wheel`)", "",
             f"Measured {datetime.date.today().isoformat()}: the truecaser of `{artifact}` decoding the lowercased dev "
             f"input repeated to {args.lines:,} lines ({repo['tokens']:,} tokens), in process, best of 3. The "
             f"install: `pip install .` from a fresh clone of HEAD into a new `python3 -m venv`, "
             f"{install_seconds:.0f} s with pip's cache warm.", "",
             "| environment | search | tokens/s |", "|---|---|---:|",
             f"| repository `.venv` | {repo['search']} | {speed['repo']:,.0f} |",
             f"| `pip install .` in a fresh venv | {installed['search']} | {speed['wheel']:,.0f} |", "",
             f"Wheel / repository: **{speed['wheel'] / speed['repo']:.2f}x**; same output: "
             f"**{'yes' if repo['digest'] == installed['digest'] else 'NO'}**."]
    write_section(ROOT / "bench" / "RESULTS.md", "wheel", lines, extra=("textqa.models.truecaser",))
    print("\n".join(lines))
    return 0 if repo["digest"] == installed["digest"] else 1


if __name__ == "__main__":
    sys.exit(main())
