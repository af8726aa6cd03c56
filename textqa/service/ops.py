"""Operational endpoints: liveness, readiness, model manifests, metrics and the API document."""
from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from .contract import endpoint
from .http_errors import public_state
from .openapi import openapi_document
from .slots import refresh
from .schemas import Health, ModelsResponse, Readiness

bp = Blueprint("ops", __name__)


@endpoint(bp, "GET", "/healthz", response=Health, summary="Liveness: the process answers")
def healthz():
    return {"status": "ok"}


@endpoint(bp, "GET", "/readyz", response=Readiness, status={503: "a model is not loaded (errors says why)"},
          summary="Readiness: 200 only when every configured model is loaded")
def readyz():
    slots = current_app.extensions["textqa_models"]
    training = {name: public_state(state) for name, s in slots.items() if (state := refresh(s)) is not None}
    missing = {name: s.error or "not loaded" for name, s in slots.items() if not s.loaded}
    body = {"ready": not missing and bool(slots), "models": {n: s.loaded for n, s in slots.items()}}
    if missing:
        body["errors"] = missing
    if training:
        body["training"] = training
    return body, (200 if body["ready"] else 503)


@endpoint(bp, "GET", "/v1/models", response=ModelsResponse,
          summary="Manifests of the loaded models (and why the others are not loaded)")
def models():
    out = {}
    for name, s in current_app.extensions["textqa_models"].items():
        state = refresh(s)
        about = {"verb": s.entry.verb, "title": s.entry.title}
        out[name] = {**about, "loaded": True, "manifest": s.manifest} if s.loaded else \
            {**about, "loaded": False, "error": s.error or "not loaded"}
        load_options = s.model.load_options if s.loaded else s.entry.option_values(s.options, "load")
        if load_options:
            out[name]["options"] = load_options
        if state is not None:
            out[name]["training"] = public_state(state)
        if s.loaded:
            out[name].update(s.model.status())
    return {"models": out}


@endpoint(bp, "GET", "/metrics", response=None, content_type="text/plain",
          summary="Prometheus metrics (text format 0.0.4), summed over gunicorn workers")
def metrics():
    """Requests by endpoint and status, latency and items per request, model info."""
    from .metrics import exposition, model_states  # deferred: loads prometheus_client
    body, content_type = exposition()
    slots = current_app.extensions["textqa_models"]
    return Response(body + model_states({name: (s.loaded, refresh(s)) for name, s in slots.items()}),
                    content_type=content_type)


@endpoint(bp, "GET", "/openapi.json", response=None, summary="This document (OpenAPI 3.1)")
def openapi():

    doc = current_app.extensions.get("textqa_openapi")
    if doc is None:                     # built once per process: the declarations do not change
        doc = current_app.extensions["textqa_openapi"] = openapi_document(current_app)
    return jsonify(doc)
