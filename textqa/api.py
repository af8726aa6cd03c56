"""``textqa.load``: a trained model from its artifact, as the service and the CLI use it."""
from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

from textqa.models.artifact import ArtifactError
from textqa.registry import BY_NAME, NAMES
from textqa.runtime.paths import artifacts_dir


def outdated_format(name: str, folder: Path) -> int | None:
    """The format version of the artifact in ``folder`` when this textqa no longer loads it (an older
    format: pickled, or features this version computes differently), else None (current, or no
    readable manifest: loading will say why)."""
    try:
        version = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))["format_version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    minimum = getattr(importlib.import_module(BY_NAME[name].store), "MIN_FORMAT_VERSION", 1)
    return version if isinstance(version, int) and version < minimum else None


def resolve(model: str | os.PathLike, artifacts: str | os.PathLike | None = None) -> tuple[str, Path]:
    """(model name, folder) of a model name under the artifacts root, or of an artifact folder."""
    if isinstance(model, str) and model in BY_NAME:
        return model, artifacts_dir(artifacts) / model
    folder = Path(model)
    try:
        name = json.loads((folder / "manifest.json").read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError) as e:
        raise ArtifactError(f"{folder}: not a model artifact (no readable manifest.json); give a folder written "
                            f"by 'textqa train' or one of {', '.join(NAMES)}") from e
    if name not in BY_NAME:
        raise ArtifactError(f"{folder}: unknown artifact name {name!r} (known: {', '.join(NAMES)})")
    return name, folder


def load(model: str | os.PathLike, artifacts: str | os.PathLike | None = None, **options):
    name, folder = resolve(model, artifacts)
    return BY_NAME[name].load(folder, **options)
