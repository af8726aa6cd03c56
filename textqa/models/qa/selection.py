"""Answer sentence selection: rank candidate sentences for a question (TrecQA task).

A logistic-regression ranker over features of a (question, sentence) pair:

* lexical overlap: shared content words, their idf sum (idf from the sentence pool), that sum
  over the question's, shared Porter stems, shared word bigrams;
* answer-type match: the question's coarse answer-type distribution (the UIUC classifier,
  :mod:`textqa.models.qa.answer_type`) against the types of the sentence's named entities that are not
  question words (BBN types mapped to the UIUC coarse classes), and how close the nearest such
  entity is to a question word (Lita & Carbonell 2004 use keyword distance to the candidate);
* the sentence's length;
* lexical-semantic matches through WordNet 3.0 (:func:`textqa.runtime.wordnet.wordnet`; Lita, Hunt & Nyberg
  2004 bound how much of TREC WordNet reaches): the idf share of the question's content words
  that the sentence does not contain (not even as a WordNet base form, "geese" for "goose") but
  relates to one of its words as a synonym, as a direct hypernym or hyponym ("river" and
  "Mississippi", "automaker" and "company"), or as a derivationally related form ("invent" and
  "inventor"), and whether a question word has an antonym in the sentence.  The first eight
  senses of each word are read;
* fine answer-type match: whether the sentence holds an entity (not question words) of a BBN type
  that the question's UIUC fine class asks for (``HUM:ind`` a PERSON, ``NUM:money`` MONEY,
  ``ENTY:dismed`` a DISEASE or SUBSTANCE: ``FINE_NER``), and how close the nearest one is to a
  question word.  The two abbreviation classes ask for no entity type but for a form
  (:func:`acronym_spans`): ``ABBR:exp`` for the words a question's acronym stands for ("American
  Association of Retired Persons" for "What does AARP stand for?"), ``ABBR:abb`` for an acronym
  of the question's capitalised words.  Models fitted before the two fine features (12 columns)
  still score: their scaler's width says how many features they read.
"""
from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import numpy as np

from textqa.models.sklearn_data import linear_decision, standardized
from textqa.runtime.paths import english_stopwords
from textqa.runtime.wordnet import wordnet

from ..porter import stem
from .trecqa import Sentence

NER_COARSE = {
    "PERSON": "HUM", "PER_DESC": "HUM", "ORGANIZATION": "HUM", "ORG_DESC": "HUM", "NORP": "HUM",
    "GPE": "LOC", "GPE_DESC": "LOC", "LOCATION": "LOC", "LOC": "LOC", "FAC": "LOC", "FAC_DESC": "LOC",
    "DATE": "NUM", "TIME": "NUM", "CARDINAL": "NUM", "MONEY": "NUM", "PERCENT": "NUM", "QUANTITY": "NUM",
    "ORDINAL": "NUM",
}
COARSE = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")
FEATURES = ("overlap", "idf_overlap", "idf_overlap_norm", "stem_overlap_norm", "bigram_overlap",
            "type_match", "type_near", "length", "wn_synonym", "wn_hyper_hyponym", "wn_derived", "wn_antonym",
            "fine_type_match", "fine_type_near")
_QUANTITY = frozenset({"QUANTITY", "CARDINAL"})
# the BBN entity types (TrecQA's tags) that answer each UIUC fine class (Li & Roth 2002's definitions);
# classes without such a type (definitions, reasons, manners, abbreviations...) are absent
FINE_NER = {
    "HUM:ind": {"PERSON"}, "HUM:gr": {"ORGANIZATION"}, "HUM:title": {"PER_DESC"}, "HUM:desc": {"PER_DESC", "PERSON"},
    "LOC:country": {"GPE"}, "LOC:city": {"GPE"}, "LOC:state": {"GPE"}, "LOC:other": {"LOCATION", "GPE", "FAC"},
    "LOC:mount": {"LOCATION"}, "NUM:date": {"DATE", "TIME"}, "NUM:count": {"CARDINAL"}, "NUM:money": {"MONEY"},
    "NUM:perc": {"PERCENT"}, "NUM:period": {"DATE", "TIME", "CARDINAL"}, "NUM:dist": _QUANTITY,
    "NUM:weight": _QUANTITY, "NUM:speed": _QUANTITY, "NUM:temp": _QUANTITY, "NUM:volsize": _QUANTITY,
    "NUM:ord": {"ORDINAL"}, "NUM:other": _QUANTITY, "ENTY:substance": {"SUBSTANCE"},
    "ENTY:dismed": {"DISEASE", "SUBSTANCE"}, "ENTY:cremat": {"WORK_OF_ART", "PRODUCT"}, "ENTY:lang": {"LANGUAGE"},
    "ENTY:animal": {"ANIMAL"}, "ENTY:plant": {"PLANT"}, "ENTY:event": {"EVENT"}, "ENTY:product": {"PRODUCT"},
    "ENTY:sport": {"GAME"},
}
WN_SENSES = 8
# words an acronym's letters skip inside its expansion ("Federal Bureau of Investigation": FBI)
_ACRONYM_SKIP = frozenset({"of", "and", "the", "for", "&", "in", "on", "at", "to", "a", "an", "de"})


def ner_coarse(label: str) -> str:
    return NER_COARSE.get(label, "ENTY")


def idf_table(sentences) -> dict:
    df = Counter(w for s in sentences for w in {t.lower() for t in s.tokens})
    n = max(len(sentences), 1)
    return {w: math.log(n / c) for w, c in df.items()}


def content(tokens) -> list[str]:
    stop = english_stopwords()
    return [t.lower() for t in tokens if t.lower() not in stop and any(ch.isalnum() for ch in t)]


def is_acronym(token: str) -> bool:
    """An all-capitals word of 2-8 letters ("AARP", "NASA")."""
    return 2 <= len(token) <= 8 and token.isalpha() and token.isupper()


def expansions(acronym: str, tokens: list) -> list[tuple[int, int]]:
    """(start, end) spans of ``tokens`` whose capitalised words' initials spell ``acronym``, the
    words of ``_ACRONYM_SKIP`` skipped inside a span: ``expansions("AARP", "the American Association
    of Retired Persons".split())`` is ``[(1, 6)]``."""
    letters, out = acronym.lower(), []
    for i, first in enumerate(tokens):
        if not first[:1].isupper() or first[:1].lower() != letters[0]:
            continue
        k, j = 0, i
        while j < len(tokens) and k < len(letters):
            t = tokens[j]
            if t[:1].isupper() and t[:1].lower() == letters[k]:
                k += 1
            elif t.lower() not in _ACRONYM_SKIP:
                break
            j += 1
        if k == len(letters):
            out.append((i, j))
    return out


def acronym_spans(q_tokens: list, c_tokens: list, fine: str | None) -> list[tuple[int, int]]:
    """What an abbreviation question asks for, found in a candidate sentence (Li & Roth's
    ``ABBR:exp``, "What does AARP stand for?": the spans that expand an acronym of the question;
    ``ABBR:abb``, "What is the abbreviation for the Federal Bureau of Investigation?": the sentence's
    acronyms, not question words, that the question's capitalised words spell).  Empty for every
    other class."""
    if fine == "ABBR:exp":
        return [span for t in dict.fromkeys(q_tokens) if is_acronym(t) for span in expansions(t, c_tokens)]
    if fine == "ABBR:abb":
        asked = set(q_tokens)
        return [(i, i + 1) for i, t in enumerate(c_tokens)
                if is_acronym(t) and t not in asked and expansions(t, q_tokens)]
    return []


def pair_features(q: Sentence, c: Sentence, qtype: dict, idf: dict, default_idf: float,
                  fine: str | None = None) -> list[float]:
    """The ``FEATURES`` of a (question, candidate sentence) pair; ``qtype``: the question's UIUC coarse
    distribution, ``fine``: its UIUC fine class."""
    qw, cw = set(content(q.tokens)), set(content(c.tokens))
    shared = qw & cw
    w = lambda t: idf.get(t, default_idf)
    q_idf = math.fsum(w(t) for t in qw) or 1.0     # fsum: exact, so a set's order (hash seed) cannot matter
    qs, cs = {stem(t) for t in qw}, {stem(t) for t in cw}
    ql, cl = [t.lower() for t in q.tokens], [t.lower() for t in c.tokens]
    qb, cb = set(zip(ql, ql[1:])), set(zip(cl, cl[1:]))
    # entities of the candidate that are not question words, typed like the question
    match, near, fine_match, fine_near = 0.0, 0.0, 0.0, 0.0
    wanted = FINE_NER.get(fine, ())
    positions = [i for i, t in enumerate(cl) if t in shared]
    asked = [(start, end, None) for start, end in acronym_spans(q.tokens, c.tokens, fine)]
    for start, end, kind in c.entities() + asked:
        if kind is not None and any(t in qw for t in cl[start:end]):
            continue
        p = qtype.get(ner_coarse(kind), 0.0) if kind is not None else 0.0
        wants = kind is None or kind in wanted          # None: what an abbreviation question asks for
        if p > match:
            match = p
        if wants:
            fine_match = 1.0
        if positions and (p > 0 or wants):
            d = min(min(abs(i - start), abs(i - (end - 1))) for i in positions)
            if p > 0:
                near = max(near, p * math.exp(-d / 5))
            if wants:
                fine_near = max(fine_near, math.exp(-d / 5))
    shared_idf = math.fsum(w(t) for t in shared)
    return [len(shared), shared_idf, shared_idf / q_idf,
            len(qs & cs) / max(len(qs), 1), len(qb & cb), match, near, len(c.tokens) / 50,
            *wordnet_features(qw, cw, w, q_idf), fine_match, fine_near]


@lru_cache(maxsize=200_000)
def _base(word: str) -> str:
    return wordnet().morphy(word) or word


@lru_cache(maxsize=200_000)
def _related(word: str) -> tuple:
    """(synonyms, hypernyms and hyponyms, derivationally related forms, antonyms) of ``word``'s
    first ``WN_SENSES`` synsets, as lowercased lemma names."""
    syn, hyp, der, ant = set(), set(), set(), set()
    for s in wordnet().synsets(word)[:WN_SENSES]:
        for lemma in s.lemmas():
            syn.add(lemma.name().lower())
            der.update(d.name().lower() for d in lemma.derivationally_related_forms())
            ant.update(a.name().lower() for a in lemma.antonyms())
        for h in s.hypernyms() + s.hyponyms() + s.instance_hypernyms() + s.instance_hyponyms():
            hyp.update(lemma.name().lower() for lemma in h.lemmas())
    syn.discard(word)
    return frozenset(syn), frozenset(hyp), frozenset(der), frozenset(ant)


def wordnet_features(qw: set, cw: set, w, q_idf: float) -> list[float]:
    """[synonym, hypernym/hyponym, derived-form idf shares, antonym found] (see the module doc).
    A question word counts once, for the first relation that reaches the sentence."""
    sentence = cw | {_base(t) for t in cw}
    shares, antonym = [0.0, 0.0, 0.0], 0.0
    for t in sorted(qw - cw):
        b = _base(t)
        if b in sentence:
            continue
        related = _related(b)
        for k in range(3):
            if related[k] & sentence:
                shares[k] += w(t)
                break
        if related[3] & sentence:
            antonym = 1.0
    return [x / q_idf for x in shares] + [antonym]


class SentenceSelector:
    """``fit(pairs, qtypes, pool, fines)`` on labelled TrecQA pairs; ``scores(question, candidates, qtype,
    fine)``.  ``qtypes``: each question's UIUC coarse distribution; ``fines``: its UIUC fine class."""

    def __init__(self, C: float = 1.0):
        self.C = C

    def with_pool(self, pool) -> "SentenceSelector":
        """Set the idf table from the sentences of ``pool`` (what :meth:`features` weighs words by)."""
        self.idf_ = idf_table(pool)
        self.default_idf_ = max(self.idf_.values()) if self.idf_ else 1.0
        return self

    def features(self, question: Sentence, candidates: list[Sentence], qtype: dict,
                 fine: str | None = None) -> np.ndarray:
        """The :func:`pair_features` rows of ``question`` with each of ``candidates``: they depend on
        the idf table (:meth:`with_pool`), not on C, so a search over C computes them once."""
        rows = [pair_features(question, c, qtype, self.idf_, self.default_idf_, fine) for c in candidates]
        return np.array(rows, dtype=float) if rows else np.zeros((0, len(FEATURES)))

    def fit_features(self, X: np.ndarray, y: np.ndarray) -> "SentenceSelector":
        """Fit the scaler and the logistic regression on :meth:`features` rows ``X`` and labels ``y``."""
        from sklearn.linear_model import LogisticRegression  # deferred: loads sklearn, scipy, joblib
        from sklearn.preprocessing import StandardScaler  # deferred: loads sklearn, scipy, joblib
        self.scaler_ = StandardScaler().fit(X)
        self.model_ = LogisticRegression(C=self.C, max_iter=2000).fit(self.scaler_.transform(X), y)
        return self

    def pair_rows(self, pairs, qtypes, fines=None) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per labelled pair, its :meth:`features` rows and its 0/1 labels (what :meth:`fit_features`
        reads, stacked)."""
        fines = fines if fines is not None else [None] * len(pairs)
        X = [self.features(p.question, [c for _, c in p.candidates], qt, fine)
             for p, qt, fine in zip(pairs, qtypes, fines)]
        return X, [np.array([label for label, _ in p.candidates], dtype=int) for p in pairs]

    def fit(self, pairs, qtypes, pool=None, fines=None) -> "SentenceSelector":
        self.with_pool(pool if pool is not None else [c for p in pairs for _, c in p.candidates])
        X, y = self.pair_rows(pairs, qtypes, fines)
        return self.fit_features(np.vstack(X), np.concatenate(y))

    def scores(self, question: Sentence, candidates: list[Sentence], qtype: dict,
               fine: str | None = None) -> np.ndarray:
        return self.scores_features(self.features(question, candidates, qtype, fine))

    def scores_features(self, X: np.ndarray) -> np.ndarray:
        """The ranker's scores of :meth:`features` rows (none for none)."""
        if not len(X):
            return np.zeros(0)
        width = len(self.scaler_.mean_)              # a model fitted before the last features reads fewer
        return linear_decision(self.model_, standardized(self.scaler_, X[:, :width]))
