"""gunicorn hooks for ``textqa serve`` (``-c python:textqa.service.gunicorn_conf``): Prometheus
multiprocess bookkeeping.  Settings come from the command line; only hooks live here."""
import os
import shutil


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
