"""``textqa.load``: a trained model from its artifact, as the service and the CLI use it."""
from __future__ import annotations

import importlib
import os
from pathlib import Path

from textqa.models.artifact import MANIFEST, ArtifactError, read_manifest
from textqa.registry import BY_NAME, NAMES
from textqa.runtime.paths import artifacts_dir


def outdated_format(name: str, folder: Path) -> int | None:
    """The format version of the artifact in ``folder`` when this textqa no longer loads it (an older
    format: pickled, or features this version computes differently), else None (current, or no
    readable manifest: loading will say why)."""
    try:
        version = read_manifest(folder)["format_version"]
    except (ArtifactError, KeyError):
        return None
    minimum = getattr(importlib.import_module(BY_NAME[name].store), "MIN_FORMAT_VERSION", 1)
    return version if isinstance(version, int) and version < minimum else None


def artifact_folder(model: str | os.PathLike, artifacts: str | os.PathLike | None = None) -> tuple[str, Path]:
    """(model name, folder) of a model name under the artifacts root, or of an artifact folder."""
    if isinstance(model, str) and model in BY_NAME:
        return model, artifacts_dir(artifacts) / model
    folder = Path(model)
    if not (folder / MANIFEST).is_file():
        raise ArtifactError(f"{folder}: not a model artifact (no readable {MANIFEST}); give a folder written "
                            f"by 'textqa train' or one of {', '.join(NAMES)}")
    name = read_manifest(folder).get("name")
    if name not in BY_NAME:
        raise ArtifactError(f"{folder}: unknown artifact name {name!r} (known: {', '.join(NAMES)})")
    return name, folder


def load(model: str | os.PathLike, artifacts: str | os.PathLike | None = None, **options):
    name, folder = artifact_folder(model, artifacts)
    return BY_NAME[name].load(folder, **options)
