"""The JSON body of a request (415/400/422 otherwise) and the per-request work budget (413); the
fields themselves are validated by the pydantic classes of ``schemas.py``."""
from __future__ import annotations

import json

from flask import current_app, g, request

from .errors import APIError, invalid


def json_body() -> dict:
    """The request's JSON object, or a 415/400/422 APIError."""
    if not request.mimetype or request.mimetype != "application/json":
        raise APIError(415, f"Content-Type must be application/json, got {request.mimetype or 'none'!r}")
    raw = request.get_data(cache=True)
    try:
        body = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise APIError(400, f"request body is not valid UTF-8 (byte {e.start})") from e
    except json.JSONDecodeError as e:
        raise APIError(400, f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from e
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
