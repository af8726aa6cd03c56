"""``POST /v1/truecase``: truecase raw text or a batch of (tokenized) sentences."""
from __future__ import annotations

from flask import Blueprint, jsonify

from .errors import invalid
from .validation import check_request_budget, check_fields, get_bool, get_string, get_string_list, json_body

bp = Blueprint("truecaser", __name__)


@bp.post("/v1/truecase")
def truecase():
    from . import get_model

    body = json_body()
    check_fields(body, ("text", "sentences", "tokenized", "baseline"))
    has_text, has_sents = "text" in body, "sentences" in body
    if has_text == has_sents:
        raise invalid("text", "give exactly one of 'text' (a string) or 'sentences' (a list of strings)")
    tokenized = get_bool(body, "tokenized", default=False)
    baseline = get_bool(body, "baseline", default=False)
    if has_text:
        text = get_string(body, "text")
        check_request_budget(len(text.split()), "TEXTQA_MAX_TOKENS_PER_REQUEST", "tokens",
                             "send long text in several requests")
        service = get_model("truecaser")
        result = "\n".join(service.truecase_tokenized(text.split("\n"), baseline)) if tokenized else \
            service.truecase_text(text, baseline)
        out = {"text": result}
    else:
        sentences = get_string_list(body, "sentences")
        check_request_budget(sum(len(x.split()) for x in sentences), "TEXTQA_MAX_TOKENS_PER_REQUEST", "tokens",
                             "send fewer sentences per request")
        service = get_model("truecaser")
        out = {"sentences": service.truecase_tokenized(sentences, baseline) if tokenized
               else service.truecase_texts(sentences, baseline)}
    out["model"] = {**service.version, "decoder": "unigram" if baseline else "viterbi"}
    return jsonify(out)
