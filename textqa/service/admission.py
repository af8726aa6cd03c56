"""A bound on the model requests in flight, and a deadline for each.

**The bound.**  A model endpoint (a POST to a loaded model) takes at most ``TEXTQA_MAX_INFLIGHT``
requests at once (``textqa serve --max-inflight``), counted over all of the server's workers; one
more is answered at once with 503 ``overloaded`` and ``Retry-After``, not queued behind seconds of
work, and counted in ``/metrics`` (``textqa_requests_shed_total{model}``).  Under ``textqa serve``
the count lives in one small file per model in a folder the server makes (``TEXTQA_INFLIGHT_DIR``):
each worker process has a slot (its pid and its requests in flight), read and written under
``flock``, and the slots of processes that have died (a worker killed by its timeout) are freed
when they would make the count full, so a crash never keeps capacity.  Without that folder (the tests, ``flask run``) the
count is the process's own.  ``textqa serve`` closes each connection after its response
(gunicorn's ``--keep-alive 0``, as its sync workers did), so that each request goes to the worker
that accepts it first, most often an idle one: a connection kept alive would keep its requests on
one worker while the other idles.

**One at a time in a worker.**  An admitted request computes only while it holds its worker's work
lock; the others admitted to that worker wait for it, blocked (which costs the interpreter lock
nothing).  The models are CPU-bound Python, so two of them in one process would only share one
interpreter lock, and a health check would wait behind both: with one, ``/healthz`` waits at most
the interpreter's switch interval.  The bound counts the waiting requests too, so each core has
its next request ready.

**The deadline.**  An admitted request has ``TEXTQA_REQUEST_TIMEOUT`` seconds from its start
(:mod:`textqa.runtime.deadline`), waiting included.  Work that can stop early checks it (QA
between retrieval and reading and between questions, the truecaser between batches of sentences,
BLANC between pairs); an answer finished past it is dropped.  Either way the client gets 504
``deadline_exceeded`` naming where the work stopped, the worker lives on, and
``textqa_requests_deadline_exceeded_total{model,stage}`` counts it.
"""
from __future__ import annotations

import fcntl
import os
import threading
from array import array
from pathlib import Path

from flask import current_app, g

from textqa.runtime import deadline

from .http_errors import APIError

#: Seconds a refused client is told to wait (``Retry-After``)
RETRY_AFTER = 1
#: Model requests the server takes at once per model, by default, for each worker: one computing and
#: three waiting (docs/http.md, "Under load", has the measurements)
DEFAULT_PER_WORKER = 4
#: Worker processes a shared count has room for (the workers, and their successors in a reload)
SLOTS = 256


class InflightCounter:
    """Requests in flight per model in this worker process (its threads)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._n: dict[str, int] = {}

    def enter(self, model: str, limit: int) -> bool:
        with self._lock:
            if self._n.get(model, 0) >= limit:
                return False
            self._n[model] = self._n.get(model, 0) + 1
            return True

    def leave(self, model: str) -> None:
        with self._lock:
            self._n[model] -= 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SharedInflight:
    """Requests in flight per model over the server's worker processes: one small file per model in
    ``folder``, a slot (pid, count) per process, read and written under ``flock`` (module doc)."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self._fds: dict = {}                # (pid, model) -> fd: a forked process opens its own
        self._lock = threading.Lock()

    def _fd(self, model: str) -> int:
        key = (os.getpid(), model)
        fd = self._fds.get(key)
        if fd is None:
            fd = self._fds[key] = os.open(self.folder / f"{model}.inflight", os.O_RDWR | os.O_CREAT, 0o600)
        return fd

    def _update(self, model: str, change) -> bool:
        """Under the file's lock: ``change(pids, counts, this process's slot)`` on the file's slots (a
        pid each, then a count each), written back."""
        fd, me = self._fd(model), os.getpid()
        with self._lock:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                raw = os.pread(fd, SLOTS * 8, 0)
                raw += bytes(SLOTS * 8 - len(raw))
                pids, counts = array("i", raw[:SLOTS * 4]), array("i", raw[SLOTS * 4:])
                mine = _slot(pids, me)
                if mine is None:
                    mine = _slot(pids, 0)
                    if mine is None and _free_dead(pids, counts, me):
                        mine = _slot(pids, 0)
                    if mine is None:
                        return True                     # no room to count: never refuse for that
                    pids[mine] = me
                ok = change(pids, counts, mine)
                os.pwrite(fd, pids.tobytes() + counts.tobytes(), 0)
                return ok
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def enter(self, model: str, limit: int) -> bool:
        def take(pids, counts, mine):
            # a dead worker's requests are over: looked for only when they would make the count full
            if sum(counts) >= limit and (not _free_dead(pids, counts, os.getpid()) or sum(counts) >= limit):
                return False
            counts[mine] += 1
            return True
        return self._update(model, take)

    def leave(self, model: str) -> None:
        def give(pids, counts, mine):
            counts[mine] = max(counts[mine] - 1, 0)
            return True
        self._update(model, give)


def _slot(pids: array, pid: int) -> int | None:
    try:
        return pids.index(pid)
    except ValueError:
        return None


def _free_dead(pids: array, counts: array, me: int) -> bool:
    """Free the slots of processes that have died (their requests are over); whether there was one."""
    freed = False
    for k, pid in enumerate(pids):
        if pid and pid != me and not _alive(pid):
            pids[k] = counts[k] = 0
            freed = True
    return freed


def counter_for_environment():
    """The count ``textqa serve`` set up for its workers (``TEXTQA_INFLIGHT_DIR``), or this process's own."""
    folder = os.environ.get("TEXTQA_INFLIGHT_DIR")
    return SharedInflight(folder) if folder else InflightCounter()



def computing(app) -> bool:
    """Whether a model request of ``app`` is computing (holds the work lock; :mod:`.gunicorn_worker` asks)."""
    return app.extensions["textqa_work_lock"].locked()


def max_inflight(config) -> int:
    """``TEXTQA_MAX_INFLIGHT``: model requests the server takes at once, per model (module doc); by
    default 4 a worker (``TEXTQA_WORKERS``, which ``textqa serve`` sets; 1 otherwise)."""
    configured = config.get("TEXTQA_MAX_INFLIGHT")
    if configured:
        return int(configured)
    return DEFAULT_PER_WORKER * max(int(os.environ.get("TEXTQA_WORKERS") or 1), 1)


def admit(model: str) -> None:
    """Count a request to ``model`` in flight until the request ends (:func:`release_all`) and start
    its deadline; 503 ``overloaded`` at once when the bound is reached."""
    app = current_app
    counter = app.extensions["textqa_inflight"]
    limit = max_inflight(app.config)
    if not counter.enter(model, limit):
        from .metrics import SHED  # deferred: loads prometheus_client
        SHED.labels(model).inc()
        raise APIError(503, f"model {model!r} is busy: {limit} requests are in flight; retry after "
                            f"{RETRY_AFTER} s", code="overloaded", headers={"Retry-After": str(RETRY_AFTER)})
    g.setdefault("admitted", []).append(model)
    if "deadline_token" not in g:
        g.deadline_token = deadline.start(app.config.get("TEXTQA_REQUEST_TIMEOUT"), g.get("started_monotonic"))
    if not g.get("working"):            # one model request computes at a time in a worker (module doc)
        left = deadline.remaining()
        if not app.extensions["textqa_work_lock"].acquire(timeout=-1 if left is None else max(left, 0)):
            raise deadline.DeadlineExceeded("waiting", app.config.get("TEXTQA_REQUEST_TIMEOUT"))
        g.working = True


def release_all(exc=None) -> None:
    """The request is over: its models' counts go down and its deadline ends (a teardown callback)."""
    counter = current_app.extensions.get("textqa_inflight")
    if g.pop("working", False):
        current_app.extensions["textqa_work_lock"].release()
    for model in g.pop("admitted", []):
        counter.leave(model)
    token = g.pop("deadline_token", None)
    if token is not None:
        deadline.clear(token)


def deadline_response(e: deadline.DeadlineExceeded) -> APIError:
    """504 ``deadline_exceeded`` for the current request's model, counted."""
    from .metrics import DEADLINE  # deferred: loads prometheus_client
    models = g.get("admitted") or ["unknown"]
    DEADLINE.labels(models[-1], e.stage).inc()
    return APIError(504, f"{e}: the work was stopped, or its answer dropped; send a smaller request or retry later",
                    code="deadline_exceeded")
