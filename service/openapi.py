"""The OpenAPI 3.1 document served at ``/openapi.json``; covers every endpoint."""
from __future__ import annotations

from textqa import __version__

ERROR = {"$ref": "#/components/schemas/Error"}


def _errors(*codes):
    desc = {400: "malformed JSON", 413: "request body too large", 415: "Content-Type is not application/json",
            422: "invalid field value", 503: "model not loaded"}
    return {str(c): {"description": desc[c], "content": {"application/json": {"schema": ERROR}}} for c in codes}


def openapi_document(app) -> dict:
    limits = {k: app.config[k] for k in ("MAX_CONTENT_LENGTH", "TEXTQA_MAX_BATCH_ITEMS", "TEXTQA_MAX_TOKENS_PER_ITEM")}
    return {
        "openapi": "3.1.0",
        "info": {"title": "textqa", "version": __version__,
                 "description": "Truecasing, MT metrics, ICD-9 coding and QA models over HTTP. "
                                f"Limits: {limits}."},
        "paths": {
            "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "alive"}}}},
            "/readyz": {"get": {"summary": "Readiness: 200 when every model is loaded",
                                "responses": {"200": {"description": "ready"},
                                              "503": {"description": "a model is not loaded"}}}},
            "/v1/models": {"get": {"summary": "Manifests of the loaded models",
                                   "responses": {"200": {"description": "name -> manifest"}}}},
            "/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI"}}}},
            "/v1/truecase": {"post": {
                "summary": "Restore case (Lita et al. 2003 trigram-LM truecaser, Viterbi decoding)",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/TruecaseRequest"},
                    "examples": {"text": {"value": {"text": "the president of the united states visited new york ."}},
                                 "batch": {"value": {"sentences": ["us rep. james pond showed up ."],
                                                     "tokenized": True}}}}}},
                "responses": {"200": {"description": "truecased text or sentences",
                                      "content": {"application/json": {"schema": {
                                          "$ref": "#/components/schemas/TruecaseResponse"}}}},
                              **_errors(400, 413, 415, 422, 503)}}},
        },
        "components": {"schemas": {
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {
                "type": "object", "required": ["code", "message"],
                "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                               "field": {"type": "string"}}}}},
            "TruecaseRequest": {"type": "object", "additionalProperties": False, "properties": {
                "text": {"type": "string", "description": "raw text (or one tokenized line if tokenized)"},
                "sentences": {"type": "array", "items": {"type": "string"},
                              "maxItems": app.config["TEXTQA_MAX_BATCH_ITEMS"]},
                "tokenized": {"type": "boolean", "default": False,
                              "description": "input is whitespace-tokenized (PTB style); tokens are kept"},
                "baseline": {"type": "boolean", "default": False,
                             "description": "use the unigram most-frequent-casing baseline"}},
                "oneOf": [{"required": ["text"]}, {"required": ["sentences"]}]},
            "TruecaseResponse": {"type": "object", "properties": {
                "text": {"type": "string"}, "sentences": {"type": "array", "items": {"type": "string"}},
                "model": {"type": "object"}}},
        }},
    }
