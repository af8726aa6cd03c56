"""Every request and response body of the HTTP API, declared once as pydantic v2 models.

The same classes validate the requests (``parse``) and produce ``/openapi.json`` (``openapi.py``
reads their JSON Schema), so the contract and the checks cannot drift apart.  The limits that are
configurable per app (items per request, tokens per item) are part of the declaration: the request
classes are built per ``Limits`` (``request_models``), so the document states the limits the server
enforces.  What JSON Schema cannot say (a limit in whitespace tokens, a work budget over the whole
request) is checked by validators of the same classes and stated in their descriptions.

Validation is strict, as JSON Schema is: ``"5"`` is not an integer and ``1`` is not a boolean; an
integral number such as ``5.0`` is an integer (JSON Schema 2020-12, section 6.1.1 of the validation
vocabulary).  A text "must contain a non-space character" is the pattern ``NON_EMPTY``, which means
the same in every regex dialect involved.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from pydantic.json_schema import GenerateJsonSchema

from textqa.models.icd9.records import MAX_CHARS as ICD9_MAX_CHARS
from textqa.models.qa.store import MAX_QUESTION_WORDS

#: "contains a character that is not white space", spelled as an explicit class: ``\\s`` means
#: different sets in ECMA-262 (JSON Schema's regex dialect), Python's ``re`` (what the models strip,
#: and ASCII-only under ``re.ASCII`` as schemathesis reads patterns) and Rust's regex (jsonschema-rs),
#: so the class lists the union of their white space and reads the same in all of them.
NON_EMPTY = r"[^\t-\r\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"


def _integral(value):
    """JSON Schema's ``integer`` admits ``5.0``; Python's strict ``int`` does not."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Int = Annotated[int, BeforeValidator(_integral)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, regex_engine="python-re")


class _Out(BaseModel):
    """Response bodies: the handlers return plain dicts, checked against these under TESTING
    (``contract.endpoint``); lax, as a JSON reader of the answer would be."""
    model_config = ConfigDict(extra="forbid")


class FieldProblem(ValueError):
    """An object validator's error about one of the object's fields (``sub``, e.g. ``"text"``)."""

    def __init__(self, sub: str, message: str):
        super().__init__(message)
        self.sub = sub


def _tokens_at_most(value: str, limit: int, what: str = "item") -> str:
    n = len(value.split())
    if n > limit:
        raise ValueError(f"has {n:,} tokens; the limit is {limit:,} per {what}")
    return value


def _text(limit: int, what: str = "item", **field):
    """A string of at most ``limit`` whitespace tokens (a limit JSON Schema cannot state; the
    description states it) with the JSON Schema constraints ``field``."""
    return Annotated[str, Field(**field), AfterValidator(functools.partial(_tokens_at_most, limit=limit, what=what))]


#: the app config key of each limit (the defaults are ``DEFAULT_CONFIG`` in ``textqa.service``)
CONFIG_KEYS = {"max_items": "TEXTQA_MAX_BATCH_ITEMS", "max_tokens": "TEXTQA_MAX_TOKENS_PER_ITEM",
               "blanc_max_tokens": "TEXTQA_BLANC_MAX_TOKENS", "truecase_budget": "TEXTQA_MAX_TOKENS_PER_REQUEST",
               "icd9_budget": "TEXTQA_ICD9_MAX_TOKENS_PER_REQUEST",
               "blanc_budget": "TEXTQA_BLANC_MAX_CELLS_PER_REQUEST"}


@dataclass(frozen=True)
class Limits:
    """The configurable per-request limits that shape the request declarations."""
    max_items: int
    max_tokens: int
    blanc_max_tokens: int
    truecase_budget: int
    icd9_budget: int
    blanc_budget: int

    @classmethod
    def from_config(cls, config) -> "Limits":
        return cls(**{field: config[key] for field, key in CONFIG_KEYS.items()})


@functools.cache
def request_models(limits: Limits):
    """The request classes under ``limits`` (cached: one set per distinct configuration)."""
    n, tok, btok = limits.max_items, limits.max_tokens, limits.blanc_max_tokens

    class TruecaseRequest(_Strict):
        """Exactly one of ``text`` or ``sentences``."""
        model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["text"]},
                                                               {"required": ["sentences"]}]})
        text: _text(tok) = Field(None, description=f"raw text (with 'tokenized': lines of whitespace-separated "
                                                   f"tokens); at most {tok:,} tokens")
        sentences: list[_text(tok)] = Field(None, max_length=n, description=f"a batch of texts or tokenized "
                                                                            f"sentences, at most {tok:,} tokens each")
        tokenized: bool = Field(False, description="input is whitespace-tokenized (PTB style); tokens are kept")
        baseline: bool = Field(False, description="use the unigram most-frequent-casing baseline")

        @model_validator(mode="after")
        def _exactly_one(self):
            if ("text" in self.model_fields_set) == ("sentences" in self.model_fields_set):
                raise FieldProblem("text", "give exactly one of 'text' (a string) or 'sentences' (a list of strings)")
            return self

    BlancText = _text(btok, pattern=NON_EMPTY, description=f"at most {btok:,} tokens")

    class BlancPair(_Strict):
        hypothesis: BlancText
        references: list[BlancText] = Field(min_length=1)

    class BlancRequest(_Strict):
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

    Text = Annotated[str, Field(pattern=NON_EMPTY, max_length=ICD9_MAX_CHARS)]

    class Icd9Document(_Strict):
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
                _tokens_at_most(body, tok, "document")
            except ValueError as e:
                raise FieldProblem("text" if self.text is not None else "sections", str(e)) from None
            return self

    class Icd9Request(_Strict):
        documents: list[Icd9Document] = Field(min_length=1, max_length=n, description=(
            f"at most {limits.icd9_budget:,} tokens over all documents (413 above)"))
        classifier: Literal["svm", "brr"] = Field("svm", description="per-code linear SVM or Bayesian ridge")
        all_scores: bool = Field(False, description="add every code's margin over its threshold")
        explain: bool = Field(False, description="add the negation/uncertainty spans the features see")

    class QaRequest(_Strict):
        question: _text(MAX_QUESTION_WORDS, "question", pattern=NON_EMPTY,
                        description=f"at most {MAX_QUESTION_WORDS} tokens")
        top_k: Int = Field(5, ge=1, le=100)
        collection: str = Field("default", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
                                description="the collection to answer from: 'default' (Wikipedia and the news "
                                            "pool), 'pool', or a name built with 'textqa qa index' "
                                            "(GET /v1/qa/collections lists them)")

    return {"truecase": TruecaseRequest, "blanc": BlancRequest, "icd9": Icd9Request, "qa": QaRequest}


# ---- responses --------------------------------------------------------------------------------


class ModelInfo(_Out):
    name: str
    created_at: str | None
    id: str | None = Field(None, description="artifact id (truecaser)")
    decoder: Literal["viterbi", "unigram"] | None = Field(None, description="truecaser decoder used")


class TruecaseResponse(_Out):
    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["text"]}, {"required": ["sentences"]}]})
    text: str = Field(None, description="the text with only the case of its letters changed")
    sentences: list[str] = Field(None, description="one result per input sentence, in order")
    model: ModelInfo


class BlancAlignment(_Out):
    hypothesis: int = Field(description="hypothesis token index")
    reference: int = Field(description="reference token index")
    weight: float = Field(description="node weight: 1 for an exact match, less for a partial one")


class BlancSize(_Out):
    k: int
    common: float = Field(description="common skip-k-gram mass")
    hypothesis: float = Field(description="the hypothesis's own skip-k-gram mass (precision's denominator)")
    reference: float = Field(description="the reference's own skip-k-gram mass (recall's denominator)")


class BlancExplanation(_Out):
    reference: int = Field(description="index of the best-matching reference")
    hypothesis_tokens: list[str]
    reference_tokens: list[str]
    alignment: list[BlancAlignment]
    sizes: list[BlancSize]
    skip_bigrams: list[str] = Field(description="common skip-bigrams ('..' marks a gap), at most 50")


class BlancScore(_Out):
    score: float
    precision: float
    recall: float
    explanation: BlancExplanation = Field(None, description="with 'explain': what the score is made of")


class BlancResponse(_Out):
    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["scores"]}, {"required": ["corpus"]}]})
    scores: list[BlancScore] = Field(None, description="one score per pair, in order")
    corpus: BlancScore = Field(None, description="the corpus score (with 'corpus': true)")
    signature: str
    model: ModelInfo


class Icd9Code(_Out):
    code: str
    score: float
    description: str | None
    std: float = Field(None, ge=0, description="BRR: predictive standard deviation of the score")
    probability: float = Field(None, ge=0, le=1, description="BRR: calibrated probability of the code (Platt)")


class Icd9Span(_Out):
    section: str = Field(description="the section the offsets refer to ('text' for a plain text)")
    start: int = Field(ge=0, description="character offset of the span's start")
    end: int = Field(ge=0, description="character offset just after the span")
    kind: Literal["trigger", "negated", "uncertain"]
    trigger: str = Field(None, description="a trigger's kind: NEG, UNC, PSEUDO, POST_NEG or POST_UNC")


class Icd9Result(_Out):
    id: str
    codes: list[Icd9Code] = Field(description="codes above threshold, best first")
    scores: dict[str, float] = Field(None, description="every code's margin over its threshold (all_scores)")
    review: bool = Field(None, description="BRR: true when any code's score is within one standard deviation "
                                           "of its threshold (the document should go to a human coder)")
    spans: list[Icd9Span] = Field(None, description="with 'explain': negation/uncertainty triggers and scopes")


class Icd9Response(_Out):
    documents: list[Icd9Result]
    classifier: Literal["svm", "brr"]
    model: ModelInfo


class QaDocument(_Out):
    id: str = Field(description="the document's id in its collection (a Wikipedia page's curid)")
    title: str
    url: str | None = Field(None, description="the document's URL, when it has one")
    collection: str = Field(None, description="the collection the document belongs to")


class QaAnswer(_Out):
    answer: str
    score: float
    sentence: str = Field(description="the supporting sentence, as written")
    start: int = Field(ge=0, description="the answer's first character in the sentence")
    end: int = Field(ge=0, description="one past the answer's last character in the sentence")
    document: QaDocument | None = Field(description="where the sentence comes from")
    clusters: list[str] = Field(description="question clusters whose extractor proposed the answer")


class QaResponse(_Out):
    question: str
    answers: list[QaAnswer]
    answer_type: dict[str, float] = Field(description="answer-type distribution of the matched clusters")
    uiuc_type: str = Field(description="the UIUC question class")
    clusters: list[str] = Field(description="the clusters used")
    collection: str = Field(description="the collection answered from")
    model: ModelInfo


class QaCollection(_Out):
    name: str
    documents: int = Field(ge=0)
    paragraphs: int = Field(ge=0, description="paragraphs indexed (for the news pool: sentences)")
    description: str
    created_at: str | None


class QaCollectionsResponse(_Out):
    collections: list[QaCollection]
    default: str = Field(description="the collection a request without 'collection' answers from")


class TrainingState(_Out):
    state: Literal["queued", "training", "failed", "no_data"]
    step: str = Field(None, description="what the training is doing now")
    percent: float = Field(None, ge=0, le=100, description="estimated: elapsed time against the expected duration")
    eta_seconds: float = Field(None, ge=0, description="estimated seconds until the model is ready")
    error: str = Field(None, description="why the training failed, or which data is missing")
    estimated: bool = Field(True, description="percent and ETA are estimates from the expected duration")


class ErrorDetail(_Out):
    code: str
    message: str
    field: str = Field(None, description="the offending field (pairs[0].references[1], ...)")
    state: TrainingState = Field(None, description="model_queued / model_training: the model's training state")


class ErrorResponse(_Out):
    error: ErrorDetail


class Health(_Out):
    status: Literal["ok"]


class Readiness(_Out):
    ready: bool
    models: dict[str, bool]
    errors: dict[str, str] = Field(None, description="why a model is not loaded")
    training: dict[str, TrainingState] = Field(None, description="models 'textqa serve --train-missing' is training")


class ModelStatus(_Out):
    verb: str = Field(description="the model's command word: its playground tab, 'textqa VERB', 'textqa batch VERB'")
    title: str = Field(description="the model and its paper")
    loaded: bool
    manifest: dict[str, Any] = Field(None)
    error: str = Field(None)
    training: TrainingState = Field(None, description="while 'textqa serve --train-missing' trains it")
    search: str = Field(None, description="truecaser: the search that decodes: native (C++) or python, and why")
    collection: str = Field(None, description="qa: what the default collection answers from now (Wikipedia joins "
                                              "the news pool once its collection is built)")


class ModelsResponse(_Out):
    models: dict[str, ModelStatus]


class SchemaGenerator(GenerateJsonSchema):
    """JSON Schema for OpenAPI 3.1: an optional field without a default shows no ``"default": null``
    (null is not an allowed value of such a field), and titles are left out."""

    def default_schema(self, schema):
        out = super().default_schema(schema)
        if out.get("default", 0) is None:
            out.pop("default")
        return out

    def field_title_should_be_set(self, schema) -> bool:
        return False


# ---- validation errors as the service's JSON errors -------------------------------------------

_MESSAGES = {
    "string_type": "must be a string", "int_type": "must be an integer", "bool_type": "must be true or false",
    "list_type": "must be a list", "dict_type": "must be an object", "model_type": "must be an object",
    "model_attributes_type": "must be an object", "float_type": "must be a number",
    "string_pattern_mismatch": "is empty (needs a non-space character)",
    "missing": "is required", "extra_forbidden": "unknown field",
}                                   # other kinds (literal_error, greater_than_equal, ...): pydantic's words


def _field_name(loc) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("str", "int") or "[" in part or part.startswith(("function-", "constrained-")):
            continue                                # a branch of a union or a validator, not a field
        else:
            out += f".{part}" if out else str(part)
    return out or "body"


def first_error(err: ValidationError) -> tuple[str, str]:
    """(field, message) of the first problem pydantic found, in the service's words."""
    errors = err.errors(include_url=False)
    e = next((x for x in errors if x["type"] == "extra_forbidden"), errors[0])   # a typo first
    field, kind = _field_name(e["loc"]), e["type"]
    if kind == "value_error":
        problem = e.get("ctx", {}).get("error")
        message = str(problem or e["msg"])
        if isinstance(problem, FieldProblem):
            field = f"{field}.{problem.sub}" if field != "body" else problem.sub
    elif kind == "too_long":
        ctx = e.get("ctx", {})
        message = f"has {ctx.get('actual_length')} items; the limit is {ctx.get('max_length')} per request"
    elif kind == "too_short":
        message = f"must have at least {e.get('ctx', {}).get('min_length')} item(s)"
    elif kind == "string_too_short":
        message = "must not be empty"
    elif kind == "string_too_long":
        message = f"is longer than {e.get('ctx', {}).get('max_length'):,} characters"
    elif _MESSAGES.get(kind):
        message = _MESSAGES[kind]
        if kind.endswith("_type"):
            message += f", got {_json_type(e.get('input'))}"
    else:
        message = e["msg"][:1].lower() + e["msg"][1:]
    return field, message


def _json_type(value) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "integer", float: "number",
            type(None): "null"}.get(type(value), type(value).__name__)
