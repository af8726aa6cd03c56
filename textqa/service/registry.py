"""The models the service has loaded, one slot per entry of ``textqa.registry``.

Models are loaded once per process (per gunicorn worker) when the app is
created, and only read afterwards, so workers scale horizontally.  A model
whose artifact is missing or broken is recorded with the reason; its endpoint
answers 503 and ``/readyz`` reports it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import current_app

from textqa.models.artifact import ArtifactError
from textqa.registry import MODELS, ModelEntry

from .errors import APIError

log = logging.getLogger(__name__)


@dataclass
class ModelSlot:
    spec: ModelEntry
    path: Path
    model: Any = None
    manifest: dict = field(default_factory=dict)
    error: str | None = None

    @property
    def loaded(self) -> bool:
        return self.model is not None


def load_models(artifacts_dir: Path, only: list[str] | None = None) -> dict[str, ModelSlot]:
    slots = {}
    for spec in MODELS:
        if only is not None and spec.name not in only:
            continue
        slot = ModelSlot(spec, artifacts_dir / spec.name)
        try:
            model = spec.load(slot.path)
            spec.warm_up(model)
            slot.model, slot.manifest = model, getattr(model, "manifest", {})
            log.info("loaded %s from %s", spec.name, slot.path)
        except ArtifactError as e:
            slot.error = str(e)
            log.warning("model %s not loaded: %s", spec.name, e)
        except Exception as e:  # a broken artifact must not take the whole service down
            slot.error = f"{slot.path}: could not be loaded ({type(e).__name__}: {e})"
            log.exception("model %s failed to load", spec.name)
        slots[spec.name] = slot
    return slots


def get_model(name: str):
    """The loaded model ``name`` of the current app, or a 503 APIError."""
    slot = current_app.extensions["textqa_models"].get(name)
    if slot is None or not slot.loaded:
        reason = slot.error if slot is not None else "not configured"
        raise APIError(503, f"model {name!r} is not loaded: {reason}")
    return slot.model
