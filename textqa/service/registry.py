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

from textqa.models.artifact import ArtifactError

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


#: one small call per model right after loading, so that the first client request does not pay for
#: lazy initialisation (numba loading or compiling BLANC's ACS kernels, spaCy's first parse, ...)
WARM_UP = {
    "truecaser": lambda m: m.truecase("warm up ."),
    "blanc": lambda m: m.sentence_score("warm up", ["warm up ."]),
    "icd9": lambda m: m.code(["warm up"]),
    "qa": lambda m: m.answer("Who warmed up?", 1),
}


def _spec(name: str) -> ModelSpec:
    from textqa._api import LOADERS
    return ModelSpec(name, LOADERS[name])


SPECS = [_spec(n) for n in ("truecaser", "blanc", "icd9", "qa")]


def load_models(artifacts_dir: Path, only: list[str] | None = None) -> dict[str, ModelSlot]:
    slots = {}
    for spec in SPECS:
        if only is not None and spec.name not in only:
            continue
        slot = ModelSlot(spec, artifacts_dir / spec.name)
        try:
            model = spec.loader(slot.path)
            WARM_UP[spec.name](model)
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
