"""bench/RESULTS.md holds one section per benchmark; each run replaces only its own section."""
from __future__ import annotations

import re
from pathlib import Path

HEADER = "# Benchmarks\n\n`make bench` runs every benchmark below; each rewrites only its own section.\n"


def write_section(path: Path, name: str, lines: list[str]) -> None:
    begin, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = "\n".join([begin, *lines, end])
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    if begin not in text and not text.startswith("# Benchmarks\n\n`make bench`"):
        text = HEADER         # an old single-benchmark file: start over
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if begin in text else text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def timed(fn) -> float:
    """Seconds one call of ``fn`` takes."""
    import time
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t
