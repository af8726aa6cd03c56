"""A live ``textqa serve`` (gunicorn) for tests: port 0 (no race for a free port), output to a file
(no pipe to fill), a readiness wait that ends at once if the server exits."""
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
READY_DEADLINE = 240          # seconds: a worker may load four models; generous for a loaded 2-core machine


class LiveServer:
    def __init__(self, proc, log: Path):
        self.proc, self.log, self.base = proc, log, None

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_bound(self, deadline: float) -> None:
        while self.base is None:
            m = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", self.text())
            if m:
                self.base = f"http://127.0.0.1:{m.group(1)}"
                return
            assert self.proc.poll() is None, "textqa serve exited:\n" + self.text()
            assert time.time() < deadline, "gunicorn did not bind:\n" + self.text()
            time.sleep(0.1)

    def wait_ready(self, path="/readyz", deadline_s: float = READY_DEADLINE) -> requests.Response:
        deadline = time.time() + deadline_s
        self.wait_bound(deadline)
        while True:
            try:
                r = requests.get(self.base + path, timeout=5)
                if r.status_code == 200:
                    return r
            except (requests.ConnectionError, requests.Timeout):     # workers still loading the models
                pass
            assert self.proc.poll() is None, "textqa serve exited:\n" + self.text()
            assert time.time() < deadline, "service did not become ready:\n" + self.text()
            time.sleep(0.3)


@pytest.fixture
def live_server(tmp_path):
    """``with live_server(artifacts, *extra_args) as server``: a running ``textqa serve``."""
    @contextmanager
    def start(artifacts, *extra):
        log = tmp_path / f"serve-{time.monotonic_ns()}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", "serve", "--port", "0",
                                     "--artifacts", str(artifacts), *extra], cwd=ROOT, stdout=out,
                                    stderr=subprocess.STDOUT)
        server = LiveServer(proc, log)
        try:
            yield server
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
    return start
