"""Prometheus metrics of the service (``GET /metrics``, text format).

Under gunicorn (``textqa serve``) ``PROMETHEUS_MULTIPROC_DIR`` points at a fresh folder per server
start, every worker writes its counts there, and a scrape of any worker sums them over all workers
(``prometheus_client`` multiprocess mode; ``textqa.service.gunicorn_conf`` cleans up after a worker
exits).  Without that variable (tests, ``flask run``) the process's own registry is served.
"""
from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from textqa.models.artifact import artifact_id

REQUESTS = Counter("textqa_http_requests_total", "HTTP requests answered", ["endpoint", "method", "status"])
LATENCY = Histogram("textqa_http_request_duration_seconds", "time to answer a request", ["endpoint"],
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
ITEMS = Histogram("textqa_http_request_items", "items (sentences, pairs, documents, questions) per request",
                  ["endpoint"], buckets=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000))
SHED = Counter("textqa_requests_shed_total", "model requests refused at once (503 overloaded): the bound on "
               "requests in flight was reached", ["model"])
DEADLINE = Counter("textqa_requests_deadline_exceeded_total", "model requests past their deadline (504): stopped "
                   "at a stage, or their answer dropped ('answered')", ["model", "stage"])
MODEL_INFO = Gauge("textqa_model_info", "a loaded model: name, artifact creation time and id (value 1)",
                   ["name", "created_at", "artifact_id"], multiprocess_mode="livemax")

_ITEM_FIELDS = ("sentences", "pairs", "documents")


def record_models(slots: dict) -> None:
    for name, slot in slots.items():
        if slot.loaded:
            MODEL_INFO.labels(name, str(slot.manifest.get("created_at", "")),
                              artifact_id(slot.manifest) if slot.manifest.get("files") else "").set(1)


def items_in(body) -> int:
    """How many items a request body carries (1 for a single text or question)."""
    if isinstance(body, dict):
        for field in _ITEM_FIELDS:
            if isinstance(body.get(field), list):
                return len(body[field])
    return 1


def observe(endpoint: str, method: str, status: int, seconds: float | None, body=None) -> None:
    REQUESTS.labels(endpoint, method, str(status)).inc()
    if seconds is not None:
        LATENCY.labels(endpoint).observe(seconds)
    if method == "POST" and status < 400:
        ITEMS.labels(endpoint).observe(items_in(body))


STATES = ("ready", "queued", "training", "failed", "no_data", "not_loaded")


def model_states(states: dict) -> bytes:
    """``textqa_model_state{name,state}`` (1 for the model's state, 0 for the others) and
    ``textqa_model_training_percent{name}`` (estimated) of this worker's view of each model:
    computed at each scrape from the slots and the background-training state, so not summed over
    workers like the counters."""
    lines = ["# HELP textqa_model_state the model's state: ready, queued or training (in the background), failed, "
             "no_data or not_loaded (value 1 for the current one)", "# TYPE textqa_model_state gauge"]
    percents = []
    for name, (loaded, training) in states.items():
        now = "ready" if loaded else (training or {}).get("state", "not_loaded")
        lines += [f'textqa_model_state{{name="{name}",state="{s}"}} {int(s == now)}' for s in STATES]
        if training and isinstance(training.get("percent"), (int, float)):
            percents.append(f'textqa_model_training_percent{{name="{name}"}} {float(training["percent"]):.1f}')
    if percents:
        lines += ["# HELP textqa_model_training_percent estimated percent of a background training",
                  "# TYPE textqa_model_training_percent gauge", *percents]
    return ("\n".join(lines) + "\n").encode()


def exposition() -> tuple[bytes, str]:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
