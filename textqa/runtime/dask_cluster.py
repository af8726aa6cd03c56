"""Connecting to a Dask cluster: ``--scheduler local`` (a ``distributed.LocalCluster`` on this
machine) or the address of a running ``dask scheduler``; used by ``textqa batch`` and by
``textqa train ... --scheduler``, whose joblib loops then run on the cluster through joblib's Dask
backend (the same tasks with the same seeds: the same artifact as a local run)."""
from __future__ import annotations

import importlib.util
import logging
import multiprocessing
import os
import sys
from contextlib import contextmanager

from textqa.errors import InputError


def _timeout() -> float:
    """Seconds to reach a running scheduler, and again for it to have a worker
    (``$TEXTQA_DASK_TIMEOUT``, default 30)."""
    try:
        return float(os.environ.get("TEXTQA_DASK_TIMEOUT", "30"))
    except ValueError:
        return 30.0


def add_arguments(p, default: str | None, what: str) -> None:
    p.add_argument("--scheduler", default=default, metavar="local|ADDRESS",
                   help=f"{what} on a Dask cluster: 'local' (a LocalCluster on this machine) or a running "
                        "scheduler's address, e.g. tcp://127.0.0.1:8786"
                        + (f" (default: {default})" if default else " (default: no cluster)"))
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes of a local cluster (default: one per core)")


def has_dashboard() -> bool:
    """Dask's dashboard needs bokeh (pinned); without it the link would only say so."""
    return importlib.util.find_spec("bokeh") is not None


#: How a LocalCluster starts its worker processes: forked from one server process (see
#: :func:`_preload`) rather than distributed's default, a fresh interpreter each ("spawn"), where
#: the platform has a forkserver (POSIX).
FORKSERVER = {"distributed.worker.multiprocessing-method": "forkserver"}

#: What a local cluster's nannies set before they start a worker, less distributed's
#: ``MALLOC_TRIM_THRESHOLD_=65536``: with any threshold set, glibc stops raising its mmap
#: threshold, so every allocation above 128 KB (the decoders' numpy temporaries) is mapped afresh and
#: its pages faulted in again: a worker decoded truecaser partitions slower than a plain process, and
#: a plain process given that setting as slowly; without it a worker decodes as fast as a plain
#: process (``python -m bench.batch_worker``; ``docs/scaling.md``, "Starting a local cluster").  The
#: setting returns freed memory to the system sooner, which a worker that keeps one model and
#: streams partitions through it does not need.
LOCAL_WORKER_ENV = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}

#: What a local cluster's processes run beside the tasks, less often than distributed's defaults
#: (each only where the user's Dask configuration leaves the default): the workers' statistical
#: profiler (a stack sample every 10 ms, for the dashboard's Profile page), the memory monitors of
#: the workers and nannies (every 100 ms), the system monitor (500 ms) and the event-loop tick
#: (20 ms).  Each wakes a thread that takes the GIL from the task or, on a 2-core machine, a core
#: from the workers (what that costs: ``docs/scaling.md``, "Starting a local cluster").
LOCAL_QUIET = {"distributed.worker.profile.enabled": False,
               "distributed.worker.memory.monitor-interval": "1s",
               "distributed.admin.system-monitor.interval": "2s",
               "distributed.admin.tick.interval": "200ms"}


def _unless_configured(settings: dict) -> dict:
    """The entries of ``settings`` that the user's Dask configuration (its YAML files and ``DASK_*``
    variables) does not set."""
    import dask  # deferred: loads dask
    given = dask.config.collect()
    unset = object()
    return {k: v for k, v in settings.items() if dask.config.get(k, unset, config=given) is unset}


def _preload(modules: tuple[str, ...], env: dict[str, str] | None = None) -> None:
    """Have the forkserver import distributed and ``modules`` (the project's modules whose functions
    the tasks run, with their imports: NLTK, scikit-learn, SciPy, spaCy) once, before it forks the
    worker processes: under spawn each worker imported them all again, which cost ``textqa batch
    truecase`` CPU time at every start (``docs/scaling.md``, "Starting a local cluster").  multiprocessing skips a preload module that
    fails to import: the task then imports it, and reports its error, as before.

    The forkserver starts here, before the scheduler and the nannies, so that its imports run while
    they start; it gets the environment a nanny would give it (distributed's
    ``pre-spawn-environ``: one BLAS thread a worker) and ``env`` (``textqa batch``'s model to load
    ahead, see ``textqa.cli.batch``), which this process then drops again."""
    from distributed.utils import get_mp_context  # deferred: loads distributed, dask, numpy
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:                     # a misspelt name would be skipped silently, the time lost again
        raise ValueError(f"no such module to preload: {missing}")
    import dask  # deferred: loads dask
    from multiprocessing import forkserver
    get_mp_context().set_forkserver_preload(["distributed", *modules])    # after distributed set its own
    # as each nanny does before it starts a process (distributed.nanny._get_env_variables); a
    # forkserver started by the first nanny would inherit it that way
    os.environ.update({k: os.environ.get(k, str(v))
                       for k, v in dask.config.get("distributed.nanny.pre-spawn-environ").items() if v is not None})
    saved = {k: os.environ.get(k) for k in env or {}}
    os.environ.update(env or {})
    try:
        forkserver.ensure_running()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def connect(scheduler: str, workers: int | None = None, preload: tuple[str, ...] = (),
            preload_env: dict[str, str] | None = None):
    """(client, the LocalCluster or None).  A LocalCluster has one single-threaded process per core
    (or ``workers``): the models' code is Python and numpy, which threads would serialise.  Its
    processes start as :data:`FORKSERVER` says when that is in effect (:func:`cluster` sets it),
    with ``preload`` imported once and ``preload_env`` in the forkserver's environment (:func:`_preload`)."""
    import dask  # deferred: loads dask, psutil
    from distributed import Client, LocalCluster  # deferred: loads distributed, dask, numpy

    if workers is not None and workers < 1:
        raise InputError("--workers must be at least 1")
    if scheduler == "local":
        if dask.config.get("distributed.worker.multiprocessing-method") == "forkserver":
            _preload(preload, preload_env)
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                               dashboard_address=":0" if has_dashboard() else None,
                               silence_logs=logging.CRITICAL)     # a task's error is reported once, by us
        return Client(cluster), cluster
    wait = _timeout()
    try:
        client = Client(scheduler, timeout=f"{wait}s")
    except (OSError, ValueError, TypeError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    try:                                # without a worker the tasks would wait forever, silently
        client.wait_for_workers(1, timeout=wait)
    except (TimeoutError, OSError):
        client.close()
        raise InputError(f"no Dask worker joined the scheduler at {scheduler} within {wait:g} s "
                             "(start some: dask worker ADDRESS, with this project's venv)") from None
    return client, None


@contextmanager
def cluster(scheduler: str, workers: int | None = None, who: str = "textqa", preload: tuple[str, ...] = (),
            preload_env: dict[str, str] | None = None):
    """A connected client for the block (the dashboard link on stderr); closed afterwards.  A local
    cluster's worker processes fork from a server that imported ``preload`` with ``preload_env`` set
    (:func:`_preload`), for the whole block: a worker the nanny restarts too.  A local cluster's
    processes also run :data:`LOCAL_QUIET`."""

    import dask  # deferred: loads dask, psutil
    importlib.import_module("distributed")    # its config defaults first: leaving a set() made before them drops them
    start = FORKSERVER if "forkserver" in multiprocessing.get_all_start_methods() else {}
    local_only = {**LOCAL_WORKER_ENV, **_unless_configured(LOCAL_QUIET)} if scheduler == "local" else {}
    with dask.config.set({**start, **local_only}):
        client, local = connect(scheduler, workers, preload, preload_env)
        try:
            if client.dashboard_link and has_dashboard():
                print(f"{who}: Dask dashboard {client.dashboard_link}", file=sys.stderr, flush=True)
            yield client
        finally:
            client.close()
            if local is not None:
                local.close()


@contextmanager
def joblib_on(scheduler: str | None, workers: int | None = None, who: str = "textqa",
              preload: tuple[str, ...] = ()):
    """Run the block's joblib ``Parallel`` loops on the cluster (no-op without a scheduler).
    joblib's Dask backend spreads the tasks over every worker of the cluster (``n_jobs`` is then
    ignored) and ships large arguments once.  ``preload``: as :func:`cluster`'s."""
    if not scheduler:
        yield None
        return
    import joblib  # deferred: loads joblib, numpy, psutil
    with cluster(scheduler, workers, who, preload) as client, joblib.parallel_config(backend="dask"):
        yield client
