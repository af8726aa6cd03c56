"""``POST /v1/qa/answer``: answers with scores, supporting sentences and their documents, answer
types and clusters; ``GET /v1/qa/collections``: the collections it can answer from."""
from __future__ import annotations

import functools

from flask import Blueprint
from pydantic import Field

from textqa.models.artifact import ArtifactError
from textqa.models.qa.store import DEFAULT_COLLECTION, MAX_QUESTION_WORDS, NoContentWords, UnknownCollection

from .contract import POST_ERRORS, endpoint
from .http_errors import APIError
from .schemas import NON_EMPTY, Int, Limits, ModelInfo, Response, StrictRequest, text_field
from .slots import get_model

# ---- request
@functools.cache
def request_model(limits: Limits):
    """The request class under ``limits`` (cached: one per distinct configuration)."""
    n, tok, btok = limits.max_items, limits.max_tokens, limits.blanc_max_tokens

    class QaRequest(StrictRequest):
        question: text_field(MAX_QUESTION_WORDS, "question", pattern=NON_EMPTY,
                        description=f"at most {MAX_QUESTION_WORDS} tokens")
        top_k: Int = Field(5, ge=1, le=100)
        collection: str = Field("default", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
                                description="the collection to answer from: 'default' (Wikipedia and the news "
                                            "pool), 'pool', or a name built with 'textqa qa index' "
                                            "(GET /v1/qa/collections lists them)")

    return QaRequest


# ---- responses
class QaDocument(Response):
    id: str = Field(description="the document's id in its collection (a Wikipedia page's curid)")
    title: str
    url: str | None = Field(None, description="the document's URL, when it has one")
    collection: str = Field(None, description="the collection the document belongs to")


class QaAnswer(Response):
    answer: str
    score: float
    sentence: str = Field(description="the supporting sentence, as written")
    start: int = Field(ge=0, description="the answer's first character in the sentence")
    end: int = Field(ge=0, description="one past the answer's last character in the sentence")
    document: QaDocument | None = Field(description="where the sentence comes from")
    clusters: list[str] = Field(description="question clusters whose extractor proposed the answer")


class QaResponse(Response):
    question: str
    answers: list[QaAnswer]
    answer_type: dict[str, float] = Field(description="answer-type distribution of the matched clusters")
    uiuc_type: str = Field(description="the UIUC question class")
    clusters: list[str] = Field(description="the clusters used")
    collection: str = Field(description="the collection answered from")
    model: ModelInfo


class QaCollection(Response):
    name: str
    documents: int = Field(ge=0)
    paragraphs: int = Field(ge=0, description="paragraphs indexed (for the news pool: sentences)")
    description: str
    created_at: str | None
    analysed: bool | None = Field(None, description="whether its sentences and answer candidates were analysed "
                                                    "when it was indexed (else they are analysed when asked)")
    refused: str | None = Field(None, description="set when the collection's checks refuse it (a file changed "
                                                  "since it was built): why; the others still answer")


class QaCollectionsResponse(Response):
    collections: list[QaCollection]
    default: str = Field(description="the collection a request without 'collection' answers from")


bp = Blueprint("qa", __name__)


@endpoint(bp, "POST", "/v1/qa/answer", request=request_model, response=QaResponse, errors=POST_ERRORS + (404,),
          tag="qa",
          summary="Answer a factoid question (instance-based QA, Lita & Carbonell 2004)",
          examples={"one": {"question": "What is the capital of France?", "top_k": 5},
                    "own documents": {"question": "Who wrote Hamlet?", "collection": "mydocs"}})
def answer(req):
    """Ranked answers (score, supporting sentence as written, the answer's offsets in it, its
    document, clusters), the answer-type distribution, the UIUC class, the clusters used and the
    collection answered from.  An unknown collection is a 404 listing the known ones; a question with no
    content word to search for ("the of and") is a 400 (``no_content_words``)."""

    model = get_model("qa")
    try:
        result = model.answer([req.question], req.top_k, req.collection)[0]
    except UnknownCollection as e:
        raise APIError(404, str(e), code="unknown_collection", field="collection") from None
    except NoContentWords as e:
        raise APIError(400, str(e), code="no_content_words", field="question") from None
    except ArtifactError as e:
        raise APIError(503, str(e)) from e
    manifest = model.manifest
    return {**result, "model": {"name": manifest.get("name", "qa"), "created_at": manifest.get("created_at")}}


@endpoint(bp, "GET", "/v1/qa/collections", response=QaCollectionsResponse, errors=(503,), tag="qa",
          summary="The collections QA answers from ('textqa qa index' builds more)")
def collections():
    """Every collection's name, size and description; 'default' answers when a request names none.  A
    collection whose checks refuse it is listed with ``refused``, the reason; the others are not affected."""
    model = get_model("qa")
    try:
        return {"collections": model.describe_collections(), "default": DEFAULT_COLLECTION}
    except ArtifactError as e:
        raise APIError(503, str(e)) from e
