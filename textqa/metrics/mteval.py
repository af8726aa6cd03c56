"""BLEU and NIST as NIST's ``mteval-v13a.pl`` computes them (:mod:`textqa.evaluation.mteval`; its
official output on newstest2015 reproduces to the fourth decimal), on Python strings.

References are given per segment, any number each: ``references[i]`` is the list of references of
segment ``i`` (a plain string is one reference).  sacrebleu's layout, one list per reference stream,
is refused where the counts tell it apart, with the conversion named.

>>> BLEU().corpus_score(["the cat sat on the mat"], [["the cat sat on the mat", "a cat sat"]]).score
1.0
>>> round(NIST().corpus_score(["a b"], [["a b a"]]).score, 4)   # ((log2 1.5 + log2 3) / 2 + 1) x 0.5
1.0425
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from textqa.evaluation.mteval import _ngrams, _tokens, nist_bleu
from textqa.runtime.metric_input import MetricInputError, references_per_segment, signature, texts


@dataclass(frozen=True)
class BLEUScore:
    """``score`` (0 to 1, as mteval prints it); ``precisions``: the modified n-gram precisions;
    ``brevity_penalty``; ``length_ratio``: hypothesis words over the closest references' words."""
    score: float
    precisions: tuple
    brevity_penalty: float
    length_ratio: float
    hypothesis_words: int
    reference_words: int


@dataclass(frozen=True)
class NISTScore:
    """``score``; ``information``: each order's information gain per hypothesis n-gram (mteval's
    "individual" scores); ``length_ratio``: hypothesis words over the references' average words."""
    score: float
    information: tuple
    length_ratio: float
    hypothesis_words: int
    reference_words: float


class _MTEval:
    name = ""
    default_order = 4

    def __init__(self, lowercase: bool = True, max_order: int | None = None):
        order = self.default_order if max_order is None else max_order
        if not isinstance(order, int) or isinstance(order, bool) or not 1 <= order <= 9:
            raise MetricInputError(f"max_order must be an integer from 1 to 9, not {order!r}")
        self.lowercase, self.max_order = bool(lowercase), order

    @property
    def signature(self) -> str:
        return signature(self.name, order=self.max_order, lowercase=self.lowercase, tok="13a", impl="mteval-v13a")

    def _counts(self, hypotheses, references) -> dict:
        hyps = texts(hypotheses, "hypotheses")
        refs = references_per_segment(references, len(hyps))
        if not hyps:
            raise MetricInputError("no segments to score")
        order = {"max_n_bleu": self.max_order} if self.name == "BLEU" else {"max_n_nist": self.max_order}
        return nist_bleu(hyps, refs, lowercase=self.lowercase, **order)


class BLEU(_MTEval):
    """Corpus BLEU of mteval-v13a: modified n-gram precisions to ``max_order`` (4), the closest
    reference length for the brevity penalty, ASCII lowercasing unless ``lowercase=False`` (mteval's
    ``-c``).  Unsmoothed, as mteval: a corpus without a matching 4-gram scores 0."""

    name = "BLEU"

    def corpus_score(self, hypotheses, references) -> BLEUScore:
        r = self._counts(hypotheses, references)
        return BLEUScore(r["bleu"], tuple(r["bleu_individual"]), r["bleu_brevity_penalty"], r["bleu_length_ratio"],
                         r["hyp_words"], r["ref_words_closest"])

    def segment_statistics(self, hypotheses, references) -> dict:
        """{"BLEU": (stats, score)}: each segment's sufficient statistics (matched and total n-grams of
        each order, hypothesis words, closest reference words), and the function that makes corpus BLEU
        of summed rows (``score(stats.sum(0))`` is :meth:`corpus_score`'s; rows of resamples at once):
        what :mod:`textqa.metrics.significance` resamples."""
        hyps = texts(hypotheses, "hypotheses")
        refs = references_per_segment(references, len(hyps))
        N = self.max_order
        stats = np.zeros((len(hyps), 2 * N + 2))
        for i, (h, rs) in enumerate(zip(hyps, refs)):
            ht = _tokens(h, self.lowercase)
            rts = [_tokens(r, self.lowercase) for r in rs]
            for n in range(1, N + 1):
                best = _ngrams(rts[0], n)
                for r in rts[1:]:
                    best |= _ngrams(r, n)
                stats[i, n - 1] = sum(min(c, best[g]) for g, c in _ngrams(ht, n).items())
                stats[i, N + n - 1] = max(len(ht) - n + 1, 0)
            stats[i, 2 * N] = len(ht)
            stats[i, 2 * N + 1] = min((abs(len(r) - len(ht)), len(r)) for r in rts)[1]
        return {"BLEU": (stats, lambda x: _bleu_of(np.atleast_2d(x), N))}


class NIST(_MTEval):
    """Corpus NIST of mteval-v13a (Doddington 2002): information-weighted n-gram matches to
    ``max_order`` (5), the weights from the n-gram counts of all references, and its brevity
    penalty over the references' average length."""

    name = "NIST"
    default_order = 5

    def corpus_score(self, hypotheses, references) -> NISTScore:
        r = self._counts(hypotheses, references)
        return NISTScore(r["nist"], tuple(r["nist_individual"]), r["length_ratio"], r["hyp_words"], r["ref_words"])


def _bleu_of(sums: np.ndarray, N: int) -> np.ndarray:
    """Corpus BLEU of each row of summed :meth:`BLEU.segment_statistics` (mteval-v13a's formula)."""
    matched, total, hyp, ref = sums[:, :N], sums[:, N:2 * N], sums[:, 2 * N], sums[:, 2 * N + 1]
    out = np.zeros(len(sums))
    for k in range(len(sums)):
        if hyp[k] == 0 or not all(total[k]) or not all(matched[k]):
            continue
        bp = 1.0 if hyp[k] > ref[k] else math.exp(1 - ref[k] / hyp[k])
        out[k] = bp * math.exp(sum(math.log(matched[k, n] / total[k, n]) for n in range(N)) / N)
    return out
