"""A deadline for the work of one request, which long work checks where it can stop early.

The service sets a deadline when a model request starts (:func:`deadline`, a context manager; the
deadline lives in a :mod:`contextvars` variable, so each of a worker's threads has its own).  Work
that has natural stopping points calls :func:`check` there ("retrieved", "read", between the items
of a batch): past the deadline it raises :class:`DeadlineExceeded` naming the stage, and the
service answers 504 instead of finishing work nobody waits for.  Outside a request (the command
line, training, the tests) there is no deadline and :func:`check` costs a look-up.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar

#: (the deadline's start, a time.monotonic() time, and its seconds), or None: no deadline
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("textqa_deadline", default=None)


class DeadlineExceeded(Exception):
    """The current request's deadline passed; ``stage``: where the work stopped."""

    def __init__(self, stage: str, seconds: float):
        super().__init__(f"the request's deadline of {seconds:g} s passed ({stage})")
        self.stage, self.seconds = stage, seconds


@contextmanager
def deadline(seconds: float | None, started: float | None = None):
    """Work inside has until ``started`` (a :func:`time.monotonic` time; default now) plus
    ``seconds``; None: no deadline."""
    token = start(seconds, started)
    try:
        yield
    finally:
        clear(token)


def start(seconds: float | None, started: float | None = None):
    """:func:`deadline` without the ``with``: the token that :func:`clear` takes (for a deadline set
    and cleared in two callbacks, as a web framework's before- and after-request hooks)."""
    return _DEADLINE.set(None if seconds is None else ((time.monotonic() if started is None else started), seconds))


def clear(token) -> None:
    _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the current deadline (negative once past), or None without one."""
    d = _DEADLINE.get()
    return None if d is None else d[0] + d[1] - time.monotonic()


def check(stage: str) -> None:
    """Raise :class:`DeadlineExceeded` (naming ``stage``) when the current deadline has passed."""
    d = _DEADLINE.get()
    if d is not None and time.monotonic() > d[0] + d[1]:
        raise DeadlineExceeded(stage, d[1])
