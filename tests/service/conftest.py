"""A live ``textqa serve`` (gunicorn) for tests (``textqa.service.live.LiveServer``, shared with the
benchmarks)."""
import time
from contextlib import contextmanager

import pytest

from textqa.service.live import LiveServer


@pytest.fixture
def live_server(tmp_path):
    """``with live_server(artifacts, *extra_args) as server``: a running ``textqa serve``."""
    @contextmanager
    def start(artifacts, *extra):
        server = LiveServer(artifacts, *extra, log=tmp_path / f"serve-{time.monotonic_ns()}.log")
        try:
            yield server
        finally:
            server.stop()
    return start
