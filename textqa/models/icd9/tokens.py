"""The tokens of clinical text that the ICD-9 features are made of: words and numbers, with numbers
and personal pronouns each folded into one class token."""
from __future__ import annotations

import re
from functools import lru_cache

PRONOUNS = frozenset(("i", "me", "my", "he", "him", "his", "she", "her", "hers", "they", "them", "their",
                      "we", "us", "our", "you", "your"))
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*")
_NUMBER = re.compile(r"\d")
NUMBER_TOKEN, PRONOUN_TOKEN = "__num__", "__pron__"


@lru_cache(maxsize=100_000)
def _class(token: str) -> str:
    if _NUMBER.search(token):
        return NUMBER_TOKEN
    if token in PRONOUNS:
        return PRONOUN_TOKEN
    return token
