"""``POST /v1/qa/answer``: answers with scores, supporting sentences, answer types and clusters."""
from __future__ import annotations

from flask import Blueprint, jsonify

from .errors import APIError, invalid
from .validation import json_body

bp = Blueprint("qa", __name__)
MAX_QUESTION_WORDS = 200


@bp.post("/v1/qa/answer")
def answer():
    from models.artifact import ArtifactError

    from . import get_model

    body = json_body()
    unknown = set(body) - {"question", "top_k"}
    if unknown:
        raise invalid(sorted(unknown)[0], "unknown field; expected question, top_k")
    q = body.get("question")
    if not isinstance(q, str):
        raise invalid("question", f"must be a string, got {type(q).__name__}")
    if not q.strip():
        raise invalid("question", "is empty")
    n = len(q.split())
    if n > MAX_QUESTION_WORDS:
        raise invalid("question", f"has {n} words; the limit is {MAX_QUESTION_WORDS}")
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
