"""Start the real service (``textqa serve``: gunicorn) and truecase over HTTP.

Robust on a busy machine without checking less: gunicorn binds port 0 itself (no window in
which another process can take a port we picked), its output goes to a file (no pipe to fill
and block the server), and the readiness wait is long but ends at once if the server exits.
"""
import re
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
READY_DEADLINE = 240          # seconds: one worker loads four models; generous for a loaded 2-core machine


def _listening_port(log: Path, proc: subprocess.Popen, deadline: float) -> int:
    while True:
        m = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", log.read_text(errors="replace"))
        if m:
            return int(m.group(1))
        assert proc.poll() is None, "textqa serve exited:\n" + log.read_text(errors="replace")
        assert time.time() < deadline, "gunicorn did not bind:\n" + log.read_text(errors="replace")
        time.sleep(0.1)


def test_gunicorn_serves_truecase(service_artifacts, tmp_path):
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", "serve", "--port", "0", "--workers", "1",
                                 "--artifacts", str(service_artifacts)], cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + READY_DEADLINE
        base = f"http://127.0.0.1:{_listening_port(log, proc, deadline)}"
        while True:
            try:
                r = requests.get(base + "/readyz", timeout=5)
                if r.status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):     # worker still loading the models
                pass
            assert proc.poll() is None, "textqa serve exited:\n" + log.read_text(errors="replace")
            assert time.time() < deadline, "service did not become ready:\n" + log.read_text(errors="replace")
            time.sleep(0.3)
        assert r.json()["models"] == {"truecaser": True, "blanc": True, "icd9": True, "qa": True}
        r = requests.post(base + "/v1/truecase", json={"text": "the united states and new york."}, timeout=30,
                          headers={"X-Request-ID": "gunicorn-test-1"})
        assert r.status_code == 200 and r.headers["X-Request-ID"] == "gunicorn-test-1"
        assert r.json()["text"] == "The United States and New York."
        import json
        deadline_log = time.time() + 10
        while '"gunicorn-test-1"' not in log.read_text(errors="replace") and time.time() < deadline_log:
            time.sleep(0.1)
        line = next(l for l in log.read_text(errors="replace").splitlines() if '"gunicorn-test-1"' in l)
        entry = json.loads(line)                     # the access log: one JSON object per request
        assert (entry["path"], entry["status"], entry["method"]) == ("/v1/truecase", 200, "POST")
        r = requests.post(base + "/v1/truecase", data="{", headers={"Content-Type": "application/json"},
                          timeout=30)
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
