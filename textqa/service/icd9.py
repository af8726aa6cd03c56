"""``POST /v1/icd9/code``: ICD-9-CM codes for clinical documents."""
from __future__ import annotations

import functools
from typing import Annotated, Literal

from flask import Blueprint
from pydantic import ConfigDict, Field, model_validator

from textqa.models.icd9.records import MAX_CHARS as ICD9_MAX_CHARS
from textqa.models.icd9.records import Record

from .contract import POST_ERRORS, endpoint
from .http_errors import invalid
from .schemas import NON_EMPTY, FieldProblem, Limits, ModelInfo, Response, StrictRequest, tokens_at_most
from .slots import get_model
from .validation import check_request_budget

# ---- request
@functools.cache
def request_model(limits: Limits):
    """The request class under ``limits`` (cached: one per distinct configuration)."""
    n, tok, btok = limits.max_items, limits.max_tokens, limits.blanc_max_tokens

    Text = Annotated[str, Field(pattern=NON_EMPTY, max_length=ICD9_MAX_CHARS)]

    class Icd9Document(StrictRequest):
        """A report as ``text`` or as named ``sections`` (exactly one); ``codes`` (gold) is ignored."""
        model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["text"]},
                                                               {"required": ["sections"]}]})
        id: Annotated[str, Field(min_length=1)] | int
        text: Text = Field(None, description=f"at most {tok:,} tokens")
        sections: dict[str, Text] = Field(None, min_length=1, description="section name -> text")
        codes: list[Annotated[str, Field(pattern=NON_EMPTY)]] = Field(None, description="gold codes (ignored)")

        @model_validator(mode="after")
        def _one_body(self):
            given = {"text", "sections"} & self.model_fields_set
            if len(given) != 1:
                raise FieldProblem("text", "give exactly one of 'text' or 'sections'")
            body = self.text if self.text is not None else "\n".join(self.sections.values())
            try:
                tokens_at_most(body, tok, "document")
            except ValueError as e:
                raise FieldProblem("text" if self.text is not None else "sections", str(e)) from None
            return self

    class Icd9Request(StrictRequest):
        documents: list[Icd9Document] = Field(min_length=1, max_length=n, description=(
            f"at most {limits.icd9_budget:,} tokens over all documents (413 above)"))
        classifier: Literal["svm", "brr"] = Field("svm", description="per-code linear SVM or Bayesian ridge")
        all_scores: bool = Field(False, description="add every code's margin over its threshold")
        explain: bool = Field(False, description="add the negation/uncertainty spans the features see")

    return Icd9Request


# ---- responses
class Icd9Code(Response):
    code: str
    score: float
    description: str | None
    std: float = Field(None, ge=0, description="BRR: predictive standard deviation of the score")
    probability: float = Field(None, ge=0, le=1, description="BRR: calibrated probability of the code (Platt)")


class Icd9Span(Response):
    section: str = Field(description="the section the offsets refer to ('text' for a plain text)")
    start: int = Field(ge=0, description="character offset of the span's start")
    end: int = Field(ge=0, description="character offset just after the span")
    kind: Literal["trigger", "negated", "uncertain"]
    trigger: str = Field(None, description="a trigger's kind: NEG, UNC, PSEUDO, POST_NEG or POST_UNC")


class Icd9Result(Response):
    id: str
    codes: list[Icd9Code] = Field(description="codes above threshold, best first")
    scores: dict[str, float] = Field(None, description="every code's margin over its threshold (all_scores)")
    review: bool = Field(None, description="BRR: true when any code's score is within one standard deviation "
                                           "of its threshold (the document should go to a human coder)")
    spans: list[Icd9Span] = Field(None, description="with 'explain': negation/uncertainty triggers and scopes")


class Icd9Response(Response):
    documents: list[Icd9Result]
    classifier: Literal["svm", "brr"]
    model: ModelInfo


bp = Blueprint("icd9", __name__)


@endpoint(bp, "POST", "/v1/icd9/code", request=request_model, response=Icd9Response, errors=POST_ERRORS, tag="icd9",
          summary="ICD-9-CM codes for clinical documents (Lita et al. 2008: per-code SVM or BRR)",
          examples={"one": {"documents": [{"id": "1", "text": "Cough and fever for three days. No focal pneumonia."}],
                            "classifier": "svm"}})
def code(req):
    """Codes above their thresholds per document, best first, in the order of the documents."""

    coder = get_model("icd9")
    if req.classifier not in coder.models_:
        raise invalid("classifier", f"this model has no {req.classifier!r} classifier "
                                    f"(it has {', '.join(coder.models_)})")
    records = [Record(str(d.id), {"text": d.text} if d.sections is None else dict(d.sections), [])
               for d in req.documents]
    check_request_budget(sum(len(r.text.split()) for r in records), "TEXTQA_ICD9_MAX_TOKENS_PER_REQUEST", "tokens",
                         "send fewer documents per request")
    manifest = coder.manifest
    return {"documents": coder.code(records, req.classifier, req.all_scores, req.explain), "classifier": req.classifier,
            "model": {"name": manifest.get("name", "icd9"), "created_at": manifest.get("created_at")}}
