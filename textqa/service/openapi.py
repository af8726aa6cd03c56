"""The OpenAPI 3.1 document served at ``/openapi.json``, built from the endpoint declarations
(``contract.ENDPOINTS``) and their pydantic classes: nothing in it is written by hand beside the code."""
from __future__ import annotations

from pydantic.json_schema import models_json_schema

from textqa.version import __version__

from .contract import ENDPOINTS, ERRORS
from .schemas import ErrorResponse, Limits, SchemaGenerator

REF = "#/components/schemas/{model}"
REQUEST_ID = {"X-Request-ID": {"description": "the client's X-Request-ID when it is a sane token "
                                              "([A-Za-z0-9._:@/+=-], 1-128 characters), else a new id",
                               "schema": {"type": "string"}}}


def openapi_document(app) -> dict:
    limits = Limits.from_config(app.config)
    requests = {e.request: e.request(limits) for e in ENDPOINTS if e.request}
    used = [(requests[e.request], "validation") for e in ENDPOINTS if e.request]
    used += [(e.response, "serialization") for e in ENDPOINTS if e.response is not None]
    used.append((ErrorResponse, "serialization"))
    refs, defs = models_json_schema(list(dict.fromkeys(used)), ref_template=REF, schema_generator=SchemaGenerator)

    def error_responses(codes):
        return {str(c): {"description": ERRORS[c], "headers": REQUEST_ID, "content": {"application/json": {
            "schema": refs[(ErrorResponse, "serialization")]}}} for c in codes}

    paths: dict = {}
    for e in ENDPOINTS:
        if e.response is not None:
            content = {e.content_type: {"schema": refs[(e.response, "serialization")]}}
        else:
            content = {e.content_type: {"schema": {"type": "string"}}}
        responses = {"200": {"description": "success", "headers": REQUEST_ID, "content": content}}
        for code, description in e.status.items():
            responses[str(code)] = {"description": description, "headers": REQUEST_ID, "content": content}
        responses.update(error_responses(e.errors))
        op = {"operationId": e.name, "summary": e.summary, "tags": [e.tag], "responses": responses}
        if e.description:
            op["description"] = e.description
        if e.request:
            media = {"schema": refs[(requests[e.request], "validation")]}
            if e.examples:
                media["examples"] = {k: {"value": v} for k, v in e.examples.items()}
            op["requestBody"] = {"required": True, "content": {"application/json": media}}
        paths.setdefault(e.path, {})[e.method.lower()] = op

    return {
        "openapi": "3.1.0",
        "info": {"title": "textqa", "version": __version__, "description": (
            "Truecasing, MT metrics, ICD-9 coding and QA models over HTTP. Every error is JSON "
            "(`{\"error\": {\"code\", \"message\", \"field\"}}`); every response carries X-Request-ID. "
            f"Limits of this server: request body {app.config['MAX_CONTENT_LENGTH']:,} bytes (413); "
            f"{limits.max_items:,} items per request; {limits.max_tokens:,} whitespace tokens per item "
            f"({limits.blanc_max_tokens:,} per BLANC hypothesis or reference); per request at most "
            f"{limits.truecase_budget:,} tokens to truecase, {limits.icd9_budget:,} tokens to code, "
            f"{limits.blanc_budget:,} BLANC ACS grid cells (413 above, before any work is done).")},
        "paths": paths,
        "components": {"schemas": defs.get("$defs", {})},
    }
