"""``POST /v1/blanc/score``: BLANC scores of (hypothesis, references) pairs, or one corpus score."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from .errors import invalid
from .validation import check_request_budget, check_fields, check_text, get_batch, get_bool, json_body

bp = Blueprint("blanc", __name__)


def _pairs(body: dict) -> list[tuple[str, list[str]]]:
    pairs = get_batch(body, "pairs", "{\"hypothesis\": ..., \"references\": [...]} objects")
    max_tokens = current_app.config["TEXTQA_BLANC_MAX_TOKENS"]
    out = []
    for i, pair in enumerate(pairs):
        where = f"pairs[{i}]"
        if not isinstance(pair, dict):
            raise invalid(where, "must be an object with 'hypothesis' and 'references'")
        check_fields(pair, ("hypothesis", "references"), where)
        hyp = check_text(f"{where}.hypothesis", pair.get("hypothesis"), max_tokens)
        refs = pair.get("references")
        if not isinstance(refs, list) or not refs:
            raise invalid(f"{where}.references", "must be a non-empty list of strings")
        for j, r in enumerate(refs):
            check_text(f"{where}.references[{j}]", r, max_tokens)
        out.append((hyp, refs))
    return out


@bp.post("/v1/blanc/score")
def score():
    from . import get_model

    body = json_body()
    check_fields(body, ("pairs", "corpus"))
    pairs = _pairs(body)
    corpus = get_bool(body, "corpus", default=False)
    metric = get_model("blanc")
    cells = sum(len(metric.tokens(h)) * len(metric.tokens(r)) for h, refs in pairs for r in refs)
    check_request_budget(cells, "TEXTQA_BLANC_MAX_CELLS_PER_REQUEST", "ACS grid cells (hypothesis x reference "
                         "tokens, summed over pairs and references)", "send fewer or shorter pairs per request")
    out: dict = {}
    try:
        if corpus:
            s = metric.corpus_score([h for h, _ in pairs], [r for _, r in pairs])
            out["corpus"] = {"score": s.score, "precision": s.precision, "recall": s.recall}
        else:
            scores = [metric.sentence_score(h, r) for h, r in pairs]
            out["scores"] = [{"score": s.score, "precision": s.precision, "recall": s.recall} for s in scores]
    except ValueError as e:         # a pair too long for ACS after tokenisation
        raise invalid("pairs", str(e)) from e
    out["signature"] = metric.signature()
    manifest = getattr(metric, "manifest", {})
    out["model"] = {"name": manifest.get("name", "blanc"), "created_at": manifest.get("created_at")}
    return jsonify(out)
