"""gunicorn hooks for ``textqa serve`` (``-c python:textqa.service.gunicorn_conf``): Prometheus
multiprocess bookkeeping, and one BLAS/OpenMP thread per worker.  Settings come from the command line;
only hooks and that environment live here."""
import os
import shutil

from textqa.runtime.process_pool import ONE_THREAD

# One thread each for OpenBLAS, OpenMP and MKL in every worker, unless the operator chose otherwise:
# read when numpy loads, which is after this file.  Each request is small, so a second BLAS thread
# buys nothing, and two workers with two threads each oversubscribe two cores: spaCy's parse of a
# question took 3.6 times as long with two threads a worker as with one while the other core was
# busy (the same tags and the same answers either way).
for _name, _value in ONE_THREAD.items():
    os.environ.setdefault(_name, _value)


def child_exit(server, worker):
    """A worker exited (HUP, timeout, crash): drop its live gauges (the model info it reported)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess  # deferred: loads prometheus_client
        multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    """The server stops: remove the metrics folder ``textqa serve`` made for this run."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder and os.environ.get("TEXTQA_OWN_METRICS_DIR") == folder:
        shutil.rmtree(folder, ignore_errors=True)
