"""``POST /v1/truecase``: truecase raw text or a batch of (tokenized) sentences."""
from __future__ import annotations

import functools

from flask import Blueprint
from pydantic import ConfigDict, Field, model_validator

from textqa.runtime import deadline

from .contract import POST_ERRORS, endpoint
from .schemas import FieldProblem, Limits, ModelInfo, Response, StrictRequest, text_field
from .slots import get_model
from .validation import check_request_budget

#: Sentences of a batch decoded together: the deadline is checked between such chunks (a chunk of
#: short sentences decodes in milliseconds; the output does not depend on it)
CHUNK = 200


# ---- request
@functools.cache
def request_model(limits: Limits):
    """The request class under ``limits`` (cached: one per distinct configuration)."""
    n, tok, btok = limits.max_items, limits.max_tokens, limits.blanc_max_tokens

    class TruecaseRequest(StrictRequest):
        """Exactly one of ``text`` or ``sentences``."""
        model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["text"]},
                                                               {"required": ["sentences"]}]})
        text: text_field(tok) = Field(None, description=f"raw text (with 'tokenized': lines of whitespace-separated "
                                                   f"tokens); at most {tok:,} tokens")
        sentences: list[text_field(tok)] = Field(None, max_length=n, description=f"a batch of texts or tokenized "
                                                                            f"sentences, at most {tok:,} tokens each")
        tokenized: bool = Field(False, description="input is whitespace-tokenized (PTB style); tokens are kept")
        baseline: bool = Field(False, description="use the unigram most-frequent-casing baseline")

        @model_validator(mode="after")
        def _exactly_one(self):
            if ("text" in self.model_fields_set) == ("sentences" in self.model_fields_set):
                raise FieldProblem("text", "give exactly one of 'text' (a string) or 'sentences' (a list of strings)")
            return self

    return TruecaseRequest


# ---- responses
class TruecaseResponse(Response):
    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["text"]}, {"required": ["sentences"]}]})
    text: str = Field(None, description="the text with only the case of its letters changed")
    sentences: list[str] = Field(None, description="one result per input sentence, in order")
    model: ModelInfo


bp = Blueprint("truecaser", __name__)


@endpoint(bp, "POST", "/v1/truecase", request=request_model, response=TruecaseResponse, errors=POST_ERRORS,
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
    info = {**service.version, "method": "unigram" if req.baseline else "viterbi"}
    if req.sentences is None:
        text = "\n".join(service.truecase_tokenized(req.text.split("\n"), req.baseline)) if req.tokenized \
            else service.truecase_text(req.text, req.baseline)
        return {"text": text, "model": info}
    case = service.truecase_tokenized if req.tokenized else service.truecase_texts
    sentences = []
    for at in range(0, len(req.sentences), CHUNK):      # a request past its deadline stops between chunks
        if at:
            deadline.check("between sentences")
        sentences += case(req.sentences[at:at + CHUNK], req.baseline)
    return {"sentences": sentences, "model": info}
