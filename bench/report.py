"""bench/RESULTS.md holds one section per benchmark; each run replaces only its own section."""
from __future__ import annotations

import datetime
import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_IMPORTED = time.monotonic()

HEADER = "# Benchmarks\n\n`make bench` runs every benchmark below; each rewrites only its own section.\n"


#: Files a benchmark imports without measuring them: the writer of this file.  A change to how results
#: are written does not make a measurement stale.
NOT_MEASURED = frozenset({"bench/report.py"})


def _content_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def measured_sources(extra: tuple[str, ...] = ()) -> dict[str, str]:
    """{source path: content hash} of the project's code a benchmark measured: every ``textqa`` and
    ``bench`` module this process imported, and every module under ``extra`` (packages that ran in
    other processes, e.g. the service under gunicorn)."""
    files = {Path(m.__file__).resolve() for name, m in list(sys.modules.items())
             if name.split(".")[0] in ("textqa", "bench") and getattr(m, "__file__", None)}
    for name in extra:                  # a package (every module under it) or a module
        where = ROOT / name.replace(".", "/")
        files |= {p.resolve() for p in where.rglob("*.py")} if where.is_dir() else {where.with_suffix(".py").resolve()}
    files |= {p.resolve() for p in (ROOT / "textqa").rglob("*.cc")} if "textqa" in sys.modules else set()
    return {str(p.relative_to(ROOT)): _content_hash(p) for p in sorted(files)
            if p.is_file() and ROOT in p.parents and str(p.relative_to(ROOT)) not in NOT_MEASURED}


def _commit() -> str:
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "textqa", "bench", ":!bench/RESULTS.md"], cwd=ROOT,
                           capture_output=True,
                           text=True).stdout.strip()
    return (r.stdout.strip() or "unknown") + ("+uncommitted" if dirty else "")


def _seconds_so_far() -> float:
    try:
        import psutil
        return time.time() - psutil.Process().create_time()
    except Exception:           # psutil missing: the time since this module was imported
        return time.monotonic() - _IMPORTED


def write_section(path: Path, name: str, lines: list[str], extra: tuple[str, ...] = ()) -> None:
    """Replace section ``name`` of ``path`` with ``lines``, recording the commit it was measured on,
    how long the benchmark took, and a content hash of each source file it measured
    (:func:`measured_sources`), which ``python -m bench --status`` compares with the tree's."""
    begin, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    record = {"commit": _commit(), "date": datetime.date.today().isoformat(),
              "seconds": round(_seconds_so_far()), "sources": measured_sources(extra)}
    block = "\n".join([begin, *lines, "", f"<!-- measured: {json.dumps(record, sort_keys=True)} -->", end])
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    if begin not in text and not text.startswith("# Benchmarks\n\n`make bench`"):
        text = HEADER         # an old single-benchmark file: start over
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if begin in text else text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def sections(path: Path) -> dict[str, dict | None]:
    """{section name: its measurement record, or None for one measured before records were kept}."""
    text = path.read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"<!-- bench:([\w-]+) -->(.*?)<!-- /bench:\1 -->", text, re.S):
        rec = re.search(r"<!-- measured: (\{.*?\}) -->", m.group(2))
        out[m.group(1)] = json.loads(rec.group(1)) if rec else None
    return out


def stale(record: dict | None) -> list[str]:
    """The measured sources whose content is no longer anywhere in the tree (a file moved with the
    same content is not stale; ``["(no record)"]`` for a section without one)."""
    if record is None:
        return ["(measured before records were kept)"]
    now = {_content_hash(p) for d in ("textqa", "bench") for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".cc")}
    return [path for path, digest in sorted(record["sources"].items()) if digest not in now and path not in NOT_MEASURED]


def timed(fn) -> float:
    """Seconds one call of ``fn`` takes."""
    import time
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t
