"""Mutation check for the test suite: each mutant breaks the code one test guards, and that test
must go red.  ``make mutants`` (or ``python dev/mutants.py [NAME ...]``) runs them.

The repository is copied once to a temporary folder (``data/`` linked, not copied); each mutant
is applied there, its tests are run with pytest, and the file is restored.  The working tree is
never touched.  A mutant *survives* when its tests still pass: the script then exits 1.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (name, file, exact text to replace, replacement, pytest node ids that must fail)
MUTANTS = [
    ("batch-stats-scaled", "models/blanc/batch.py", "        out[:, 0, :] = common\n",
     "        out[:, 0, :] = common * 1.01\n", ["tests/blanc/test_batch.py"]),
]


def copy_repo(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if rel.startswith("data/"):
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    (dest / "data").symlink_to(ROOT / "data")
    for extra in (".venv",):              # tools the code looks up beside itself (KenLM's build_binary)
        if (ROOT / extra).exists():
            (dest / extra).symlink_to(ROOT / extra)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="mutants to run (default: all)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.names or m[0] in args.names]
    if args.list:
        for name, path, *_, tests in MUTANTS:
            print(f"{name:<32} {path:<36} {' '.join(tests)}")
        return 0
    unknown = set(args.names) - {m[0] for m in MUTANTS}
    if unknown:
        ap.error(f"unknown mutant(s): {', '.join(sorted(unknown))}")
    survived = []
    with tempfile.TemporaryDirectory(prefix="textqa-mutants-") as tmp:
        work = Path(tmp) / "repo"
        copy_repo(work)
        for name, rel, old, new, tests in chosen:
            path = work / rel
            original = path.read_text(encoding="utf-8")
            if original.count(old) != 1:
                print(f"{name}: the text to mutate occurs {original.count(old)} times in {rel}", file=sys.stderr)
                survived.append(name)
                continue
            path.write_text(original.replace(old, new), encoding="utf-8")
            t0 = time.time()
            try:
                r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                                   cwd=work, capture_output=True, text=True,
                                   env={**os.environ, "HYPOTHESIS_PROFILE": "ci"})
            finally:
                path.write_text(original, encoding="utf-8")
            last = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
            killed = r.returncode == 1
            print(f"{'killed  ' if killed else 'SURVIVED'} {name:<32} {time.time() - t0:6.1f}s  {last}", flush=True)
            if not killed:
                survived.append(name)
    print(f"{len(chosen) - len(survived)} of {len(chosen)} mutants killed" +
          (f"; survived: {', '.join(survived)}" if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
