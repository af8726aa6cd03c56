"""Scoring in Python: each scorer is an object whose parameters are its constructor's arguments,
with ``sentence_score`` / ``corpus_score`` (or ``score``), a result object holding the score and its
parts, and a ``signature`` naming the scorer, every parameter and the version.

>>> from textqa.metrics import WER
>>> WER().corpus_score(["the cat sat on mat"], ["the cat sat on the mat"]).score
0.1667

The command line (``textqa eval``) reads the tools' file formats and computes through the same
objects.  Bad input raises :class:`MetricInputError` (a ``ValueError``) naming the argument and item.
"""
from textqa.models.blanc.metric import BLANC, BLANCParams, BLANCScore
from textqa.runtime.metric_input import MetricInputError

from .agreement import AlphaScore, KrippendorffAlpha
from .aqwv import AQWV, AQWVScore, QueryValue
from .cpa import CPA, CPAScore
from .mteval import BLEU, NIST, BLEUScore, NISTScore
from .nuggets import Nuggeteer, NuggetScores, RunNuggets
from .rank import RankScore, TrecEval
from .rouge import ROUGE, RougeScore
from .significance import PairedResult, approximate_randomization, paired_bootstrap
from .truecase import TruecaseScore, Truecasing
from .wer import CER, WER, WERScore

__all__ = ["AQWV", "AQWVScore", "AlphaScore", "BLANC", "BLANCParams", "BLANCScore", "BLEU", "BLEUScore", "CER", "CPA",
           "CPAScore", "KrippendorffAlpha", "MetricInputError", "NIST", "NISTScore", "NuggetScores", "Nuggeteer",
           "PairedResult", "QueryValue", "ROUGE", "RankScore", "RougeScore", "RunNuggets", "TrecEval", "TruecaseScore",
           "Truecasing", "WER", "WERScore", "approximate_randomization", "paired_bootstrap"]
