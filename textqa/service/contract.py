"""``endpoint(...)``: one declaration per endpoint that registers the route, validates the request
with its pydantic class and serialises the response with its class; ``openapi.py`` reads the same
declarations (``ENDPOINTS``) to build ``/openapi.json``."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

from flask import current_app, g, jsonify
from pydantic import BaseModel, ValidationError

from textqa.runtime import deadline

from .http_errors import invalid
from .schemas import Limits, first_error
from .validation import json_body

#: HTTP errors an endpoint may answer, with what they mean (the document lists them per endpoint)
ERRORS = {400: "malformed JSON or not UTF-8", 405: "method not allowed (the Allow header lists the allowed)",
          413: "request body, or the work of the whole request, over its limit (the message names both)",
          415: "Content-Type is not application/json",
          422: "a field with an invalid value (error.field names it)",
          503: "the model is not loaded, or busy (code overloaded, with Retry-After)",
          504: "the request's deadline passed (code deadline_exceeded)",
          404: "an unknown name (error.message lists the known ones)"}
POST_ERRORS = (400, 413, 415, 422, 503, 504)


@dataclass
class Endpoint:
    method: str
    path: str
    name: str
    summary: str
    description: str
    response: type[BaseModel] | None          # None: not JSON (e.g. /metrics)
    request: Callable[[Limits], type[BaseModel]] | None = None    # the blueprint's request_model
    errors: tuple = ()
    examples: dict = field(default_factory=dict)
    content_type: str = "application/json"
    tag: str = "service"
    status: dict = field(default_factory=dict)    # other success/failure statuses -> description


ENDPOINTS: list[Endpoint] = []


def current_request_model(build: Callable[[Limits], type[BaseModel]]) -> type[BaseModel]:
    """The request class ``build`` makes under this app's limits (made once per app, not per request)."""
    models = current_app.extensions.setdefault("textqa_requests", {})
    if build not in models:
        models[build] = build(Limits.from_config(current_app.config))
    return models[build]


def endpoint(target, method: str, path: str, *, summary: str, response: type[BaseModel] | None,
             request: Callable[[Limits], type[BaseModel]] | None = None, errors: tuple = (), examples: dict | None = None,
             content_type: str = "application/json", tag: str = "service", status: dict | None = None):
    """Register ``fn`` on ``target`` (app or blueprint) as ``method path``.

    With ``request`` (the blueprint's ``request_model``: limits -> its request class), the view parses
    the JSON body, validates it with that request class (422
    naming the field otherwise) and calls ``fn(req)``; without it ``fn()``.  ``fn`` returns the response
    body as a dict (or ``(dict, status)``, or a Flask response for a body that is not JSON).  With the
    config ``TEXTQA_CHECK_RESPONSES`` (default: on under ``TESTING``) every body is validated against
    the ``response`` class first, so the tests hold the code to the published schema; in production
    that check (about 20 us a request) is skipped."""
    def deco(fn):
        doc = (fn.__doc__ or "").strip()
        ENDPOINTS.append(Endpoint(method.upper(), path, fn.__name__, summary, doc, response, request,
                                  tuple(errors), examples or {}, content_type, tag, status or {}))

        @functools.wraps(fn)
        def view():
            if request is None:
                out = fn()
            else:
                body = json_body()
                try:
                    parsed = current_request_model(request).model_validate(body)
                except ValidationError as e:
                    raise invalid(*first_error(e)) from None
                out = fn(parsed)
            if g.get("admitted"):               # a model's answer finished past its deadline is dropped
                deadline.check("answered")
            code = 200
            if isinstance(out, tuple):
                out, code = out
            if not isinstance(out, dict):
                return out
            if response is not None and current_app.config.get("TEXTQA_CHECK_RESPONSES", current_app.testing):
                response.model_validate(out)        # a ValidationError here is a bug: 500 and a log entry
            return jsonify(out), code

        target.add_url_rule(path, endpoint=fn.__name__, view_func=view, methods=[method.upper()])
        return fn
    return deco
