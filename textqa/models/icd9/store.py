"""ICD-9 coder artifacts: the fitted coder (joblib) and code descriptions, with the manifest."""
from __future__ import annotations

import json
from pathlib import Path

from ..artifact import ArtifactError, load_manifest, write_artifact
from .coder import ICD9Coder

ARTIFACT_NAME = "icd9"
FORMAT_VERSION = 1


def save_coder(coder: ICD9Coder, dest, *, descriptions: dict, metrics: dict | None = None,
               data_fingerprint: str | None = None, extra: dict | None = None, files: dict | None = None) -> None:
    """``files``: {name in the artifact: source path} copied in (e.g. ROC plots)."""
    import shutil

    import joblib
    known = {c: descriptions.get(c) for c in list(coder.codes_) + list(coder.unpredicted_codes_)}
    with write_artifact(dest, ARTIFACT_NAME, FORMAT_VERSION, hyper_parameters=coder.get_params(), metrics=metrics,
                        data_fingerprint=data_fingerprint,
                        extra={"codes": coder.codes_, "unpredicted_codes": coder.unpredicted_codes_,
                               "classifiers": list(coder.models_), **(extra or {})}) as tmp:
        joblib.dump(coder, tmp / "coder.joblib", compress=3)
        (tmp / "descriptions.json").write_text(json.dumps(known, indent=1, sort_keys=True), encoding="utf-8")
        for name, src in (files or {}).items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, tmp / name)


def load_coder(path) -> ICD9Coder:
    """The coder of an artifact (checksums verified before the pickle is read); ``coder.manifest``
    and ``coder.descriptions`` are attached."""
    import joblib
    path = Path(path)
    manifest = load_manifest(path, expect_name=ARTIFACT_NAME, max_format_version=FORMAT_VERSION)
    try:
        coder = joblib.load(path / "coder.joblib")
        descriptions = json.loads((path / "descriptions.json").read_text(encoding="utf-8"))
    except Exception as e:  # corrupt despite a matching checksum: say which file
        raise ArtifactError(f"{path}: cannot read the coder ({e})") from e
    coder.manifest, coder.descriptions = manifest, descriptions
    coder.n_jobs = 1
    return coder
