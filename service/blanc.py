"""``POST /v1/blanc/score``: BLANC scores of (hypothesis, references) pairs, or one corpus score."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from .errors import invalid
from .validation import check_tokens, get_bool, json_body

bp = Blueprint("blanc", __name__)


def _pairs(body: dict) -> list[tuple[str, list[str]]]:
    pairs = body.get("pairs")
    if not isinstance(pairs, list) or not pairs:
        raise invalid("pairs", "must be a non-empty list of {\"hypothesis\": ..., \"references\": [...]} objects")
    limit = current_app.config["TEXTQA_MAX_BATCH_ITEMS"]
    if len(pairs) > limit:
        raise invalid("pairs", f"has {len(pairs)} items; the limit is {limit} per request")
    max_tokens = current_app.config["TEXTQA_BLANC_MAX_TOKENS"]
    out = []
    for i, pair in enumerate(pairs):
        where = f"pairs[{i}]"
        if not isinstance(pair, dict):
            raise invalid(where, "must be an object with 'hypothesis' and 'references'")
        unknown = set(pair) - {"hypothesis", "references"}
        if unknown:
            raise invalid(f"{where}.{sorted(unknown)[0]}", "unknown field; expected hypothesis, references")
        hyp, refs = pair.get("hypothesis"), pair.get("references")
        if not isinstance(hyp, str):
            raise invalid(f"{where}.hypothesis", f"must be a string, got {type(hyp).__name__}")
        if not hyp.strip():
            raise invalid(f"{where}.hypothesis", "is empty")
        check_tokens(f"{where}.hypothesis", hyp, max_tokens)
        if not isinstance(refs, list) or not refs:
            raise invalid(f"{where}.references", "must be a non-empty list of strings")
        for j, r in enumerate(refs):
            if not isinstance(r, str):
                raise invalid(f"{where}.references[{j}]", f"must be a string, got {type(r).__name__}")
            if not r.strip():
                raise invalid(f"{where}.references[{j}]", "is empty")
            check_tokens(f"{where}.references[{j}]", r, max_tokens)
        out.append((hyp, refs))
    return out


@bp.post("/v1/blanc/score")
def score():
    from . import get_model

    body = json_body()
    unknown = set(body) - {"pairs", "corpus"}
    if unknown:
        raise invalid(sorted(unknown)[0], "unknown field; expected pairs, corpus")
    pairs = _pairs(body)
    corpus = get_bool(body, "corpus", default=False)
    metric = get_model("blanc")
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
