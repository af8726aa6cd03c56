"""The instance-based QA system end to end: training artifact, textqa qa answer/select, POST /v1/qa/answer."""
import io
import json
import sys

import pytest

from service import create_app
from textqa.cli import main
from textqa.paths import DATA_DIR

DEV = DATA_DIR / "qa" / "trecqa" / "dev-less-than-40.manual-edit.xml.gz"


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_artifact_records_the_evaluations(qa_artifact):
    m = json.loads((qa_artifact / "qa" / "manifest.json").read_text())["metrics"]
    e = m["exact_answers"]
    assert e["questions"] == 82 and e["training_questions"] == 300 and e["clusters"] > 10
    assert e["mrr5"] > 0.1                     # a small model on a small collection still finds answers
    assert m["selection"]["dev_clean"]["questions"] == 65


def test_answer_plain_and_jsonl_and_added_text(qa_artifact, tmp_path, capsys, monkeypatch):
    model = str(qa_artifact / "qa")
    _stdin(monkeypatch, b'Who is the author of the book The Iron Lady?\n{"id": "b", "question": "When did X die?"}\n')
    assert main(["qa", "answer", "--model", model, "--top-k", "3"]) == 0
    out = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in out] == ["1", "b"]
    first = out[0]
    assert 1 <= len(first["answers"]) <= 3 and first["uiuc_type"].startswith("HUM")
    assert set(first["answers"][0]) == {"answer", "score", "sentence", "clusters"}
    assert abs(sum(first["answer_type"].values()) - 1) < 1e-3 and "<global>" in first["clusters"]
    extra = tmp_path / "extra.txt"
    extra.write_text("The Zorblaxian emperor Quentaro Vilk founded the city of Mardotha in 1421 .\n")
    _stdin(monkeypatch, b"Who founded the city of Mardotha?\n")
    assert main(["qa", "answer", "--model", model, "--add-corpus", str(extra)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert any("Mardotha" in a["sentence"] for a in res["answers"])


@pytest.mark.parametrize("stdin, args, message", [
    (b"\n", [], "<stdin>:1: empty question"),
    (b"word " * 10000 + b"\n", [], "<stdin>:1: question of 10000 words"),
    (b'{"id": 1, "question": \n', [], "<stdin>:1: malformed JSON"),
    (b'{"id": 1}\n', [], "<stdin>:1: expected"),
    (b"Who?\n", ["--top-k", "0"], "--top-k must be between"),
])
def test_answer_bad_input(qa_artifact, capsys, monkeypatch, stdin, args, message):
    _stdin(monkeypatch, stdin)
    assert main(["qa", "answer", "--model", str(qa_artifact / "qa"), *args]) == 2
    assert message in capsys.readouterr().err


def test_answer_bad_corpus_and_model_path(qa_artifact, tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.xml"
    bad.write_text("<QApairs id='1'>\n<question>\n")
    _stdin(monkeypatch, b"Who?\n")
    assert main(["qa", "answer", "--model", str(qa_artifact / "qa"), "--add-corpus", str(bad)]) == 2
    assert "bad.xml:2: <question> must hold" in capsys.readouterr().err
    _stdin(monkeypatch, b"Who?\n")
    assert main(["qa", "answer", "--model", str(tmp_path / "missing")]) == 2
    assert "not a model artifact" in capsys.readouterr().err


def test_select_writes_every_candidate(qa_artifact, capsys):
    assert main(["qa", "select", "--model", str(qa_artifact / "qa"), "--trecqa", str(DEV)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1148
    qid, index, score = lines[0].split("\t")
    assert (qid, index) == ("1.4", "0") and float(score) == float(score)


@pytest.fixture(scope="module")
def client(qa_artifact):
    return create_app(qa_artifact, {"TESTING": True, "TEXTQA_MODELS": ["qa"]}).test_client()


def test_http_answer(client):
    r = client.post("/v1/qa/answer", json={"question": "Who is the author of the book The Iron Lady?", "top_k": 2})
    assert r.status_code == 200
    body = r.get_json()
    assert len(body["answers"]) <= 2 and body["answer_type"] and body["clusters"] and body["model"]["name"] == "qa"


@pytest.mark.parametrize("body, field", [
    ({"question": ""}, "question"), ({"question": 5}, "question"), ({"question": "w " * 10000}, "question"),
    ({"question": "Who?", "top_k": 0}, "top_k"), ({"question": "Who?", "top_k": True}, "top_k"),
    ({"question": "Who?", "k": 3}, "k"),
])
def test_http_errors(client, body, field):
    r = client.post("/v1/qa/answer", json=body)
    assert r.status_code == 422 and r.get_json()["error"]["field"] == field
