"""Flask service: ``create_app(artifacts_dir, config)`` builds one WSGI app, one blueprint per model."""
from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
import time
import uuid
from pathlib import Path

from flask import Flask, g, request

from textqa import registry
from textqa.runtime.paths import artifacts_dir as default_artifacts

from .http_errors import register_error_handlers
from .playground import bp as playground_bp
from .slots import load_models

DEFAULT_CONFIG = {
    "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,      # bytes per request body (413 above)
    "TEXTQA_MAX_BATCH_ITEMS": 1000,             # sentences/documents per request (422 above)
    "TEXTQA_MAX_TOKENS_PER_ITEM": 20000,        # whitespace tokens per item (422 above)
    "TEXTQA_BLANC_MAX_TOKENS": 1000,            # tokens per hypothesis/reference for BLANC (ACS is |X| x |Y|)
    "TEXTQA_MAX_TOKENS_PER_REQUEST": 20000,     # truecase: whitespace tokens over all items of a request (413)
    "TEXTQA_ICD9_MAX_TOKENS_PER_REQUEST": 500000,   # ICD-9: tokens over all documents of a request (413)
    "TEXTQA_BLANC_MAX_CELLS_PER_REQUEST": 2000000,  # BLANC: sum of |hyp| x |ref| ACS grid cells (413)
    "TEXTQA_MODELS": None,                      # names to load (None: all known models)
    "TEXTQA_LOAD_OPTIONS": {},                  # {model: {load-time option: value}} (textqa serve's model options)
    "TEXTQA_ACCESS_LOG": True,                  # one JSON object per request on stderr (logger textqa.access)
    "TEXTQA_MAX_INFLIGHT": None,                # model requests at once per model, all workers (None: 4 a worker)
    "TEXTQA_REQUEST_TIMEOUT": 30.0,             # seconds a model request may take (504 past it; None: no deadline)
}

_REQUEST_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")


def _install_request_ids_and_access_log(app: Flask) -> None:
    """Every response carries ``X-Request-ID`` (the client's when it is a sane token, else a new
    one); each request is logged as one JSON object: id, method, path, endpoint, status, duration."""


    access = logging.getLogger("textqa.access")
    if app.config["TEXTQA_ACCESS_LOG"] and not access.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        access.addHandler(handler)
        access.setLevel(logging.INFO)
        access.propagate = False

    @app.before_request
    def _start():
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        g.started = time.perf_counter()
        g.started_monotonic = time.monotonic()        # the start of a model request's deadline

    from . import metrics  # deferred: loads prometheus_client

    @app.after_request
    def _finish(resp):
        rid = getattr(g, "request_id", None) or uuid.uuid4().hex
        resp.headers["X-Request-ID"] = rid
        started = getattr(g, "started", None)
        if request.endpoint != "ops.metrics":
            metrics.observe(request.endpoint or "unmatched", request.method, resp.status_code,
                            time.perf_counter() - started if started else None,
                            g.get("json_body"))                  # parsed once, by json_body()
        if app.config["TEXTQA_ACCESS_LOG"]:
            access.info(json.dumps({
                "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "request_id": rid, "method": request.method,
                "path": request.path, "endpoint": request.endpoint, "status": resp.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 3) if started else None,
                "remote": request.remote_addr}))
        return resp


def _install_admission(app: Flask) -> None:
    """The bound on model requests in flight and their deadline (:mod:`.admission`)."""
    from textqa.runtime.deadline import DeadlineExceeded

    from .admission import counter_for_environment, deadline_response, release_all

    app.extensions["textqa_inflight"] = counter_for_environment()
    app.extensions["textqa_work_lock"] = threading.Lock()
    app.teardown_request(release_all)
    app.register_error_handler(DeadlineExceeded, lambda e: app.handle_user_exception(deadline_response(e)))


def create_app(artifacts_dir: str | Path | None = None, config: dict | None = None) -> Flask:
    """Build the app and load every model found under ``artifacts_dir`` (once per process)."""

    app = Flask(__name__)
    app.config.update(DEFAULT_CONFIG)
    if os.environ.get("TEXTQA_MODELS"):           # textqa serve --models
        app.config["TEXTQA_MODELS"] = [n for n in os.environ["TEXTQA_MODELS"].split(",") if n]
    if os.environ.get("TEXTQA_LOAD_OPTIONS"):     # textqa serve's model options, as JSON
        app.config["TEXTQA_LOAD_OPTIONS"] = json.loads(os.environ["TEXTQA_LOAD_OPTIONS"])
    if os.environ.get("TEXTQA_MAX_INFLIGHT"):     # textqa serve --max-inflight
        app.config["TEXTQA_MAX_INFLIGHT"] = int(os.environ["TEXTQA_MAX_INFLIGHT"])
    if os.environ.get("TEXTQA_REQUEST_TIMEOUT"):  # textqa serve --request-timeout (0: none)
        app.config["TEXTQA_REQUEST_TIMEOUT"] = float(os.environ["TEXTQA_REQUEST_TIMEOUT"]) or None
    app.config.update(config or {})
    app.json.sort_keys = False
    root = Path(artifacts_dir) if artifacts_dir else default_artifacts()
    app.config["TEXTQA_ARTIFACTS"] = str(root)
    app.extensions["textqa_models"] = load_models(root, app.config["TEXTQA_MODELS"], app.config["TEXTQA_LOAD_OPTIONS"])
    from .metrics import record_models  # deferred: loads prometheus_client
    record_models(app.extensions["textqa_models"])
    register_error_handlers(app)
    _install_request_ids_and_access_log(app)
    _install_admission(app)

    from flask_swagger_ui import get_swaggerui_blueprint  # deferred: loads flask_swagger_ui

    from .ops import bp as ops_bp  # deferred: loads pydantic

    for bp in (ops_bp, *(registry.resolve(m.blueprint) for m in registry.MODELS), playground_bp):
        app.register_blueprint(bp)
    # Swagger UI from the files the flask-swagger-ui wheel ships (no CDN): /docs
    app.register_blueprint(get_swaggerui_blueprint("/docs", "/openapi.json", config={"app_name": "textqa API"}))

    logging.getLogger(__name__).info("textqa service ready; artifacts in %s", root)
    return app
