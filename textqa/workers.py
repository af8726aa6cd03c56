"""Worker processes for training's CPU-bound steps on one machine (``textqa train`` without a cluster).

One pool of its own (a loky process pool, not the reusable one that joblib's loops share and set up
their own way), two processes by default, each limited to one thread for OpenMP and BLAS: set in the
workers' environment, before those libraries load, so that two workers busy at once do not
oversubscribe two cores (measured: the truecaser's sentence-context fits ran 2.4 times slower in
two workers whose BLAS took two threads each), and so that what they compute does not depend on the
machine's number of cores.  Idle workers exit after a minute and are started again when needed;
``textqa train`` shuts the pool down when it ends, whatever the outcome (``textqa.cli``)."""
from __future__ import annotations

import threading

ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
_pool, _lock = None, threading.Lock()


def pool():
    """The pool of two one-thread worker processes (made on first use)."""
    global _pool
    from joblib.externals.loky import ProcessPoolExecutor
    with _lock:
        if _pool is None or _pool._flags.shutdown:        # none yet, or broken (a worker died): a new one
            _pool = ProcessPoolExecutor(max_workers=2, timeout=60, env=ONE_THREAD)
        return _pool


def shutdown() -> None:
    """Stop the pool's workers now (if there is a pool)."""
    global _pool
    with _lock:
        if _pool is not None:
            _pool.shutdown(wait=True, kill_workers=True)
            _pool = None


def results_in_order(fn, tasks, *args):
    """``fn(task, *args)`` for each of ``tasks`` in the pool's processes, the results yielded in the
    tasks' order; the tasks not started yet are cancelled when the caller stops early (an error,
    Ctrl-C)."""
    pending = [pool().submit(fn, task, *args) for task in tasks]
    try:
        for future in pending:
            yield future.result()
    finally:
        for future in pending:
            future.cancel()
