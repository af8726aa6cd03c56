"""``POST /v1/qa/answer``: answers with scores, supporting sentences, answer types and clusters."""
from __future__ import annotations

from flask import Blueprint, jsonify

from .errors import APIError, invalid
from .validation import check_fields, check_text, json_body

bp = Blueprint("qa", __name__)


@bp.post("/v1/qa/answer")
def answer():
    from textqa.models.artifact import ArtifactError
    from textqa.models.qa.store import MAX_QUESTION_WORDS

    from . import get_model

    body = json_body()
    check_fields(body, ("question", "top_k"))
    q = check_text("question", body.get("question"), MAX_QUESTION_WORDS)
    top_k = body.get("top_k", 5)
    if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= 100:
        raise invalid("top_k", "must be an integer from 1 to 100")
    model = get_model("qa")
    try:
        result = model.answer([q], top_k)[0]
    except ArtifactError as e:
        raise APIError(503, str(e)) from e
    manifest = model.manifest
    return jsonify({**result, "model": {"name": manifest.get("name", "qa"), "created_at": manifest.get("created_at")}})
