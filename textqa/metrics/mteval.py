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

from dataclasses import dataclass

import numpy as np

from textqa.evaluation import mteval
from textqa.runtime.metric import SegmentMetric
from textqa.runtime.metric_input import MetricInputError, references_per_segment, signature, text_of, texts


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


class _MTEval(SegmentMetric):
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

    def _tokens(self, hypotheses, references) -> tuple[list, list]:
        """The segments' tokens, hypotheses and their references, after the inputs are checked."""
        hyps = texts(hypotheses, "hypotheses")
        refs = references_per_segment(references, len(hyps))
        if not hyps:
            raise MetricInputError("no segments to score")
        return ([mteval.tokens(h, self.lowercase) for h in hyps],
                [[mteval.tokens(r, self.lowercase) for r in rs] for rs in refs])

    def _statistics(self, hyps: list, refs: list) -> np.ndarray:
        raise NotImplementedError

    def _result(self, sums: np.ndarray):
        raise NotImplementedError

    def corpus_score(self, hypotheses, references):
        """The score of the corpus: its segments' statistics summed (mteval's pooled counts)."""
        return self._result(self._statistics(*self._tokens(hypotheses, references)).sum(0))

    def sentence_score(self, hypothesis: str, references):
        """The score of one segment against its references (one string or a list), mteval's formula on
        that segment alone (for NIST, the information weights come from that segment's references)."""
        refs = [references] if isinstance(references, str) else references
        return self.corpus_score([text_of(hypothesis, "hypothesis")], [refs])

    def segment_statistics(self, hypotheses, references) -> dict:
        """{name: (stats, score)}: each segment's additive statistics (:func:`textqa.evaluation.mteval.
        bleu_statistics` or ``nist_statistics``) and the function that makes the corpus score of summed
        rows (``score(stats.sum(0))`` is :meth:`corpus_score`'s; rows of resamples at once): what
        :mod:`textqa.metrics.significance` resamples."""
        stats = self._statistics(*self._tokens(hypotheses, references))
        return {self.name: (stats, self._of_sums)}


class BLEU(_MTEval):
    """BLEU of mteval-v13a: modified n-gram precisions to ``max_order`` (4), the closest reference
    length for the brevity penalty, ASCII lowercasing unless ``lowercase=False`` (mteval's ``-c``).
    A precision of zero takes mteval's smoothing (:func:`textqa.evaluation.mteval.bleu_of_statistics`,
    sacrebleu's ``exp``), so ``sentence_score`` is sacrebleu's ``sentence_bleu(smooth_method="exp")``
    wherever the hypothesis has ``max_order`` words or more and one of them matches (below that length
    sacrebleu drops the empty orders where mteval counts them as precision 1; with no word matched
    sacrebleu gives 0 where mteval smooths every order)."""

    name = "BLEU"

    def _statistics(self, hyps, refs) -> np.ndarray:
        return np.array([mteval.bleu_statistics(h, rs, self.max_order) for h, rs in zip(hyps, refs)])

    def _of_sums(self, sums) -> np.ndarray:
        return mteval.bleu_of_statistics(sums, self.max_order)

    def _result(self, sums: np.ndarray) -> BLEUScore:
        s = mteval.bleu_summary(sums, self.max_order)
        return BLEUScore(s["bleu"], tuple(s["precisions"]), s["brevity_penalty"], s["length_ratio"],
                         s["hyp_words"], s["ref_words"])


class NIST(_MTEval):
    """NIST of mteval-v13a (Doddington 2002): information-weighted n-gram matches to ``max_order``
    (5), the weights from the n-gram counts of all references, and its brevity penalty over the
    references' average length.  ``segment_statistics`` keeps the weights of the whole corpus fixed
    while segments are resampled."""

    name = "NIST"
    default_order = 5

    def _statistics(self, hyps, refs) -> np.ndarray:
        info = mteval.nist_information(refs, self.max_order)
        return np.array([mteval.nist_statistics(h, rs, info, self.max_order) for h, rs in zip(hyps, refs)])

    def _of_sums(self, sums) -> np.ndarray:
        return mteval.nist_of_statistics(sums, self.max_order)[0]

    def _result(self, sums: np.ndarray) -> NISTScore:
        s = mteval.nist_summary(sums, self.max_order)
        return NISTScore(s["nist"], tuple(s["information"]), s["length_ratio"], s["hyp_words"], s["ref_words"])
