"""A ``textqa serve`` in a child process, for the tests and the benchmarks: any free port (port 0,
read back from gunicorn's log, so no race for a port), output to a file (no pipe to fill), a
readiness wait that ends at once if the server exits, and a stop that waits for the workers."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from textqa.runtime.paths import REPO_ROOT

READY_DEADLINE = 240          # seconds: a worker may load four models; generous for a loaded 2-core machine


class LiveServer:
    def __init__(self, artifacts, *extra: str, log: Path):
        self.log, self.base = Path(log), None
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", "serve", "--port", "0",
                                          "--artifacts", str(artifacts), *extra], cwd=REPO_ROOT, stdout=out,
                                         stderr=subprocess.STDOUT)

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

    def wait_ready(self, path: str = "/readyz", deadline_s: float = READY_DEADLINE) -> dict:
        """The JSON body of the first 200 answer to ``GET path``."""
        deadline = time.time() + deadline_s
        self.wait_bound(deadline)
        while True:
            try:
                with urllib.request.urlopen(self.base + path, timeout=5) as r:
                    return json.load(r)
            except (urllib.error.URLError, OSError):        # workers still loading the models (or 503)
                pass
            assert self.proc.poll() is None, "textqa serve exited:\n" + self.text()
            assert time.time() < deadline, "service did not become ready:\n" + self.text()
            time.sleep(0.3)

    def stop(self) -> None:
        """SIGTERM to gunicorn's master (it stops its workers), SIGKILL after 30 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
