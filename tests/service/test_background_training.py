"""``textqa serve --train-missing``: the server answers at once, a model being trained answers 503
with ``Retry-After`` and its state, and goes live in every worker once its artifact is written;
Ctrl-C stops server and training and leaves no partial artifact."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from textqa.service import create_app

ROOT = Path(__file__).resolve().parents[2]
ICD9_DOC = {"documents": [{"id": "1", "text": "Three day history of cough. No focal pneumonia."}]}


def test_a_model_in_training_answers_503_with_its_state_then_goes_live(service_artifacts, copy_root, tmp_path,
                                                                       monkeypatch):
    root = copy_root(service_artifacts)
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"models": {"icd9": {"state": "training", "step": "fold 2/5 done",
                                                     "percent": 41.0, "eta_seconds": 37.5}}}))
    monkeypatch.setenv("TEXTQA_TRAINING_STATE", str(state))
    client = create_app(root, {"TESTING": True, "TEXTQA_ACCESS_LOG": False}).test_client()
    r = client.post("/v1/icd9/code", json=ICD9_DOC)
    assert r.status_code == 503 and r.headers["Retry-After"] == "37"
    err = r.get_json()["error"]
    assert err["code"] == "model_training" and "fold 2/5 done" in err["message"]
    assert err["state"] == {"state": "training", "step": "fold 2/5 done", "percent": 41.0, "eta_seconds": 37.5,
                            "estimated": True}
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["training"]["icd9"]["percent"] == 41.0
    models = client.get("/v1/models").get_json()["models"]
    assert models["icd9"]["loaded"] is False and models["icd9"]["training"]["state"] == "training"
    assert models["truecaser"]["loaded"] is True and "training" not in models["truecaser"]
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'textqa_model_state{name="icd9",state="training"} 1' in metrics
    assert 'textqa_model_state{name="truecaser",state="ready"} 1' in metrics
    assert 'textqa_model_training_percent{name="icd9"} 41.0' in metrics
    state.write_text(json.dumps({"models": {"icd9": {"state": "queued", "eta_seconds": 500}}}))
    r = client.post("/v1/icd9/code", json=ICD9_DOC)
    assert r.status_code == 503 and r.get_json()["error"]["code"] == "model_queued" and r.headers["Retry-After"] == "30"
    # trained: the state file no longer names it, and the artifact is there: the next request loads it
    state.write_text(json.dumps({"models": {}}))
    r = client.post("/v1/icd9/code", json=ICD9_DOC)
    assert r.status_code == 200 and r.get_json()["documents"][0]["codes"][0]["code"] == "786.2"
    assert client.get("/readyz").status_code == 200
    assert 'textqa_model_state{name="icd9",state="ready"} 1' in client.get("/metrics").get_data(as_text=True)


def _serve(root: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """``textqa serve --train-missing`` over the suite's models (not BLANC, whose default training is long)."""
    out = open(log, "wb")
    proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", "serve", "--train-missing", "--port", "0",
                             "--workers", "2", "--artifacts", str(root), "--models", "truecaser,icd9,qa"], cwd=ROOT,
                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        text = log.read_text(errors="replace")
        if "Listening at: http://127.0.0.1:" in text:
            port = text.split("Listening at: http://127.0.0.1:")[1].split()[0]
            return proc, f"http://127.0.0.1:{port}"
        assert proc.poll() is None, text
        time.sleep(0.2)
    raise AssertionError(log.read_text(errors="replace"))


def test_serve_trains_a_missing_model_behind_the_server(service_artifacts, copy_root, tmp_path):
    """ICD-9 (the cheapest default training) missing: the other models answer at once, ICD-9 answers
    503 with its state until its artifact is written, then 200; one progress line for it."""
    root = copy_root(service_artifacts)
    shutil.rmtree(root / "icd9")
    log = tmp_path / "serve.log"
    proc, base = _serve(root, log)
    try:
        assert requests.post(f"{base}/v1/truecase", json={"text": "paris in the spring"}, timeout=30).status_code == 200
        r = requests.post(f"{base}/v1/icd9/code", json=ICD9_DOC, timeout=30)
        assert r.status_code == 503 and r.json()["error"]["code"] in ("model_queued", "model_training")
        assert int(r.headers["Retry-After"]) >= 5
        deadline = time.time() + 400
        while time.time() < deadline:
            r = requests.post(f"{base}/v1/icd9/code", json=ICD9_DOC, timeout=60)
            if r.status_code == 200:
                break
            assert r.status_code == 503, r.text
            time.sleep(2)
        assert r.status_code == 200 and r.json()["documents"][0]["codes"], log.read_text(errors="replace")[-3000:]
        assert requests.get(f"{base}/readyz", timeout=30).status_code == 200
        assert (root / "icd9" / "manifest.json").is_file() and (root / ".logs" / "icd9.train.log").is_file()
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(120) == 130
    text = log.read_text(errors="replace").replace("\r", "\n")
    assert "icd9" in text and "ready in" in text and "every model is trained and served" in text
    assert f'File "{ROOT / "textqa"}' not in text          # no error of ours (gunicorn's Ctrl-C may cut a request)


def test_ctrl_c_during_a_training_leaves_no_partial_artifact(service_artifacts, copy_root, tmp_path):
    root = copy_root(service_artifacts)
    shutil.rmtree(root / "truecaser")
    before = sorted(p.name for p in root.iterdir())
    log = tmp_path / "serve.log"
    proc, base = _serve(root, log)
    deadline = time.time() + 120
    while time.time() < deadline:                # the truecaser's training under way
        body = requests.get(f"{base}/v1/models", timeout=30).json()["models"]["truecaser"]
        if body.get("training", {}).get("state") == "training" and list(root.glob("truecaser-work-*")):
            break
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(120) == 130
    text = log.read_text(errors="replace")
    assert "no partial artifact is left" in text and f'File "{ROOT / "textqa"}' not in text
    assert not (root / "truecaser").exists() and not list(root.glob("truecaser*"))
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == before


def test_the_wikipedia_index_is_a_job_after_the_models(service_artifacts, copy_root):
    """A QA artifact without its Wikipedia index (one trained before it existed) gets it built in the
    background; a QA model still to train is trained without it (``--wikipedia skip``), and the index
    comes after every model, so that none of them waits for it."""
    from textqa.cli.background import to_train
    from textqa.registry import MODELS
    root = copy_root(service_artifacts)
    jobs, _ = to_train(root, MODELS)
    assert jobs == []                                     # everything there, the collection's analysis included
    manifest_path = root / "collections" / "wikipedia" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["files"]["analysis.sqlite"]              # as before its analysis joined it
    manifest_path.write_text(json.dumps(manifest))
    jobs, _ = to_train(root, MODELS)
    assert [(j.name, j.args, j.folder) for j in jobs] == [("wikipedia-analysis", ("qa", "analyse", "wikipedia"),
                                                           "collections")]
    shutil.rmtree(root / "collections" / "wikipedia")
    jobs, _ = to_train(root, MODELS)
    assert [(j.name, j.args, j.folder) for j in jobs] == [
        ("wikipedia", ("qa", "index", "wikipedia", "--no-analyse"), "collections"),
        ("wikipedia-analysis", ("qa", "analyse", "wikipedia"), "collections")]
    shutil.rmtree(root / "qa")
    shutil.rmtree(root / "icd9")
    jobs, _ = to_train(root, MODELS)
    assert [j.name for j in jobs] == ["icd9", "qa", "wikipedia", "wikipedia-analysis", "qa-reader"]
    assert jobs[1].args == ("train", "qa", "--wikipedia", "skip") and jobs[0].args == ("train", "icd9")
    assert jobs[4].args == ("train", "qa", "--collection", "default", "--reader-questions", "open", "--wikipedia",
                            "skip")
    jobs, _ = to_train(root, [m for m in MODELS if m.name != "qa"])     # QA not served: no index for it
    assert [j.name for j in jobs] == ["icd9"]


def test_models_says_the_wikipedia_index_is_being_built(service_artifacts, copy_root, tmp_path, monkeypatch):
    root = copy_root(service_artifacts)
    shutil.rmtree(root / "collections" / "wikipedia")
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"models": {"wikipedia": {"state": "training", "percent": 40.0, "eta_seconds": 50}}}))
    monkeypatch.setenv("TEXTQA_TRAINING_STATE", str(state))
    client = create_app(root, {"TESTING": True, "TEXTQA_ACCESS_LOG": False}).test_client()
    line = client.get("/v1/models").get_json()["models"]["qa"]["collection"]
    assert "news pool only for now" in line and "being indexed in the background (about 40%)" in line
    r = client.post("/v1/qa/answer", json={"question": "Who wrote Hamlet?"})
    assert r.status_code == 200                           # QA answers meanwhile, from the pool
    assert all(a["document"]["id"].startswith("trecqa-pool/") for a in r.get_json()["answers"])
    state.write_text(json.dumps({"models": {"wikipedia": {"state": "queued", "eta_seconds": 500}}}))
    assert "queued for indexing" in client.get("/v1/models").get_json()["models"]["qa"]["collection"]
    state.write_text(json.dumps({"models": {}}))
    assert "'textqa qa index wikipedia' builds it" in client.get("/v1/models").get_json()["models"]["qa"]["collection"]


def test_index_wikipedia_without_paths_and_train_all_build_the_default_collection(service_artifacts, copy_root,
                                                                                   wikipedia_slice, monkeypatch):
    """``textqa qa index wikipedia`` with no PATH indexes the bundled articles (here a slice of them);
    ``textqa train all`` builds the index for a QA artifact that lacks it; no other name has a default."""
    from textqa import cli
    from textqa.models.qa import passages
    from textqa.runtime import paths
    part = wikipedia_slice(20)
    monkeypatch.setattr(paths, "WIKIPEDIA_TEXT", [part])
    monkeypatch.setattr(passages, "WIKIPEDIA_SOURCES", [part])
    root = copy_root(service_artifacts)
    wiki = root / "collections" / "wikipedia"
    shutil.rmtree(wiki)
    assert cli.main(["qa", "index", "wikipedia", "--quiet", "--no-analyse", "--artifacts", str(root)]) == 0
    info = json.loads((wiki / "collection.json").read_text())
    assert info["documents"] == 20 and info["description"] == passages.WIKIPEDIA_DESCRIPTION
    assert info["sources"] == [str(part)]
    assert cli.main(["qa", "index", "mine", "--quiet", "--artifacts", str(root)]) == 2
    assert not (root / "collections" / "mine").exists()
    shutil.rmtree(wiki)
    assert cli.main(["train", "all", "--artifacts", str(root)]) == 0
    assert json.loads((wiki / "collection.json").read_text())["documents"] == 20


def test_models_says_wikipedia_is_read_with_its_sentences_analysed_when_asked_until_its_analysis_joins(
        service_artifacts, copy_root, tmp_path, monkeypatch):
    root = copy_root(service_artifacts)
    manifest_path = root / "collections" / "wikipedia" / "manifest.json"
    analysed = manifest_path.read_text()
    manifest = json.loads(analysed)
    del manifest["files"]["analysis.sqlite"]
    manifest_path.write_text(json.dumps(manifest))
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"models": {"wikipedia-analysis": {"state": "training", "percent": 30.0}}}))
    monkeypatch.setenv("TEXTQA_TRAINING_STATE", str(state))
    client = create_app(root, {"TESTING": True, "TEXTQA_ACCESS_LOG": False}).test_client()
    line = client.get("/v1/models").get_json()["models"]["qa"]["collection"]
    assert "analysed when a question is asked until its analysis, running in the background (about 30%)" in line
    r = client.post("/v1/qa/answer", json={"question": "Who directed Actrius?", "collection": "wikipedia"})
    assert r.status_code == 200 and r.get_json()["answers"][0]["answer"] == "Ventura Pons"
    manifest_path.write_text(analysed)               # the analysis joins: the next request reads it
    assert "read from storage" in client.get("/v1/models").get_json()["models"]["qa"]["collection"]
    r2 = client.post("/v1/qa/answer", json={"question": "Who directed Actrius?", "collection": "wikipedia"})
    assert r2.get_json()["answers"] == r.get_json()["answers"]
