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
from collections import deque

ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
_pool, _lock = None, threading.Lock()


def pool():
    """The pool of two one-thread worker processes (made on first use)."""
    global _pool
    from joblib.externals.loky import ProcessPoolExecutor  # deferred: loads joblib, numpy, psutil
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


def results_in_order(fn, tasks, *args, in_flight: int | None = None):
    """``fn(task, *args)`` for each of ``tasks`` (any iterable, read as the tasks are submitted) in the
    pool's processes, the results yielded in the tasks' order.  ``in_flight``: at most that many
    tasks submitted and not yet yielded (bounds the memory of large tasks; None: all at once).  The
    tasks not started yet are cancelled when the caller stops early (an error, Ctrl-C)."""
    executor, pending = pool(), deque()
    try:
        for task in tasks:
            pending.append(executor.submit(fn, task, *args))
            while in_flight is not None and len(pending) >= in_flight:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
