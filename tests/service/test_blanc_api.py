"""POST /v1/blanc/score."""
import pytest

from textqa.service import create_app


@pytest.fixture(scope="module")
def client(blanc_artifact):
    app = create_app(blanc_artifact, {"TESTING": True, "TEXTQA_MODELS": ["blanc"]})
    return app.test_client()


def test_scores_per_pair_and_corpus(client):
    pairs = [{"hypothesis": "The cat sat on the mat.", "references": ["The cat sat on the mat."]},
             {"hypothesis": "A cat meowed.", "references": ["A dog barked.", "The dog barked loudly."]}]
    r = client.post("/v1/blanc/score", json={"pairs": pairs})
    assert r.status_code == 200
    body = r.get_json()
    assert body["scores"][0]["score"] == pytest.approx(1.0) and 0 <= body["scores"][1]["score"] < 1
    assert body["signature"].startswith("BLANC|") and body["model"]["name"] == "blanc"
    c = client.post("/v1/blanc/score", json={"pairs": pairs, "corpus": True}).get_json()
    assert set(c["corpus"]) == {"score", "precision", "recall"} and "scores" not in c


@pytest.mark.parametrize("body, field", [
    ({"pairs": []}, "pairs"),
    ({"pairs": [{"hypothesis": "", "references": ["x"]}]}, "pairs[0].hypothesis"),
    ({"pairs": [{"hypothesis": "x", "references": []}]}, "pairs[0].references"),
    ({"pairs": [{"hypothesis": "x", "references": ["  "]}]}, "pairs[0].references[0]"),
    ({"pairs": [{"hypothesis": "x", "references": [3]}]}, "pairs[0].references[0]"),
    ({"pairs": [{"hypothesis": "x", "reference": ["y"]}]}, "pairs[0].reference"),
    ({"pairs": [{"hypothesis": "x", "references": ["y"]}], "corpus": "yes"}, "corpus"),
    ({"pairs": [{"hypothesis": "x", "references": ["y"]}], "extra": 1}, "extra"),
    ({"pairs": [{"hypothesis": "w " * 1001, "references": ["y"]}]}, "pairs[0].hypothesis"),
])
def test_invalid_requests_are_json_422_naming_the_field(client, body, field):
    r = client.post("/v1/blanc/score", json=body)
    assert r.status_code == 422
    err = r.get_json()["error"]
    assert err["code"] == "invalid_request" and err["field"] == field


def test_non_utf8_and_missing_model(client, tmp_path):
    r = client.post("/v1/blanc/score", data=b'{"pairs": "\xff"}', content_type="application/json")
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "malformed_json"
    empty = create_app(tmp_path, {"TESTING": True, "TEXTQA_MODELS": ["blanc"]}).test_client()
    r = empty.post("/v1/blanc/score", json={"pairs": [{"hypothesis": "x", "references": ["y"]}]})
    assert r.status_code == 503 and r.get_json()["error"]["code"] == "model_unavailable"
