"""``POST /v1/truecase``: truecase raw text or a batch of (tokenized) sentences."""
from __future__ import annotations

from flask import Blueprint

from .contract import POST_ERRORS, endpoint
from .slots import get_model
from .schemas import TruecaseResponse
from .validation import check_request_budget

bp = Blueprint("truecaser", __name__)


@endpoint(bp, "POST", "/v1/truecase", request="truecase", response=TruecaseResponse, errors=POST_ERRORS,
          tag="truecaser", summary="Restore case (Lita et al. 2003 trigram-LM truecaser, Viterbi decoding)",
          examples={"text": {"text": "the president of the united states visited new york ."},
                    "batch": {"sentences": ["us rep. james pond showed up ."], "tokenized": True}})
def truecase(req):
    """Only the case of letters changes; whitespace, punctuation and line ends are kept."""
    items = [req.text] if req.sentences is None else req.sentences
    check_request_budget(sum(len(x.split()) for x in items), "TEXTQA_MAX_TOKENS_PER_REQUEST", "tokens",
                         "send long text in several requests" if req.sentences is None
                         else "send fewer sentences per request")
    service = get_model("truecaser")
    info = {**service.version, "decoder": "unigram" if req.baseline else "viterbi"}
    if req.sentences is None:
        text = "\n".join(service.truecase_tokenized(req.text.split("\n"), req.baseline)) if req.tokenized \
            else service.truecase_text(req.text, req.baseline)
        return {"text": text, "model": info}
    sentences = service.truecase_tokenized(req.sentences, req.baseline) if req.tokenized \
        else service.truecase_texts(req.sentences, req.baseline)
    return {"sentences": sentences, "model": info}
