"""numba's on-disk cache under processes compiling into it at once (``textqa/runtime/numba_cache.py``).

A function compiled with ``@njit(cache=True)`` in a module of its own, in a temporary folder:
sixteen processes at once each call it with another signature (eight dtypes, C-contiguous or
strided output) into an empty cache, and then one process calls it with every signature, each
loaded from the cache.  The sixteen are forked from one process that imported numba and the module,
so they compile at nearly the same moment (and do not each start an interpreter and import numba).
Without the lock this failed in 16 rounds of 20 (entries missing, an entry raising ``TypeError:
can't unbox array``, or returning 1.0 instead of 91.0; when the sixteen were separate interpreters,
in 4 rounds of 6); with it every entry is its own signature's code.  Rounds: 2, so that the test
would have failed with probability about 0.96.
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

from textqa.runtime import numba_cache

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
import os
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import cached
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.float32, np.float64, np.uint8, np.uint16]


def wrong(specs):
    bad = []
    for spec in specs:
        i, layout = int(spec[:-1]), spec[-1]
        out = np.zeros(3) if layout == "C" else np.zeros(6)[::2]
        try:
            got = cached.f(out, np.arange(10, dtype=DTYPES[i]))[0]
        except Exception as e:          # a signature's entry holding another's code
            got = f"{type(e).__name__}: {e}"[:80]
        if got != 91.0:
            bad.append((spec, got))
    return bad


if sys.argv[2] == "--fork":             # one child process per signature, all compiling at once
    children = []
    for spec in sys.argv[3:]:
        pid = os.fork()
        if pid == 0:
            code = 2                    # whatever happens, the child ends here
            try:
                bad = wrong([spec])
                print(bad, flush=True)
                code = 1 if bad else 0
            finally:
                os._exit(code)
        children.append(pid)
    failed = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
    sys.exit(1 if any(failed) else 0)
bad = wrong(sys.argv[2:])
print(bad)
sys.exit(1 if bad else 0)
"""

SPECS = [f"{i}{layout}" for i in range(8) for layout in "CA"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}       # this checkout's textqa, not an installed one


@pytest.mark.parametrize("round_", range(2))
def test_processes_compiling_into_one_cache_at_once_leave_every_entry_right(round_, tmp_path):
    (tmp_path / "cached.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    call = tmp_path / "call.py"
    call.write_text(CALL, encoding="utf-8")
    # sixteen processes at once, each compiling its own signature into the empty cache: forked from
    # one that imported numba and the module (the function decorated, nothing compiled), so that the
    # sixteen do not each start an interpreter and import numba again
    r = subprocess.run([sys.executable, str(call), str(tmp_path), "--fork", *SPECS], cwd=ROOT, env=ENV,
                       capture_output=True, timeout=300)
    assert r.returncode == 0, r.stdout.decode()[-2000:] + r.stderr.decode()[-2000:]
    entries = sorted((tmp_path / "__pycache__").glob("cached.f-*.nbc"))
    assert len(entries) == len(SPECS)
    r = subprocess.run([sys.executable, str(call), str(tmp_path), *SPECS], cwd=ROOT, env=ENV, capture_output=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout.decode()[-2000:] + r.stderr.decode()[-2000:]
