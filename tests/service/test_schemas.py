"""The request declarations: what /openapi.json says is valid is exactly what the service accepts.

Each body below is judged twice: by a JSON Schema validator (jsonschema-rs, draft 2020-12) against
the schema the service publishes, and by the pydantic class that validates requests. They must agree
(the work-budget and token limits, which JSON Schema cannot state, are kept out of these bodies).
"""
import dataclasses

import jsonschema_rs
import pytest
from pydantic import ValidationError

from textqa.service import DEFAULT_CONFIG, create_app
from textqa.service import blanc, icd9, qa, truecaser
from textqa.service.schemas import Limits, first_error

LIMITS = dataclasses.replace(Limits.from_config(DEFAULT_CONFIG), max_items=3)


def request_models(limits):
    """Each endpoint's request class under ``limits``, by the keys of the cases below."""
    return {"truecase": truecaser.request_model(limits), "blanc": blanc.request_model(limits),
            "icd9": icd9.request_model(limits), "qa": qa.request_model(limits)}

CASES = {
    "truecase": [
        {"text": "a b"}, {"text": ""}, {"sentences": []}, {"sentences": ["a", ""], "tokenized": True},
        {}, {"text": "a", "sentences": ["b"]}, {"text": None}, {"text": 5}, {"sentences": ["a"] * 4},
        {"text": "a", "tokenized": 1}, {"text": "a", "baseline": "true"}, {"text": "a", "x": 1},
    ],
    "blanc": [
        {"pairs": [{"hypothesis": "a", "references": ["b"]}]},
        {"pairs": [{"hypothesis": "a", "references": ["b", "c"]}], "corpus": True},
        {"pairs": []}, {"pairs": [{"hypothesis": " ", "references": ["b"]}]},
        {"pairs": [{"hypothesis": "\u001e", "references": ["b"]}]},
        {"pairs": [{"hypothesis": "a\u200b", "references": ["b"]}]},
        {"pairs": [{"hypothesis": "a", "references": []}]}, {"pairs": [{"hypothesis": "a"}]},
        {"pairs": [{"hypothesis": "a", "references": ["\ufeff"]}]},
        {"pairs": [{"hypothesis": "a", "references": ["b"], "n": 1}]}, {"pairs": "a"},
        {"pairs": [{"hypothesis": "a", "references": ["b"]}] * 4},
    ],
    "icd9": [
        {"documents": [{"id": "1", "text": "cough"}]}, {"documents": [{"id": 1, "sections": {"a": "b"}}]},
        {"documents": [{"id": 0, "text": "x", "codes": ["786.2"]}], "classifier": "brr", "all_scores": True},
        {"documents": [{"id": "", "text": "x"}]}, {"documents": [{"id": True, "text": "x"}]},
        {"documents": [{"id": 1.5, "text": "x"}]}, {"documents": [{"id": "1"}]},
        {"documents": [{"id": "1", "text": "x", "sections": {"a": "b"}}]},
        {"documents": [{"id": "1", "sections": {}}]}, {"documents": [{"id": "1", "sections": {"a": " "}}]},
        {"documents": [{"id": "1", "text": "x", "codes": [" "]}]},
        {"documents": [{"id": "1", "text": "x"}], "classifier": {}},
        {"documents": [{"id": "1", "text": "x"}], "classifier": "knn"}, {"documents": []},
    ],
    "qa": [
        {"question": "who?"}, {"question": "who?", "top_k": 34.0}, {"question": "who?", "top_k": 100},
        {"question": "who?", "top_k": 34.5}, {"question": "who?", "top_k": "3"},
        {"question": "who?", "top_k": True}, {"question": "who?", "top_k": 0}, {"question": "who?", "top_k": 101},
        {"question": "\u3000"}, {"question": ""}, {}, {"question": "who?", "k": 1},
    ],
}


@pytest.fixture(scope="module")
def published(truecaser_artifact):
    """The document a server with LIMITS publishes, and a validator per request schema."""
    app = create_app(truecaser_artifact, {"TESTING": True, "TEXTQA_MODELS": ["truecaser"],
                                          "TEXTQA_MAX_BATCH_ITEMS": LIMITS.max_items})
    doc = app.test_client().get("/openapi.json").get_json()
    paths = {"truecase": "/v1/truecase", "blanc": "/v1/blanc/score", "icd9": "/v1/icd9/code", "qa": "/v1/qa/answer"}
    out = {}
    for key, path in paths.items():
        ref = doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        schema = {**ref, "components": doc["components"], "$schema": "https://json-schema.org/draft/2020-12/schema"}
        out[key] = jsonschema_rs.validator_for(schema)
    return out


@pytest.mark.parametrize("key,body", [(k, b) for k, bodies in CASES.items() for b in bodies])
def test_schema_and_validation_agree(published, key, body):
    by_schema = published[key].is_valid(body)
    try:
        request_models(LIMITS)[key].model_validate(body)
        by_code = True
    except ValidationError:
        by_code = False
    assert by_schema == by_code, f"{key} {body!r}: schema says {by_schema}, the service says {by_code}"


def test_both_verdicts_occur():
    """The cases above are not all valid or all invalid (else agreement would prove little)."""
    verdicts = set()
    for key, bodies in CASES.items():
        for body in bodies:
            try:
                request_models(LIMITS)[key].model_validate(body)
                verdicts.add((key, True))
            except ValidationError:
                verdicts.add((key, False))
    assert len(verdicts) == 8


@pytest.mark.parametrize("key,body,field,words", [
    ("qa", {"question": "who?", "top_k": "3"}, "top_k", "must be an integer, got string"),
    ("icd9", {"documents": [{"id": "1", "text": "x", "note": 1}]}, "documents[0].note", "unknown field"),
    ("blanc", {"pairs": [{"hypothesis": "a", "references": ["b", "w " * 1001]}]}, "pairs[0].references[1]",
     "1,001 tokens; the limit is 1,000 per item"),
    ("truecase", {"sentences": ["a"] * 4}, "sentences", "4 items; the limit is 3 per request"),
    ("truecase", {"text": "a", "sentences": []}, "text", "exactly one of"),
    ("icd9", {"documents": [{"id": "1", "sections": {"h": "w " * 20001}}]}, "documents[0].sections",
     "20,001 tokens"),
])
def test_errors_name_the_field_in_plain_words(key, body, field, words):
    with pytest.raises(ValidationError) as e:
        request_models(LIMITS)[key].model_validate(body)
    got_field, message = first_error(e.value)
    assert got_field == field and words in message, (got_field, message)
