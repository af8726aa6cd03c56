"""Scoring in Python: each scorer is a :class:`Metric`, an object whose parameters are its
constructor's arguments, with a result object holding the score and its parts, and a ``signature``
naming the scorer, every parameter and the version.  A scorer of segments (:class:`SegmentMetric`:
WER, CER, BLEU, NIST, ROUGE, BLANC, truecasing) has ``sentence_score``, ``corpus_score`` and
``segment_statistics`` (which :func:`paired_bootstrap` and :func:`approximate_randomization`
resample); a scorer of sets, rankings or annotations (:class:`SetMetric`: trec_eval, AQWV and AQWV of a ranked run, Nuggeteer,
CPA, Krippendorff's alpha) has ``score``.

>>> from textqa.metrics import WER
>>> WER().corpus_score(["the cat sat on mat"], ["the cat sat on the mat"]).score
0.1667

The command line (``textqa eval``) reads the tools' file formats and computes through the same
objects.  Bad input raises :class:`MetricInputError` (a ``ValueError``) naming the argument and item.

Where the code lives: each scorer's computation is in :mod:`textqa.evaluation`, beside the readers
and writers of its official file formats (STM/CTM, mteval SGML, ROUGE configurations, TREC runs,
NIST keys), below the models so that training can score with it; this package holds the objects
users import (parameters, input checks, result types, signatures) and computes nothing of its own.
Neither imports the other's private names.
"""
from textqa.models.blanc.metric import BLANC, BLANCParams, BLANCScore
from textqa.runtime.metric import Metric, SegmentMetric, SetMetric
from textqa.runtime.metric_input import MetricInputError

from .agreement import AlphaScore, KrippendorffAlpha
from .aqwv import AQWV, AQWVScore, QueryValue, RankedAQWV
from .cpa import CPA, CPAScore
from .mteval import BLEU, NIST, BLEUScore, NISTScore
from .nuggets import Nuggeteer, NuggetScores, RunNuggets
from .rank import RankScore, TrecEval
from .rouge import ROUGE, RougeScore
from .significance import PairedResult, approximate_randomization, paired_bootstrap
from .truecase import TruecaseScore, Truecasing
from .wer import CER, WER, WERScore

__all__ = ["AQWV", "AQWVScore", "AlphaScore", "BLANC", "BLANCParams", "BLANCScore", "BLEU", "BLEUScore", "CER", "CPA",
           "CPAScore", "KrippendorffAlpha", "Metric", "MetricInputError", "NIST", "NISTScore", "NuggetScores", "Nuggeteer",
           "PairedResult", "QueryValue", "ROUGE", "RankedAQWV", "RankScore", "RougeScore", "RunNuggets", "SegmentMetric", "SetMetric", "TrecEval", "TruecaseScore",
           "Truecasing", "WER", "WERScore", "approximate_randomization", "paired_bootstrap"]
