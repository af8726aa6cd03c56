"""ACS statistics for many segment pairs at once (training and bulk scoring).

Tokenising and aligning happen once (:class:`PairBatch`); each (alpha, beta, partial
weight) setting then costs one compiled pass over all pairs, with no Python per pair.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from textqa.runtime import numba_cache

from .acs import _grid, own_skip_ngram_mass, step_factors
from .matching import match_parts

numba_cache.install()          # processes that compile into the same cache at once: locked


@njit(cache=True)
def _grid_batch(xs, ys, factor, starts, ms, ns, partial_weight, diag, fx, fy, max_k, out):
    """out[i] = common skip-k-gram mass of pair i, built from its sparse match list."""
    buf = np.zeros(max_k)
    cells = np.zeros(max(1, (ms * ns).max() if ms.shape[0] else 1))
    for i in range(ms.shape[0]):
        m, n = ms[i], ns[i]
        lo, hi = starts[i], starts[i + 1]
        if m == 0 or n == 0 or lo == hi:
            continue
        M = cells[:m * n].reshape((m, n))
        M[:, :] = 0.0
        for j in range(lo, hi):
            M[xs[j], ys[j]] = 1.0 if factor[j] == 0.0 else partial_weight * factor[j]
        buf[:] = 0.0
        _grid(M, diag, fx, fy, max_k, buf)
        out[i, :] = buf


class PairBatch:
    """Aligned (hypothesis, reference) token pairs; ``stats(...)`` gives [N, 3, K] statistics."""

    def __init__(self, hyps: list[list[str]], refs: list[list[str]], matching: str = "one-to-one",
                 prefix_len: int = 4, partial: bool = True):
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
        xs, ys, kinds, starts = [], [], [], [0]
        for h, r in zip(hyps, refs):
            E, P = match_parts(r, h, matching, partial, prefix_len)
            for A, is_partial in ((E, False), (P, True)):
                ax, ay = np.nonzero(A)
                xs.append(ax)
                ys.append(ay)
                kinds.append(A[ax, ay] if is_partial else np.zeros(len(ax)))   # 0 marks an exact match
            starts.append(starts[-1] + int(np.count_nonzero(E) + np.count_nonzero(P)))
        self.ms = np.array([len(r) for r in refs], dtype=np.int64)
        self.ns = np.array([len(h) for h in hyps], dtype=np.int64)
        cat = lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)
        self.xs, self.ys = cat(xs, np.int64), cat(ys, np.int64)
        self.factor = cat(kinds, np.float64)
        self.starts = np.array(starts, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.ms)

    def stats(self, alpha: float, beta: float, partial_weight: float, max_k: int, gap_side: str = "max") -> np.ndarray:
        out = np.zeros((len(self), 3, max_k))
        common = np.zeros((len(self), max_k))
        diag, fx, fy = step_factors(alpha, beta, gap_side)
        _grid_batch(self.xs, self.ys, self.factor, self.starts, self.ms, self.ns, float(partial_weight),
                    diag, fx, fy, max_k, common)
        out[:, 0, :] = common
        own = {L: own_skip_ngram_mass(L, alpha, max_k) for L in set(self.ms.tolist()) | set(self.ns.tolist())}
        out[:, 1, :] = np.array([own[L] for L in self.ns.tolist()]).reshape(len(self), max_k)
        out[:, 2, :] = np.array([own[L] for L in self.ms.tolist()]).reshape(len(self), max_k)
        return out
