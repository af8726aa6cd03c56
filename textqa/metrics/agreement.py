"""Krippendorff's alpha over set-valued annotations with MASI, Jaccard or nominal distance
(:mod:`textqa.evaluation.agreement`; Passonneau 2006), equal to NLTK's ``AnnotationTask``.

Annotations are ``(coder, unit, labels)`` triples; ``labels`` is a set of labels (a plain string is
the set of that one label).  Units coded by fewer than two coders are left out.

>>> data = [("a", "u1", {"x"}), ("b", "u1", {"x"}), ("a", "u2", {"x", "y"}), ("b", "u2", {"y"})]
>>> round(KrippendorffAlpha("masi").score(data).alpha, 4)            # NLTK AnnotationTask: 0.5
0.5
"""
from __future__ import annotations

from dataclasses import dataclass

from textqa.evaluation.agreement import DISTANCES, krippendorff_alpha
from textqa.runtime.metric import SetMetric
from textqa.runtime.metric_input import MetricInputError, signature


@dataclass(frozen=True)
class AlphaScore:
    """``alpha`` = 1 - observed / expected disagreement, with both and the counts."""
    alpha: float
    observed_disagreement: float
    expected_disagreement: float
    coders: int
    units: int
    pairable_units: int


class KrippendorffAlpha(SetMetric):
    """Krippendorff's alpha with ``distance`` ``"masi"`` (default), ``"jaccard"`` or ``"nominal"``."""

    name = "alpha"

    def __init__(self, distance: str = "masi"):
        if distance not in DISTANCES:
            raise MetricInputError(f"distance must be one of {', '.join(DISTANCES)}, not {distance!r}")
        self.distance = distance

    @property
    def signature(self) -> str:
        return signature("krippendorff-alpha", distance=self.distance)

    def score(self, annotations) -> AlphaScore:
        data, seen = [], set()
        for i, item in enumerate(annotations):
            if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 3:
                raise MetricInputError(f"annotations[{i}] is {item!r}: give a (coder, unit, labels) triple")
            coder, unit, labels = item
            if (coder, unit) in seen:
                raise MetricInputError(f"annotations[{i}]: coder {coder!r} already coded unit {unit!r}")
            seen.add((coder, unit))
            if isinstance(labels, str):
                labels = {labels}
            try:
                data.append((coder, unit, frozenset(labels)))
            except TypeError:
                raise MetricInputError(f"annotations[{i}]: labels {labels!r} are not a set of labels") from None
        try:
            r = krippendorff_alpha(data, self.distance)
        except ValueError as e:
            raise MetricInputError(str(e)) from None
        return AlphaScore(r["alpha"], r["observed_disagreement"], r["expected_disagreement"], r["coders"], r["units"],
                          r["pairable_units"])
