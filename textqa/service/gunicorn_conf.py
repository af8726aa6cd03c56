"""gunicorn hooks for ``textqa serve`` (``-c python:textqa.service.gunicorn_conf``): Prometheus
multiprocess bookkeeping, one BLAS/OpenMP thread per worker, and a reload that keeps capacity.
Settings come from the command line; only hooks, that environment and the reload live here.

**Reload** (``kill -HUP`` to the master).  gunicorn's own reload forks every new worker at once and
stops the old ones at once; the new ones then spend seconds loading the models, during which nobody
accepts a request (requests waited up to 7 s in the listen queue).  Here the workers are replaced
one at a time: HUP forks one new worker beside the old ones; once it has loaded the models
(``post_worker_init``) it tells the master (SIGWINCH), which stops the oldest old worker gracefully
(it finishes its requests); the master's usual bookkeeping forks the next new worker in its place,
and so on until no old worker is left.  At every moment as many workers as before accept requests.
With ``--preload`` the models live in the master, so HUP keeps gunicorn's own reload there.
"""
import os
import shutil
import signal
import sys

from gunicorn.arbiter import Arbiter

from textqa.runtime.process_pool import ONE_THREAD

# One thread each for OpenBLAS, OpenMP and MKL in every worker, unless the operator chose otherwise.
# Each request is small, so a second BLAS thread buys nothing, and two workers with two threads each
# oversubscribe two cores: spaCy's parse of a question took 3.6 times as long with two threads a
# worker as with one while the other core was busy (the same tags and the same answers either way).
# ``textqa serve`` sets them in gunicorn's environment: OpenBLAS reads them when numpy loads, which
# importing this file's package already does in gunicorn's master.  Here for a gunicorn started
# otherwise, for the libraries that read them later (OpenMP).
for _name, _value in ONE_THREAD.items():
    os.environ.setdefault(_name, _value)


def child_exit(server, worker):
    """A worker exited (HUP, timeout, crash): drop its live gauges (the model info it reported)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess  # deferred: loads prometheus_client
        multiprocess.mark_process_dead(worker.pid)


def worker_abort(worker):
    """gunicorn's worker timeout fired (SIGABRT): the last resort, logged as such.  A request's own
    limit is its deadline (``--request-timeout``), which answers 504 and leaves the worker alive; a
    worker killed here had a main loop blocked for ``--timeout`` seconds."""
    worker.log.error("worker %s killed by gunicorn's worker timeout (%s s), the last resort: its main loop did not "
                     "answer; its requests in flight are lost", worker.pid, worker.cfg.timeout)


def on_exit(server):
    """The server stops: remove the metrics folder ``textqa serve`` made for this run, and the count
    of requests in flight."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder and os.environ.get("TEXTQA_OWN_METRICS_DIR") == folder:
        shutil.rmtree(folder, ignore_errors=True)
    if os.environ.get("TEXTQA_INFLIGHT_DIR"):
        shutil.rmtree(os.environ["TEXTQA_INFLIGHT_DIR"], ignore_errors=True)


_GUNICORN_HUP, _GUNICORN_WINCH = Arbiter.handle_hup, Arbiter.handle_winch


def _rolling_hup(arbiter):
    """HUP: replace the workers one at a time (module doc); with ``--preload``, gunicorn's reload."""
    if arbiter.cfg.preload_app:
        return _GUNICORN_HUP(arbiter)
    rolling = bool(_old_workers(arbiter))
    arbiter.textqa_old = [pid for pid, _ in sorted(arbiter.WORKERS.items(), key=lambda w: w[1].age)]
    arbiter.log.info("Hang up: replacing the %d worker(s) one at a time, each once its successor has loaded "
                     "the models", len(arbiter.textqa_old))
    if not rolling:
        arbiter.num_workers += 1               # one new worker beside the old ones
    arbiter.manage_workers()


def _old_workers(arbiter) -> list:
    return [pid for pid in getattr(arbiter, "textqa_old", []) if pid in arbiter.WORKERS]


def _successor_ready(arbiter):
    """SIGWINCH from a new worker that has loaded the models: stop the oldest old worker."""
    old = _old_workers(arbiter)
    if not old:
        return _GUNICORN_WINCH(arbiter)
    pid = old.pop(0)
    arbiter.textqa_old = old
    arbiter.log.info("a new worker has loaded the models: stopping old worker %s (%d old left)", pid, len(old))
    arbiter.kill_worker(pid, signal.SIGTERM)
    if not old:
        arbiter.num_workers -= 1               # back to the configured number


Arbiter.handle_hup, Arbiter.handle_winch = _rolling_hup, _successor_ready


def post_fork(server, worker):
    """In the new worker: is it a successor in a rolling reload?"""
    worker.textqa_successor = bool(_old_workers(server))


#: The interpreter's switch interval in a worker (seconds; Python's default is 0.005): how long a
#: thread that computes keeps the interpreter lock while another waits for it.  The health checks,
#: the refusals and the accept loop wait at most that long behind a model request (docs/http.md,
#: "Under load").
SWITCH_INTERVAL = 0.001


def post_worker_init(worker):
    """The worker has loaded the app and its models: its switch interval is set, and a successor tells
    the master it can stop an old one."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    if getattr(worker, "textqa_successor", False):
        os.kill(worker.ppid, signal.SIGWINCH)
