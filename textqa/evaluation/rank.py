"""Ranking metrics from TREC qrels and run files, with trec_eval's conventions.

MAP, reciprocal rank (MRR; optional cutoff), P@k and R-precision as computed by
``trec_eval`` 9.x (Buckley; NIST):

* query ids are compared as strings (``01`` is not ``1``);
* only queries present in both the run and the qrels are evaluated (``num_q``);
* a run's documents are ordered by score, descending, ties broken by document id
  descending (string order); the rank column is ignored;
* a document is relevant when its qrels level is >= ``relevance_level`` (1);
* AP = (sum of precision at each relevant retrieved document) / (relevant documents
  of the query); P@k divides by k even when fewer documents were retrieved;
  R-precision is precision at rank R = number of relevant documents.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from textqa.errors import InputError
from textqa.runtime.files import read_lines


class RankInputError(InputError):
    """A qrels or run file is malformed; the message names file and line."""


def read_qrels(path) -> dict[str, dict[str, int]]:
    """``qid iter docno rel`` per line -> {qid: {docno: rel}}."""
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for lineno, parts in _lines(path):
        if len(parts) != 4:
            raise RankInputError(f"{path}:{lineno}: expected 4 columns 'qid iter docno rel', got {len(parts)}")
        qid, _, doc, rel = parts
        try:
            qrels[qid][doc] = int(rel)
        except ValueError:
            raise RankInputError(f"{path}:{lineno}: relevance {rel!r} is not an integer") from None
    return dict(qrels)


def read_run(path) -> dict[str, dict[str, float]]:
    """``qid Q0 docno rank score tag`` per line -> {qid: {docno: score}} (pytrec_eval's layout)."""
    run: dict[str, dict[str, float]] = defaultdict(dict)
    seen: dict[tuple[str, str], int] = {}
    for lineno, parts in _lines(path):
        if len(parts) != 6:
            raise RankInputError(f"{path}:{lineno}: expected 6 columns 'qid Q0 docno rank score tag', "
                                 f"got {len(parts)}")
        qid, _, doc, _, score, _ = parts
        try:
            s = float(score)
        except ValueError:
            raise RankInputError(f"{path}:{lineno}: score {score!r} is not a number") from None
        if (qid, doc) in seen:
            raise RankInputError(f"{path}:{lineno}: document {doc} repeated for query {qid} "
                                 f"(first at line {seen[(qid, doc)]})")
        seen[(qid, doc)] = lineno
        run[qid][doc] = s
    return dict(run)


def _lines(path):
    for lineno, line in enumerate(read_lines(path), start=1):
        parts = line.split()
        if parts:
            yield lineno, parts


def trec_order(docs: dict[str, float]) -> list[str]:
    """trec_eval's ranking of {document: score}: score descending, then document id descending."""
    return [d for d, _ in sorted(docs.items(), key=lambda ds: (ds[1], ds[0]), reverse=True)]


@dataclass
class RankScores:
    per_query: dict = field(default_factory=dict)
    num_q: int = 0
    num_ret: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0

    def mean(self, key: str) -> float:
        return sum(q[key] for q in self.per_query.values()) / self.num_q if self.num_q else 0.0

    def as_dict(self, ks=(5, 10)) -> dict:
        out = {"map": self.mean("map"), "recip_rank": self.mean("recip_rank"), "Rprec": self.mean("Rprec")}
        for k in ks:
            out[f"P_{k}"] = self.mean(f"P_{k}")
        out.update({"num_q": self.num_q, "num_ret": self.num_ret, "num_rel": self.num_rel,
                    "num_rel_ret": self.num_rel_ret, "queries": self.per_query})
        return out


def _hits_within(hits_at: list[int], k: int) -> int:
    """Relevant documents among the first k retrieved (all retrieved when fewer than k)."""
    return hits_at[min(k, len(hits_at)) - 1] if hits_at and k > 0 else 0


def score_run(qrels: dict, run: dict, ks=(5, 10), relevance_level: int = 1,
              mrr_cutoff: int | None = None) -> RankScores:
    """Per-query and mean MAP, recip_rank, P@k and R-precision (trec_eval conventions)."""
    res = RankScores()
    for qid in sorted(run):
        if qid not in qrels:
            continue
        relevant = {d for d, r in qrels[qid].items() if r >= relevance_level}
        ranking = trec_order(run[qid])
        R = len(relevant)
        hits, ap, rr = 0, 0.0, 0.0
        hits_at = []
        for i, doc in enumerate(ranking, start=1):
            if doc in relevant:
                hits += 1
                ap += hits / i
                if rr == 0.0 and (mrr_cutoff is None or i <= mrr_cutoff):
                    rr = 1.0 / i
            hits_at.append(hits)
        q = {"map": ap / R if R else 0.0, "recip_rank": rr, "Rprec": _hits_within(hits_at, R) / R if R else 0.0,
             "num_ret": len(ranking), "num_rel": R, "num_rel_ret": hits}
        for k in ks:
            q[f"P_{k}"] = _hits_within(hits_at, k) / k
        res.per_query[qid] = q
        res.num_q += 1
        res.num_ret += len(ranking)
        res.num_rel += R
        res.num_rel_ret += hits
    return res


def format_report(scores: dict) -> str:
    keys = [k for k in scores if k != "queries"]
    return "\n".join(f"{k:<12}{scores[k]:.4f}" if isinstance(scores[k], float) else f"{k:<12}{scores[k]}"
                     for k in keys)
