"""``POST /v1/qa/answer``: answers with scores, supporting sentences and their documents, answer
types and clusters; ``GET /v1/qa/collections``: the collections it can answer from."""
from __future__ import annotations

from flask import Blueprint

from textqa.models.artifact import ArtifactError
from textqa.models.qa.store import DEFAULT_COLLECTION, UnknownCollection

from .contract import POST_ERRORS, endpoint
from .http_errors import APIError
from .slots import get_model
from .schemas import QaCollectionsResponse, QaResponse

bp = Blueprint("qa", __name__)


@endpoint(bp, "POST", "/v1/qa/answer", request="qa", response=QaResponse, errors=POST_ERRORS + (404,), tag="qa",
          summary="Answer a factoid question (instance-based QA, Lita & Carbonell 2004)",
          examples={"one": {"question": "What is the capital of France?", "top_k": 5},
                    "own documents": {"question": "Who wrote Hamlet?", "collection": "mydocs"}})
def answer(req):
    """Ranked answers (score, supporting sentence as written, the answer's offsets in it, its
    document, clusters), the answer-type distribution, the UIUC class, the clusters used and the
    collection answered from.  An unknown collection is a 404 listing the known ones."""

    model = get_model("qa")
    try:
        result = model.answer([req.question], req.top_k, req.collection)[0]
    except UnknownCollection as e:
        raise APIError(404, str(e), code="unknown_collection", field="collection") from None
    except ArtifactError as e:
        raise APIError(503, str(e)) from e
    manifest = model.manifest
    return {**result, "model": {"name": manifest.get("name", "qa"), "created_at": manifest.get("created_at")}}


@endpoint(bp, "GET", "/v1/qa/collections", response=QaCollectionsResponse, errors=(503,), tag="qa",
          summary="The collections QA answers from ('textqa qa index' builds more)")
def collections():
    """Every collection's name, size and description; 'default' answers when a request names none."""
    model = get_model("qa")
    try:
        return {"collections": model.describe_collections(), "default": DEFAULT_COLLECTION}
    except ArtifactError as e:
        raise APIError(503, str(e)) from e
