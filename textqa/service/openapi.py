"""The OpenAPI 3.1 document served at ``/openapi.json``; covers every endpoint."""
from __future__ import annotations

from textqa import __version__

ERROR = {"$ref": "#/components/schemas/Error"}


def _errors(*codes):
    desc = {400: "malformed JSON", 413: "request body too large", 415: "Content-Type is not application/json",
            422: "invalid field value", 503: "model not loaded"}
    return {str(c): {"description": desc[c], "content": {"application/json": {"schema": ERROR}}} for c in codes}


def openapi_document(app) -> dict:
    limits = {k: app.config[k] for k in ("MAX_CONTENT_LENGTH", "TEXTQA_MAX_BATCH_ITEMS", "TEXTQA_MAX_TOKENS_PER_ITEM",
                                         "TEXTQA_BLANC_MAX_TOKENS")}
    return {
        "openapi": "3.1.0",
        "info": {"title": "textqa", "version": __version__,
                 "description": "Truecasing, MT metrics, ICD-9 coding and QA models over HTTP. "
                                f"Limits: {limits}."},
        "paths": {
            "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "alive"}}}},
            "/metrics": {"get": {"summary": "Prometheus metrics (text format 0.0.4), summed over workers",
                                 "responses": {"200": {"description": "metrics",
                                                       "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
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
            "/v1/blanc/score": {"post": {
                "summary": "BLANC MT metric (Lita, Rogati & Lavie 2005) with the trained parameters",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/BlancRequest"},
                    "examples": {"pairs": {"value": {"pairs": [
                        {"hypothesis": "The cat sat on the mat.", "references": ["The cat is on the mat."]}]}}}}}},
                "responses": {"200": {"description": "one score per pair, or one corpus score; the signature",
                                      "content": {"application/json": {"schema": {
                                          "$ref": "#/components/schemas/BlancResponse"}}}},
                              **_errors(400, 413, 415, 422, 503)}}},
            "/v1/icd9/code": {"post": {
                "summary": "ICD-9-CM codes for clinical documents (Lita et al. 2008: per-code SVM or BRR)",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/Icd9Request"},
                    "examples": {"one": {"value": {"documents": [
                        {"id": "1", "text": "Cough and fever for three days. No focal pneumonia."}],
                        "classifier": "svm"}}}}}},
                "responses": {"200": {"description": "codes above threshold per document, best first",
                                      "content": {"application/json": {"schema": {
                                          "$ref": "#/components/schemas/Icd9Response"}}}},
                              **_errors(400, 413, 415, 422, 503)}}},
            "/v1/qa/answer": {"post": {
                "summary": "Answer a factoid question (instance-based QA, Lita & Carbonell 2004)",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "additionalProperties": False, "required": ["question"], "properties": {
                        "question": {"type": "string", "minLength": 1},
                        "top_k": {"type": "integer", "minimum": 1, "maximum": 100, "default": 5}}},
                    "examples": {"one": {"value": {"question": "Who wrote The Iron Lady?", "top_k": 5}}}}}},
                "responses": {"200": {"description": "answers (answer, score, sentence, clusters), the answer-type "
                                                     "distribution, the UIUC type and the clusters used"},
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
            "BlancRequest": {"type": "object", "additionalProperties": False, "required": ["pairs"], "properties": {
                "pairs": {"type": "array", "minItems": 1, "maxItems": app.config["TEXTQA_MAX_BATCH_ITEMS"],
                          "items": {"type": "object", "additionalProperties": False,
                                    "required": ["hypothesis", "references"], "properties": {
                                        "hypothesis": {"type": "string", "minLength": 1},
                                        "references": {"type": "array", "minItems": 1,
                                                       "items": {"type": "string", "minLength": 1}}}}},
                "corpus": {"type": "boolean", "default": False,
                           "description": "one system-level score over all pairs instead of one per pair"}}},
            "BlancResponse": {"type": "object", "properties": {
                "scores": {"type": "array", "items": {"$ref": "#/components/schemas/BlancScore"}},
                "corpus": {"$ref": "#/components/schemas/BlancScore"},
                "signature": {"type": "string"}, "model": {"type": "object"}}},
            "BlancScore": {"type": "object", "properties": {
                "score": {"type": "number"}, "precision": {"type": "number"}, "recall": {"type": "number"}}},
            "Icd9Request": {"type": "object", "additionalProperties": False, "required": ["documents"],
                            "properties": {
                "documents": {"type": "array", "minItems": 1, "maxItems": app.config["TEXTQA_MAX_BATCH_ITEMS"],
                              "items": {"type": "object", "required": ["id"], "properties": {
                                  "id": {"type": ["string", "integer"]}, "text": {"type": "string", "minLength": 1},
                                  "sections": {"type": "object", "additionalProperties": {"type": "string"}}}}},
                "classifier": {"type": "string", "enum": ["svm", "brr"], "default": "svm"},
                "all_scores": {"type": "boolean", "default": False}}},
            "Icd9Response": {"type": "object", "properties": {
                "documents": {"type": "array", "items": {"type": "object", "properties": {
                    "id": {"type": "string"}, "codes": {"type": "array", "items": {"type": "object", "properties": {
                        "code": {"type": "string"}, "score": {"type": "number"},
                        "description": {"type": ["string", "null"]}}}}}}},
                "classifier": {"type": "string"}, "model": {"type": "object"}}},
            "TruecaseResponse": {"type": "object", "properties": {
                "text": {"type": "string"}, "sentences": {"type": "array", "items": {"type": "string"}},
                "model": {"type": "object"}}},
        }},
    }
