"""The gunicorn worker of ``textqa serve``: gunicorn's ``gthread`` worker, which leaves a new
connection to an idle worker when there is one.

Every worker waits on the listening socket, and the kernel wakes them all for a new connection;
the first to call ``accept`` takes it.  A worker whose model request is computing answers that call
about as fast as an idle one (its accepting thread waits at most the interpreter's switch interval),
so connections would fall on the workers at random, and one worker could queue requests while the
other idles.  Here a worker that is computing waits ``ACCEPT_DEFER`` seconds before accepting:
an idle worker takes the connection first, and a busy one still takes it when all are busy (a
health check then waits those milliseconds more).
"""
from __future__ import annotations

import time

from gunicorn.workers.gthread import ThreadWorker

from .admission import computing

#: Seconds a computing worker leaves a new connection to an idle one
ACCEPT_DEFER = 0.002


class Worker(ThreadWorker):
    def accept(self, listener):
        if computing(self.wsgi):
            time.sleep(ACCEPT_DEFER)
        super().accept(listener)
