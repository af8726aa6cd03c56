"""Answer candidates and the answer types derived from answers (Lita & Carbonell 2004, 4.1, 4.3).

Candidates are the phrases of a retrieved sentence: named entities, noun chunks, numbers and
dates (spaCy).  Each candidate's *answer type* comes from the answer text itself, not from a
hand ontology of question classes: a year, a decade, a date, a number (with or without a unit),
a person, a location, an organization, or another entity/phrase.  The same typing labels the
training answers (the text a NIST pattern matches in a sentence), so a cluster's answer-type
distribution is learned from what its questions' answers look like; sparse clusters lean on
the k nearest training questions (eq. 1, :func:`knn_distribution`).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

ANSWER_TYPES = ("year", "decade", "date", "number", "quantity", "person", "location", "organization",
                "entity", "phrase")
_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
_DECADE = re.compile(r"^(the )?(1[0-9]{2}0|20[0-9]0)'?s$|^(the )?'?[0-9]0s$", re.I)
_NUMBER = re.compile(r"^[-+]?[0-9][0-9,]*(\.[0-9]+)?$")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
ENT_TYPE = {"PERSON": "person", "GPE": "location", "LOC": "location", "FAC": "location", "ORG": "organization",
            "NORP": "organization", "DATE": "date", "TIME": "date", "CARDINAL": "number", "MONEY": "quantity",
            "PERCENT": "quantity", "QUANTITY": "quantity", "ORDINAL": "number"}


def answer_type(text: str, ent_label: str | None = None) -> str:
    """The type of an answer string (with the entity label of its span, when it is one)."""
    t = text.strip().lower()
    if _YEAR.match(t):
        return "year"
    if _DECADE.match(t):
        return "decade"
    if _NUMBER.match(t):
        return "number"
    if any(m in t.split() for m in _MONTHS) and re.search(r"[0-9]", t):
        return "date"
    if ent_label in ENT_TYPE:
        kind = ENT_TYPE[ent_label]
        if kind == "number" and not re.search(r"[0-9]", t):
            return "number"
        return kind
    if re.match(r"^[-+]?[0-9][0-9,.]*\s+\w+", t):
        return "quantity"
    return "entity" if ent_label else "phrase"


@dataclass(frozen=True)
class Candidate:
    text: str
    start: int          # token offsets in the sentence
    end: int
    type: str


def sentence_candidates(doc) -> list[Candidate]:
    """Entities, noun chunks and numbers of a spaCy Doc, de-duplicated by span."""
    seen, out = set(), []

    def add(span, label=None):
        key = (span.start, span.end)
        if key in seen or not span.text.strip() or all(t.is_punct or t.is_stop for t in span):
            return
        seen.add(key)
        out.append(Candidate(span.text, span.start, span.end, answer_type(span.text, label)))

    for ent in doc.ents:
        add(ent, ent.label_)
    for chunk in doc.noun_chunks:
        # drop leading determiners: "the Beatles" -> "Beatles" is still a candidate via the entity
        add(chunk)
    for t in doc:
        if t.like_num:
            add(doc[t.i:t.i + 1], "CARDINAL")
    return out


def type_distribution(types, smoothing: float = 0.1) -> dict:
    """Add-``smoothing`` distribution over ``ANSWER_TYPES``."""
    c = Counter(types)
    total = sum(c.values()) + smoothing * len(ANSWER_TYPES)
    return {k: (c[k] + smoothing) / total for k in ANSWER_TYPES}


def knn_distribution(neighbours) -> dict:
    """Eq. 1 (4.1): P(a_j, q) = gamma * sum_i P(a_j | Q_i) * delta(q, Q_i) over the k nearest
    training questions; ``neighbours`` = [(delta(q, Q_i), {type: P(type | Q_i)})], gamma normalises."""
    acc = {k: 0.0 for k in ANSWER_TYPES}
    for sim, dist in neighbours:
        for k, v in dist.items():
            acc[k] = acc.get(k, 0.0) + sim * v
    total = sum(acc.values())
    return {k: v / total for k, v in acc.items()} if total > 0 else type_distribution([])


def cluster_distribution(member_types, neighbours, dense: int = 10) -> dict:
    """A cluster's answer-type distribution: a frequency count when it has at least ``dense``
    typed answers (the paper's high-density case), else eq. 1 over the nearest questions
    mixed with the count in proportion to the cluster's size."""
    counted = type_distribution(member_types)
    if len(member_types) >= dense or not neighbours:
        return counted
    w = len(member_types) / dense
    knn = knn_distribution(neighbours)
    return {k: w * counted[k] + (1 - w) * knn[k] for k in ANSWER_TYPES}
