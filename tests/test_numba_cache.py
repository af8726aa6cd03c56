"""numba's on-disk cache under processes compiling into it at once (``textqa/numba_cache.py``).

A function compiled with ``@njit(cache=True)`` in a module of its own, in a temporary folder:
sixteen processes at once each call it with another signature (eight dtypes, C-contiguous or
strided output) into an empty cache, and then one process calls it with every signature, each
loaded from the cache.  Without the lock this failed in 4 rounds of 6 (an entry raising
``TypeError: can't unbox array``, or returning 1.0 instead of 91.0); with it every entry is its own
signature's code.  Rounds: 3, so that the test would have failed with probability about 0.96.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MODULE = """
from numba import njit

from textqa import numba_cache

numba_cache.install()


@njit(cache=True)
def f(out, x):
    s = 0.0
    for v in x:
        s += v
    out[0] = s * 2 + 1
    return out
"""

CALL = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import cached
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.float32, np.float64, np.uint8, np.uint16]
wrong = []
for spec in sys.argv[2:]:
    i, layout = int(spec[:-1]), spec[-1]
    out = np.zeros(3) if layout == "C" else np.zeros(6)[::2]
    try:
        got = cached.f(out, np.arange(10, dtype=DTYPES[i]))[0]
    except Exception as e:          # a signature's entry holding another's code
        got = f"{type(e).__name__}: {e}"[:80]
    if got != 91.0:
        wrong.append((spec, got))
print(wrong)
sys.exit(1 if wrong else 0)
"""

SPECS = [f"{i}{layout}" for i in range(8) for layout in "CA"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}       # this checkout's textqa, not an installed one


@pytest.mark.parametrize("round_", range(3))
def test_processes_compiling_into_one_cache_at_once_leave_every_entry_right(round_, tmp_path):
    (tmp_path / "cached.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    call = tmp_path / "call.py"
    call.write_text(CALL, encoding="utf-8")
    procs = [subprocess.Popen([sys.executable, str(call), str(tmp_path), spec], cwd=ROOT, env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for spec in SPECS]
    for p in procs:                 # each compiles its own signature (the cache was empty)
        out = p.communicate(timeout=300)[0]
        assert p.returncode == 0, out.decode()[-2000:]
    entries = sorted((tmp_path / "__pycache__").glob("cached.f-*.nbc"))
    assert len(entries) == len(SPECS)
    r = subprocess.run([sys.executable, str(call), str(tmp_path), *SPECS], cwd=ROOT, env=ENV, capture_output=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout.decode()[-2000:] + r.stderr.decode()[-2000:]
