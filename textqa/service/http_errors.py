"""JSON errors: ``{"error": {"code": ..., "message": ...}}`` for every failure, never a traceback."""
from __future__ import annotations

import logging

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

#: HTTP status -> stable error code
CODES = {400: "malformed_json", 404: "not_found", 405: "method_not_allowed", 413: "payload_too_large",
         415: "unsupported_media_type", 422: "invalid_request", 500: "internal_error", 503: "model_unavailable",
         504: "deadline_exceeded"}
#: the codes of a 503 for a model that ``textqa serve --train-missing`` is still training
TRAINING_CODES = ("model_queued", "model_training")


class APIError(Exception):
    """An error answered as JSON with ``status``, a stable ``code`` and a human ``message``."""

    def __init__(self, status: int, message: str, code: str | None = None, field: str | None = None,
                 headers: dict | None = None, state: dict | None = None):
        super().__init__(message)
        self.status = status
        self.code = code or CODES.get(status, "error")
        self.message = message
        self.field = field
        self.headers = headers or {}
        self.state = state


def invalid(field: str, message: str) -> APIError:
    """422 for a field with an invalid value; the message names the field."""
    return APIError(422, f"{field}: {message}", field=field)


def error_response(status: int, code: str, message: str, field: str | None = None, state: dict | None = None):
    body = {"error": {"code": code, "message": message}}
    if field:
        body["error"]["field"] = field
    if state is not None:
        body["error"]["state"] = public_state(state)
    resp = jsonify(body)
    resp.status_code = status
    return resp


def public_state(state: dict) -> dict:
    """A model's background-training state as the API shows it (``schemas.TrainingState``)."""
    out = {"state": str(state.get("state"))}
    for key in ("step", "error"):
        if isinstance(state.get(key), str):
            out[key] = state[key]
    for key in ("percent", "eta_seconds"):
        if isinstance(state.get(key), (int, float)) and not isinstance(state.get(key), bool):
            out[key] = round(float(state[key]), 1)
    out["estimated"] = True
    return out


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(APIError)
    def _api_error(e: APIError):
        resp = error_response(e.status, e.code, e.message, e.field, e.state)
        resp.headers.update(e.headers)
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):
        status = e.code or 500
        message = e.description or e.name
        if status == 413:
            limit = app.config.get("MAX_CONTENT_LENGTH")
            message = f"request body is larger than the limit of {limit} bytes"
        resp = error_response(status, CODES.get(status, "http_error"), message)
        for name, value in e.get_headers():          # e.g. Allow on 405 (RFC 9110 section 15.5.6)
            if name.lower() not in ("content-type", "content-length"):
                resp.headers[name] = value
        return resp

    @app.errorhandler(Exception)
    def _unexpected(e: Exception):
        log.exception("unhandled error")
        return error_response(500, "internal_error", "internal error; the server log has the details")
