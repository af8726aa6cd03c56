"""Start the real service (``textqa serve``: gunicorn) and truecase over HTTP."""
import json
import time

import requests


def test_gunicorn_serves_truecase(service_artifacts, live_server):
    with live_server(service_artifacts, "--workers", "1") as server:
        ready = server.wait_ready()
        assert ready["models"] == {"truecaser": True, "blanc": True, "icd9": True, "qa": True}
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
        hostile = ['{"text": "x", "a": %s}' % ("[" * 1200 + "]" * 1200), '{"text": "x", "a": %s}' % ("1" * 4400),
                   '{"text": NaN}', '{"text": "\\ud800"}', '{"text": "x", "text": "y"}']   # tests/test_hostile_json.py
        for text in hostile:                                          # has every kind on every endpoint
            r = requests.post(base + "/v1/truecase", data=text.encode(), timeout=30,
                              headers={"Content-Type": "application/json"})
            assert r.status_code == 400 and r.json()["error"]["code"].endswith("_json"), (text[:40], r.text[:300])
        assert "Traceback" not in server.text() and "internal_error" not in server.text()


def test_metrics_are_summed_over_workers(truecaser_artifact, live_server):
    from prometheus_client.parser import text_string_to_metric_families
    with live_server(truecaser_artifact, "--workers", "2", "--models", "truecaser,blanc") as server:
        server.wait_ready()
        from concurrent.futures import ThreadPoolExecutor
        text = " ".join(["paris is a city ."] * 200)        # long enough that concurrent requests overlap

        def post(_):
            return requests.post(server.base + "/v1/truecase", json={"text": text}, timeout=60).status_code

        with ThreadPoolExecutor(4) as pool:                # overlapping requests use both workers
            assert set(pool.map(post, range(60))) == {200}
        text = requests.get(server.base + "/metrics", timeout=10).text
        samples = [x for fam in text_string_to_metric_families(text) for x in fam.samples]
        total = sum(x.value for x in samples if x.name == "textqa_http_requests_total"
                    and x.labels["endpoint"] == "truecaser.truecase" and x.labels["status"] == "200")
        assert total == 60                      # every request counted once, whichever worker answered it
        names = {x.labels["name"] for x in samples if x.name == "textqa_model_info"}
        assert names == {"truecaser", "blanc"}


def test_the_bound_on_requests_in_flight_holds_over_the_workers(truecaser_artifact, live_server):
    """``--max-inflight 1`` over two gthread workers: of overlapping requests one works at a time, the
    others are refused at once with 503 ``overloaded`` and ``Retry-After``, each refusal is counted
    once in /metrics whichever worker made it, and the health checks answer meanwhile."""
    from concurrent.futures import ThreadPoolExecutor

    from prometheus_client.parser import text_string_to_metric_families
    with live_server(truecaser_artifact, "--workers", "2", "--max-inflight", "1", "--models", "truecaser") as server:
        server.wait_ready()
        assert "Using worker: textqa.service.gunicorn_worker.Worker" in server.text()
        assert "at most 1 requests in flight per model" in server.text()
        text = " ".join(["paris is a city in france ."] * 500)

        def post(_):
            r = requests.post(server.base + "/v1/truecase", json={"text": text}, timeout=60)
            assert r.status_code == 200 or (r.status_code == 503 and r.json()["error"]["code"] == "overloaded"
                                            and r.headers["Retry-After"] == "1"), r.text[:300]
            return r.status_code

        with ThreadPoolExecutor(4) as pool:
            health = pool.submit(lambda: [requests.get(server.base + p, timeout=30).status_code
                                          for p in ("/healthz", "/readyz", "/metrics") * 5])
            codes = list(pool.map(post, range(40)))
            assert set(health.result()) == {200}
        assert codes.count(200) >= 1 and codes.count(503) >= 1 and codes.count(200) + codes.count(503) == 40
        samples = [x for fam in text_string_to_metric_families(requests.get(server.base + "/metrics", timeout=10).text)
                   for x in fam.samples]
        shed = sum(x.value for x in samples if x.name == "textqa_requests_shed_total" and x.labels["model"] == "truecaser")
        assert shed == codes.count(503)
    assert "Traceback" not in server.text()
