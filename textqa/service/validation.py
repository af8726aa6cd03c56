"""Request parsing and validation shared by the blueprints."""
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


def get_bool(body: dict, field: str, default: bool) -> bool:
    value = body.get(field, default)
    if not isinstance(value, bool):
        raise invalid(field, f"must be true or false, got {json.dumps(value)[:40]}")
    return value


def get_string(body: dict, field: str, *, max_tokens: int | None = None) -> str:
    value = body.get(field)
    if not isinstance(value, str):
        raise invalid(field, f"must be a string, got {type(value).__name__}")
    check_tokens(field, value, max_tokens)
    return value


def check_fields(obj: dict, allowed, where: str = "") -> None:
    """422 naming the first field of ``obj`` outside ``allowed`` (``where`` prefixes nested fields)."""
    unknown = set(obj) - set(allowed)
    if unknown:
        name = sorted(unknown)[0]
        raise invalid(f"{where}.{name}" if where else name, f"unknown field; expected {', '.join(allowed)}")


def get_batch(body: dict, field: str, what: str, *, non_empty: bool = True, max_items: int | None = None) -> list:
    """``body[field]`` as a list of at most TEXTQA_MAX_BATCH_ITEMS items (``what`` describes an item)."""
    value = body.get(field)
    if not isinstance(value, list) or (non_empty and not value):
        raise invalid(field, f"must be a {'non-empty ' if non_empty else ''}list of {what}"
                      + ("" if isinstance(value, list) else f", got {type(value).__name__}"))
    max_items = max_items or current_app.config["TEXTQA_MAX_BATCH_ITEMS"]
    if len(value) > max_items:
        raise invalid(field, f"has {len(value)} items; the limit is {max_items} per request")
    return value


def check_text(field: str, value, max_tokens: int | None = None) -> str:
    """A non-empty string of at most ``max_tokens`` whitespace tokens, or a 422 naming ``field``."""
    if not isinstance(value, str):
        raise invalid(field, f"must be a string, got {type(value).__name__}")
    if not value.strip():
        raise invalid(field, "is empty")
    check_tokens(field, value, max_tokens)
    return value


def get_string_list(body: dict, field: str, *, max_items: int | None = None, max_tokens: int | None = None):
    value = get_batch(body, field, "strings", non_empty=False, max_items=max_items)
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise invalid(f"{field}[{i}]", f"must be a string, got {type(item).__name__}")
        check_tokens(f"{field}[{i}]", item, max_tokens)
    return value


def check_tokens(field: str, text: str, max_tokens: int | None) -> None:
    limit = max_tokens or current_app.config["TEXTQA_MAX_TOKENS_PER_ITEM"]
    n = len(text.split())
    if n > limit:
        raise invalid(field, f"has {n} tokens; the limit is {limit} per item")


def check_request_budget(amount: int, limit_key: str, what: str, advice: str) -> None:
    """413 when the work of a whole request (``amount`` of ``what``) is over its configured limit:
    every per-item limit can hold, and a request of many large items still must not hold a worker
    for minutes (or past gunicorn's timeout)."""
    limit = current_app.config[limit_key]
    if amount > limit:
        raise APIError(413, f"request needs {amount:,} {what}; the limit is {limit:,} per request ({advice})",
                       code="payload_too_large", field="body")
