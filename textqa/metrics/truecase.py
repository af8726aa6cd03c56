"""Truecasing accuracy and P/R/F1 over cased tokens (:mod:`textqa.evaluation.truecase`; Susanto et
al. 2016's measure): a token is "cased" when it is not all lowercase; precision is over the tokens
the system cased, recall over the tokens the reference cases, F1 their harmonic mean; accuracy is
over all tokens.  Lines are whitespace-tokenized; each prediction line holds the reference line's
tokens, recased.

>>> s = Truecasing().corpus_score(["The US and new York ."], ["The US and New York ."])
>>> s.accuracy, s.precision, s.recall, round(s.f1, 2)
(83.33, 100.0, 75.0, 85.71)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from textqa.evaluation.truecase import f1_of_counts, score_truecase
from textqa.runtime.metric import SegmentMetric
from textqa.runtime.metric_input import MetricInputError, signature, text_of, texts


@dataclass(frozen=True)
class TruecaseScore:
    """Percentages (rounded to 2 decimals for display; ``f1`` exact), the token count and the
    confusion table of case classes (LC, UC, CA, MC: {reference class: {predicted class: n}});
    ``details``: the counts behind them, with the first ``errors`` wrong tokens (``details.errors``)."""
    accuracy: float
    precision: float
    recall: float
    f1: float
    tokens: int
    confusion: dict
    details: object = field(default=None, repr=False, compare=False)


class Truecasing(SegmentMetric):
    """Scores recased lines against the reference's (see the module)."""

    name = "truecase"

    @property
    def signature(self) -> str:
        return signature("truecase-prf", tok="whitespace")

    def sentence_score(self, prediction: str, reference: str) -> TruecaseScore:
        """The scores of one recased line against the reference's."""
        return self.corpus_score([text_of(prediction, "prediction")], [text_of(reference, "reference")])

    def segment_statistics(self, predictions, references) -> dict:
        """{"truecase-F1": (stats, score)}: each line's tokens cased correctly, cased by the system and
        cased in the reference, and the F1 of summed rows (what :mod:`textqa.metrics.significance`
        resamples)."""
        pred, gold = self._checked(predictions, references)
        stats = np.array([[s.correct_cased, s.proposed, s.gold_cased]
                          for s in (score_truecase([g], [p], keep_errors=0) for g, p in zip(gold, pred))],
                         dtype=float).reshape(-1, 3)

        return {"truecase-F1": (stats, f1_of_counts)}

    def _checked(self, predictions, references) -> tuple[list, list]:
        pred, gold = texts(predictions, "predictions"), texts(references, "references")
        if len(pred) != len(gold):
            raise MetricInputError(f"{len(pred)} predictions but {len(gold)} references: give one line of each")
        for i, (p, g) in enumerate(zip(pred, gold)):
            pt, gt = p.split(), g.split()
            if len(pt) != len(gt):
                raise MetricInputError(f"predictions[{i}]: {len(pt)} tokens, but references[{i}] has {len(gt)}")
            for k, (a, b) in enumerate(zip(pt, gt)):
                if a.lower() != b.lower():
                    raise MetricInputError(f"predictions[{i}]: token {k + 1} {a!r} is not a casing of {b!r}")
        return pred, gold

    def corpus_score(self, predictions, references, errors: int = 0) -> TruecaseScore:
        """Scores recased ``predictions`` against ``references``, one line each; ``errors``: keep so
        many wrong tokens (line, position, reference and predicted token) in ``details.errors``."""
        pred, gold = self._checked(predictions, references)
        s = score_truecase(gold, pred, keep_errors=errors)
        return TruecaseScore(round(s.accuracy, 2), round(s.precision, 2), round(s.recall, 2), s.f1, s.tokens,
                             s.confusion, s)
