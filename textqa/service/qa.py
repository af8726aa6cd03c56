"""``POST /v1/qa/answer``: answers with scores, supporting sentences, answer types and clusters."""
from __future__ import annotations

from flask import Blueprint

from textqa.models.artifact import ArtifactError

from .contract import POST_ERRORS, endpoint
from .errors import APIError
from .registry import get_model
from .schemas import QaResponse

bp = Blueprint("qa", __name__)


@endpoint(bp, "POST", "/v1/qa/answer", request="qa", response=QaResponse, errors=POST_ERRORS, tag="qa",
          summary="Answer a factoid question (instance-based QA, Lita & Carbonell 2004)",
          examples={"one": {"question": "Who wrote The Iron Lady?", "top_k": 5}})
def answer(req):
    """Ranked answers (score, supporting sentence, clusters), the answer-type distribution, the UIUC
    class and the clusters used."""

    model = get_model("qa")
    try:
        result = model.answer([req.question], req.top_k)[0]
    except ArtifactError as e:
        raise APIError(503, str(e)) from e
    manifest = model.manifest
    return {**result, "model": {"name": manifest.get("name", "qa"), "created_at": manifest.get("created_at")}}
