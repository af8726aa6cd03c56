"""Pre-processing of clinical text into features (Lita et al. 2008, section 4; NegEx beyond it).

The paper's steps: paragraph-level de-duplication, tokenisation and sentence splitting,
number classing (every number one token) and pronoun classing, removal of function words,
unigram features with a minimum frequency, no stemming.

Beyond the paper (radiology reports state many findings in order to deny them): a
NegEx-style pass (Chapman et al. 2001) marks the words in the scope of a negation trigger
("no", "without", "negative for", "no evidence of", ...) as ``NEG_word`` and those in the
scope of an uncertainty trigger ("possible", "cannot exclude", "versus", ...) as ``UNC_word``.
ConText's hypothetical triggers (Harkema et al. 2009: "evaluate for", "rule out", "assess for", ...;
a requisition's question, not a finding) open an uncertainty scope too, and NegEx's
pseudo-negations ("no significant change", "no interval growth", "not excluded", ...; Chapman et
al. 2001) are read as phrases that open no scope, so that "no change of severe hydronephrosis"
keeps its hydronephrosis.  A scope runs for at most ``window`` content words and stops at the end of the sentence or at
a scope terminator ("but", "however", "which", ...).  When a record has sections, every
feature also appears prefixed with its section (``H_`` clinical history, ``I_`` impression);
the plain copy lets records without sections (plain text) use the same model, and plain text,
which may hold either section, gets both prefixes.  With ``concepts``,
the ICD-9-CM index terms found in the text add ``CPT_code`` features (``CPT_NEG_code`` and
``CPT_UNC_code`` inside scopes; :mod:`textqa.models.icd9.concepts`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .concepts import concept_features
from .tokens import _NUMBER, _TOKEN, NUMBER_TOKEN, PRONOUN_TOKEN, PRONOUNS, _class  # noqa: F401

NEGATION = ("no", "not", "without", "negative for", "no evidence of", "no evidence", "free of", "absence of",
            "absent", "resolved", "resolution of", "denies", "unremarkable", "normal", "clear", "never")
UNCERTAINTY = ("possible", "possibly", "probable", "probably", "may", "might", "could", "cannot exclude",
               "can not exclude", "versus", "vs", "questionable", "question", "suspicious", "suspicion", "suggest",
               "suggests", "suggestive of", "likely", "concern for", "concerning for", "or", "equivocal", "borderline")
# The trigger groups beyond these lists (``TextOptions.triggers``; without a group, the lists above
# are all there is, and "rule out", "cannot be excluded" and "not excluded" are the pre-triggers they
# were before the groups existed).
# hypothetical: ConText's hypothetical triggers (Harkema et al. 2009), the requisition's question
HYPOTHETICAL = ("rule out", "ruled out", "evaluate for", "eval for", "assess for", "check for", "to exclude",
                "question of")
# hedges: more of the uncertainty cues of radiology reports
HEDGES = ("worrisome for", "worrisome", "unsure", "uncertain", "differential diagnosis")
# pseudo: NegEx's pseudo-negations (Chapman et al. 2001), with the follow-up wording of radiology
# reports: a negation word that negates no finding; matched as a phrase so that no scope opens
PSEUDO = ("no change", "no significant change", "no interval change", "no significant interval change",
          "no other change", "no suspicious change", "no increase", "no significant increase", "no interval increase",
          "no decrease", "no interval decrease", "no growth", "no interval growth", "no significant growth",
          "no significant interval growth", "not only", "not necessarily", "no further", "not cause",
          "without difficulty", "gram negative")
# post: NegEx's post-triggers, whose scope runs back over the words before them
POST_NEGATION = ("unlikely", "is ruled out", "are ruled out", "was ruled out", "were ruled out", "have been ruled out",
                 "has been ruled out", "is not seen", "are not seen", "was not seen", "were not seen",
                 "is not identified", "are not identified", "is not present", "are not present", "is absent",
                 "are absent", "has resolved", "have resolved")
POST_UNCERTAINTY = ("cannot be excluded", "can not be excluded", "cannot be ruled out", "can not be ruled out",
                    "not excluded", "not been excluded", "not ruled out", "not been ruled out", "is suspected",
                    "are suspected", "is questioned", "is possible", "is not excluded", "are not excluded",
                    "is favored", "are favored", "is likely", "are likely")
TRIGGER_GROUPS = ("hypothetical", "hedges", "pseudo", "post")
TERMINATORS = frozenset(("but", "however", "although", "which", "though", "except", "apart", "aside"))
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+|\n+|(?<=\s)\d+\.\s+(?=[A-Z])")
SECTION_PREFIXES = ("H_", "I_")          # clinical history, impression (records.SECTION_NAMES)


@dataclass(frozen=True)
class TextOptions:
    negation: bool = True
    window: int = 6
    sections: bool = True
    stopwords: frozenset = frozenset()
    concepts: bool = False
    triggers: tuple = TRIGGER_GROUPS


PSEUDO_KIND = "PSEUDO"


@lru_cache(maxsize=16)
def trigger_table(groups: tuple = TRIGGER_GROUPS) -> dict:
    """{first word: [(phrase, kind), ...]} over the trigger lists of ``groups`` (``TRIGGER_GROUPS``),
    longest phrase first; among phrases of one length the earlier list wins (pseudo-negation, post-,
    then pre-triggers)."""
    unknown = set(groups) - set(TRIGGER_GROUPS)
    if unknown:
        raise ValueError(f"unknown trigger group(s) {', '.join(sorted(unknown))}; choose from {', '.join(TRIGGER_GROUPS)}")
    negation, uncertainty = NEGATION, UNCERTAINTY
    lists = []
    if "pseudo" in groups:
        lists.append((PSEUDO_KIND, PSEUDO))
    if "post" in groups:
        lists += [("POST_NEG", POST_NEGATION), ("POST_UNC", POST_UNCERTAINTY)]
    else:                                   # the pre-trigger forms they had without the group
        uncertainty += ("cannot be excluded", "not excluded")
    if "hypothetical" in groups:
        uncertainty += HYPOTHETICAL
    else:
        negation += ("rule out", "ruled out")
    if "hedges" in groups:
        uncertainty += HEDGES
    lists += [("NEG", negation), ("UNC", uncertainty)]
    table: dict = {}
    for rank, (kind, entries) in enumerate(lists):
        for e in entries:
            words = tuple(e.split())
            table.setdefault(words[0], []).append((len(words), -rank, words, kind))
    return {k: [(w, kind) for _, _, w, kind in sorted(v, reverse=True)] for k, v in table.items()}


def _trigger(tokens: list[str], i: int, table: dict) -> tuple[str | None, int]:
    """(NEG|UNC|POST_NEG|POST_UNC|PSEUDO|None, length) of the longest trigger phrase of ``table``
    (``trigger_table``) starting at token i (a pseudo-negation wins a tie: "no change" is not the
    trigger "no")."""
    for phrase, kind in table.get(tokens[i], ()):
        n = len(phrase)
        if n == 1 or tuple(tokens[i:i + n]) == phrase:
            return kind, n
    return None, 0


def dedupe_paragraphs(text: str) -> str:
    """Drop paragraphs (blank-line separated) that repeat an earlier one (whitespace and case ignored)."""
    if text.count("\n") < 2:              # one paragraph (the common case): nothing to compare
        return text if text.strip() else ""
    seen, keep = set(), []
    for para in re.split(r"\n\s*\n", text):
        key = " ".join(para.lower().split())
        if key and key not in seen:
            seen.add(key)
            keep.append(para)
    return "\n\n".join(keep)


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s and s.strip()]


def tagged_sentences(text: str, options: TextOptions) -> list[list[tuple[str | None, str]]]:
    """Per sentence, its feature tokens (classed, stopwords removed) with the scope each is in:
    ``"NEG"``, ``"UNC"`` or ``None``."""
    return _scan(dedupe_paragraphs(text), options, None)


def scope_spans(text: str, options: TextOptions) -> list[dict]:
    """Where the NegEx pass of ``tagged_sentences`` acts, as character spans of ``text`` (as given:
    repeated paragraphs are not dropped): each trigger phrase (``"trigger"``, with its kind
    ``NEG``/``UNC``/``PSEUDO``/``POST_NEG``/``POST_UNC``) and each feature word it puts in a
    negated (``"negated"``) or uncertain (``"uncertain"``) scope, in text order."""
    spans: list = []
    _scan(text, options, spans)
    return sorted(spans, key=lambda sp: sp["start"])


def _sentence_offsets(text: str):
    pos = 0
    for sent in sentences(text):
        start = text.find(sent, pos)
        pos = start + len(sent)
        yield start, sent


def _scan(text: str, options: TextOptions, spans: list | None) -> list[list[tuple[str | None, str]]]:
    """The NegEx pass over each sentence (``tagged_sentences``); with ``spans`` (a list) it also
    appends the character spans of its triggers and of the words in their scopes."""
    out = []
    triggers = trigger_table(tuple(options.triggers)) if options.negation else {}
    stopwords, window, classed = options.stopwords, options.window, _class
    scope_name = {"NEG": "negated", "UNC": "uncertain"}
    for offset, sent in (_sentence_offsets(text) if spans is not None else ((0, x) for x in sentences(text))):
        low = sent.lower()
        if spans is None:
            tokens, where = _TOKEN.findall(low), None
        else:
            found = list(_TOKEN.finditer(low))
            tokens, where = [m.group() for m in found], [(offset + m.start(), offset + m.end()) for m in found]
        tagged, at, state, left, i, floor, n = [], [], None, 0, 0, 0, len(tokens)
        while i < n:
            word = tokens[i]
            candidates = triggers.get(word)
            if candidates:
                kind, length = _trigger(tokens, i, triggers)
                if kind is not None:
                    if kind.startswith("POST_"):
                        # back over the words since the last terminator or trigger, nearest first
                        for k in range(len(tagged) - 1, max(floor, len(tagged) - window) - 1, -1):
                            if tagged[k][0] is None:
                                tagged[k] = (kind[5:], tagged[k][1])
                    elif kind != PSEUDO_KIND:
                        state, left = kind, window
                    if where is not None:
                        spans.append({"start": where[i][0], "end": where[i + length - 1][1], "kind": "trigger",
                                      "trigger": kind})
                    floor = len(tagged)
                    i += length
                    continue
            tok = classed(word)
            i += 1
            if tok in TERMINATORS:
                state, floor = None, len(tagged)
                continue
            if tok in stopwords:
                continue
            if state is not None and left > 0:
                tagged.append((state, tok))
                left -= 1
            else:
                tagged.append((None, tok))
            if where is not None:
                at.append(where[i - 1])
        if where is not None:
            spans.extend({"start": a, "end": b, "kind": scope_name[st]} for (st, _), (a, b) in zip(tagged, at)
                         if st in scope_name)
        out.append(tagged)
    return out


def section_features(text: str, options: TextOptions, prefix: str = "",
                     tagged: list | None = None) -> list[str]:
    """Feature tokens of one section: classed, stopwords removed, negation/uncertainty marked."""
    if tagged is None:
        tagged = tagged_sentences(text, options)
    return [f"{prefix}{state}_{tok}" if state else prefix + tok for sent in tagged for state, tok in sent]


def record_features(sections: dict[str, str], options: TextOptions) -> list[str]:
    """Features of a record given as {section name: text}; ``text`` alone means no sections."""
    out = []
    for name, text in sections.items():
        tagged = tagged_sentences(text, options)
        feats = section_features(text, options, tagged=tagged)
        if options.concepts:
            feats = feats + concept_features(tagged, options.stopwords)
        out.extend(feats)
        if options.sections:
            # section-prefixed copies as well, so that unsectioned text still meets the plain features;
            # unsectioned text may hold either section, so it gets both prefixes (cross-validated on the
            # reports given as plain text, it scores far higher so: "Results" in docs/icd9.md)
            for prefix in (SECTION_PREFIXES if name == "text" else (f"{name[:1].upper()}_",)):
                out.extend(prefix + f for f in feats)
    return out
