"""Loading an artifact never executes code: pickles are refused even with a correctly recomputed
manifest (an attacker who can write the folder can rewrite the manifest too)."""
import json
import pickle
import shutil

import numpy as np
import pytest

from textqa.models.artifact import ArtifactError, sha256_file


class _Exploit:
    """Unpickling this runs ``open(marker, "w")``: proof that code ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _reseal(folder, format_version=None):
    """Recompute the manifest's checksums (and list every file), as an attacker would."""
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"] = {p.relative_to(folder).as_posix(): {"sha256": sha256_file(p), "bytes": p.stat().st_size}
                         for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "manifest.json"}
    if format_version is not None:
        manifest["format_version"] = format_version
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _loaders():
    from textqa.models.icd9.store import load_coder
    from textqa.models.qa.store import load_qa
    from textqa.models.truecaser.store import load_truecaser
    return {"truecaser": load_truecaser, "icd9": load_coder, "qa": load_qa}


@pytest.fixture
def artifacts(service_artifacts, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(service_artifacts, root)
    return root


@pytest.mark.parametrize("name, npz", [("truecaser", "oov.npz"), ("icd9", "coder.npz"), ("qa", "instance.npz"),
                                       ("qa", "answer_types.npz")])
def test_npz_with_a_pickled_object_is_refused(artifacts, tmp_path, name, npz):
    marker = tmp_path / "pwned"
    folder = artifacts / name
    with open(folder / npz, "wb") as f:
        np.savez(f, coef=np.array([_Exploit(marker)], dtype=object))
    _reseal(folder)
    with pytest.raises(ArtifactError, match="pickled objects"):
        _loaders()[name](folder)
    assert not marker.exists()


@pytest.mark.parametrize("name, payload, version", [("truecaser", "oov.joblib", 1), ("icd9", "coder.joblib", 1),
                                                     ("icd9", "coder.joblib", 2), ("qa", "instance.joblib", 1),
                                                     ("qa", "selector.pkl", 2),
                                                     ("qa", "extra.pkl", None), ("icd9", "coder.joblib", None)])
def test_pickle_payloads_are_never_loaded(artifacts, tmp_path, name, payload, version):
    """An old-format artifact (joblib pickles), or a pickle slipped into a new one: refused, with advice."""
    marker = tmp_path / "pwned"
    folder = artifacts / name
    (folder / payload).write_bytes(pickle.dumps(_Exploit(marker)))
    _reseal(folder, format_version=version)
    with pytest.raises(ArtifactError, match=f"retrain it with 'textqa train {name}'"):
        _loaders()[name](folder)
    assert not marker.exists()


def test_loading_works_with_pickle_disabled(artifacts, monkeypatch):
    """Every model the service knows loads with Python's pickle module unable to load anything."""
    import textqa

    def refuse(*a, **k):
        raise AssertionError("pickle used while loading an artifact")

    class Refuse:
        def __init__(self, *a, **k):
            refuse()

    for attr in ("load", "loads"):
        monkeypatch.setattr(pickle, attr, refuse)
    monkeypatch.setattr(pickle, "Unpickler", Refuse)
    monkeypatch.setattr(np.lib.format, "read_array", _no_pickle_read_array(np.lib.format.read_array))
    tc = textqa.load(artifacts / "truecaser")
    coder = textqa.load(artifacts / "icd9")
    blanc = textqa.load(artifacts / "blanc")
    qa = textqa.load(artifacts / "qa")
    # loaded: now use them (numba's own compile cache in __pycache__ is pickled; that is not the artifact)
    monkeypatch.undo()
    assert tc.truecase("paris is a zorblaxian city .").startswith("Paris")
    assert coder.code(["Three day history of cough."])[0]["codes"][0]["code"] == "786.2"
    assert blanc.sentence_score("a b", "a b").score == pytest.approx(1.0)
    assert "Young" in qa.answer("Who is the author of the book The Iron Lady?")["answers"][0]["answer"]


def _no_pickle_read_array(read_array):
    def read(*a, **k):
        assert k.get("allow_pickle", False) is False
        return read_array(*a, **k)
    return read
