"""The models the service has loaded, one slot per entry of ``textqa.registry``.

Models are loaded once per process (per gunicorn worker) when the app is
created, and only read afterwards, so workers scale horizontally.  A model
whose artifact is missing or broken is recorded with the reason; its endpoint
answers 503 and ``/readyz`` reports it.

While ``textqa serve --train-missing`` trains missing artifacts in the background
(:mod:`textqa.runtime.training_state`), a model that is queued or training answers 503 with a
``Retry-After`` and its state; once its artifact is written, the next request or readiness check
in each worker loads it (:func:`refresh`): no restart, no request lost.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from flask import current_app, request

from textqa.models.artifact import MANIFEST, ArtifactError
from textqa import registry
from textqa.registry import ModelEntry
from textqa.runtime import training_state
from textqa.runtime.gc_pause import freeze_loaded
from textqa.runtime.loaded import LoadedModel

from .admission import admit
from .http_errors import APIError

log = logging.getLogger(__name__)


@dataclass
class ModelSlot:
    entry: ModelEntry
    path: Path
    options: dict = field(default_factory=dict)     # its load-time options (the registry's), as given
    model: LoadedModel | None = None
    manifest: dict = field(default_factory=dict)
    error: str | None = None
    tried: float | None = None          # the manifest's mtime at the last load that failed (None: none)

    @property
    def loaded(self) -> bool:
        return self.model is not None


_load_lock = threading.Lock()


def _load(slot: ModelSlot) -> None:
    """Load ``slot``'s model (warmed up) or record why it could not be loaded."""
    entry = slot.entry
    try:
        model = entry.load(slot.path, **slot.options)
        model.warm_up()
        freeze_loaded()                 # its tables are never garbage: no collection walks them again
        slot.model, slot.manifest, slot.error = model, model.manifest, None
        log.info("loaded %s from %s", entry.name, slot.path)
    except ArtifactError as e:
        slot.error = str(e)
        log.warning("model %s not loaded: %s", entry.name, e)
    except Exception as e:  # a broken artifact must not take the whole service down
        slot.error = f"{slot.path}: could not be loaded ({type(e).__name__}: {e})"
        log.exception("model %s failed to load", entry.name)


def _manifest_mtime(slot: ModelSlot) -> float | None:
    try:
        return (slot.path / MANIFEST).stat().st_mtime
    except OSError:
        return None


def load_models(artifacts_dir: Path, only: list[str] | None = None, options: dict | None = None) -> dict[str, ModelSlot]:
    """A slot per model of the registry (of ``only``), loaded with its load-time ``options`` ({model:
    {option: value}}, as ``textqa serve`` passes them)."""
    options = options or {}
    slots = {}
    for entry in registry.MODELS:       # read when the app is made: a model registered since is served
        if only is not None and entry.name not in only:
            continue
        slot = slots[entry.name] = ModelSlot(entry, artifacts_dir / entry.name, dict(options.get(entry.name, {})))
        if training_state.read().get(entry.name, {}).get("state") in training_state.ACTIVE:
            slot.error = "training in the background"
            continue
        _load(slot)
        if not slot.loaded:
            slot.tried = _manifest_mtime(slot)
    return slots


def refresh(slot: ModelSlot) -> dict | None:
    """Load a model whose artifact appeared (or changed) since the last try; the model's background
    training state while it is queued or training (then nothing is loaded), else None."""
    if slot.loaded:
        return None
    state = training_state.read().get(slot.entry.name)
    if state and state.get("state") in training_state.ACTIVE:
        return state
    mtime = _manifest_mtime(slot)
    if mtime is not None and mtime != slot.tried:
        with _load_lock:
            if not slot.loaded and mtime != slot.tried:
                _load(slot)
                slot.tried = None if slot.loaded else mtime
                if slot.loaded:
                    from .metrics import record_models  # deferred: loads prometheus_client
                    record_models({slot.entry.name: slot})
    if not slot.loaded and state:
        slot.error = state.get("error") or slot.error
    return state if not slot.loaded else None


def get_model(name: str):
    """The loaded model ``name`` of the current app, or a 503 APIError."""
    slot = current_app.extensions["textqa_models"].get(name)
    if slot is None:
        raise APIError(503, f"model {name!r} is not loaded: not configured")
    state = refresh(slot)
    if state is not None and state.get("state") in training_state.ACTIVE:
        what = "queued for training" if state["state"] == "queued" else \
            f"training ({state.get('step') or 'starting'}, about {state.get('percent', 0):.0f}%)"
        raise APIError(503, f"model {name!r} is {what}; try again later", code="model_" + state["state"],
                       headers={"Retry-After": str(training_state.retry_after(state))}, state=state)
    if not slot.loaded:
        raise APIError(503, f"model {name!r} is not loaded: {slot.error}")
    if request.method == "POST":            # model work: bounded in flight, with a deadline
        admit(name)
    return slot.model
