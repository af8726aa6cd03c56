"""Start the real service (``textqa serve``: gunicorn) and truecase over HTTP."""
import json
import time

import requests


def test_gunicorn_serves_truecase(service_artifacts, live_server):
    with live_server(service_artifacts, "--workers", "1") as server:
        r = server.wait_ready()
        assert r.json()["models"] == {"truecaser": True, "blanc": True, "icd9": True, "qa": True}
        base = server.base
        r = requests.post(base + "/v1/truecase", json={"text": "the united states and new york."}, timeout=30,
                          headers={"X-Request-ID": "gunicorn-test-1"})
        assert r.status_code == 200 and r.headers["X-Request-ID"] == "gunicorn-test-1"
        assert r.json()["text"] == "The United States and New York."
        deadline_log = time.time() + 10
        while '"gunicorn-test-1"' not in server.text() and time.time() < deadline_log:
            time.sleep(0.1)
        line = next(l for l in server.text().splitlines() if '"gunicorn-test-1"' in l)
        entry = json.loads(line)                     # the access log: one JSON object per request
        assert (entry["path"], entry["status"], entry["method"]) == ("/v1/truecase", 200, "POST")
        r = requests.post(base + "/v1/truecase", data="{", headers={"Content-Type": "application/json"},
                          timeout=30)
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"
