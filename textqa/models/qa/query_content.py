"""The query-content model (Lita & Carbonell 2004, 4.2; 2008, section 4.1 and algorithm 1).

Per cluster: retrieve sentences with the keyword query of each member question, call a sentence
relevant when a NIST answer pattern matches it, and collect content features of the retrieved
sentences: n-grams (up to ``max_n`` words) without question words, and *paraphrase* features,
n-grams in which the question's keywords are replaced by ``<Q>`` ("<Q> was born in").  Features
are scored by the average mutual information between their presence and relevance

    AMI(F; R) = sum_{f, r in {0, 1}} P(f, r) log( P(f, r) / (P(f) P(r)) ),

restricted to features more frequent in relevant sentences.  The best ``candidates`` are then
tried as query expansions on the cluster's questions, and the ``keep`` that retrieve the most
relevant sentences (in the top ``k``) form the cluster's query-content model.  At answering time
the matched clusters' expansions are added to the keyword query, each as one more query whose
results are merged with the keyword query's.
"""
from __future__ import annotations

import math
from collections import Counter


def _ngrams(tokens: list[str], n_max: int):
    for n in range(1, n_max + 1):
        for i in range(len(tokens) - n + 1):
            yield tuple(tokens[i:i + n])


def sentence_features(tokens: list[str], keywords: set, stop: frozenset, max_n: int = 3) -> set:
    """Content n-grams (no keywords, not all stopwords) and <Q>-paraphrases of one sentence."""
    low = [t.lower() for t in tokens]
    marked = ["<Q>" if t in keywords else t for t in low]
    feats = set()
    for g in _ngrams(marked, max_n):
        has_q = "<Q>" in g
        if has_q:
            if len(g) > 1 and g.count("<Q>") < len(g) and not all(t in stop or t == "<Q>" for t in g):
                feats.add(" ".join(g))
        elif not all(t in stop or not t.isalnum() for t in g):
            feats.add(" ".join(g))
    return feats


def average_mutual_information(n11: int, n1_: int, n_1: int, n: int) -> float:
    """AMI of a binary feature and binary relevance from counts: n11 (feature and relevant),
    n1_ (feature), n_1 (relevant), n (all)."""
    total = 0.0
    for f, r, c in ((1, 1, n11), (1, 0, n1_ - n11), (0, 1, n_1 - n11), (0, 0, n - n1_ - n_1 + n11)):
        if c <= 0:
            continue
        pf = n1_ / n if f else 1 - n1_ / n
        pr = n_1 / n if r else 1 - n_1 / n
        total += (c / n) * math.log((c / n) / (pf * pr))
    return total


def query_words(feature: str) -> list[str]:
    return [t for t in feature.split() if t != "<Q>"]


def learn(members_data, search, candidates: int = 8, keep: int = 3, k: int = 20,
          max_questions: int = 12) -> list[str]:
    """The cluster's expansion features.

    ``members_data``: [(keywords, [(feature set, relevant)], patterns_match)] per member question
    (feature sets from :func:`sentence_features`), where ``patterns_match(text)`` tells whether a
    sentence holds a correct answer; ``search(words, k)`` is the index's search."""
    counts, rel_counts = Counter(), Counter()
    n = n_rel = 0
    for _kws, sents, _ in members_data:
        for fs, rel in sents:
            counts.update(fs)
            n += 1
            if rel:
                rel_counts.update(fs)
                n_rel += 1
    if not n or not n_rel:
        return []
    scored = []
    for f, c in counts.items():
        r = rel_counts.get(f, 0)
        if r < 2 or r / n_rel <= c / n:          # only features that favour relevant sentences
            continue
        scored.append((average_mutual_information(r, c, n_rel, n), f))
    top = [f for _, f in sorted(scored, reverse=True)[:candidates]]
    if not top:
        return []
    # keep the expansions whose enhanced queries retrieve the most relevant sentences
    sample = members_data[:max_questions]
    base = sum(sum(ok(t) for _, t, _ in search(list(kws), k)) for kws, _, ok in sample)
    gains = []
    for f in top:
        hits = sum(sum(ok(t) for _, t, _ in search(list(kws) + query_words(f), k)) for kws, _, ok in sample)
        if hits > base:
            gains.append((hits, f))
    return [f for _, f in sorted(gains, reverse=True)[:keep]]
