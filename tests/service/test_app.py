"""The Flask app: health, readiness, manifests, OpenAPI, truecasing and JSON errors for bad input."""
import json

import pytest

from textqa.service import create_app


@pytest.fixture(scope="module")
def client(truecaser_artifact):
    app = create_app(truecaser_artifact, {"TEXTQA_MAX_BATCH_ITEMS": 50, "MAX_CONTENT_LENGTH": 200_000,
                                          "TEXTQA_MODELS": ["truecaser", "blanc"]})
    return app.test_client()


@pytest.fixture(scope="module")
def empty_client(tmp_path_factory):
    return create_app(tmp_path_factory.mktemp("no-artifacts")).test_client()


def error_of(resp, status, code):
    assert resp.status_code == status, resp.get_data(as_text=True)
    body = resp.get_json()
    assert set(body) == {"error"} and body["error"]["code"] == code and body["error"]["message"]
    assert "Traceback" not in resp.get_data(as_text=True)
    return body["error"]


def test_health_ready_models(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    r = client.get("/readyz")
    assert r.status_code == 200 and r.get_json()["ready"] is True
    m = client.get("/v1/models").get_json()["models"]["truecaser"]
    assert m["loaded"] and m["manifest"]["name"] == "truecaser" and "sha256" in json.dumps(m["manifest"])


def test_openapi_covers_every_route(client):
    doc = client.get("/openapi.json").get_json()
    routes = {r.rule for r in client.application.url_map.iter_rules()
              if r.endpoint != "static" and not r.rule.startswith(("/docs", "/playground")) and r.rule != "/"}
    # (the Swagger UI and the playground are pages for people, not API operations)
    assert routes <= set(doc["paths"]), routes - set(doc["paths"])
    assert doc["openapi"] == "3.1.0" and doc["components"]["schemas"]["ErrorResponse"]


def test_openapi_states_the_configured_limits(truecaser_artifact):
    """The declarations are built per configuration: the document shows the limits enforced."""
    c = create_app(truecaser_artifact, {"TESTING": True, "TEXTQA_MODELS": ["truecaser"],
                                        "TEXTQA_MAX_BATCH_ITEMS": 7}).test_client()
    doc = c.get("/openapi.json").get_json()
    ref = doc["paths"]["/v1/truecase"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schema = doc["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert schema["properties"]["sentences"]["maxItems"] == 7 and schema["additionalProperties"] is False
    err = error_of(c.post("/v1/truecase", json={"sentences": ["a"] * 8}), 422, "invalid_request")
    assert err["field"] == "sentences" and "8 items; the limit is 7" in err["message"]


def test_swagger_ui_is_served_locally(client):
    page = client.get("/docs/")
    assert page.status_code == 200 and b"swagger-ui-bundle.js" in page.data and b"/openapi.json" in page.data
    assert b"http://" not in page.data.replace(b"http://localhost", b"") and b"https://" not in page.data
    js = client.get("/docs/swagger-ui-bundle.js")
    assert js.status_code == 200 and len(js.data) > 500_000


def test_truecase_text_keeps_spacing(client):
    r = client.post("/v1/truecase", json={"text": "the president  visited   new york.  he said \"hello\"."})
    assert r.status_code == 200
    out = r.get_json()
    assert out["text"].lower() == "the president  visited   new york.  he said \"hello\"."
    assert out["text"].startswith("The ") and "New York" in out["text"] and "He said" in out["text"]
    assert out["model"]["name"] == "truecaser" and out["model"]["method"] == "viterbi"


def test_truecase_batch_tokenized_and_baseline(client):
    r = client.post("/v1/truecase", json={"sentences": ["the united states -LRB- u.s. -RRB- .", ""],
                                          "tokenized": True})
    assert r.get_json()["sentences"] == ["The United States -LRB- U.S. -RRB- .", ""]
    r = client.post("/v1/truecase", json={"sentences": ["paris is a city ."], "tokenized": True, "baseline": True})
    assert r.get_json()["sentences"] == ["Paris is a city ."] and r.get_json()["model"]["method"] == "unigram"


@pytest.mark.parametrize("text", ["", "   ", "... !!! ,,,", "\u00e9t\u00e9 \u4e2d\u6587 \U0001F600", "a" * 5000])
def test_odd_text_never_crashes(client, text):
    r = client.post("/v1/truecase", json={"text": text})
    assert r.status_code == 200
    assert r.get_json()["text"].lower() == text.lower()


def test_lone_surrogates_in_json(client):
    """JSON may escape unpaired surrogates (\\udXXX), which no UTF-8 text can hold: refused as I-JSON
    (RFC 7493) refuses them, with the place named, rather than passed on to fail later."""
    body = '{"text": "paris \\udc92 zorblaxian\\ud800qux is a city."}'
    err = error_of(client.post("/v1/truecase", data=body, content_type="application/json"), 400, "malformed_json")
    assert "surrogate" in err["message"] and "column" in err["message"]


def test_long_sentence_over_http(client):
    text = " ".join(["the", "city", "of", "london"] * 2500)   # 10,000 tokens
    r = client.post("/v1/truecase", json={"text": text, "tokenized": True})
    assert r.status_code == 200 and len(r.get_json()["text"].split()) == 10000


def test_malformed_json(client):
    error_of(client.post("/v1/truecase", data="{not json", content_type="application/json"), 400, "malformed_json")
    error_of(client.post("/v1/truecase", data=b"\xff\xfe", content_type="application/json"), 400,
             "malformed_json")


def test_wrong_content_type(client):
    error_of(client.post("/v1/truecase", data="text=hello", content_type="text/plain"), 415,
             "unsupported_media_type")


@pytest.mark.parametrize("body,field", [
    ({"text": 5}, "text"), ({"sentences": "abc"}, "sentences"), ({"sentences": ["a", 3]}, "sentences[1]"),
    ({}, "text"), ({"text": "a", "sentences": ["b"]}, "text"), ({"text": "a", "tokenized": "yes"}, "tokenized"),
    ({"text": "a", "colour": 1}, "colour"), ([1, 2], "body"), ({"sentences": ["x"] * 51}, "sentences"),
    ({"text": "a " * 20001}, "text"),
])
def test_invalid_values(client, body, field):
    err = error_of(client.post("/v1/truecase", json=body), 422, "invalid_request")
    assert err["message"].startswith(field)


def test_too_large(client):
    error_of(client.post("/v1/truecase", data=json.dumps({"text": "a" * 300_000}),
                         content_type="application/json"), 413, "payload_too_large")


def test_404_405(client):
    error_of(client.get("/v1/nothing"), 404, "not_found")
    r = client.get("/v1/truecase")
    error_of(r, 405, "method_not_allowed")
    assert set(r.headers["Allow"].replace(" ", "").split(",")) == {"POST", "OPTIONS"}       # RFC 9110: 405 has Allow
    for path in ("/v1/blanc/score", "/v1/icd9/code", "/v1/qa/answer"):
        r = client.delete(path)
        assert r.status_code == 405 and "POST" in r.headers["Allow"]
    r = client.post("/healthz")
    assert r.status_code == 405 and "GET" in r.headers["Allow"]


def test_missing_model_is_503(empty_client):
    error_of(empty_client.post("/v1/truecase", json={"text": "hello"}), 503, "model_unavailable")
    r = empty_client.get("/readyz")
    assert r.status_code == 503 and r.get_json()["ready"] is False
    assert empty_client.get("/healthz").status_code == 200


@pytest.mark.parametrize("damage", ["payload", "manifest"])
def test_broken_artifact_is_503_not_a_crash(truecaser_artifact, tmp_path, damage):
    """An artifact that exists but is broken: the service starts, the model answers 503, /readyz says why."""
    import shutil
    root = tmp_path / "root"
    shutil.copytree(truecaser_artifact / "truecaser", root / "truecaser")
    if damage == "payload":             # bytes changed after the manifest was written: checksum mismatch
        casing = root / "truecaser" / "casing.json.gz"
        casing.write_bytes(casing.read_bytes()[:-10])
    else:                               # the manifest itself is not JSON
        (root / "truecaser" / "manifest.json").write_text("{not json")
    client = create_app(root, {"TEXTQA_MODELS": ["truecaser"]}).test_client()
    err = error_of(client.post("/v1/truecase", json={"text": "hello"}), 503, "model_unavailable")
    assert "truecaser" in err["message"]
    r = client.get("/readyz")
    assert r.status_code == 503 and r.get_json()["models"] == {"truecaser": False}
    assert str(root / "truecaser") in r.get_json()["errors"]["truecaser"]
    assert client.get("/healthz").status_code == 200


def test_request_ids_and_json_access_log(client):
    import logging
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    access = logging.getLogger("textqa.access")
    access.addHandler(handler)
    try:
        r = client.post("/v1/truecase", json={"text": "paris"}, headers={"X-Request-ID": "job-42.7"})
        assert r.headers["X-Request-ID"] == "job-42.7"
        generated = client.post("/v1/truecase", json={"text": 5}).headers["X-Request-ID"]      # errors too
        assert len(generated) == 32 and int(generated, 16) >= 0
        hostile = client.get("/healthz", headers={"X-Request-ID": "a b\"c" + "x" * 200}).headers["X-Request-ID"]
        assert len(hostile) == 32 and " " not in hostile                                 # not echoed
    finally:
        access.removeHandler(handler)
    lines = [json.loads(rec.getMessage()) for rec in records]
    assert [(l["request_id"], l["path"], l["status"], l["method"]) for l in lines] == [
        ("job-42.7", "/v1/truecase", 200, "POST"), (generated, "/v1/truecase", 422, "POST"),
        (hostile, "/healthz", 200, "GET")]
    assert lines[0]["endpoint"] == "truecaser.truecase" and lines[0]["duration_ms"] >= 0


def _samples(text):
    from prometheus_client.parser import text_string_to_metric_families
    return [s for fam in text_string_to_metric_families(text) for s in fam.samples]


def _value(samples, name, **labels):
    return sum(s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def test_metrics_count_requests_latency_items_and_models(client, truecaser_artifact):
    before = _samples(client.get("/metrics").get_data(as_text=True))
    client.post("/v1/truecase", json={"text": "paris"})
    client.post("/v1/truecase", json={"sentences": ["a", "b", "c"]})
    client.post("/v1/truecase", json={"text": 5})
    r = client.get("/metrics")
    assert r.status_code == 200 and r.content_type.startswith("text/plain")
    after = _samples(r.get_data(as_text=True))
    delta = lambda name, **kw: _value(after, name, **kw) - _value(before, name, **kw)
    ep = {"endpoint": "truecaser.truecase"}
    assert delta("textqa_http_requests_total", status="200", method="POST", **ep) == 2
    assert delta("textqa_http_requests_total", status="422", **ep) == 1
    assert delta("textqa_http_request_duration_seconds_count", **ep) == 3
    assert delta("textqa_http_request_items_sum", **ep) == 1 + 3                    # successful requests' items
    manifest = json.loads((truecaser_artifact / "truecaser" / "manifest.json").read_text())
    info = [s for s in after if s.name == "textqa_model_info" and s.labels["name"] == "truecaser"]
    assert any(s.labels["created_at"] == manifest["created_at"] and len(s.labels["artifact_id"]) == 12 for s in info)


def test_request_budget_bounds_the_work_of_a_whole_request(truecaser_artifact):
    """Each item within its limit, the request over the total: 413 naming the limit, before any work."""
    import time
    app = create_app(truecaser_artifact, {"TEXTQA_MODELS": ["truecaser", "blanc"]})
    c = app.test_client()
    assert app.config["TEXTQA_MAX_TOKENS_PER_REQUEST"] == 20000
    sentences = ["the city of london is large and old ."] * 100            # 900 tokens: within the budget
    assert c.post("/v1/truecase", json={"sentences": sentences}).status_code == 200
    big = ["w " * 19_000] * 2                                              # 38,000 tokens, each item under 20,000
    err = error_of(c.post("/v1/truecase", json={"sentences": big}), 413, "payload_too_large")
    assert "38,000 tokens; the limit is 20,000 per request" in err["message"]
    # BLANC: 3 pairs of 999 tokens (each within the 1,000-token limit) = 2,994,003 grid cells > 2,000,000
    t0 = time.perf_counter()
    pair = {"hypothesis": "x " * 999, "references": ["x " * 999]}
    err = error_of(c.post("/v1/blanc/score", json={"pairs": [pair] * 3}), 413, "payload_too_large")
    assert "2,994,003 ACS grid cells" in err["message"] and "2,000,000 per request" in err["message"]
    assert time.perf_counter() - t0 < 5                   # refused up front, not after seconds of ACS
    assert c.post("/v1/blanc/score", json={"pairs": [{"hypothesis": "x " * 100, "references": ["x " * 100]}]}
                  ).status_code == 200
    # the largest single text the budget admits is answered whole (the decoder is linear in the text)
    words = "the mayor of new york met the president in washington on monday .".split()
    text = " ".join(words[i % len(words)] for i in range(19_999))
    r = c.post("/v1/truecase", json={"text": text})
    assert r.status_code == 200
    out = r.get_json()["text"]
    assert out.lower() == text and out.count("New York") > 1000           # 1,538 occurrences


def test_icd9_request_budget(icd9_artifact):
    c = create_app(icd9_artifact, {"TEXTQA_MODELS": ["icd9"], "TEXTQA_ICD9_MAX_TOKENS_PER_REQUEST": 1000}).test_client()
    docs = [{"id": str(i), "text": "cough " * 300} for i in range(4)]
    assert c.post("/v1/icd9/code", json={"documents": docs[:3]}).status_code == 200
    err = error_of(c.post("/v1/icd9/code", json={"documents": docs}), 413, "payload_too_large")
    assert "1,200 tokens; the limit is 1,000 per request" in err["message"]


def test_a_loaded_model_is_kept_out_of_the_collectors_work(truecaser_artifact):
    """A service worker freezes what it loaded (a full collection walked the four default models'
    millions of objects for half a second, a pause every request then waiting waited for)."""
    import gc
    gc.unfreeze()
    app = create_app(truecaser_artifact, {"TEXTQA_MODELS": ["truecaser"]})
    model = app.extensions["textqa_models"]["truecaser"].model
    assert model is not None and gc.get_freeze_count() > 100_000
    assert not any(o is model.model.casing_.forms for o in gc.get_objects())     # frozen: no generation holds it
    gc.unfreeze()


def test_a_server_loads_its_models_with_the_options_textqa_serve_takes(truecaser_artifact, monkeypatch):
    """``textqa serve --decoder trigram --no-context`` reaches the workers (as JSON in the environment),
    the truecaser decodes as ``textqa.load(..., decoder="trigram", context=False)`` does, and
    ``/v1/models`` shows the options under the command line's names."""
    import json

    import textqa
    from textqa.cli import build_parser
    from textqa.cli import serve as serve_command
    args = build_parser(["serve"]).parse_args(["serve", "--artifacts", str(truecaser_artifact), "--decoder",
                                               "trigram", "--no-context", "--models", "truecaser"])
    seen = {}
    monkeypatch.setattr(serve_command.os, "execve", lambda path, cmd, env: seen.update(env))
    serve_command.run(args)
    chosen = json.loads(seen["TEXTQA_LOAD_OPTIONS"])
    assert chosen == {"truecaser": {"decoder": "trigram", "context": False}}
    app = create_app(truecaser_artifact, {"TESTING": True, "TEXTQA_MODELS": ["truecaser"],
                                          "TEXTQA_LOAD_OPTIONS": chosen})
    c = app.test_client()
    shown = c.get("/v1/models").get_json()["models"]["truecaser"]["options"]
    assert shown == {"decoder": "trigram", "phrases": True, "compounds": True, "discriminative": True,
                     "class_lm": True, "context": False}
    text = "the president of the united states met the prime minister in new york ."
    expected = textqa.load("truecaser", truecaser_artifact, decoder="trigram", context=False).truecase(text)
    assert c.post("/v1/truecase", json={"text": text}).get_json()["text"] == expected
    bad = create_app(truecaser_artifact, {"TESTING": True, "TEXTQA_MODELS": ["truecaser"],
                                          "TEXTQA_LOAD_OPTIONS": {"truecaser": {"beam": 3}}}).test_client()
    status = bad.get("/v1/models").get_json()["models"]["truecaser"]
    assert not status["loaded"] and "unknown option(s) beam" in status["error"]
