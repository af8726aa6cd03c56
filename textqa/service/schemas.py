"""The request and response bodies of the HTTP API, declared once as pydantic v2 models.

The same classes validate the requests (``parse``) and produce ``/openapi.json`` (``openapi.py``
reads their JSON Schema), so the contract and the checks cannot drift apart.  The limits that are
configurable per app (items per request, tokens per item) are part of the declaration: the request
classes are built per ``Limits`` (each blueprint's ``request_model``, beside its endpoint), so the
document states the limits the server enforces.  This module holds what they share.  What JSON Schema cannot say (a limit in whitespace tokens, a work budget over the whole
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

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.json_schema import GenerateJsonSchema

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


class StrictRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, regex_engine="python-re")


class Response(BaseModel):
    """Response bodies: the handlers return plain dicts, checked against these under TESTING
    (``contract.endpoint``); lax, as a JSON reader of the answer would be."""
    model_config = ConfigDict(extra="forbid")


class FieldProblem(ValueError):
    """An object validator's error about one of the object's fields (``sub``, e.g. ``"text"``)."""

    def __init__(self, sub: str, message: str):
        super().__init__(message)
        self.sub = sub


def tokens_at_most(value: str, limit: int, what: str = "item") -> str:
    n = len(value.split())
    if n > limit:
        raise ValueError(f"has {n:,} tokens; the limit is {limit:,} per {what}")
    return value


def text_field(limit: int, what: str = "item", **field):
    """A string of at most ``limit`` whitespace tokens (a limit JSON Schema cannot state; the
    description states it) with the JSON Schema constraints ``field``."""
    return Annotated[str, Field(**field), AfterValidator(functools.partial(tokens_at_most, limit=limit, what=what))]


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


# ---- responses --------------------------------------------------------------------------------


class ModelInfo(Response):
    name: str
    created_at: str | None
    id: str | None = Field(None, description="artifact id (truecaser)")
    method: Literal["viterbi", "unigram"] | None = Field(None, description=(
        "truecaser: how the case was restored: viterbi (the trained model's search) or unigram (the "
        "most-frequent-casing baseline, with 'baseline': true)"))


class TrainingState(Response):
    state: Literal["queued", "training", "failed", "no_data"]
    step: str = Field(None, description="what the training is doing now")
    percent: float = Field(None, ge=0, le=100, description="estimated: elapsed time against the expected duration")
    eta_seconds: float = Field(None, ge=0, description="estimated seconds until the model is ready")
    error: str = Field(None, description="why the training failed, or which data is missing")
    estimated: bool = Field(True, description="percent and ETA are estimates from the expected duration")


class ErrorDetail(Response):
    code: str
    message: str
    field: str = Field(None, description="the offending field (pairs[0].references[1], ...)")
    state: TrainingState = Field(None, description="model_queued / model_training: the model's training state")


class ErrorResponse(Response):
    error: ErrorDetail


class Health(Response):
    status: Literal["ok"]


class Readiness(Response):
    ready: bool
    models: dict[str, bool]
    errors: dict[str, str] = Field(None, description="why a model is not loaded")
    training: dict[str, TrainingState] = Field(None, description="models 'textqa serve --train-missing' is training")


class ModelStatus(Response):
    verb: str = Field(description="the model's command word: its playground tab, 'textqa VERB', 'textqa batch VERB'")
    title: str = Field(description="the model and its paper")
    loaded: bool
    manifest: dict[str, Any] = Field(None)
    error: str = Field(None)
    training: TrainingState = Field(None, description="while 'textqa serve --train-missing' trains it")
    options: dict[str, Any] = Field(None, description="the model's load-time options and their values, as the "
                                                       "command line names them ('textqa serve --decoder trigram')")
    search: str = Field(None, description="truecaser: the search that decodes: native (C++) or python, and why")
    collection: str = Field(None, description="qa: what the default collection answers from now (Wikipedia joins "
                                              "the news pool once its collection is built; its sentences are read "
                                              "from storage once it is analysed)")
    reader: str = Field(None, description="qa: what ranks the answers (the answer reader, once trained, or the merged "
                                          "strategy score)")


class ModelsResponse(Response):
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
