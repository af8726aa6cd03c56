"""Correlation and error statistics shared by the models' evaluations (BLANC, QA, ICD-9).

Thin, documented wrappers over SciPy so that every caller computes them the same
way: Pearson r, Spearman rho, Kendall tau-b (ties corrected, as in WMT metric
evaluations), RMSE, and percentile bootstrap confidence intervals with a fixed seed.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np


def _stats():
    """scipy.stats, imported on first use (0.6 s, which would otherwise slow every ``textqa``
    command's start)."""
    from scipy import stats  # deferred: loads scipy
    return stats


def _pair(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"need two 1-D sequences of the same length, got {x.shape} and {y.shape}")
    if len(x) < 2:
        raise ValueError("need at least two pairs")
    return x, y


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    x, y = _pair(x, y)
    return float(_stats().pearsonr(x, y).statistic)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    x, y = _pair(x, y)
    return float(_stats().spearmanr(x, y).statistic)


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b: (C - D) / sqrt((n0 - n1)(n0 - n2)), ties in either variable corrected."""
    x, y = _pair(x, y)
    return float(_stats().kendalltau(x, y, variant="b").statistic)


def rmse(x: Sequence[float], y: Sequence[float]) -> float:
    x, y = _pair(x, y)
    return float(math.sqrt(np.mean((x - y) ** 2)))


def bootstrap_ci(statistic: Callable[..., float], *samples: Sequence, n_resamples: int = 1000,
                 confidence: float = 0.95, seed: int = 12345) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(*samples)``, resampling items (paired) with replacement."""
    arrays = [np.asarray(s) for s in samples]
    n = len(arrays[0])
    if any(len(a) != n for a in arrays) or n < 2:
        raise ValueError("samples must be paired and hold at least two items")
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_resamples):
        idx = rng.integers(0, n, n)
        try:
            v = statistic(*(a[idx] for a in arrays))
        except ValueError:
            continue
        if not math.isnan(v):
            values.append(v)
    if not values:
        raise ValueError("statistic undefined on every resample")
    lo, hi = np.percentile(values, [100 * (1 - confidence) / 2, 100 * (1 + confidence) / 2])
    return float(lo), float(hi)
