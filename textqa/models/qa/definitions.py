"""Definition and "who was" questions ("Who was Galileo?", "What is penicillin?"): the answer is a
description of the subject, and the article whose title names the subject is where it is found.

A question is one when its UIUC fine class is a description of a person or a definition (``HUM:desc``,
``DESC:def``) and it reads "who/what is/was SUBJECT".  How a title names a subject, from most to least
(:func:`title_weight`, compared without case):

1. the title is the subject ("Paris" for "What is Paris?");
2. the title starts with the subject and goes on ("Galileo Galilei" for "Galileo"): a fuller name;
3. the title is the subject with a disambiguation in parentheses ("Galileo (satellite navigation)"):
   one of several things of that name, weighed down.

Among titles of one rank, a vital article (one that carries Wikipedia's short description) comes first,
then the shorter title.  The answer is the article's short description when it has one ("Italian
physicist and astronomer (1564-1642)"), else what its first sentence says the subject is ("an Italian
astronomer, physicist and engineer" after "... was").
"""
from __future__ import annotations

import re

from .analysis import sentence_spans

DEFINITION_CLASSES = ("HUM:desc", "DESC:def")
_ASK = re.compile(r"^\s*(?:who|what)\s+(?:is|was|are|were)\s+(?:an?\s+|the\s+)?(?P<subject>[^?]+?)\s*\??\s*$", re.I)
_COPULA = re.compile(r"\b(?:is|was|are|were)\s+(?=(?:an?|the|one)\b)", re.I)
WEIGHTS = {"exact": 1.0, "fuller": 0.8, "disambiguated": 0.3}
MAX_TITLES = 5


def subject_of(question: str, fine: str | None) -> str | None:
    """The subject a definition question asks about, or None when the question is not one."""
    if fine not in DEFINITION_CLASSES:
        return None
    m = _ASK.match(question)
    return m.group("subject") if m and m.group("subject").strip() else None


def title_weight(subject: str, title: str) -> float:
    """How well ``title`` names ``subject`` (see the module); 0.0 when it does not."""
    s, t = subject.strip().lower(), title.strip().lower()
    if not s:
        return 0.0
    if t == s:
        return WEIGHTS["exact"]
    if t.startswith(s + " ("):
        return WEIGHTS["disambiguated"]
    if t.startswith(s + " "):
        return WEIGHTS["fuller"]
    return 0.0


def what_it_is(paragraph: str) -> tuple[str, int, int]:
    """(the first sentence of ``paragraph``, and the span of what it says its subject is): from the first
    "is a / was an / is the ..." to the sentence's end; the whole sentence when it has none."""
    spans = sentence_spans(paragraph)
    if not spans:
        return "", 0, 0
    a, b = spans[0]
    sentence = paragraph[a:b]
    m = _COPULA.search(sentence)
    start = m.end() if m else 0
    end = len(sentence.rstrip().rstrip("."))
    return sentence, start, max(end, start)


def definition_answers(question: str, fine: str | None, collections) -> list[dict]:
    """Answers to a definition question from the articles whose titles name its subject, best first, as
    :meth:`QAModel.answer` shows answers (``score`` is the title's weight)."""
    subject = subject_of(question, fine)
    if subject is None:
        return []
    found = []
    for c in collections:
        for row, doc, description in c.index.titled(subject, MAX_TITLES):
            weight = title_weight(subject, doc["title"])
            if weight:
                found.append((weight, bool(description), -len(doc["title"]), c, row, doc, description))
    found.sort(key=lambda f: (-f[0], -f[1], -f[2]))
    out = []
    for weight, _, _, c, row, doc, description in found[:MAX_TITLES]:
        if description:
            sentence, start, end = description, 0, len(description)
        else:                       # the first paragraph is looked up only where it is read
            sentence, start, end = what_it_is(c.index.first_paragraph(row))
            if end <= start:
                continue
        out.append({"answer": sentence[start:end], "score": weight, "clusters": ["<definition>"],
                    "sentence": sentence, "start": start, "end": end,
                    "document": {**doc, "collection": c.name}})
    return out
