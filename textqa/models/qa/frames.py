"""Question frames and clusters (Lita & Carbonell 2004, section 5 and figure 1).

Every question yields template frames generated exhaustively: after the wh-word (kept as a
word), each element is either the word itself, its part-of-speech class (``<NNP>``, ``<NN>``,
``<VB>``, ``<JJ>``, ``<CD>``) or, for a noun phrase, ``<NP>``; and the rest of the question from
any point on may become the generic question-term sequence ``<Q>``.  The paper's example,
"When did Beethoven die?", gives among others ``when did <NNP> die``, ``when did <NNP> <VB>``,
``when did <NNP> <Q>``, ``when did <NP> <Q>`` and ``when did <Q>`` (a test checks these).
Auxiliaries and function words stay words.  A frame shared by more than ``min_questions``
training questions (paper: three) defines a cluster; a new question belongs to every cluster
one of its frames names, usually several of different granularity.
"""
from __future__ import annotations

from collections import Counter
from itertools import product

WH = {"what", "which", "who", "whom", "whose", "when", "where", "why", "how", "name"}
POS_CLASS = {"NNP": "<NNP>", "NNPS": "<NNP>", "NN": "<NN>", "NNS": "<NN>", "VB": "<VB>", "VBD": "<VB>",
             "VBG": "<VB>", "VBN": "<VB>", "VBP": "<VB>", "VBZ": "<VB>", "JJ": "<JJ>", "JJR": "<JJ>",
             "JJS": "<JJ>", "CD": "<CD>"}
AUX_LEMMAS = {"be", "do", "have"}
Q = "<Q>"
MAX_ELEMENTS = 7          # elements after the wh-word that get alternatives; the rest is <Q> only


def _elements(doc) -> list[list[str]]:
    """Each question element with its alternatives (word first)."""
    tokens = [t for t in doc if not t.is_punct]
    chunk_at = {}
    for chunk in doc.noun_chunks:
        words = [t for t in chunk if not t.is_punct]
        if words and not any(t.lower_ in WH for t in words):
            chunk_at[words[0].i] = words
    out, i = [], 0
    while i < len(tokens):
        t = tokens[i]
        if t.i in chunk_at and out:
            words = chunk_at[t.i]
            literal = " ".join(w.lower_ for w in words)
            options = [literal]
            if len(words) == 1 and t.tag_ in POS_CLASS:
                options.append(POS_CLASS[t.tag_])
            options.append("<NP>")
            out.append(options)
            i += len(words)
            continue
        options = [t.lower_]
        if out and t.tag_ in POS_CLASS and t.lemma_.lower() not in AUX_LEMMAS and t.dep_ not in ("aux", "auxpass"):
            options.append(POS_CLASS[t.tag_])
        out.append(options)
        i += 1
    return out


def question_frames(doc) -> set[str]:
    """All frames of one question (a spaCy Doc)."""
    elements = _elements(doc)
    if not elements:
        return set()
    head, rest = elements[0][0], elements[1:]
    frames = set()
    limit = min(len(rest), MAX_ELEMENTS)
    for q_at in range(0, len(rest) + 1):          # where <Q> starts (len(rest): no <Q>)
        if q_at > limit:
            break
        choices = rest[:q_at]
        for combo in product(*choices):
            parts = [head, *combo] + ([Q] if q_at < len(rest) else [])
            frames.add(" ".join(parts))
    return frames


class FrameClusters:
    """Clusters = frames shared by more than ``min_questions`` training questions."""

    def __init__(self, min_questions: int = 3):
        self.min_questions = min_questions

    def fit(self, docs, ids=None) -> "FrameClusters":
        ids = list(ids) if ids is not None else list(range(len(docs)))
        members: dict = {}
        for qid, doc in zip(ids, docs):
            for f in sorted(question_frames(doc)):       # a set: its order varies between processes
                members.setdefault(f, []).append(qid)
        self.clusters_ = {f: members[f] for f in sorted(members) if len(members[f]) > self.min_questions}
        return self

    def match(self, doc) -> list[str]:
        """The clusters (frames) a question belongs to, most specific (fewest members) first."""
        found = [f for f in question_frames(doc) if f in self.clusters_]
        return sorted(found, key=lambda f: (len(self.clusters_[f]), f))

    @staticmethod
    def frames_of(doc) -> set[str]:
        return question_frames(doc)

    def sizes(self) -> Counter:
        return Counter({f: len(q) for f, q in self.clusters_.items()})
