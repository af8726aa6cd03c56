"""Well-formed but hostile JSON (and JSON that only Python's ``json`` would take) wherever JSON is read
from outside: every HTTP endpoint, every command that reads JSON, artifact manifests.  Each case must
give the context's input error (HTTP 400 JSON with a code, ``textqa: error: FILE:LINE: ...`` with exit
status 2, ``ArtifactError`` naming the file), never a 500 or a traceback."""
import io
import json
import logging
import shutil
import sys

import pytest

import textqa
from textqa.cli import main
from textqa.models.artifact import ArtifactError
from textqa.runtime.json_input import MAX_DEPTH, JSONInputError, parse_json
from textqa.service import create_app

DEEP = "[" * 1200 + "]" * 1200                                    # past Python's recursion limit
DEEP_1000 = "[" * 1000 + "]" * 1000
OVER_LIMIT = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
BIG_INT = "1" * 4400                                              # past int()'s 4,300 digits
#: (name, a JSON value that goes where a field's value goes, what the error says)
VALUES = [
    ("deep", DEEP, "nested deeper than 64 levels"),
    ("deep-1000", DEEP_1000, "nested deeper than 64 levels"),
    ("deep-65", OVER_LIMIT, "nested deeper than 64 levels"),
    ("big-int", BIG_INT, "number too large"),
    ("nan", "NaN", "NaN and Infinity are not JSON"),
    ("infinity", "-Infinity", "NaN and Infinity are not JSON"),
    ("lone-surrogate", '"\\ud800x"', "surrogate"),
]


def hostile_objects(field: str, good: str):
    """(name, JSON object text, expected words): each hostile value in another key beside a valid
    ``field``, the valid field given twice, and a hostile value in the field itself."""
    for name, value, says in VALUES:
        yield name, f'{{"{field}": {good}, "a": {value}}}', says
        yield name + "-in-field", f'{{"{field}": {value}}}', says
    yield "duplicate-key", f'{{"{field}": {good}, "{field}": {good}}}', f"duplicate key '{field}'"


# -- the one parser ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name,text,says", list(hostile_objects("text", '"x"')))
def test_parse_json_refuses_each_kind(name, text, says):
    with pytest.raises(JSONInputError) as e:
        parse_json(text.encode())
    assert says in e.value.msg, e.value.msg
    assert e.value.describe().startswith(("JSON refused", "malformed JSON"))


def test_parse_json_reads_valid_json_exactly_as_json_does():
    text = '{"a": [1, 2.5, -3e2, 123456789012345678901234567890], "b": {"c": null, "d": "\\u00e9\\ud83d\\ude00"}}'
    assert parse_json(text) == json.loads(text)
    assert isinstance(parse_json(text)["a"][3], int)                 # exact, where orjson gives a double
    assert parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None


def test_errors_have_a_position_where_there_is_one():
    e = pytest.raises(JSONInputError, parse_json, b'{"a": 1,\n "b": NaN}').value
    assert (e.lineno, e.colno) == (2, 7) and "at line 2 column 7" in e.describe()
    assert not e.refused and pytest.raises(JSONInputError, parse_json, DEEP).value.refused


# -- HTTP: every endpoint -----------------------------------------------------------------------------

ENDPOINTS = [("/v1/truecase", "text", '"the united states."'),
             ("/v1/blanc/score", "pairs", '[{"hypothesis": "a b", "references": ["a b"]}]'),
             ("/v1/icd9/code", "documents", '[{"id": "1", "text": "cough"}]'),
             ("/v1/qa/answer", "question", '"Who wrote Hamlet?"')]


@pytest.fixture(scope="module")
def client(service_artifacts):
    return create_app(service_artifacts, {"MAX_CONTENT_LENGTH": 1_000_000}).test_client()


@pytest.mark.parametrize("path,field,good", ENDPOINTS)
def test_every_endpoint_answers_400_json(client, caplog, path, field, good):
    assert client.post(path, data=f'{{"{field}": {good}}}', content_type="application/json").status_code == 200
    with caplog.at_level(logging.WARNING):
        for name, text, says in hostile_objects(field, good):
            r = client.post(path, data=text.encode(), content_type="application/json")
            assert r.status_code == 400, (name, r.status_code, r.get_data(as_text=True)[:300])
            err = r.get_json()["error"]
            assert err["code"] in ("malformed_json", "unsupported_json") and says in err["message"], (name, err)
            if name.startswith(("deep", "big-int", "duplicate")):
                assert err["code"] == "unsupported_json", (name, err)
    assert not [rec for rec in caplog.records if rec.exc_info or rec.levelno >= logging.ERROR], caplog.text


# -- the command line: every command that reads JSON --------------------------------------------------

def run(argv, stdin: bytes, capsysbinary, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    code = main(argv)
    err = capsysbinary.readouterr().err.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    return code, (err.strip().splitlines() or [""])[-1]


def _lines(field: str, good: str) -> list[tuple[str, bytes, str]]:
    """(name, a file whose second line is hostile, what the error says)."""
    first = f'{{"id": "0", "{field}": {good}}}\n'
    return [(n, (first + t.replace("{", '{"id": "1", ', 1) + "\n").encode(), says)
            for n, t, says in hostile_objects(field, good)]


def test_icd9_code_jsonl_file_and_stdin(icd9_artifact, capsysbinary, monkeypatch, tmp_path):
    model = str(icd9_artifact / "icd9")
    f = tmp_path / "in.jsonl"
    for name, data, says in _lines("text", '"Three day history of cough."'):
        f.write_bytes(data)
        code, last = run(["icd9", "code", "--model", model, "--jsonl", str(f)], b"", capsysbinary, monkeypatch)
        assert code == 2 and last.startswith(f"textqa: error: {f}:2") and says in last, (name, last)
        code, last = run(["icd9", "code", "--model", model], data, capsysbinary, monkeypatch)
        assert code == 2 and last.startswith("textqa: error: <stdin>:2") and says in last, (name, last)


def test_qa_answer_on_stdin(qa_artifact, capsysbinary, monkeypatch):
    model = str(qa_artifact / "qa")
    for name, data, says in _lines("question", '"Who wrote Hamlet?"'):
        code, last = run(["qa", "answer", "--model", model], data, capsysbinary, monkeypatch)
        assert code == 2 and last.startswith("textqa: error: <stdin>:2") and says in last, (name, last)


def test_eval_icd9_predictions(capsysbinary, monkeypatch, tmp_path):
    gold = tmp_path / "gold.jsonl"
    good = '{"id": "0", "text": "cough", "codes": ["486"]}\n{"id": "1", "text": "cough", "codes": ["486"]}\n'
    pred = tmp_path / "pred.jsonl"
    for name, data, says in _lines("codes", '["486"]'):
        gold.write_text(good)
        pred.write_bytes(data)
        code, last = run(["eval", "icd9", str(gold), str(pred)], b"", capsysbinary, monkeypatch)
        assert code == 2 and last.startswith(f"textqa: error: {pred}:2") and says in last, (name, last)
        gold.write_bytes(data.replace(b'"codes"', b'"text": "cough", "codes"', 1))
        pred.write_text(good)
        code, last = run(["eval", "icd9", str(gold), str(pred)], b"", capsysbinary, monkeypatch)
        assert code == 2 and last.startswith(f"textqa: error: {gold}:2") and says in last, (name, last)


def test_batch_reports_the_line(icd9_artifact, capsysbinary, monkeypatch, tmp_path):
    from distributed import LocalCluster
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(_lines("text", '"cough"')[0][1])
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        code, last = run(["batch", "icd9", str(src), str(out), "--model", str(icd9_artifact / "icd9"),
                          "--scheduler", cluster.scheduler_address], b"", capsysbinary, monkeypatch)
    assert code == 2 and f"{src}:2" in last and "nested deeper" in last, last
    assert not out.exists()


# -- manifests -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,text,says", [(n, v, s) for n, v, s in VALUES] +
                         [("duplicate-key", '{"name": "truecaser", "name": "icd9"}', "duplicate key")])
def test_a_hostile_manifest_is_an_artifact_error(truecaser_artifact, tmp_path, capsysbinary, monkeypatch,
                                                 name, text, says):
    folder = tmp_path / "truecaser"
    shutil.copytree(truecaser_artifact / "truecaser", folder)
    (folder / "manifest.json").write_text(text)
    with pytest.raises(ArtifactError) as e:
        textqa.load(str(folder))
    assert str(folder / "manifest.json") in str(e.value) and says in str(e.value), str(e.value)
    code, last = run(["truecase", "--model", str(folder)], b"a b\n", capsysbinary, monkeypatch)
    assert code == 2 and str(folder / "manifest.json") in last and says in last, last


def test_eval_nuggets_compare_with(capsysbinary, monkeypatch, tmp_path):
    from textqa.runtime.paths import DATA_DIR
    fixture = DATA_DIR.parent / "tests" / "fixtures" / "nuggets"
    other = tmp_path / "other.json"
    for name, value, says in VALUES:
        other.write_text('{"runs": %s}' % value)
        code, last = run(["eval", "nuggets", "--key", str(DATA_DIR / "eval" / "nugget" / "trec" / "trec14answers_other"),
                          "--responses", str(fixture / "responses.tsv"), "--questions", "87.8", "66.8",
                          "--compare-with", str(other)], b"", capsysbinary, monkeypatch)
        assert code == 2 and str(other) in last and says in last, (name, last)
