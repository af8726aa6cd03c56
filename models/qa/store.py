"""QA artifacts: the answer-type classifier and the sentence selector (joblib), with the manifest."""
from __future__ import annotations

from pathlib import Path

from ..artifact import ArtifactError, load_manifest, write_artifact

ARTIFACT_NAME = "qa"
FORMAT_VERSION = 1


class QAModel:
    """What ``textqa qa`` and the service use: ``answer_types`` and ``selector``."""

    def __init__(self, answer_types, selector, manifest: dict | None = None):
        self.answer_types, self.selector, self.manifest = answer_types, selector, manifest or {}


def save_qa(answer_types, selector, dest, *, metrics=None, data_fingerprint=None, extra=None) -> None:
    import joblib
    with write_artifact(dest, ARTIFACT_NAME, FORMAT_VERSION,
                        hyper_parameters={"answer_type_C": answer_types.C, "selection_C": selector.C},
                        metrics=metrics, data_fingerprint=data_fingerprint, extra=extra) as tmp:
        joblib.dump(answer_types, tmp / "answer_types.joblib", compress=3)
        joblib.dump(selector, tmp / "selector.joblib", compress=3)


def load_qa(path) -> QAModel:
    """Checksums are verified before the pickles are read."""
    import joblib
    path = Path(path)
    manifest = load_manifest(path, expect_name=ARTIFACT_NAME, max_format_version=FORMAT_VERSION)
    try:
        return QAModel(joblib.load(path / "answer_types.joblib"), joblib.load(path / "selector.joblib"), manifest)
    except Exception as e:
        raise ArtifactError(f"{path}: cannot read the QA model ({e})") from e
