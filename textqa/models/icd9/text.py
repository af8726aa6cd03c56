"""Pre-processing of clinical text into features (Lita et al. 2008, section 4; NegEx beyond it).

The paper's steps: paragraph-level de-duplication, tokenisation and sentence splitting,
number classing (every number one token) and pronoun classing, removal of function words,
unigram features with a minimum frequency, no stemming.

Beyond the paper (radiology reports state many findings in order to deny them): a
NegEx-style pass (Chapman et al. 2001) marks the words in the scope of a negation trigger
("no", "without", "negative for", "no evidence of", ...) as ``NEG_word`` and those in the
scope of an uncertainty trigger ("possible", "cannot exclude", "versus", ...) as ``UNC_word``.
A scope runs for at most ``window`` content words and stops at the end of the sentence or at
a scope terminator ("but", "however", "which", ...).  When a record has sections, every
feature also appears prefixed with its section (``H_`` clinical history, ``I_`` impression);
the plain copy lets records without sections (plain text) use the same model.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

NEGATION = ("no", "not", "without", "negative for", "no evidence of", "no evidence", "free of", "absence of",
            "absent", "resolved", "resolution of", "rule out", "ruled out", "denies", "unremarkable", "normal",
            "clear", "never")
UNCERTAINTY = ("possible", "possibly", "probable", "probably", "may", "might", "could", "cannot exclude",
               "can not exclude", "cannot be excluded", "not excluded", "versus", "vs", "questionable",
               "question", "suspicious", "suspicion", "suggest", "suggests", "suggestive of", "likely",
               "concern for", "concerning for", "or", "equivocal", "borderline")
TERMINATORS = frozenset(("but", "however", "although", "which", "though", "except", "apart", "aside"))
PRONOUNS = frozenset(("i", "me", "my", "he", "him", "his", "she", "her", "hers", "they", "them", "their",
                      "we", "us", "our", "you", "your"))
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*")
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+|\n+|(?<=\s)\d+\.\s+(?=[A-Z])")
_NUMBER = re.compile(r"\d")
NUMBER_TOKEN, PRONOUN_TOKEN = "__num__", "__pron__"


@dataclass(frozen=True)
class TextOptions:
    negation: bool = True
    window: int = 6
    sections: bool = True
    stopwords: frozenset = frozenset()


def _phrases(entries) -> dict:
    """{first word: [(phrase as tuple, length), ...]} longest first."""
    table: dict = {}
    for e in entries:
        words = tuple(e.split())
        table.setdefault(words[0], []).append(words)
    return {k: sorted(v, key=len, reverse=True) for k, v in table.items()}


_NEG, _UNC = _phrases(NEGATION), _phrases(UNCERTAINTY)


def _trigger(tokens: list[str], i: int) -> tuple[str | None, int]:
    """(NEG|UNC|None, length) of the longest trigger phrase starting at token i."""
    best, length = None, 0
    for kind, table in (("NEG", _NEG), ("UNC", _UNC)):
        for phrase in table.get(tokens[i], ()):
            if len(phrase) > length and tuple(tokens[i:i + len(phrase)]) == phrase:
                best, length = kind, len(phrase)
                break
    return best, length


def dedupe_paragraphs(text: str) -> str:
    """Drop paragraphs (blank-line separated) that repeat an earlier one (whitespace and case ignored)."""
    seen, keep = set(), []
    for para in re.split(r"\n\s*\n", text):
        key = " ".join(para.lower().split())
        if key and key not in seen:
            seen.add(key)
            keep.append(para)
    return "\n\n".join(keep)


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s and s.strip()]


@lru_cache(maxsize=100_000)
def _class(token: str) -> str:
    if _NUMBER.search(token):
        return NUMBER_TOKEN
    if token in PRONOUNS:
        return PRONOUN_TOKEN
    return token


def section_features(text: str, options: TextOptions, prefix: str = "") -> list[str]:
    """Feature tokens of one section: classed, stopwords removed, negation/uncertainty marked."""
    out = []
    for sent in sentences(dedupe_paragraphs(text)):
        tokens = _TOKEN.findall(sent.lower())
        state, left, i = None, 0, 0
        while i < len(tokens):
            if options.negation:
                kind, length = _trigger(tokens, i)
                if kind is not None:
                    state, left = kind, options.window
                    i += length
                    continue
            tok = _class(tokens[i])
            i += 1
            if tok in TERMINATORS:
                state = None
                continue
            if tok in options.stopwords:
                continue
            if state is not None and left > 0:
                out.append(f"{prefix}{state}_{tok}")
                left -= 1
            else:
                out.append(prefix + tok)
    return out


def record_features(sections: dict[str, str], options: TextOptions) -> list[str]:
    """Features of a record given as {section name: text}; ``text`` alone means no sections."""
    out = []
    for name, text in sections.items():
        feats = section_features(text, options)
        out.extend(feats)
        if options.sections and name != "text":
            # section-prefixed copies as well, so that unsectioned text still meets the plain features
            prefix = f"{name[:1].upper()}_"
            out.extend(prefix + f for f in feats)
    return out
