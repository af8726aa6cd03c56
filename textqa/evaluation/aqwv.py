"""MATERIAL AQWV (IARPA MATERIAL OP1 evaluation plan, NIST, sections 3-4 and 6.2-6.4).

Per query, with X1 true positives, X2 misses, X3 false alarms, X4 true negatives:

* QV = 1 - (P_Miss + beta P_FA) = 1 - (X2/(X1+X2) + beta X3/(X3+X4))      (eq. 1 / 1')
* QWV = mean of QV over queries                                            (eq. 2)
  P_Miss is undefined for a query with no relevant document; such queries are
  left out of this plain QWV (reported as ``aqwv``, over ``NQ_relevant`` queries).
* Modified QWV = 1 - (mean P_Miss over queries with relevant documents
  + beta * mean P_FA over all queries)                                      (eq. 3)
  This is the plan's primary metric (``modified_aqwv``).
* E2E: QV_E2E = 1 - ((X2 + r1/K)/(X1+X2) + beta (X3 - r2/K)/(X3+X4))       (eq. 5)

beta defaults to 40 (table 1).  The "actual" value uses the system's own Y/N
decisions; the best threshold over the system's confidence values (Y iff
confidence >= threshold) and its modified QWV are reported beside it.  Text
and speech are scored separately and averaged with equal weight (section 3).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from textqa.errors import InputError
from textqa.runtime.files import read_lines

DEFAULT_BETA = 40.0
CONFIDENCE = re.compile(r"^[0-9]\.[0-9]{1,5}$")       # section 6.4: one digit, point, 1-5 digits


@dataclass(frozen=True)
class Counts:
    x1: int   # true positives
    x2: int   # misses
    x3: int   # false alarms
    x4: int   # true negatives

    @property
    def p_miss(self) -> float | None:
        rel = self.x1 + self.x2
        return self.x2 / rel if rel else None

    @property
    def p_fa(self) -> float:
        non = self.x3 + self.x4
        return self.x3 / non if non else 0.0


def query_value(c: Counts, beta: float = DEFAULT_BETA) -> float | None:
    """QV (eq. 1'); None when the query has no relevant document (P_Miss undefined)."""
    return None if c.p_miss is None else 1.0 - (c.p_miss + beta * c.p_fa)


def query_weighted_value(counts: list[Counts], beta: float = DEFAULT_BETA) -> float:
    """QWV (eq. 2) over the queries where QV is defined."""
    values = [v for v in (query_value(c, beta) for c in counts) if v is not None]
    return sum(values) / len(values) if values else 0.0


def modified_query_weighted_value(counts: list[Counts], beta: float = DEFAULT_BETA) -> float:
    """QWV_M (eq. 3): P_Miss averaged over queries with relevant documents, P_FA over all queries."""
    misses = [c.p_miss for c in counts if c.p_miss is not None]
    p_miss = sum(misses) / len(misses) if misses else 0.0
    p_fa = sum(c.p_fa for c in counts) / len(counts) if counts else 0.0
    return 1.0 - (p_miss + beta * p_fa)


def e2e_query_value(c: Counts, r1: float, r2: float, k: int = 1, beta: float = DEFAULT_BETA) -> float | None:
    """QV_E2E (eq. 5): r1 judgments turn true positives into misses, r2 false alarms into true negatives."""
    if not (0 <= r1 <= k * c.x1 and 0 <= r2 <= k * c.x3):
        raise ValueError(f"need 0 <= r1 <= K*X1 and 0 <= r2 <= K*X3, got r1={r1}, r2={r2}, K={k}, {c}")
    rel, non = c.x1 + c.x2, c.x3 + c.x4
    if not rel:
        return None
    return 1.0 - ((c.x2 + r1 / k) / rel + beta * ((c.x3 - r2 / k) / non if non else 0.0))


# ------------------------------------------------------------------ files (section 6.2-6.4)
def read_reference(path: Path) -> dict[str, bool]:
    ref: dict[str, bool] = {}
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2 or parts[1] not in ("Y", "N"):
            raise InputError(f"{path}:{lineno}: expected 'DocID<TAB>Y|N'")
        if parts[0] in ref:
            raise InputError(f"{path}:{lineno}: document {parts[0]} listed twice")
        ref[parts[0]] = parts[1] == "Y"
    return ref


def read_system(path: Path) -> dict[str, tuple[bool, float, int]]:
    """DocID -> (decision, confidence, line number)."""
    out: dict[str, tuple[bool, float, int]] = {}
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) not in (3, 4):
            raise InputError(f"{path}:{lineno}: expected 'DocID<TAB>Y|N<TAB>confidence[<TAB>metadata]'")
        doc, decision, conf = parts[:3]
        if decision not in ("Y", "N"):
            raise InputError(f"{path}:{lineno}: decision must be Y or N, got {decision!r}")
        if not CONFIDENCE.match(conf) or float(conf) > 1.0:
            raise InputError(f"{path}:{lineno}: confidence {conf!r} is not one digit, a point and 1-5 digits "
                                 f"in [0.0, 1.0] (plan section 6.4)")
        if doc in out:
            raise InputError(f"{path}:{lineno}: document {doc} listed twice (first at line {out[doc][2]})")
        out[doc] = (decision == "Y", float(conf), lineno)
    return out


@dataclass
class ModeResult:
    aqwv: float
    modified_aqwv: float
    best_qwv: float
    best_threshold: float
    queries: dict

    def as_dict(self, beta: float) -> dict:
        # best_threshold null: the best is to return nothing (a threshold above every confidence)
        return {"aqwv": self.aqwv, "modified_aqwv": self.modified_aqwv, "best_qwv": self.best_qwv,
                "best_threshold": None if math.isinf(self.best_threshold) else self.best_threshold,
                "beta": beta, "queries": self.queries}


def read_folders(ref_dir: Path, sys_dir: Path) -> tuple[dict, dict]:
    """One mode's ``<QueryID>.tsv`` reference and system files (plan section 6.2-6.3), checked, as
    ({query: {doc: relevant}}, {query: {doc: (decision, confidence)}}); errors name the file and line."""
    ref_dir, sys_dir = Path(ref_dir), Path(sys_dir)
    for d in (ref_dir, sys_dir):
        if not d.is_dir():
            raise InputError(f"{d}: not a folder")
    ref_files = sorted(ref_dir.glob("*.tsv"))
    if not ref_files:
        raise InputError(f"{ref_dir}: no <QueryID>.tsv reference files")
    references, decisions = {}, {}
    max_no, min_yes = None, None          # consistency across the whole submission (section 6.4)
    for rf in ref_files:
        qid = rf.stem
        sf = sys_dir / rf.name
        if not sf.is_file():
            raise InputError(f"{sf}: missing system file for reference query {qid}")
        ref, sysout = read_reference(rf), read_system(sf)
        missing = [d for d in ref if d not in sysout]
        if missing:
            raise InputError(f"{sf}: {len(missing)} reference document(s) missing, e.g. {missing[0]}")
        extra = [d for d in sysout if d not in ref]
        if extra:
            raise InputError(f"{sf}:{sysout[extra[0]][2]}: document {extra[0]} is not in the reference {rf}")
        for yes, conf, lineno in sysout.values():
            if yes and (min_yes is None or conf < min_yes[0]):
                min_yes = (conf, sf, lineno)
            if not yes and (max_no is None or conf > max_no[0]):
                max_no = (conf, sf, lineno)
        references[qid] = ref
        decisions[qid] = {doc: (yes, conf) for doc, (yes, conf, _) in sysout.items()}
    if max_no and min_yes and max_no[0] > min_yes[0]:
        raise InputError(f"{max_no[1]}:{max_no[2]}: inconsistent confidence: an N decision at {max_no[0]} is "
                             f"higher than a Y decision at {min_yes[0]} ({min_yes[1]}:{min_yes[2]})")
    extra_files = sorted(p.name for p in sys_dir.glob("*.tsv") if not (ref_dir / p.name).exists())
    if extra_files:
        raise InputError(f"{sys_dir / extra_files[0]}: no reference file for this query")
    return references, decisions


def score_folders(ref_dir: Path, sys_dir: Path, beta: float = DEFAULT_BETA) -> ModeResult:
    """Score one mode's folders (:func:`read_folders`, then :func:`score_decisions`)."""
    return score_decisions(*read_folders(ref_dir, sys_dir), beta)


def score_decisions(references: dict, decisions: dict, beta: float = DEFAULT_BETA) -> ModeResult:
    """Score checked judgements: ``references`` {query: {doc: relevant}}, ``decisions`` {query: {doc:
    (decision, confidence)}} over the same documents."""
    def counts_at(decide) -> dict[str, Counts]:
        out = {}
        for qid, ref in references.items():
            sysout = decisions[qid]
            x = [0, 0, 0, 0]
            for doc, rel in ref.items():
                yes = decide(sysout[doc])
                x[(0 if yes else 1) if rel else (2 if yes else 3)] += 1
            out[qid] = Counts(*x)
        return out

    thresholds = {conf for sysout in decisions.values() for _, conf in sysout.values()}
    return _mode_result(counts_at(lambda s: s[0]), lambda t: counts_at(lambda s: s[1] >= t), thresholds, beta)


def _mode_result(actual: dict[str, Counts], counts_at_threshold, thresholds, beta: float) -> ModeResult:
    """Actual (Q)WV values, per-query report and the best threshold (highest modified QWV)."""
    queries = {q: {"p_miss": c.p_miss, "p_fa": c.p_fa, "qv": query_value(c, beta),
                   "x1": c.x1, "x2": c.x2, "x3": c.x3, "x4": c.x4} for q, c in actual.items()}
    best_qwv, best_t = None, None
    for t in sorted(set(thresholds)) + [math.inf]:          # inf: return nothing
        v = modified_query_weighted_value(list(counts_at_threshold(t).values()), beta)
        if best_qwv is None or v > best_qwv:
            best_qwv, best_t = v, t
    return ModeResult(query_weighted_value(list(actual.values()), beta),
                      modified_query_weighted_value(list(actual.values()), beta), best_qwv, best_t, queries)


def score_trec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], threshold: float,
               collection_size: int, beta: float = DEFAULT_BETA) -> ModeResult:
    """AQWV from TREC qrels and a ranked run: documents scored >= ``threshold`` count as returned.

    Queries are those of the qrels (ids as strings, as trec_eval).  Unjudged documents
    count as non-relevant; N_NonRelevant = ``collection_size`` - N_Relevant (the plan's
    N_Total), so the collection size must be given.
    """
    if collection_size <= 0:
        raise ValueError("collection_size must be positive")
    relevant = {q: {d for d, r in docs.items() if r > 0} for q, docs in qrels.items()}
    for q, rel in relevant.items():
        if len(rel) > collection_size:
            raise ValueError(f"query {q} has {len(rel)} relevant documents, more than the collection size "
                             f"{collection_size}")

    def counts_at(t: float) -> dict[str, Counts]:
        out = {}
        for q, rel in relevant.items():
            returned = {d for d, score in run.get(q, {}).items() if score >= t}
            x1 = len(returned & rel)
            x3 = len(returned - rel)
            out[q] = Counts(x1, len(rel) - x1, x3, collection_size - len(rel) - x3)
        return out

    thresholds = {score for q in relevant for score in run.get(q, {}).values()}
    return _mode_result(counts_at(threshold), counts_at, thresholds, beta)


def mode_average(values: list[dict]) -> dict:
    """The equal-weight average of each measure over the modes scored on their own (text and speech;
    MATERIAL evaluation plan, section 3): ``values`` one ``{measure: value}`` per mode."""
    return {k: sum(v[k] for v in values) / len(values) for k in values[0]}
