"""Answers merged across sentences, paragraphs, documents and strategies, and the reader that ranks them.

Merging (Lita & Carbonell 2008, section 5): every cluster strategy that matched the question scores
the candidates; an answer (a normalised string) takes, under each strategy, its best mention's
probability plus ``redundancy * ln(mentions)``, and the strategies' scores are summed, each weighted
by the strategy's confidence (:func:`merge_strategies`).

The reader (:class:`AnswerReader`) then ranks the merged answers by what the classic TREC systems
found in redundancy (Brill, Dumais & Banko 2002, AskMSR; Lin 2007, Aranea; Dumais et al. 2002): how
many sentences, paragraphs and documents hold the answer and at what ranks, how close it stands to the
question's words and how many of them its sentences hold, how well its type agrees with the question,
besides the merged strategy score (:data:`FEATURES`, :func:`answer_features`).  It is a logistic
regression over those features, trained by distant supervision: the answers a training question's
retrieval finds, labelled by whether they match the question's accepted answers or NIST patterns
(as DrQA labelled its reader's training data, Chen et al. 2017).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: The answer-level features, in their column order.
FEATURES = ("merged", "best", "mentions", "sentences", "paragraphs", "documents", "best_sentence_rr",
            "paragraph_rr_sum", "best_paragraph_rr", "density_max", "density_sq_sum", "proximity_max",
            "type_prob", "uiuc_match", "wordnet", "in_question", "title_share", "pool_share", "ranker_max", "length")


@dataclass
class Answer:
    """One merged answer: its normalised ``key``, its text as its best mention writes it, its merged
    ``score``, the strategies that proposed it, its best mention's probability and place (``at``: the
    sentence and the candidate), and the indices of every mention of it among the question's candidates."""
    key: str
    text: str
    score: float = 0.0
    clusters: list = field(default_factory=list)
    best: float = -1.0
    at: tuple = ()
    mentions: list = field(default_factory=list)


def merge_strategies(models, weights, data, keys, scores, redundancy: float) -> dict:
    """{key: :class:`Answer`}: each strategy's best mention per answer, plus ``redundancy * ln(mentions)``,
    summed over the strategies with their ``weights`` (Lita & Carbonell 2008's merging; ``scores``: each
    strategy's probabilities of the candidates ``data``, None for a strategy that did not score)."""
    mentions: dict = {}
    for i, key in enumerate(keys):
        if key:
            mentions.setdefault(key, []).append(i)
    answers: dict = {}
    for m, weight, sc in zip(models, weights, scores):
        if sc is None:
            continue
        for key, idx in mentions.items():
            j = max(idx, key=lambda i: sc[i])
            best = float(sc[j])
            a = answers.get(key)
            if a is None:
                a = answers[key] = Answer(key, data[j][1].text, mentions=idx)
            # the best mention's probability, plus a little for each further mention: redundancy
            # across the retrieved sentences (Brill et al. 2002) settles near-ties
            a.score += weight * (best + redundancy * math.log(len(idx)))
            a.clusters.append(m.frame)
            if best > a.best:
                a.best, a.text, a.at = best, data[j][1].text, data[j]
    return answers


#: columns of a candidate's dense features (:class:`system._Block`) that the answer features read
PROXIMITY, DENSITY, IN_QUESTION, UIUC, WORDNET, RANKER = 2, 3, 5, 19, 20, 21


def answer_features(answers: list, data, dense: np.ndarray, places: dict, kws: set, total_w: float,
                    type_dist: dict, ranker: bool) -> np.ndarray:
    """One row of :data:`FEATURES` per answer.  ``data``: the question's (sentence, candidate) pairs;
    ``dense``: their candidate features (:func:`system.candidate_features`' columns, then the UIUC and
    WordNet checks, then the sentence ranker's when ``ranker``); ``places``: for each sentence row id,
    (paragraph, paragraph rank, document, title, from the pool); ``type_dist``: the matched strategies'
    answer-type distribution."""
    rows = np.zeros((len(answers), len(FEATURES)))
    n_kw = max(len(kws), 1)
    for r, a in enumerate(answers):
        idx = a.mentions
        sents = {data[i][0].rowid for i in idx}
        where = [places.get(data[i][0].rowid) or (None, 99, None, "", False) for i in idx]
        paragraphs = {w[0]: w[1] for w in where}
        density = dense[idx, DENSITY]
        titles = [w[3] for w in where]
        title_share = max((len(kws & set(t.lower().split())) / n_kw for t in titles if t), default=0.0)
        rows[r] = (a.score / total_w if total_w else 0.0, a.best, math.log1p(len(idx)), math.log1p(len(sents)),
                   math.log1p(len(paragraphs)), math.log1p(len({w[2] for w in where})),
                   max(1.0 / (1 + data[i][0].rank) for i in idx),
                   sum(1.0 / (1 + rank) for rank in paragraphs.values()),
                   max(1.0 / (1 + rank) for rank in paragraphs.values()),
                   float(density.max()), float((density ** 2).sum()), float(dense[idx, PROXIMITY].max()),
                   type_dist.get(a.at[1].type, 0.0), float(dense[idx, UIUC].max()), float(dense[idx, WORDNET].max()),
                   float(dense[idx, IN_QUESTION].min()), title_share, float(np.mean([w[4] for w in where])),
                   float(dense[idx, RANKER].max()) if ranker else 0.0, min(len(a.text.split()), 8) / 8)
    return rows


class AnswerReader:
    """A logistic regression over :data:`FEATURES` (standardised), fitted on answers labelled by distant
    supervision; ``scores`` ranks a question's answers."""

    def __init__(self, C: float = 1.0):
        self.C = C

    def fit(self, X: np.ndarray, y: np.ndarray) -> "AnswerReader":
        from sklearn.linear_model import LogisticRegression  # deferred: loads sklearn, scipy, joblib
        from sklearn.preprocessing import StandardScaler  # deferred: loads sklearn, scipy, joblib

        from ..sklearn_data import same_numbers_anywhere
        self.scaler_ = StandardScaler().fit(X)
        fit = same_numbers_anywhere(lambda Z: LogisticRegression(C=self.C, class_weight="balanced", max_iter=2000)
                                    .fit(Z, y))
        self.model_ = fit(self.scaler_.transform(X))
        return self

    def scores(self, X: np.ndarray) -> np.ndarray:
        """The probability each answer is right."""
        from ..sklearn_data import linear_decision, standardized
        if not len(X):
            return np.zeros(0)
        return 1.0 / (1.0 + np.exp(-linear_decision(self.model_, standardized(self.scaler_, X))))
