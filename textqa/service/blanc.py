"""``POST /v1/blanc/score``: BLANC scores of (hypothesis, references) pairs, or one corpus score."""
from __future__ import annotations

from flask import Blueprint

from .contract import POST_ERRORS, endpoint
from .http_errors import invalid
from .slots import get_model
from .schemas import BlancResponse
from .validation import check_request_budget

bp = Blueprint("blanc", __name__)


@endpoint(bp, "POST", "/v1/blanc/score", request="blanc", response=BlancResponse, errors=POST_ERRORS,
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
    manifest = getattr(metric, "manifest", {})
    out = {}
    try:
        if req.corpus:
            s = metric.corpus_score([h for h, _ in pairs], [r for _, r in pairs])
            out["corpus"] = {"score": s.score, "precision": s.precision, "recall": s.recall}
        else:
            scored = [metric.sentence_score(h, r) for h, r in pairs]
            out["scores"] = [{"score": s.score, "precision": s.precision, "recall": s.recall} for s in scored]
            if req.explain:
                for item, s, (h, r) in zip(out["scores"], scored, pairs):
                    item["explanation"] = metric.explain(h, r, scored=s)
    except ValueError as e:         # a pair too long for ACS after tokenisation
        raise invalid("pairs", str(e)) from e
    out["signature"] = metric.signature
    out["model"] = {"name": manifest.get("name", "blanc"), "created_at": manifest.get("created_at")}
    return out
