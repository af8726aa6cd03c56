"""``textqa.load``: a trained model from its artifact, as the service and the CLI use it."""
from __future__ import annotations

import json
import os
from pathlib import Path


def _truecaser(path: Path):
    from textqa.models.truecaser.service_api import TruecaserService
    return TruecaserService.load(path)


def _blanc(path: Path):
    from textqa.models.blanc.store import load_blanc
    return load_blanc(path)


def _icd9(path: Path):
    from textqa.models.icd9.store import load_coder
    return load_coder(path)


def _qa(path: Path):
    from textqa.models.qa.store import load_qa
    return load_qa(path)


# artifact name -> loader; the service's registry loads through this table too
LOADERS = {"truecaser": _truecaser, "blanc": _blanc, "icd9": _icd9, "qa": _qa}


# artifact name -> module whose MIN_FORMAT_VERSION (default 1) is the oldest format it loads
_STORES = {"truecaser": "textqa.models.truecaser.model", "blanc": "textqa.models.blanc.store",
           "icd9": "textqa.models.icd9.store", "qa": "textqa.models.qa.store"}


def outdated_format(name: str, folder: Path) -> int | None:
    """The format version of the artifact in ``folder`` when this textqa no longer loads it (an older
    format: pickled, or features this version computes differently), else None (current, or no
    readable manifest: loading will say why)."""
    import importlib
    try:
        version = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))["format_version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    minimum = getattr(importlib.import_module(_STORES[name]), "MIN_FORMAT_VERSION", 1)
    return version if isinstance(version, int) and version < minimum else None


def resolve(model: str | os.PathLike, artifacts: str | os.PathLike | None = None) -> tuple[str, Path]:
    """(artifact name, folder) of a model name under the artifacts root, or of an artifact folder."""
    from textqa.models.artifact import ArtifactError
    from textqa.paths import artifacts_dir
    if isinstance(model, str) and model in LOADERS:
        return model, artifacts_dir(artifacts) / model
    folder = Path(model)
    try:
        name = json.loads((folder / "manifest.json").read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError) as e:
        raise ArtifactError(f"{folder}: not a model artifact (no readable manifest.json); give a folder written "
                            f"by 'textqa train' or one of {', '.join(LOADERS)}") from e
    if name not in LOADERS:
        raise ArtifactError(f"{folder}: unknown artifact name {name!r} (known: {', '.join(LOADERS)})")
    return name, folder


def load(model: str | os.PathLike, artifacts: str | os.PathLike | None = None):
    name, folder = resolve(model, artifacts)
    return LOADERS[name](folder)
