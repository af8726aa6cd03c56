"""The steps of "Adding a model" (docs/development.md) are complete: a model that takes only them
(a registry entry and a module with its store and its blueprint, ``echo_model.py``, synthetic) is
served, listed, documented in ``/openapi.json`` with its limits, and validated, with no other edit."""
from __future__ import annotations

import textqa
from textqa.service import create_app

def test_a_model_added_by_the_documented_steps_is_served(registered, tmp_path):
    registered.save(tmp_path / "echo", times=2)
    app = create_app(tmp_path, {"TESTING": True, "TEXTQA_MODELS": ["echo"], "TEXTQA_MAX_TOKENS_PER_ITEM": 5})
    client = app.test_client()
    r = client.post("/v1/echo", json={"text": "hello"})
    assert r.status_code == 200 and r.get_json()["text"] == "hello hello"
    assert r.get_json()["model"]["name"] == "echo"
    models = client.get("/v1/models").get_json()["models"]
    assert models["echo"]["loaded"] and models["echo"]["title"] == "Echo (a test model)"
    doc = client.get("/openapi.json").get_json()
    assert "/v1/echo" in doc["paths"]
    assert doc["paths"]["/v1/echo"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"] \
        == "#/components/schemas/EchoRequest"
    bad = client.post("/v1/echo", json={"text": "hello", "extra": 1})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "extra"
    too_long = client.post("/v1/echo", json={"text": "one two three four five six"})     # the app's 5-token limit
    assert too_long.status_code == 422 and too_long.get_json()["error"]["field"] == "text"
    import textqa
    assert textqa.load("echo", tmp_path).echo("x") == "x x"


def test_without_the_registry_entry_the_endpoint_is_not_served(tmp_path):
    app = create_app(tmp_path, {"TESTING": True})
    assert app.test_client().post("/v1/echo", json={"text": "hello"}).status_code == 404
