"""The state of background training (``textqa serve --train-missing``), shared through one JSON file.

The serving command writes it (whole, by rename) while it trains the missing default artifacts; the
service's workers read it to answer 503 with the state for a model that is queued or training, and to
show every model's state in ``/readyz``, ``/v1/models`` and ``/metrics``.  The file's path reaches
the workers in ``$TEXTQA_TRAINING_STATE``; without it nothing trains in the background.

    {"models": {NAME: {"state": "queued" | "training" | "failed" | "no_data",
                       "step": "...", "percent": 0-100, "eta_seconds": N or null,
                       "expected_seconds": N, "error": "..."}},
     "updated_at": UNIX time}

Besides the models, ``wikipedia`` is the build of QA's Wikipedia index (``textqa qa index wikipedia``),
which runs after them; ``/v1/models`` reports it in QA's ``collection`` line.
A model that is not in the file is not being trained (loaded, or its artifact is missing for
another reason).  ``percent`` and ``eta_seconds`` come from the training's elapsed time against its
expected duration: the last successful training of that model on this machine (kept in the cache),
else the registry's estimate; they are estimates and say so (``"estimated": true``).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from textqa.runtime.files import replaced_whole

ENV = "TEXTQA_TRAINING_STATE"
WIKIPEDIA_JOB = "wikipedia"      # the entry of QA's Wikipedia index, built after the models
ANALYSIS_JOB = "wikipedia-analysis"     # the entry of its analysis (textqa qa analyse)
READER_JOB = "qa-reader"         # QA retrained with its answer reader over the analysed collection, last of all
ACTIVE = ("queued", "training")


def state_path() -> Path | None:
    """The state file of this server's background training, or None."""
    value = os.environ.get(ENV)
    return Path(value) if value else None


def read(path: Path | None = None) -> dict:
    """{model name: its entry} (empty when there is no background training or no readable file)."""
    path = path or state_path()
    if path is None:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    models = data.get("models") if isinstance(data, dict) else None
    return models if isinstance(models, dict) else {}


def write(path: Path, models: dict) -> None:
    """Replace the state file whole (readers never see a half-written one)."""
    with replaced_whole(path) as tmp:
        tmp.write_text(json.dumps({"models": models, "updated_at": time.time()}, sort_keys=True), encoding="utf-8")


def retry_after(entry: dict) -> int:
    """Seconds a client should wait before asking again for a model in this state."""
    eta = entry.get("eta_seconds")
    if entry.get("state") == "training" and isinstance(eta, (int, float)):
        return int(min(max(eta, 5), 60))
    return 30
