"""MT metric baselines and their correlation with human judgments.

Input: the TSV layout of the WMT files in ``data/mt/`` (header line, tab-separated):
``lang_pair seg_id system source reference hypothesis human_score``.

Baselines come from well-kept libraries: sentence/corpus BLEU and chrF from sacrebleu,
ROUGE-L as ROUGE-1.5.5 computes it (textqa.evaluation.rouge).  Correlations are computed per language pair and then
averaged over pairs (not pooled: each pair has its own annotators and score scale).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from textqa.errors import InputError
from textqa.runtime.files import decode, read_bytes

from .stats import kendall_tau_b, pearson, spearman

COLUMNS = ("lang_pair", "seg_id", "system", "source", "reference", "hypothesis", "human_score")


@dataclass(frozen=True)
class MTRow:
    lang_pair: str
    seg_id: str
    system: str
    source: str
    reference: str
    hypothesis: str
    human_score: float | None      # None for NA
    line: int


def read_mt_tsv(path, allow_empty: bool = False, need_scores: bool = True) -> list[MTRow]:
    """Rows of an MT judgments TSV (``.gz`` accepted), validated: every error names file and line.

    An empty reference is always an error; an empty hypothesis is one unless ``allow_empty``
    (then every metric scores it 0).  ``human_score`` must be a number (``NA`` allowed
    when not ``need_scores``).
    """
    lines = decode(read_bytes(path), path).split("\n")     # TSV rows end at \n only
    if not lines or not lines[0].strip():
        raise InputError(f"{path}:1: empty file (expected a header: {' '.join(COLUMNS)})")
    header = lines[0].rstrip("\r").split("\t")
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(f"{path}:1: header lacks column(s) {', '.join(missing)} (expected "
                             f"{' '.join(COLUMNS)})")
    idx = [header.index(c) for c in COLUMNS]
    rows = []
    for lineno, line in enumerate(lines[1:], start=2):
        line = line.rstrip("\r")
        if not line:
            continue
        parts = line.split("\t")
        if len(parts) != len(header):
            raise InputError(f"{path}:{lineno}: expected {len(header)} tab-separated fields, got {len(parts)}")
        lp, seg, system, src, ref, hyp, score = (parts[i] for i in idx)
        if not ref.strip():
            raise InputError(f"{path}:{lineno}: empty reference")
        if not hyp.strip() and not allow_empty:
            raise InputError(f"{path}:{lineno}: empty hypothesis (use --allow-empty to score it 0)")
        if score.strip().upper() in ("NA", "") and not need_scores:
            value = None
        else:
            try:
                value = float(score)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise InputError(f"{path}:{lineno}: human_score {score!r} is not a number")
        rows.append(MTRow(lp, seg, system, src, ref, hyp, value, lineno))
    if not rows:
        raise InputError(f"{path}: no data rows")
    return rows


# ------------------------------------------------------------------ baseline metrics
def sentence_rouge_l(hyps: list[str], refs: list[str]) -> list[float]:
    """ROUGE-L F (alpha 0.5) as ROUGE-1.5.5 computes it (``textqa.evaluation.rouge``: its
    tokenisation, no stemming, no stopword removal, R and P rounded to 5 decimals before F)."""
    from textqa.evaluation.rouge import sentence_scores  # deferred: loads scipy, numba
    return [f if h.strip() else 0.0 for (_, _, f), h in zip(sentence_scores(hyps, refs, "L"), hyps)]


# ------------------------------------------------------------------ correlation
CORRELATIONS = {"pearson": pearson, "spearman": spearman, "kendall": kendall_tau_b}


def by_pair(rows: list[MTRow]) -> dict[str, list[int]]:
    out: dict = {}
    for i, r in enumerate(rows):
        out.setdefault(r.lang_pair, []).append(i)
    return out


def per_pair_correlation(rows: list[MTRow], scores: list[float], method: str = "pearson") -> dict:
    """{lang_pair: r, ..., "average": mean over pairs}; pairs with constant scores are skipped."""
    f = CORRELATIONS[method]
    out = {}
    for lp, idx in sorted(by_pair(rows).items()):
        xs = [scores[i] for i in idx]
        ys = [rows[i].human_score for i in idx]
        if len(idx) >= 3 and len(set(xs)) > 1 and len(set(ys)) > 1:
            out[lp] = float(f(xs, ys))
    out["average"] = sum(out.values()) / len(out) if out else float("nan")
    return out


def bootstrap_average_pearsons(rows: list[MTRow], score_lists: list, n_resamples: int, seed: int):
    """[resample, metric] average per-pair Pearson, every metric on the same resampled segments
    (segments resampled within each language pair), so that differences are paired."""
    rng = np.random.default_rng(seed)
    human = np.array([r.human_score for r in rows], dtype=float)
    S = np.array(score_lists, dtype=float)                       # [metric, row]
    groups = [np.array(idx) for idx in by_pair(rows).values() if len(idx) >= 3]
    out = np.zeros((n_resamples, len(S)))
    for b in range(n_resamples):
        sums, counts = np.zeros(len(S)), np.zeros(len(S))
        for idx in groups:
            j = idx[rng.integers(0, len(idx), len(idx))]
            _add_pearsons(sums, counts, S[:, j], human[j])
        out[b] = sums / np.maximum(counts, 1)
    return out


def _add_pearsons(sums: np.ndarray, counts: np.ndarray, columns, y: np.ndarray) -> None:
    """Add each metric's Pearson with ``y`` into ``sums`` and count it, where both vary (a
    bootstrap resample of one language pair; the average over pairs is sums / counts)."""
    if y.std() == 0:
        return
    for m, x in enumerate(columns):
        if x.std() > 0:
            sums[m] += float(np.corrcoef(x, y)[0, 1])
            counts[m] += 1


# ------------------------------------------------------------------ system level from segment statistics
def _sacrebleu_metric(name: str):
    from sacrebleu.metrics import BLEU, CHRF  # deferred: loads sacrebleu
    return {"sentbleu": BLEU, "chrf": CHRF, "chrf++": lambda: CHRF(word_order=2)}[name]()


def segment_statistics(name: str, hyps: list[str], refs: list[str]):
    """[N, S] per-segment sufficient statistics of a baseline's corpus score: summed over a
    system's segments, ``score_from_statistics`` turns them into exactly its corpus score
    (sacrebleu's own statistics for BLEU, chrF, chrF++; ROUGE-L's corpus score is the mean of the
    sentence scores, so its statistics are (score, 1))."""
    if name == "rougeL":
        return np.column_stack([sentence_rouge_l(hyps, refs), np.ones(len(hyps))])
    return np.array(_sacrebleu_metric(name)._extract_corpus_statistics(hyps, [refs]), dtype=float)


def sentence_scores_and_statistics(name: str, hyps: list[str], refs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(sentence scores 0-100, ``segment_statistics``) of a baseline, from one pass over the text.

    The sentence scores are sacrebleu's ``sentence_score``: sentence BLEU with effective order and
    exp smoothing (sacrebleu's defaults for it), chrF, chrF++; ROUGE-L's are :func:`sentence_rouge_l`.
    ``sentence_score`` is ``_compute_score_from_stats`` of the segment's own statistics
    (``Metric.sentence_score`` extracts them, ``_aggregate_and_compute`` sums the one row), which
    ``segment_statistics`` has already extracted; the sentence metric's settings (BLEU's effective
    order) act only there.  An empty hypothesis scores 0."""
    stats = segment_statistics(name, hyps, refs)
    if name == "rougeL":
        return stats[:, 0].copy(), stats
    from sacrebleu.metrics import BLEU  # deferred: loads sacrebleu
    metric = BLEU(effective_order=True) if name == "sentbleu" else _sacrebleu_metric(name)
    compute = metric._compute_score_from_stats
    scores = np.array([compute([int(x) for x in row]).score if h.strip() else 0.0 for row, h in zip(stats, hyps)])
    return scores, stats


def score_from_statistics(name: str):
    """f(totals [n, S]) -> [n] corpus scores of ``segment_statistics`` summed per system."""
    if name == "rougeL":
        return lambda t: t[:, 0] / np.maximum(t[:, 1], 1)
    metric = _sacrebleu_metric(name)
    # sacrebleu's BLEU reads integer counts; the sums of integer statistics are exact in float64
    as_list = (lambda row: [int(round(x)) for x in row]) if name == "sentbleu" else list
    return lambda t: np.array([metric._compute_score_from_stats(as_list(row)).score for row in t])


@dataclass
class SystemTable:
    """System-level correlations: per language pair, each metric's Pearson and Kendall tau-b of
    the systems' corpus scores with their human scores; ``systems`` the (lang_pair, system,
    human) keys and ``scores`` each metric's corpus score per key."""
    pearson: dict
    kendall: dict
    systems: list
    scores: dict


class SystemLevel:
    """Corpus scores of every (language pair, system) from per-segment statistics, so that a
    bootstrap over test segments (the same resampled segments for every system and metric, as
    the WMT metrics tasks resample) recomputes them without rescoring anything.

    ``stats``: {metric: ([N, ...] statistics per row, f(totals [n, ...]) -> [n] scores)}.  A
    system's human score is the mean of its rows' (in a system-outputs file every row carries the
    system's score; rows without one, ``NA``, are left out and so are systems without any)."""

    def __init__(self, rows: list[MTRow], stats: dict):
        self.metrics = list(stats)
        self.score_fns = {m: f for m, (_, f) in stats.items()}
        self.pairs = {}
        for lp, idx in sorted(by_pair(rows).items()):
            idx = [i for i in idx if rows[i].human_score is not None]
            systems = sorted({rows[i].system for i in idx})
            segs = sorted({rows[i].seg_id for i in idx})
            if len(systems) < 3:
                continue
            si = {s: k for k, s in enumerate(systems)}
            gi = {g: k for k, g in enumerate(segs)}
            r_sys = np.array([si[rows[i].system] for i in idx])
            r_seg = np.array([gi[rows[i].seg_id] for i in idx])
            human = np.bincount(r_sys, [rows[i].human_score for i in idx]) / np.bincount(r_sys)
            dense = {}
            for m, (S, _) in stats.items():
                S = np.asarray(S, dtype=float)
                d = np.zeros((len(systems), len(segs)) + S.shape[1:])
                np.add.at(d, (r_sys, r_seg), S[idx])
                dense[m] = d
            self.pairs[lp] = (systems, human, dense)

    def _scores(self, lp: str, counts=None) -> dict:
        systems, human, dense = self.pairs[lp]
        out = {}
        for m, d in dense.items():
            total = d.sum(axis=1) if counts is None else np.tensordot(counts, d, axes=([0], [1]))
            out[m] = np.asarray(self.score_fns[m](total), dtype=float)
        return out

    def table(self) -> SystemTable:
        from scipy.stats import kendalltau  # deferred: loads scipy
        pearson, kendall, keys, scores = {}, {}, [], {m: [] for m in self.metrics}
        for lp, (systems, human, _) in self.pairs.items():
            sc = self._scores(lp)
            keys += [(lp, s, float(h)) for s, h in zip(systems, human)]
            for m in self.metrics:
                scores[m] += [float(x) for x in sc[m]]
                ok = sc[m].std() > 0 and human.std() > 0
                pearson.setdefault(lp, {})[m] = float(np.corrcoef(sc[m], human)[0, 1]) if ok else math.nan
                kendall.setdefault(lp, {})[m] = float(kendalltau(sc[m], human, variant="b").statistic) if ok \
                    else math.nan
        for table in (pearson, kendall):
            table["average"] = {m: _nanmean([table[lp][m] for lp in self.pairs]) for m in self.metrics}
        return SystemTable(pearson, kendall, keys, scores)

    def bootstrap(self, n_resamples: int = 1000, seed: int = 0):
        """[resample, metric] average per-pair system-level Pearson, test segments resampled
        within each pair (the same segments for every system and metric: paired)."""
        rng = np.random.default_rng(seed)
        out = np.zeros((n_resamples, len(self.metrics)))
        for b in range(n_resamples):
            sums, counts = np.zeros(len(self.metrics)), np.zeros(len(self.metrics))
            for lp, (systems, human, dense) in self.pairs.items():
                n_seg = next(iter(dense.values())).shape[1]
                c = np.bincount(rng.integers(0, n_seg, n_seg), minlength=n_seg).astype(float)
                sc = self._scores(lp, c)
                _add_pearsons(sums, counts, [sc[m] for m in self.metrics], human)
            out[b] = sums / np.maximum(counts, 1)
        return out


def _nanmean(values) -> float:
    vals = [v for v in values if not math.isnan(v)]
    return sum(vals) / len(vals) if vals else math.nan
