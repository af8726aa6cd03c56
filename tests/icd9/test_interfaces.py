"""ICD-9 training artifact, textqa icd9 code, textqa eval icd9 and POST /v1/icd9/code."""
import io
import json
import sys

import pytest

from textqa.evaluation.icd9 import score_codes
from textqa.service import create_app
from textqa.cli import main
from textqa.runtime.paths import DATA_DIR

CMC = DATA_DIR / "icd9" / "cmc2007_train_dev80.xml.gz"


def test_training_report_and_artifact(icd9_artifact):
    folder = icd9_artifact / "icd9"
    manifest = json.loads((folder / "manifest.json").read_text())
    for clf in ("svm", "brr"):
        cv = manifest["metrics"][f"cv_{clf}"]
        assert cv["micro"]["f1"] > 0.75 and cv["documents"] == 586
        assert 0.8 < cv["codes"]["786.2"]["auc"] <= 1.0          # cough: frequent and learnable
        assert (folder / f"roc_{clf}.png").read_bytes()[:4] == b"\x89PNG"
    assert "786.2" in manifest["codes"] and all(c not in manifest["codes"] for c in manifest["unpredicted_codes"])


def test_score_codes_hand_computed():
    gold = {"a": {"1", "2"}, "b": {"1"}, "c": {"3"}}
    pred = {"a": {"1"}, "b": {"1", "2"}, "c": set()}
    r = score_codes(gold, pred)
    # TP 2 (a:1, b:1), FP 1 (b:2), FN 2 (a:2, c:3)
    assert r["micro"]["precision"] == pytest.approx(2 / 3) and r["micro"]["recall"] == pytest.approx(2 / 4)
    assert r["codes"]["1"]["f1"] == 1.0 and r["codes"]["3"]["f1"] == 0.0
    assert r["macro_f1"] == pytest.approx((1.0 + 0.0 + 0.0) / 3)
    with pytest.raises(ValueError, match="'z'"):
        score_codes(gold, {"z": {"1"}})


def test_code_and_eval_commands_on_heldout_records(icd9_artifact, icd9_split, tmp_path, capsys, monkeypatch):
    import numpy as np
    from sklearn.metrics import roc_auc_score

    from textqa.models.icd9.records import read_jsonl
    model = str(icd9_artifact / "icd9")
    heldout = icd9_split / "heldout.jsonl"
    assert main(["icd9", "code", "--model", model, "--jsonl", str(heldout), "--all-scores"]) == 0
    out = capsys.readouterr().out.splitlines()
    gold = {r.id: set(r.codes) for r in read_jsonl(heldout, need_codes=True)}
    preds = [json.loads(l) for l in out]
    assert [p["id"] for p in preds] == list(gold) and len(preds) == 196
    assert preds[0]["codes"][0]["description"]
    pred = tmp_path / "pred.jsonl"
    pred.write_text("\n".join(out) + "\n")
    assert main(["eval", "icd9", str(heldout), str(pred), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["micro"]["f1"] > 0.7                     # records the coders never saw
    # AUC per code against scikit-learn on the same scores; codes with both classes in the held-out part
    checked = 0
    for code, entry in r["codes"].items():
        y = np.array([code in gold[p["id"]] for p in preds])
        if 0 < y.sum() < len(y) and code in preds[0]["scores"]:
            assert entry["auc"] == pytest.approx(roc_auc_score(y, [p["scores"][code] for p in preds]), abs=1e-12)
            checked += 1
    assert checked >= 10 and r["codes"]["786.2"]["auc"] > 0.8
    # the CMC XML reader path codes all 782 records
    assert main(["icd9", "code", "--model", model, "--cmc-xml", str(CMC)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 782
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b'{"id": "x", "text": "Three day history of cough. No focal pneumonia."}\n')))
    assert main(["icd9", "code", "--model", model, "--classifier", "brr"]) == 0
    assert json.loads(capsys.readouterr().out)["codes"][0]["code"] == "786.2"


@pytest.mark.parametrize("stdin, args, message", [
    (b'{"id": "x", "text": ""}\n', [], "<stdin>:1 (id 'x'): empty document"),
    (b'{"id": "x", "text": "a"\n', [], "<stdin>:1: malformed JSON"),
    (b'\xff\n', [], "<stdin>:1: not valid UTF-8"),
    (b'{"id": "x", "text": "a"}\n', ["--classifier", "knn"], "unknown classifier 'knn'"),
])
def test_code_bad_input(icd9_artifact, capsys, monkeypatch, stdin, args, message):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    assert main(["icd9", "code", "--model", str(icd9_artifact / "icd9"), *args]) == 2
    assert message in capsys.readouterr().err


def test_eval_bad_predictions(tmp_path, capsys):
    pred = tmp_path / "p.jsonl"
    pred.write_text('{"id": "97636670", "codes": ["786.2"]}\n{"id": 1}\n')
    assert main(["eval", "icd9", str(CMC), str(pred)]) == 2
    assert "p.jsonl:2: expected" in capsys.readouterr().err


@pytest.fixture(scope="module")
def client(icd9_artifact):
    return create_app(icd9_artifact, {"TESTING": True, "TEXTQA_MODELS": ["icd9"]}).test_client()


def test_http_codes_documents(client):
    r = client.post("/v1/icd9/code", json={"documents": [
        {"id": "1", "text": "Three day history of cough. No focal pneumonia."},
        {"id": 2, "sections": {"history": "Fever.", "impression": "Urinary tract infection."}},
        {"id": 3, "sections": {"history": "Fever.", "impression": "Normal chest."}}], "classifier": "brr"})
    assert r.status_code == 200
    body = r.get_json()
    assert [d["id"] for d in body["documents"]] == ["1", "2", "3"] and body["classifier"] == "brr"
    assert body["documents"][0]["codes"][0]["code"] == "786.2"                  # cough
    second = [c["code"] for c in body["documents"][1]["codes"]]
    assert second[0] == "599.0" and "780.6" not in second      # the guideline drops fever beside the UTI
    assert body["documents"][2]["codes"][0]["code"] == "780.6"                  # fever, from the history section


@pytest.mark.parametrize("body, field", [
    ({"documents": []}, "documents"),
    ({"documents": [{"id": "1", "text": ""}]}, "documents[0].text"),
    ({"documents": [{"id": "1", "text": " \n\t"}]}, "documents[0].text"),
    ({"documents": [{"text": "cough"}]}, "documents[0].id"),
    ({"documents": [{"id": "", "text": "cough"}]}, "documents[0].id"),
    ({"documents": [{"id": True, "text": "cough"}]}, "documents[0].id"),
    ({"documents": [{"id": "1", "text": "a", "sections": {"x": "b"}}]}, "documents[0].text"),
    ({"documents": [{"id": "1", "sections": {}}]}, "documents[0].sections"),
    ({"documents": [{"id": "1", "text": "a"}], "classifier": "knn"}, "classifier"),
    ({"documents": [{"id": "1", "text": "a"}], "classifier": {}}, "classifier"),          # was a 500 (unhashable)
    ({"documents": [{"id": "1", "text": "a"}], "classifier": ["svm"]}, "classifier"),
    ({"documents": [{"id": "1", "text": "a", "note": 1}]}, "documents[0].note"),
    ({"documents": [{"id": "1", "text": "w " * 20001}]}, "documents[0].text"),
])
def test_http_errors(client, body, field):
    r = client.post("/v1/icd9/code", json=body)
    assert r.status_code == 422 and r.get_json()["error"]["field"] == field


def test_http_repeated_ids_are_answered_in_order(client):
    """The contract cannot require unique ids (JSON Schema has no such rule for object members), so
    the service accepts them: one result per document, in the order sent."""
    docs = [{"id": "a", "text": "Cough."}, {"id": "a", "text": "Fever."}, {"id": 7, "text": "Cough."}]
    out = client.post("/v1/icd9/code", json={"documents": docs}).get_json()["documents"]
    assert [d["id"] for d in out] == ["a", "a", "7"] and out[0]["codes"] == out[2]["codes"]


def test_stacked_scoring_equals_the_per_code_models(icd9_artifact):
    """All codes in two sparse products = each code's own normalize(X[:, f] * phi) @ w + b (training's form)."""
    import numpy as np

    from textqa.models.icd9.coder import _design
    from textqa.models.icd9.records import read_cmc_xml
    from textqa.models.icd9.store import load_coder
    coder = load_coder(icd9_artifact / "icd9")
    records = read_cmc_xml(CMC)[:300] + [read_cmc_xml(CMC)[0].__class__("empty", {"text": "zzzz qqqq"})]
    X = coder.matrix(records)
    for clf in ("svm", "brr"):
        S, T = coder.scores(records, clf, X)
        for j, code in enumerate(coder.codes_):
            m = coder.models_[clf][code]
            ref = _design(X, m["features"], m["phi"]) @ m["weights"] + m["bias"] if len(m["features"]) else m["bias"]
            np.testing.assert_allclose(S[:, j], ref, rtol=0, atol=1e-12)
            assert T[j] == m["threshold"]
        assert S[-1].tolist() == [coder.models_[clf][c]["bias"] for c in coder.codes_]   # no known feature


def test_refitting_a_coder_replaces_its_stacked_weights():
    """scores() keeps stacked weights per classifier; a second fit must not score with the first fit's."""
    import numpy as np

    from textqa.models.icd9.coder import ICD9Coder
    from textqa.models.icd9.records import read_cmc_xml
    records = read_cmc_xml(CMC)
    a, b, test = records[:200], records[200:400], records[400:450]
    coder = ICD9Coder(classifiers=("svm",)).fit(a)
    first = coder.scores(test, "svm")[0]                    # builds the cache from the first fit
    coder.fit(b)
    fresh = ICD9Coder(classifiers=("svm",)).fit(b).scores(test, "svm")[0]
    refit = coder.scores(test, "svm")[0]
    if refit.shape == first.shape:
        assert np.abs(first - fresh).max() > 0.1             # the two fits really differ
    # liblinear's coordinate descent is not bit-reproducible between fits: equal up to solver noise
    np.testing.assert_allclose(refit, fresh, atol=1e-3)


def test_brr_standard_deviations_are_the_posteriors_and_conservative(icd9_artifact, icd9_split):
    """The stored low-rank posterior gives each score's predictive standard deviation: never below
    the exact sigma^2 x'(D'D + r I)^-1 x of Lita et al.'s eq. 2 posterior, and within 15% of it."""
    import numpy as np

    from textqa.models.icd9.coder import _design
    from textqa.models.icd9.records import read_records
    from textqa.models.icd9.store import load_coder
    coder = load_coder(icd9_artifact / "icd9")
    train = read_records(icd9_split / "train.jsonl")
    test = read_records(icd9_split / "heldout.jsonl")[:60]
    X, Xt = coder.matrix(train), coder.matrix(test)
    std = coder.uncertainty(test, "brr", Xt)
    for code in ("786.2", "780.6", "599.0"):
        j, m = coder.codes_.index(code), coder.models_["brr"][code]
        D, Dt = _design(X, m["features"], m["phi"]).toarray(), _design(Xt, m["features"], m["phi"]).toarray()
        r = m["sigma2"] / m["tau2"]
        exact = np.sqrt(m["sigma2"] * np.einsum("ij,ji->i", Dt, np.linalg.solve(D.T @ D + r * np.eye(D.shape[1]), Dt.T)))
        assert np.all(std[:, j] >= exact * (1 - 1e-3)) and np.all(std[:, j] <= exact * 1.15), code
    S, _ = coder.scores(test, "brr", Xt)
    p = coder.probabilities(S, "brr")
    assert ((0 < p) & (p < 1)).all()
    for j in range(len(coder.codes_)):                          # Platt: increasing in the score
        order = np.argsort(S[:, j])
        assert np.all(np.diff(p[order, j]) >= -1e-12)
    with pytest.raises(ValueError, match="carry no posterior"):
        coder.uncertainty(test, "svm")


def test_review_flag_and_probabilities_in_cli_and_http(icd9_artifact, client, capsys, monkeypatch):
    model = str(icd9_artifact / "icd9")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b'{"id": "x", "text": "Three day history of cough. No focal pneumonia."}\n')))
    assert main(["icd9", "code", "--model", model, "--classifier", "brr"]) == 0
    out = json.loads(capsys.readouterr().out)
    c = out["codes"][0]
    assert c["code"] == "786.2" and c["std"] > 0 and 0.5 < c["probability"] <= 1 and out["review"] in (True, False)
    r = client.post("/v1/icd9/code", json={"documents": [{"id": "1", "text": "Cough."}, {"id": "2", "text": "Fever."}],
                                           "classifier": "brr", "all_scores": True})
    assert r.status_code == 200
    for d in r.get_json()["documents"]:
        margins = d["scores"]
        assert all("std" in c and "probability" in c for c in d["codes"])
        # the flag: some code within one standard deviation of its threshold
        assert isinstance(d["review"], bool)
    svm = client.post("/v1/icd9/code", json={"documents": [{"id": "1", "text": "Cough."}]}).get_json()
    assert "review" not in svm["documents"][0] and "std" not in svm["documents"][0]["codes"][0]
    assert margins


def test_calibration_and_review_split_by_hand():
    from textqa.evaluation.icd9 import calibration, review_split
    cal = calibration([0.05, 0.05, 0.95, 0.95, 0.55], [0, 1, 1, 1, 0], bins=10)
    # bin 0: mean 0.05, observed 0.5 (2 pairs); bin 9: 0.95 vs 1.0 (2); bin 5: 0.55 vs 0 (1)
    assert cal["ece"] == pytest.approx((2 * 0.45 + 2 * 0.05 + 1 * 0.55) / 5)
    assert cal["counts"][0] == 2 and cal["counts"][5] == 1 and cal["counts"][9] == 2
    split = review_split({"a": {"1"}, "b": {"2"}, "c": {"3"}}, {"a": {"1"}, "b": {"9"}, "c": set()},
                         {"a": False, "b": True, "c": True})
    assert split["automatic"]["precision"] == 1.0 and split["automatic"]["documents"] == 1
    assert split["review"]["precision"] == 0.0 and split["review"]["recall"] == 0.0 and split["review"]["share"] == 2 / 3
