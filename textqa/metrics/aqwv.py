"""MATERIAL's query-weighted value (IARPA MATERIAL OP1 evaluation plan, NIST;
:mod:`textqa.evaluation.aqwv`): AQWV (eq. 2) and modified AQWV (eq. 3, the plan's primary
measure), with the best threshold over the system's confidences.

Per query, with X1 true positives, X2 misses, X3 false alarms and X4 true negatives,
QV = 1 - (X2 / (X1 + X2) + beta X3 / (X3 + X4)) (eq. 1'); AQWV is the mean QV over the queries with a
relevant document (P_Miss is undefined for the others); modified AQWV is 1 - (mean P_Miss over those
queries + beta x mean P_FA over every query).  ``beta`` is 40 (table 1).

``references`` is {query: {document: relevant}}; ``decisions`` {query: {document: (returned,
confidence)}} over the same documents, confidences in [0, 1], and no document left out at a higher
confidence than one returned (plan section 6.4).

>>> references = {"q1": {"d1": True, "d2": False, "d3": False, "d4": True}}
>>> decisions = {"q1": {"d1": (True, 0.9), "d2": (False, 0.2), "d3": (False, 0.3), "d4": (False, 0.4)}}
>>> s = AQWV().score(references, decisions)
>>> s.aqwv, s.modified_aqwv, s.queries["q1"].p_miss
(0.5, 0.5, 0.5)
>>> s.best_qwv, s.best_threshold                      # returning d4 too (confidence >= 0.4)
(1.0, 0.4)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from textqa.evaluation.aqwv import DEFAULT_BETA, mode_average, score_decisions, score_trec
from textqa.runtime.metric import SetMetric
from textqa.runtime.metric_input import MetricInputError, signature

from .rank import _checked


@dataclass(frozen=True)
class QueryValue:
    """One query's counts (``x1`` true positives, ``x2`` misses, ``x3`` false alarms, ``x4`` true
    negatives), its P_Miss (None without a relevant document), P_FA and QV (None likewise)."""
    x1: int
    x2: int
    x3: int
    x4: int
    p_miss: float | None
    p_fa: float
    value: float | None


@dataclass(frozen=True)
class AQWVScore:
    """``aqwv`` (eq. 2) and ``modified_aqwv`` (eq. 3) of the system's own decisions; ``best_qwv``,
    the modified AQWV at ``best_threshold`` (returning every document at or above that confidence;
    None: returning nothing is best); ``queries`` {query: :class:`QueryValue`}."""
    aqwv: float
    modified_aqwv: float
    best_qwv: float
    best_threshold: float | None
    queries: dict

    def as_dict(self) -> dict:
        """The command line's ``--json`` shape."""
        return {"aqwv": self.aqwv, "modified_aqwv": self.modified_aqwv, "best_qwv": self.best_qwv,
                "best_threshold": self.best_threshold,
                "queries": {q: {"p_miss": v.p_miss, "p_fa": v.p_fa, "qv": v.value, "x1": v.x1, "x2": v.x2,
                                "x3": v.x3, "x4": v.x4} for q, v in self.queries.items()}}


def _score(result) -> AQWVScore:
    return AQWVScore(result.aqwv, result.modified_aqwv, result.best_qwv,
                     None if math.isinf(result.best_threshold) else result.best_threshold,
                     {q: QueryValue(v["x1"], v["x2"], v["x3"], v["x4"], v["p_miss"], v["p_fa"], v["qv"])
                      for q, v in result.queries.items()})


class AQWV(SetMetric):
    """AQWV and modified AQWV with false-alarm weight ``beta`` (see the module)."""

    name = "AQWV"

    def __init__(self, beta: float = DEFAULT_BETA):
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not 0 <= beta < math.inf:
            raise MetricInputError(f"beta must be a number >= 0, not {beta!r}")
        self.beta = float(beta)

    @property
    def signature(self) -> str:
        return signature("AQWV", beta=f"{self.beta:g}", plan="MATERIAL-OP1")

    def score(self, references: dict, decisions: dict) -> AQWVScore:
        """Scores the system's ``decisions`` against ``references`` (see the module)."""
        refs, decs = _mapping(references, "references"), _mapping(decisions, "decisions")
        if not refs:
            raise MetricInputError("references: no query")
        for q in decs:
            if q not in refs:
                raise MetricInputError(f"decisions[{q!r}]: no such query in references")
        max_no = min_yes = None
        checked = {}
        for q, ref in refs.items():
            ref = _mapping(ref, f"references[{q!r}]")
            if q not in decs:
                raise MetricInputError(f"decisions: query {q!r} of references is missing")
            dec = _mapping(decs[q], f"decisions[{q!r}]")
            for d, rel in ref.items():
                if not isinstance(rel, bool):
                    raise MetricInputError(f"references[{q!r}][{d!r}] is {rel!r}: give True (relevant) or False")
                if d not in dec:
                    raise MetricInputError(f"decisions[{q!r}]: document {d!r} of the reference is missing")
            out = {}
            for d, v in dec.items():
                where = f"decisions[{q!r}][{d!r}]"
                if d not in ref:
                    raise MetricInputError(f"{where}: document not in references[{q!r}]")
                if (not isinstance(v, (tuple, list)) or len(v) != 2 or not isinstance(v[0], bool)
                        or isinstance(v[1], bool) or not isinstance(v[1], (int, float)) or not 0 <= v[1] <= 1):
                    raise MetricInputError(f"{where} is {v!r}: give (returned: bool, confidence in [0, 1])")
                yes, conf = v[0], float(v[1])
                if yes and (min_yes is None or conf < min_yes[0]):
                    min_yes = (conf, where)
                if not yes and (max_no is None or conf > max_no[0]):
                    max_no = (conf, where)
                out[d] = (yes, conf)
            checked[q] = (ref, out)
        if max_no and min_yes and max_no[0] > min_yes[0]:
            raise MetricInputError(f"{max_no[1]}: inconsistent confidence: not returned at {max_no[0]}, higher than "
                                   f"{min_yes[1]}, returned at {min_yes[0]}")
        return _score(score_decisions({q: r for q, (r, _) in checked.items()},
                                      {q: d for q, (_, d) in checked.items()}, self.beta))

    @staticmethod
    def average(scores: dict) -> dict:
        """{"aqwv", "modified_aqwv", "best_qwv"}: the equal-weight average of modes scored on their own
        (text and speech, plan section 3), as ``{mode: AQWVScore}``."""
        if not scores:
            raise MetricInputError("average: no mode")
        return mode_average([{"aqwv": s.aqwv, "modified_aqwv": s.modified_aqwv, "best_qwv": s.best_qwv}
                             for s in scores.values()])


def _mapping(value, what: str) -> dict:
    if not isinstance(value, dict):
        raise MetricInputError(f"{what} is {type(value).__name__}, not a dict")
    return value


class RankedAQWV(SetMetric):
    """AQWV of a ranked run (a TREC run file's scores), cut at ``threshold``: documents scored at or
    above it count as returned, unjudged ones as not relevant, and ``collection_size`` documents make
    P_FA's denominator (the plan's N_Total); ``beta`` as :class:`AQWV`'s."""

    name = "AQWV-ranked"

    def __init__(self, threshold: float, collection_size: int, beta: float = DEFAULT_BETA):
        if isinstance(collection_size, bool) or not isinstance(collection_size, int) or collection_size < 1:
            raise MetricInputError(f"collection_size must be a positive integer, not {collection_size!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
            raise MetricInputError(f"threshold must be a finite number, not {threshold!r}")
        self.threshold, self.collection_size, self.beta = float(threshold), collection_size, AQWV(beta).beta

    @property
    def signature(self) -> str:
        return signature("AQWV-ranked", beta=f"{self.beta:g}", threshold=f"{self.threshold:g}",
                         collection=self.collection_size, plan="MATERIAL-OP1")

    def score(self, qrels: dict, run: dict) -> AQWVScore:
        """AQWV of ``run`` {query: {document: score}} against ``qrels`` {query: {document: relevance
        level}} (relevant: level > 0)."""
        qrels, run = _checked(qrels, "qrels", int), _checked(run, "run", float)
        try:
            return _score(score_trec(qrels, run, self.threshold, self.collection_size, self.beta))
        except (TypeError, ValueError) as e:
            raise MetricInputError(str(e)) from None
