"""The shapes every scorer of :mod:`textqa.metrics` has, so that the code that uses one asks nothing
about it (sacrebleu's ``metrics/base.py`` is the model).

* :class:`Metric`: a ``name`` and a ``signature`` naming the scorer, every parameter and the version.
  Parameters are constructor arguments.
* :class:`SegmentMetric`, a :class:`Metric` over segments (WER, CER, BLEU, NIST, ROUGE, BLANC,
  truecasing): ``sentence_score(hypothesis, references)``, ``corpus_score(hypotheses, references)``,
  and ``segment_statistics(hypotheses, references)`` -- ``{measure: (stats, score)}``, one row of
  additive statistics per segment and the function that makes the corpus score of summed rows (rows
  of resamples at once), which :mod:`textqa.metrics.significance` resamples.
* :class:`SetMetric`, a :class:`Metric` over sets, rankings or annotations (trec_eval, AQWV,
  Nuggeteer, CPA, Krippendorff's alpha): one method, ``score(...)``, whose arguments are the scorer's
  inputs (a qrels and a run, a key and runs, annotations).

The classes are ``typing.Protocol`` classes, checkable at run time, and every scorer names its shape
as a base class.  They live below the models so that BLANC, defined with its model, is a
:class:`SegmentMetric` as the others are; :mod:`textqa.metrics` exports them.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Metric(Protocol):
    """A scorer: its ``name`` and its ``signature``."""

    name: str

    @property
    def signature(self) -> str:
        """``NAME|key:value|...|version:textqa-X`` (:func:`textqa.runtime.metric_input.signature`)."""
        ...


@runtime_checkable
class SegmentMetric(Metric, Protocol):
    """A scorer of segments, each hypothesis against its references (see the module)."""

    def sentence_score(self, hypothesis, references) -> Any:
        """The score of one segment."""
        ...

    def corpus_score(self, hypotheses, references) -> Any:
        """The score of a corpus of segments, one hypothesis and its references each, in order."""
        ...

    def segment_statistics(self, hypotheses, references) -> dict:
        """``{measure: (stats, score)}``: per-segment additive statistics and the corpus score of their sums."""
        ...


@runtime_checkable
class SetMetric(Metric, Protocol):
    """A scorer of sets, rankings or annotations: one method, ``score``."""

    def score(self, *inputs, **options) -> Any:
        """The score of the inputs the scorer reads (see each scorer)."""
        ...


Metric.__module__ = SegmentMetric.__module__ = SetMetric.__module__ = "textqa.metrics"
