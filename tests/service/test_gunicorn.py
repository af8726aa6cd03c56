"""Start the real service (gunicorn on a free port) and truecase over HTTP."""
import os
import socket
import subprocess
import sys
import time

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gunicorn_serves_truecase(truecaser_artifact):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", "serve", "--port", str(port), "--workers", "1",
                             "--artifacts", str(truecaser_artifact)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                if requests.get(base + "/readyz", timeout=2).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):     # worker still loading the models
                pass
            assert proc.poll() is None, proc.stdout.read().decode()
            assert time.time() < deadline, "service did not become ready"
            time.sleep(0.3)
        r = requests.post(base + "/v1/truecase", json={"text": "the united states and new york."}, timeout=10)
        assert r.status_code == 200
        assert r.json()["text"] == "The United States and New York."
        r = requests.post(base + "/v1/truecase", data="{", headers={"Content-Type": "application/json"},
                          timeout=10)
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
