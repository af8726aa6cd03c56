"""Question and answer text: a question's keywords, focus and stems, answer normalisation, and
NIST answer patterns (Perl regular expressions, applied case-insensitively, anywhere in the text;
a pattern Python cannot compile is matched as a plain substring)."""
from __future__ import annotations

import re

from textqa.models.porter import stem
from textqa.runtime.paths import english_stopwords

from .answer_type import informer

_NORM = re.compile(r"[^a-z0-9 ]+")


def keywords(doc) -> list[str]:
    """Content words of a question (the retrieval query and the features' keywords)."""
    stop = english_stopwords()
    return [t.lower_ for t in doc if not t.is_punct and t.lower_ not in stop and t.lower_ not in
            ("name", "many", "much", "long", "far")]


def focus_of(doc) -> str | None:
    """The lemma of the question's informer (:func:`answer_type.informer`) when it names the
    answer's type: the question asks "what", "which" or "name" and the informer is at most three
    words after it ("What river ...", "What is the capital ..."); None otherwise ("Who wrote
    Hamlet?" asks for no hamlet)."""
    wh_i = next((i for i, t in enumerate(doc) if t.lower_ in ("what", "which", "name")), None)
    if wh_i is None:
        return None
    head = informer(doc, wh_i)
    return head.lemma_.lower() if head is not None and head.i - wh_i <= 3 else None


def normalise_answer(text: str) -> str:
    t = _NORM.sub(" ", text.lower())
    t = re.sub(r"^(the|a|an) ", "", " ".join(t.split()))
    return t


def pattern_match(patterns, text: str) -> bool:
    for p in patterns:
        try:
            if re.search(p, text, flags=re.IGNORECASE):
                return True
        except re.error:
            if p.lower() in text.lower():
                return True
    return False


def question_stems(doc) -> frozenset:
    """Porter stems of the question's words (not stopwords, not punctuation)."""
    stop = english_stopwords()
    return frozenset(stem(t.lower_) for t in doc if not t.is_punct and t.lower_ not in stop)


_WORD = re.compile(r"[a-z0-9]+")


def restates_question(q_stems: frozenset, text: str) -> bool:
    """True when every content word of a candidate is a question word (by Porter stem, split at
    hyphens and apostrophes: "Crips members" for "What ethnic group are Crip members?", "the AARP"
    for "What does AARP stand for?"): such a phrase names what the question gives, not what it asks."""
    stop = english_stopwords()
    words = [w for w in _WORD.findall(text.lower()) if w not in stop]
    return bool(words) and all(stem(w) in q_stems for w in words)




class _Matcher:
    """Picklable 'does a NIST pattern match this text' for one question."""

    def __init__(self, patterns):
        self.patterns = patterns

    def __call__(self, text: str) -> bool:
        return pattern_match(self.patterns, text)
