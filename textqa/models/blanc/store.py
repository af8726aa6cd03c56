"""BLANC artifacts: the learned parameters as JSON plus the manifest (models/artifact.py)."""
from __future__ import annotations

import json
from pathlib import Path

from ..artifact import ArtifactError, load_manifest, write_artifact
from .metric import BLANC, BLANCParams

ARTIFACT_NAME = "blanc"
FORMAT_VERSION = 1


def save_blanc(params: BLANCParams, dest, *, metrics: dict | None = None, data_fingerprint: str | None = None,
               extra: dict | None = None, files: dict | None = None) -> None:
    """``files``: {name in the artifact: source path} copied in (the training plots)."""
    with write_artifact(dest, ARTIFACT_NAME, FORMAT_VERSION, hyper_parameters=params.to_dict(), metrics=metrics,
                        data_fingerprint=data_fingerprint, extra=extra, files=files) as tmp:
        (tmp / "params.json").write_text(json.dumps(params.to_dict(), indent=2) + "\n", encoding="utf-8")


def load_blanc(path) -> BLANC:
    """A ``BLANC`` metric with an artifact's learned parameters (checksums verified first);
    ``metric.manifest`` holds the artifact's manifest."""
    path = Path(path)
    manifest = load_manifest(path, expect_name=ARTIFACT_NAME, max_format_version=FORMAT_VERSION)
    try:
        params = BLANCParams.from_dict(json.loads((path / "params.json").read_text(encoding="utf-8")))
    except (ValueError, TypeError) as e:
        raise ArtifactError(f"{path}/params.json: {e}") from e
    metric = BLANC(params)
    metric.manifest = manifest
    return metric
