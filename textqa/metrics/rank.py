"""Ranking measures with trec_eval's conventions (:mod:`textqa.evaluation.rank`: MAP, reciprocal rank,
P@k and R-precision, equal to trec_eval 9.0), on Python dictionaries in pytrec_eval's layout:

* ``qrels``: ``{query id: {document id: relevance level}}``;
* ``run``: ``{query id: {document id: score}}`` (higher is better; ties go to the larger document
  id, as trec_eval breaks them).

Only queries in both are evaluated, their ids compared as strings.

>>> qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d1": 0.5, "d2": 0.4}}
>>> result = TrecEval(ks=(1, 2)).score(qrels, run)
>>> round(result.map, 4), result.recip_rank, result.precision_at
(0.6667, 0.75, {1: 0.5, 2: 0.5})
"""
from __future__ import annotations

from dataclasses import dataclass

from textqa.evaluation.rank import score_run
from textqa.runtime.metric import SetMetric
from textqa.runtime.metric_input import MetricInputError, signature


@dataclass(frozen=True)
class RankScore:
    """The means over the evaluated queries (``map``, ``recip_rank``, ``r_precision``, ``precision_at``
    {k: P@k}), the totals trec_eval prints, and each query's values (``per_query``)."""
    map: float
    recip_rank: float
    r_precision: float
    precision_at: dict
    queries: int
    retrieved: int
    relevant: int
    relevant_retrieved: int
    per_query: dict


class TrecEval(SetMetric):
    """trec_eval's MAP, reciprocal rank (``mrr_cutoff``: counted only within the top N), P@k at ``ks``
    and R-precision; a document is relevant at ``relevance_level`` or above."""

    name = "trec_eval"

    def __init__(self, ks=(5, 10), relevance_level: int = 1, mrr_cutoff: int | None = None):
        try:
            self.ks = tuple(sorted({int(k) for k in ks}))
        except (TypeError, ValueError):
            raise MetricInputError(f"ks must be positive integers, not {ks!r}") from None
        if not self.ks or self.ks[0] < 1:
            raise MetricInputError(f"ks must be positive integers, not {ks!r}")
        if not isinstance(relevance_level, int) or isinstance(relevance_level, bool):
            raise MetricInputError(f"relevance_level must be an integer, not {relevance_level!r}")
        if mrr_cutoff is not None and (not isinstance(mrr_cutoff, int) or mrr_cutoff < 1):
            raise MetricInputError(f"mrr_cutoff must be a positive integer or None, not {mrr_cutoff!r}")
        self.relevance_level, self.mrr_cutoff = relevance_level, mrr_cutoff

    @property
    def signature(self) -> str:
        return signature(self.name, k=",".join(map(str, self.ks)), level=self.relevance_level,
                         mrr_cutoff=self.mrr_cutoff or "none")

    def score(self, qrels: dict, run: dict) -> RankScore:
        q = _checked(qrels, "qrels", int)
        s = score_run(q, _checked(run, "run", float), ks=self.ks, relevance_level=self.relevance_level, mrr_cutoff=self.mrr_cutoff)
        return RankScore(s.mean("map"), s.mean("recip_rank"), s.mean("Rprec"), {k: s.mean(f"P_{k}") for k in self.ks},
                         s.num_q, s.num_ret, s.num_rel, s.num_rel_ret, s.per_query)


def _checked(table, what: str, kind) -> dict:
    """``{str: {str: number}}``, or a :class:`MetricInputError` naming the entry that is not."""
    if not isinstance(table, dict):
        raise MetricInputError(f"{what} is {type(table).__name__}: give {{query id: {{document id: value}}}}")
    out = {}
    for qid, docs in table.items():
        if not isinstance(docs, dict):
            raise MetricInputError(f"{what}[{qid!r}] is {type(docs).__name__}: give {{document id: value}}")
        row = {}
        for doc, value in docs.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    (kind is int and not float(value).is_integer()) or value != value:
                raise MetricInputError(f"{what}[{qid!r}][{doc!r}] is {value!r}: give "
                                       f"{'an integer relevance level' if kind is int else 'a number'}")
            row[str(doc)] = kind(value)
        out[str(qid)] = row
    return out
