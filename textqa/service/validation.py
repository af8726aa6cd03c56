"""The JSON body of a request (415/400/422 otherwise) and the per-request work budget (413); the
fields themselves are validated by the pydantic classes of ``schemas.py``."""
from __future__ import annotations

from flask import current_app, g, request

from textqa.runtime.json_input import MAX_DEPTH, JSONInputError, parse_json

from .http_errors import APIError, invalid


def json_body() -> dict:
    """The request's JSON object, or a 415/400/422 APIError.  JSON that is well formed but hostile
    (nested deeper than ``MAX_DEPTH`` levels, a number beyond a double, a key given twice) is a 400
    ``unsupported_json``; anything else that is not JSON (bad UTF-8, lone surrogates, ``NaN``) a 400
    ``malformed_json`` (:mod:`textqa.runtime.json_input`)."""
    if not request.mimetype or request.mimetype != "application/json":
        raise APIError(415, f"Content-Type must be application/json, got {request.mimetype or 'none'!r}")
    raw = request.get_data(cache=True)
    try:
        body = parse_json(raw, MAX_DEPTH)
    except JSONInputError as e:
        raise APIError(400, e.describe(), code="unsupported_json" if e.refused else "malformed_json") from None
    if not isinstance(body, dict):
        raise invalid("body", f"must be a JSON object, got {type(body).__name__}")
    g.json_body = body                  # for the metrics (items per request), without parsing again
    return body


def check_request_budget(amount: int, limit_key: str, what: str, advice: str) -> None:
    """413 when the work of a whole request (``amount`` of ``what``) is over its configured limit:
    every per-item limit can hold, and a request of many large items still must not hold a worker
    for minutes (or past gunicorn's timeout)."""
    limit = current_app.config[limit_key]
    if amount > limit:
        raise APIError(413, f"request needs {amount:,} {what}; the limit is {limit:,} per request ({advice})",
                       code="payload_too_large", field="body")
