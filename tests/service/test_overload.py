"""The service under overload (textqa.service.admission): health that never waits behind model
work, a bound on the model requests in flight answered at once with 503 ``overloaded``, and a
deadline past which a request gets 504 ``deadline_exceeded`` and the worker lives on.

The model is the synthetic echo model (``echo_model.py``, the ``registered`` fixture), made slow where a test needs
it (a call that waits on an event, or sleeps): what the tests assert is the order of events, not
a duration."""
from __future__ import annotations

import json
import multiprocessing
import threading
import time
import urllib.error
import urllib.request
from types import SimpleNamespace

import pytest
from werkzeug.serving import make_server

from textqa.runtime import deadline
from textqa.service import create_app
from textqa.service.admission import InflightCounter, SharedInflight


def _call(base: str, path: str, body: dict | None = None) -> tuple[int, dict, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, dict(r.headers), (json.loads(raw) if r.headers.get_content_type() == "application/json"
                                              else {"text": raw.decode()})
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read())


def _counter(base: str, name: str, **labels) -> float:
    """A counter's value in ``/metrics`` (0 when absent); the counters live as long as the process."""
    from prometheus_client.parser import text_string_to_metric_families
    text = _call(base, "/metrics")[2]["text"]
    return sum(x.value for fam in text_string_to_metric_families(text) for x in fam.samples
               if x.name == name and all(x.labels.get(k) == v for k, v in labels.items()))


@pytest.fixture
def threaded_server(registered, tmp_path):
    """``start(config) -> (base URL, the echo model)``: the app with the echo model in a threaded
    server (as a gunicorn gthread worker serves it)."""
    servers = []

    def start(config: dict):
        registered.save(tmp_path / "echo", times=1)
        app = create_app(tmp_path, {"TEXTQA_MODELS": ["echo"], "TEXTQA_ACCESS_LOG": False, **config})
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}", app.extensions["textqa_models"]["echo"].model
    yield start
    for s in servers:
        s.shutdown()


def _holding(monkeypatch, model):
    """The echo model made to hold: the texts it has been given, in order (``inside``), and a call with
    "hold" waits, once inside (``entered``), until ``release`` is set."""
    held = SimpleNamespace(inside=[], entered=threading.Event(), release=threading.Event())
    lock, plain = threading.Lock(), type(model).echo

    def echo(self, text):
        with lock:
            held.inside.append(text)
        if text == "hold":
            held.entered.set()
            held.release.wait(30)
        return plain(self, text)
    monkeypatch.setattr(type(model), "echo", echo)
    return held


def test_past_the_bound_a_request_is_refused_at_once_counted_and_health_still_answers(threaded_server, monkeypatch):
    base, model = threaded_server({"TEXTQA_MAX_INFLIGHT": 1})
    held = _holding(monkeypatch, model)
    shed = _counter(base, "textqa_requests_shed_total", model="echo")
    first = {}
    worker = threading.Thread(target=lambda: first.setdefault("r", _call(base, "/v1/echo", {"text": "hold"})))
    worker.start()
    assert held.entered.wait(30)
    status, headers, body = _call(base, "/v1/echo", {"text": "more"})
    assert status == 503 and body["error"]["code"] == "overloaded" and headers["Retry-After"] == "1"
    assert "busy" in body["error"]["message"]
    for path in ("/healthz", "/readyz", "/metrics"):          # answered while the model is busy
        assert _call(base, path)[0] == 200
    assert _counter(base, "textqa_requests_shed_total", model="echo") == shed + 1
    assert "r" not in first                                   # all of it while the first request still worked
    held.release.set()
    worker.join(30)
    assert first["r"][0] == 200 and first["r"][2]["text"] == "hold"
    assert _call(base, "/v1/echo", {"text": "again"})[0] == 200      # its place was given back


def test_a_workers_admitted_requests_compute_one_at_a_time_and_a_wait_has_the_deadline(threaded_server,
                                                                                        monkeypatch):
    base, model = threaded_server({"TEXTQA_MAX_INFLIGHT": 3, "TEXTQA_REQUEST_TIMEOUT": 5.0})
    held = _holding(monkeypatch, model)
    inside, release = held.inside, held.release
    results = {}
    first = threading.Thread(target=lambda: results.setdefault("hold", _call(base, "/v1/echo", {"text": "hold"})))
    first.start()
    assert held.entered.wait(30)
    second = threading.Thread(target=lambda: results.setdefault("next", _call(base, "/v1/echo", {"text": "next"})))
    second.start()
    second.join(0.5)
    assert second.is_alive() and inside == ["hold"]          # admitted, waiting for the first to finish
    assert _call(base, "/healthz")[0] == 200                 # meanwhile the health check answers
    release.set()
    first.join(30)
    second.join(30)
    assert results["hold"][0] == results["next"][0] == 200 and inside == ["hold", "next"]
    # a request that waits past its deadline gives up waiting: 504, and it never computes
    base, model = threaded_server({"TEXTQA_MAX_INFLIGHT": 3, "TEXTQA_REQUEST_TIMEOUT": 0.3})
    inside.clear()
    release.clear()
    held.entered.clear()
    first = threading.Thread(target=lambda: results.update(hold=_call(base, "/v1/echo", {"text": "hold"})))
    first.start()
    assert held.entered.wait(30)
    status, _, body = _call(base, "/v1/echo", {"text": "late"})
    assert status == 504 and "waiting" in body["error"]["message"] and inside == ["hold"]
    release.set()
    first.join(30)


def test_a_request_past_its_deadline_gets_504_and_the_worker_answers_the_next(threaded_server, monkeypatch):
    base, model = threaded_server({"TEXTQA_REQUEST_TIMEOUT": 0.2})
    plain = type(model).echo

    def slow(self, text):
        if text.startswith("slow"):
            time.sleep(0.6)                                     # past the deadline, inside the model call
            if text == "slow, then stop":
                deadline.check("echoed")                       # work that can stop early stops
        return plain(self, text)
    monkeypatch.setattr(type(model), "echo", slow)
    late = {stage: _counter(base, "textqa_requests_deadline_exceeded_total", model="echo", stage=stage)
            for stage in ("answered", "echoed")}
    status, _, body = _call(base, "/v1/echo", {"text": "slow"})
    assert status == 504 and body["error"]["code"] == "deadline_exceeded" and "answered" in body["error"]["message"]
    status, _, body = _call(base, "/v1/echo", {"text": "slow, then stop"})
    assert status == 504 and "echoed" in body["error"]["message"]
    status, _, body = _call(base, "/v1/echo", {"text": "quick"})      # the same worker answers the next
    assert status == 200 and body["text"] == "quick"
    assert all(_counter(base, "textqa_requests_deadline_exceeded_total", model="echo", stage=stage) == n + 1
               for stage, n in late.items())
    # a request that is not a model's (GET) has no deadline, and nothing is left counted in flight
    assert _call(base, "/v1/models")[0] == 200


def test_the_deadline_is_the_requests_own_and_absent_outside_one():
    deadline.check("anywhere")                                  # no deadline: nothing happens
    assert deadline.remaining() is None
    with deadline.deadline(10.0):
        deadline.check("early")
        assert 9 < deadline.remaining() <= 10
        seen = {}
        other = threading.Thread(target=lambda: seen.setdefault("left", deadline.remaining()))
        other.start()
        other.join()
        assert seen["left"] is None                             # another thread's work is not this request's
    with deadline.deadline(1.0, started=time.monotonic() - 2), pytest.raises(deadline.DeadlineExceeded, match="late"):
        deadline.check("late")
    assert deadline.remaining() is None


def _hold(folder, limit, entered, done, queue):
    counter = SharedInflight(folder)
    queue.put([counter.enter("qa", limit) for _ in range(2)])
    entered.set()
    done.wait(30)


def test_the_bound_is_shared_by_the_workers_and_a_dead_workers_requests_are_freed(tmp_path):
    ctx = multiprocessing.get_context("fork")
    entered, done, queue = ctx.Event(), ctx.Event(), ctx.Queue()
    child = ctx.Process(target=_hold, args=(tmp_path, 3, entered, done, queue))
    child.start()
    assert entered.wait(30) and queue.get(timeout=30) == [True, True]
    mine = SharedInflight(tmp_path)
    assert mine.enter("qa", 3) and not mine.enter("qa", 3)     # two in the other process, one here: full
    assert mine.enter("truecaser", 3)                            # each model has its own bound
    mine.leave("qa")
    assert mine.enter("qa", 3)
    mine.leave("qa")
    child.kill()                                                 # a worker killed with requests in flight
    child.join(30)
    assert [mine.enter("qa", 3) for _ in range(4)] == [True, True, True, False]


def test_the_count_of_a_worker_gives_each_model_its_bound():
    counter = InflightCounter()
    assert counter.enter("qa", 2) and counter.enter("qa", 2) and not counter.enter("qa", 2)
    assert counter.enter("truecaser", 2)                          # each model has its own bound
    counter.leave("qa")
    assert counter.enter("qa", 2) and not counter.enter("qa", 2)


def test_serve_refuses_bounds_that_would_leave_no_thread_for_health(tmp_path):
    import subprocess
    import sys
    for args, message in ((["--max-inflight", "0"], "--max-inflight must be at least 1"),
                          (["--workers", "1", "--threads", "4"], "--threads must be more than --max-inflight (4)"),
                          (["--request-timeout", "-1"], "--request-timeout must be at least 0")):
        r = subprocess.run([sys.executable, "-m", "textqa.cli", "serve", "--artifacts", str(tmp_path), *args],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and message in r.stderr, (args, r.stderr)
