"""``POST /v1/icd9/code``: ICD-9-CM codes for clinical documents."""
from __future__ import annotations

import json

from flask import Blueprint, current_app, jsonify

from .errors import invalid
from .validation import json_body

bp = Blueprint("icd9", __name__)


@bp.post("/v1/icd9/code")
def code():
    from models.icd9.records import RecordError, parse_jsonl_line

    from . import get_model

    body = json_body()
    unknown = set(body) - {"documents", "classifier", "all_scores"}
    if unknown:
        raise invalid(sorted(unknown)[0], "unknown field; expected documents, classifier, all_scores")
    docs = body.get("documents")
    if not isinstance(docs, list) or not docs:
        raise invalid("documents", "must be a non-empty list of {\"id\": ..., \"text\": ...} objects")
    limit = current_app.config["TEXTQA_MAX_BATCH_ITEMS"]
    if len(docs) > limit:
        raise invalid("documents", f"has {len(docs)} items; the limit is {limit} per request")
    classifier = body.get("classifier", "svm")
    all_scores = body.get("all_scores", False)
    if not isinstance(all_scores, bool):
        raise invalid("all_scores", "must be true or false")
    coder = get_model("icd9")
    if classifier not in getattr(coder, "models_", {}):
        raise invalid("classifier", f"unknown classifier {classifier!r}; this model has {', '.join(coder.models_)}")
    records, seen = [], set()
    max_tokens = current_app.config["TEXTQA_MAX_TOKENS_PER_ITEM"]
    for i, d in enumerate(docs):
        where = f"documents[{i}]"
        if not isinstance(d, dict):
            raise invalid(where, "must be an object with 'id' and 'text' (or 'sections')")
        extra = set(d) - {"id", "text", "sections", "codes"}
        if extra:
            raise invalid(f"{where}.{sorted(extra)[0]}", "unknown field; expected id, text or sections")
        try:
            r = parse_jsonl_line(json.dumps(d), where)
        except RecordError as e:
            raise invalid(where, str(e).split(": ", 1)[-1]) from e
        if r.id in seen:
            raise invalid(f"{where}.id", f"id {r.id!r} given twice")
        seen.add(r.id)
        n = len(r.text.split())
        if n > max_tokens:
            raise invalid(where, f"has {n} tokens; the limit is {max_tokens} per document")
        records.append(r)
    manifest = getattr(coder, "manifest", {})
    return jsonify({"documents": coder.code(records, classifier, all_scores), "classifier": classifier,
                    "model": {"name": manifest.get("name", "icd9"), "created_at": manifest.get("created_at")}})
