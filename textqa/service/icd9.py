"""``POST /v1/icd9/code``: ICD-9-CM codes for clinical documents."""
from __future__ import annotations


from flask import Blueprint, current_app, jsonify

from .errors import invalid
from .validation import check_request_budget, check_fields, get_batch, get_bool, json_body

bp = Blueprint("icd9", __name__)


@bp.post("/v1/icd9/code")
def code():
    from textqa.models.icd9.records import RecordError, record_from_object

    from . import get_model

    body = json_body()
    check_fields(body, ("documents", "classifier", "all_scores"))
    docs = get_batch(body, "documents", "{\"id\": ..., \"text\": ...} objects")
    classifier = body.get("classifier", "svm")
    all_scores = get_bool(body, "all_scores", default=False)
    coder = get_model("icd9")
    if not isinstance(classifier, str) or classifier not in getattr(coder, "models_", {}):
        raise invalid("classifier", f"unknown classifier {classifier!r}; this model has {', '.join(coder.models_)}")
    records, seen, total_tokens = [], set(), 0
    max_tokens = current_app.config["TEXTQA_MAX_TOKENS_PER_ITEM"]
    for i, d in enumerate(docs):
        where = f"documents[{i}]"
        if not isinstance(d, dict):
            raise invalid(where, "must be an object with 'id' and 'text' (or 'sections')")
        check_fields(d, ("id", "text", "sections", "codes"), where)
        try:
            r = record_from_object(d, where)
        except RecordError as e:
            raise invalid(where, str(e).split(": ", 1)[-1]) from e
        if r.id in seen:
            raise invalid(f"{where}.id", f"id {r.id!r} given twice")
        seen.add(r.id)
        n = len(r.text.split())
        if n > max_tokens:
            raise invalid(where, f"has {n} tokens; the limit is {max_tokens} per document")
        records.append(r)
        total_tokens += n
    check_request_budget(total_tokens, "TEXTQA_ICD9_MAX_TOKENS_PER_REQUEST", "tokens",
                         "send fewer documents per request")
    manifest = getattr(coder, "manifest", {})
    return jsonify({"documents": coder.code(records, classifier, all_scores), "classifier": classifier,
                    "model": {"name": manifest.get("name", "icd9"), "created_at": manifest.get("created_at")}})
