"""BLANC's training search (Lita, Rogati & Lavie 2005, section 5): the judged pairs, the correlation
objective per language pair, and steepest-ascent hill climbing over the metric's parameters from
random restarts."""
from __future__ import annotations

import math
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np
from scipy import stats

from textqa.evaluation.mt import read_mt_tsv
from textqa.models.blanc.batch import PairBatch
from textqa.models.blanc.metric import BLANC, BLANCParams, stats_f
from textqa.models.sklearn_data import same_numbers_anywhere

# ------------------------------------------------------------------ data

GRIDS = {
    "alpha": (0.0, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6),
    "beta": (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.8, 1.6, 3.2),
    "partial_weight": (0.0, 0.2, 0.35, 0.5, 0.65, 0.8, 1.0),
}


class JudgedPairs:
    """Tokenised, aligned pairs of some TSVs, with groups (file:lang_pair) and systems."""

    def __init__(self, paths: list[Path], base: BLANCParams, segments_per_pair: int | None = None):
        """Rows without a human score (``NA`` in a system-outputs file) are left out;
        ``segments_per_pair`` keeps each language pair's first N segment ids (every system's)."""
        self.rows = []
        for path in paths:
            kept: dict = {}
            for r in read_mt_tsv(path, allow_empty=True, need_scores=False):
                if r.human_score is None:
                    continue
                if segments_per_pair is not None:
                    segs = kept.setdefault(r.lang_pair, set())
                    if r.seg_id not in segs:
                        if len(segs) >= segments_per_pair:
                            continue
                        segs.add(r.seg_id)
                self.rows.append((Path(path).name.split("_")[0] + ":" + r.lang_pair, r))
        metric = BLANC(base)
        self.n_acs = base.max_k
        hyps = [metric.tokens(r.hypothesis) for _, r in self.rows]
        refs = [metric.tokens(r.reference) for _, r in self.rows]
        self.batch = PairBatch(hyps, refs, base.matching, base.prefix_len, partial=base.partial_weight > 0)
        # the character and word n-gram levels do not depend on what is climbed: computed once
        self.clipped = metric.clipped_batch([r.hypothesis for _, r in self.rows], [r.reference for _, r in self.rows])
        self.human = np.array([r.human_score for _, r in self.rows])
        names = [g for g, _ in self.rows]
        self.groups = {g: np.array([i for i, n in enumerate(names) if n == g]) for g in sorted(set(names))}
        systems = [(g, r.system) for g, r in self.rows]
        keys = sorted(set(systems))
        index = {k: i for i, k in enumerate(keys)}
        self.system_of = np.array([index[k] for k in systems])
        self.system_keys = keys
        self.system_human = np.bincount(self.system_of, self.human) / np.bincount(self.system_of)
        self.system_groups = {g: np.array([i for i, k in enumerate(keys) if k[0] == g]) for g in self.groups}

    def stats(self, alpha: float, beta: float, partial_weight: float, max_k: int, gap_side: str) -> np.ndarray:
        """[N, 3, K + character and word n-gram orders]: the ACS sizes for these decays, then the
        fixed clipped levels."""
        acs = self.batch.stats(alpha, beta, partial_weight, max_k, gap_side)
        return np.concatenate([acs, self.clipped], axis=2) if self.clipped.shape[2] else acs

    def system_totals(self, stats: np.ndarray) -> np.ndarray:
        """[systems, 3, columns]: each system's statistics summed (its corpus score's)."""
        total = np.zeros((len(self.system_keys),) + stats.shape[1:])
        np.add.at(total, self.system_of, stats)
        return total

def _corr(x: np.ndarray, y: np.ndarray, method: str) -> float:
    if len(x) < 3 or x.std() == 0 or y.std() == 0:
        return math.nan
    if method == "pearson":
        return float(np.corrcoef(x, y)[0, 1])
    if method == "spearman":
        return float(stats.spearmanr(x, y).statistic)
    return float(stats.kendalltau(x, y, variant="b").statistic)

def correlations(data: JudgedPairs, stats: np.ndarray, weights, beta_f: float, level: str = "segment",
                 method: str = "pearson", aggregated: bool = False) -> dict:
    """Per group correlation of BLANC with the human scores, and their average (each group, a
    language pair of a file, weighs the same).  At system level ``stats`` may already be
    ``data.system_totals`` (``aggregated``)."""
    if level == "segment":
        scores = stats_f(stats, weights, beta_f, data.n_acs)
        out = {g: _corr(scores[idx], data.human[idx], method) for g, idx in data.groups.items()}
    else:
        total = stats if aggregated else data.system_totals(stats)
        scores = stats_f(total, weights, beta_f, data.n_acs)
        out = {g: _corr(scores[idx], data.system_human[idx], method) for g, idx in data.system_groups.items()}
    return averaged(out, list(out))

def averaged(corr: dict, groups) -> dict:
    """``groups``' correlations from ``corr`` and their average (NaNs left out, as ``correlations`` does)."""
    vals = [corr[g] for g in groups if not math.isnan(corr[g])]
    return {**{g: corr[g] for g in groups}, "average": sum(vals) / len(vals) if vals else math.nan}

# ------------------------------------------------------------------ hill climbing
class _Objective:
    def __init__(self, data: JudgedPairs, max_k: int, gap_side: str, level: str, method: str, cache_size=48):
        self.data, self.max_k, self.gap_side, self.level, self.method = data, max_k, gap_side, level, method
        self.cache: OrderedDict = OrderedDict()
        self.cache_size = cache_size

    def stats(self, ai: int, bi: int, pi: int) -> np.ndarray:
        key = (ai, bi, pi)
        if key not in self.cache:
            stats = self.data.stats(GRIDS["alpha"][ai], GRIDS["beta"][bi], GRIDS["partial_weight"][pi],
                                    self.max_k, self.gap_side)
            # at system level only the systems' sums matter: cached instead of every segment's
            self.cache[key] = self.data.system_totals(stats) if self.level == "system" else stats
            if len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        self.cache.move_to_end(key)
        return self.cache[key]

    def __call__(self, state) -> float:
        ai, bi, pi, w, rho = state
        r = correlations(self.data, self.stats(ai, bi, pi), w, beta_f_of(rho), self.level, self.method,
                         aggregated=True)["average"]
        return -1.0 if math.isnan(r) else r

RHO_MAX = 0.999999          # recall weight beta^2 / (1 + beta^2) < 1 (1 would be recall alone: beta = inf)

def beta_f_of(rho: float) -> float:
    """beta_F of a recall weight rho: F = P R / (rho P + (1 - rho) R) = F_beta with beta^2 = rho / (1 - rho)."""
    return math.sqrt(rho / (1.0 - rho)) if rho > 0 else 1e-6

def _neighbours(state, partial_allowed: bool):
    """The decays one grid step either way; each weight times or divided by 1.5 (below 1e-3 it
    becomes 0) and plus 0.05 (so that a level at 0 can enter); the recall weight rho by 0.01 and
    0.05 either way within [0, RHO_MAX].  Weights are renormalised to sum 1."""
    ai, bi, pi, w, rho = state
    for name, i, pos in (("alpha", ai, 0), ("beta", bi, 1), ("partial_weight", pi, 2)):
        if name == "partial_weight" and not partial_allowed:
            continue
        for step in (-1, 1):
            j = i + step
            if 0 <= j < len(GRIDS[name]):
                s = list(state)
                s[pos] = j
                yield tuple(s)
    for k in range(len(w)):
        for change in ("up", "down", "add"):
            w2 = np.array(w, dtype=float)
            if change == "add":
                w2[k] += 0.05
            else:
                w2[k] = w2[k] * (1.5 if change == "up" else 1 / 1.5)
                if w2[k] < 1e-3:
                    w2[k] = 0.0
            if w2.sum() > 0 and not np.array_equal(w2, w):
                yield (ai, bi, pi, tuple(float(x) for x in w2 / w2.sum()), rho)
    for d in (-0.05, -0.01, 0.01, 0.05):
        r2 = float(min(max(rho + d, 0.0), RHO_MAX))
        if r2 != rho:
            yield (ai, bi, pi, w, r2)

def hill_climb(objective: _Objective, start, max_steps: int, partial_allowed: bool = True, path=None):
    """Steepest ascent: move to the best neighbour while it improves the objective.  ``path``, a
    list, receives every (state, value) visited (the start first), for selection along the climb."""
    state, value = start, objective(start)
    if path is not None:
        path.append((state, value))
    for _ in range(max_steps):
        best, best_v = None, value
        for cand in _neighbours(state, partial_allowed):
            v = objective(cand)
            if v > best_v + 1e-6:
                best, best_v = cand, v
        if best is None:
            break
        state, value = best, best_v
        if path is not None:
            path.append((state, value))
    return state, value

def _start(i: int, rng: np.random.Generator, max_k: int, partial_allowed: bool, n_char: int = 0, n_wng: int = 0):
    """Restart i's starting point: 0 chrF (when there is a character level), 1 chrF++ (when there
    are word n-grams too), then the earlier default (no gap decay, some displacement decay, uniform
    ACS sizes, F1), then random points.  rho = 0.8 is chrF's beta = 2."""
    beta0, partial0 = GRIDS["beta"].index(0.4), GRIDS["partial_weight"].index(0.5) if partial_allowed else 0
    fixed = []
    if n_char:
        fixed.append((0, beta0, partial0, tuple([0.0] * max_k + [1.0 / n_char] * n_char + [0.0] * n_wng), 0.8))
        if n_wng:
            u = 1.0 / (n_char + n_wng)
            fixed.append((0, beta0, partial0, tuple([0.0] * max_k + [u] * (n_char + n_wng)), 0.8))
    fixed.append((0, beta0, partial0, tuple([1.0 / max_k] * max_k + [0.0] * (n_char + n_wng)), 0.5))
    if i < len(fixed):
        return fixed[i]
    w = rng.dirichlet(np.ones(max_k + n_char + n_wng))
    return (int(rng.integers(len(GRIDS["alpha"]))), int(rng.integers(len(GRIDS["beta"]))),
            int(rng.integers(len(GRIDS["partial_weight"]))) if partial_allowed else 0,
            tuple(float(x) for x in w), float(rng.uniform(0.2, 0.95)))

@same_numbers_anywhere
def _restart(data, i, seed, args_tuple):
    max_k, gap_side, level, method, max_steps, partial_allowed, n_char, n_wng = args_tuple
    rng = np.random.default_rng([seed, i])
    objective = _Objective(data, max_k, gap_side, level, method)
    t = time.perf_counter()
    path: list = []
    state, value = hill_climb(objective, _start(i, rng, max_k, partial_allowed, n_char, n_wng), max_steps,
                              partial_allowed, path)
    return i, state, value, time.perf_counter() - t, path

def params_of(state, base: BLANCParams) -> BLANCParams:
    ai, bi, pi, w, rho = state
    K, Nc = base.max_k, len(base.char_weights)
    w = [round(float(x), 4) for x in w]
    d = base.to_dict()
    d.update(alpha=GRIDS["alpha"][ai], beta=GRIDS["beta"][bi], partial_weight=GRIDS["partial_weight"][pi],
             size_weights=w[:K], char_weights=w[K:K + Nc], word_ngram_weights=w[K + Nc:],
             beta_f=round(beta_f_of(rho), 4))
    return BLANCParams.from_dict(d)
