"""One namespace (textqa.*) and the public Python API, textqa.load."""
import os
import subprocess
import sys

import pytest

import textqa
from textqa.models.artifact import ArtifactError


def _python(code, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, env=env)


@pytest.mark.parametrize("generic", ["models", "training", "evaluation", "service"])
def test_no_generic_top_level_packages_outside_the_repository(tmp_path, generic):
    r = _python(f"import {generic}", tmp_path)
    assert r.returncode == 1 and f"No module named '{generic}'" in r.stderr


def test_textqa_namespace_outside_the_repository(tmp_path):
    r = _python("import textqa.models.truecaser, textqa.service.wsgi as w, textqa.training.qa, textqa.evaluation.rank;"
                "print(type(w.app).__name__)", tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["Flask"]


def test_public_api_is_only_load():
    """``load``, and the protocol of what it returns."""
    assert textqa.__all__ == ["LoadedModel", "load", "__version__"]


def test_load_by_name_and_by_folder(truecaser_artifact, monkeypatch):
    from textqa.models.blanc.metric import BLANC
    from textqa.models.truecaser.service_api import TruecaserService
    by_folder = textqa.load(truecaser_artifact / "truecaser")
    assert isinstance(by_folder, TruecaserService)
    assert isinstance(textqa.load("blanc", artifacts=truecaser_artifact), BLANC)
    monkeypatch.setenv("TEXTQA_ARTIFACTS", str(truecaser_artifact))
    by_name = textqa.load("truecaser")
    assert by_name.truecase("paris is a city .") == by_folder.truecase("paris is a city .") == "Paris is a city ."
    assert by_name.truecase_tokenized(["new york ."]) == ["New York ."]


def test_load_errors(tmp_path):
    with pytest.raises(ArtifactError, match="not a model artifact"):
        textqa.load(tmp_path)
    (tmp_path / "manifest.json").write_text('{"name": "kenlm"}')
    with pytest.raises(ArtifactError, match="unknown artifact name 'kenlm'"):
        textqa.load(tmp_path)
    with pytest.raises(ArtifactError):
        textqa.load("qa", artifacts=tmp_path / "empty")        # a known name whose artifact is missing


def test_icd9_code_accepts_strings_dicts_and_records(icd9_artifact):
    from textqa.models.icd9.records import Record
    coder = textqa.load(icd9_artifact / "icd9")
    text = "Three day history of cough. No focal pneumonia."
    out = coder.code([text, {"id": "b", "text": text}, {"sections": {"history": "Cough."}},
                      Record("r", {"text": text})])
    assert [o["id"] for o in out] == ["1", "b", "3", "r"]
    assert all(o["codes"][0]["code"] == "786.2" for o in out)
    with pytest.raises(TypeError, match="document 1: expected a string"):
        coder.code([42])
