"""``POST /v1/blanc/score``: BLANC scores of (hypothesis, references) pairs, or one corpus score."""
from __future__ import annotations

import functools

from flask import Blueprint
from pydantic import ConfigDict, Field, model_validator

from textqa.runtime import deadline

from .contract import POST_ERRORS, endpoint
from .http_errors import invalid
from .schemas import NON_EMPTY, FieldProblem, Limits, ModelInfo, Response, StrictRequest, text_field
from .slots import get_model
from .validation import check_request_budget

# ---- request
@functools.cache
def request_model(limits: Limits):
    """The request class under ``limits`` (cached: one per distinct configuration)."""
    n, tok, btok = limits.max_items, limits.max_tokens, limits.blanc_max_tokens

    BlancText = text_field(btok, pattern=NON_EMPTY, description=f"at most {btok:,} tokens")

    class BlancPair(StrictRequest):
        hypothesis: BlancText
        references: list[BlancText] = Field(min_length=1)

    class BlancRequest(StrictRequest):
        model_config = ConfigDict(json_schema_extra={"not": {"required": ["explain", "corpus"], "properties": {
            "explain": {"const": True}, "corpus": {"const": True}}}})
        pairs: list[BlancPair] = Field(min_length=1, max_length=n, description=(
            f"(hypothesis, references) pairs; the ACS grid cells of a request (hypothesis x reference tokens, "
            f"summed over pairs and references) are at most {limits.blanc_budget:,} (413 above)"))
        corpus: bool = Field(False, description="one system-level score over all pairs instead of one per pair")
        explain: bool = Field(False, description="add each pair's alignment, skip-n-gram masses and matched "
                                                 "skip-bigrams (not with 'corpus')")

        @model_validator(mode="after")
        def _explain_pairs(self):
            if self.explain and self.corpus:
                raise FieldProblem("explain", "explains pair scores; it cannot be used with 'corpus'")
            return self

    return BlancRequest


# ---- responses
class BlancAlignment(Response):
    hypothesis: int = Field(description="hypothesis token index")
    reference: int = Field(description="reference token index")
    weight: float = Field(description="node weight: 1 for an exact match, less for a partial one")


class BlancSize(Response):
    k: int
    common: float = Field(description="common skip-k-gram mass")
    hypothesis: float = Field(description="the hypothesis's own skip-k-gram mass (precision's denominator)")
    reference: float = Field(description="the reference's own skip-k-gram mass (recall's denominator)")


class BlancExplanation(Response):
    reference: int = Field(description="index of the best-matching reference")
    hypothesis_tokens: list[str]
    reference_tokens: list[str]
    alignment: list[BlancAlignment]
    sizes: list[BlancSize]
    skip_bigrams: list[str] = Field(description="common skip-bigrams ('..' marks a gap), at most 50")


class BlancScore(Response):
    score: float
    precision: float
    recall: float
    explanation: BlancExplanation = Field(None, description="with 'explain': what the score is made of")


class BlancResponse(Response):
    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["scores"]}, {"required": ["corpus"]}]})
    scores: list[BlancScore] = Field(None, description="one score per pair, in order")
    corpus: BlancScore = Field(None, description="the corpus score (with 'corpus': true)")
    signature: str
    model: ModelInfo


bp = Blueprint("blanc", __name__)


@endpoint(bp, "POST", "/v1/blanc/score", request=request_model, response=BlancResponse, errors=POST_ERRORS,
          tag="blanc", summary="BLANC MT metric (Lita, Rogati & Lavie 2005) with the trained parameters",
          examples={"pairs": {"pairs": [{"hypothesis": "The cat sat on the mat.",
                                         "references": ["The cat is on the mat."]}]}})
def score(req):
    """One score per pair (or one corpus score) with precision and recall, and the metric's signature."""
    metric = get_model("blanc")
    pairs = [(p.hypothesis, p.references) for p in req.pairs]
    cells = sum(len(metric.tokens(h)) * len(metric.tokens(r)) for h, refs in pairs for r in refs)
    check_request_budget(cells, "TEXTQA_BLANC_MAX_CELLS_PER_REQUEST", "ACS grid cells (hypothesis x reference "
                         "tokens, summed over pairs and references)", "send fewer or shorter pairs per request")
    manifest = metric.manifest
    out = {}
    try:
        if req.corpus:
            s = metric.corpus_score([h for h, _ in pairs], [r for _, r in pairs])
            out["corpus"] = {"score": s.score, "precision": s.precision, "recall": s.recall}
        else:
            scored = []
            for h, r in pairs:                      # a request past its deadline stops between pairs
                deadline.check("between pairs")
                scored.append(metric.sentence_score(h, r))
            out["scores"] = [{"score": s.score, "precision": s.precision, "recall": s.recall} for s in scored]
            if req.explain:
                for item, s, (h, r) in zip(out["scores"], scored, pairs):
                    item["explanation"] = metric.explain(h, r, scored=s)
    except ValueError as e:         # a pair too long for ACS after tokenisation
        raise invalid("pairs", str(e)) from e
    out["signature"] = metric.signature
    out["model"] = {"name": manifest.get("name", "blanc"), "created_at": manifest.get("created_at")}
    return out
