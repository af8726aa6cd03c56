"""Models the service knows: how to load each from its artifact folder.

Models are loaded once per process (per gunicorn worker) when the app is
created, and only read afterwards, so workers scale horizontally.  A model
whose artifact is missing or broken is recorded with the reason; its endpoint
answers 503 and ``/readyz`` reports it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from models.artifact import ArtifactError

log = logging.getLogger(__name__)


@dataclass
class ModelSpec:
    name: str                       # artifact folder name under artifacts/
    loader: Callable[[Path], Any]   # folder -> loaded model


@dataclass
class ModelSlot:
    spec: ModelSpec
    path: Path
    model: Any = None
    manifest: dict = field(default_factory=dict)
    error: str | None = None

    @property
    def loaded(self) -> bool:
        return self.model is not None


def _load_truecaser(path: Path):
    from models.truecaser.service_api import TruecaserService
    return TruecaserService.load(path)


def _load_blanc(path: Path):
    from models.blanc.store import load_blanc
    return load_blanc(path)


def _load_icd9(path: Path):
    from models.icd9.store import load_coder
    return load_coder(path)


def _load_qa(path: Path):
    from models.qa.store import load_qa
    return load_qa(path)


SPECS = [ModelSpec("truecaser", _load_truecaser), ModelSpec("blanc", _load_blanc), ModelSpec("icd9", _load_icd9),
         ModelSpec("qa", _load_qa)]


def load_models(artifacts_dir: Path, only: list[str] | None = None) -> dict[str, ModelSlot]:
    slots = {}
    for spec in SPECS:
        if only is not None and spec.name not in only:
            continue
        slot = ModelSlot(spec, artifacts_dir / spec.name)
        try:
            slot.model = spec.loader(slot.path)
            slot.manifest = getattr(slot.model, "manifest", {})
            log.info("loaded %s from %s", spec.name, slot.path)
        except ArtifactError as e:
            slot.error = str(e)
            log.warning("model %s not loaded: %s", spec.name, e)
        except Exception as e:  # a broken artifact must not take the whole service down
            slot.error = f"{slot.path}: could not be loaded ({type(e).__name__}: {e})"
            log.exception("model %s failed to load", spec.name)
        slots[spec.name] = slot
    return slots
