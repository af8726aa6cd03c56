"""A bound on the model requests in flight, and a deadline for each.

**The bound.**  A model endpoint (a POST to a loaded model) takes at most ``TEXTQA_MAX_INFLIGHT``
requests at once in a worker (``textqa serve --max-inflight``); one more is answered at once with
503 ``overloaded`` and ``Retry-After``, not queued behind seconds of work, and counted in
``/metrics`` (``textqa_requests_shed_total{model}``, summed over the workers).  The bound is each
worker's own: a request is served by the worker that accepted its connection, so a count shared
by the workers could only refuse work in one worker while another idles.  ``textqa serve`` closes
each connection after its response (gunicorn's ``--keep-alive 0``, as its sync workers did), so
that every request goes to the worker that accepts it first, most often an idle one.

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

import threading

from flask import current_app, g

from textqa.runtime import deadline

from .http_errors import APIError

#: Seconds a refused client is told to wait (``Retry-After``)
RETRY_AFTER = 1
#: Model requests a worker takes at once, per model: one computing and three waiting (docs/http.md,
#: "Under load", has the measurements)
DEFAULT_MAX_INFLIGHT = 4


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


def max_inflight(config) -> int:
    """``TEXTQA_MAX_INFLIGHT``: model requests a worker takes at once, per model (module doc)."""
    return int(config.get("TEXTQA_MAX_INFLIGHT") or DEFAULT_MAX_INFLIGHT)


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
