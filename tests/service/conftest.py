"""A live ``textqa serve`` (gunicorn) for tests (``textqa.service.live.LiveServer``, shared with the
benchmarks)."""
import sys
import time
from contextlib import contextmanager

import pytest

from textqa import registry
from textqa.service import contract
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


# the synthetic echo model (echo_model.py), added by the documented steps
ECHO = registry.ModelEntry(
    name="echo", verb="echo", title="Echo (a test model)", label="echo",
    loader="echo_model:load", store="echo_model",
    trainer="echo_model", command="echo_model", batch="echo_model:load",
    blueprint="echo_model:bp")


@pytest.fixture
def registered(monkeypatch):
    """The echo model in the registry (its endpoint declared once), taken out again afterwards."""
    before = list(contract.ENDPOINTS)
    sys.modules.pop("echo_model", None)           # imported afresh: its endpoint declared again
    import echo_model
    monkeypatch.setattr(registry, "MODELS", (*registry.MODELS, ECHO))
    monkeypatch.setitem(registry.BY_NAME, "echo", ECHO)
    yield echo_model
    contract.ENDPOINTS[:] = before + [e for e in contract.ENDPOINTS if e.path != "/v1/echo" and e not in before]
