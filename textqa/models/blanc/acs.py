"""ACS: all common skip-ngrams (Lita, Rogati & Lavie 2005, "BLANC: Learning Evaluation Metrics
for MT", section 2).

Two sentences X (the reference) and Y (the candidate).  A *match* (w, x, y) is a word w at
index x of X and y of Y (eq. 9); matches with x1 < x2 and y1 < y2 can follow each other in
a common skip-ngram (2.3.2).  A common skip-ngram made of matches (x_1, y_1) .. (x_k, y_k)
scores (eq. 6)

    S = prod_i node(x_i, y_i) * prod_i gamma(i, i+1) * delta(i, i+1)

* node(x, y): the product of the match's own feature terms e^{lambda f} (eq. 6); 1 for an
  exact word match, less for a partial one (see :mod:`textqa.models.blanc.matching`);
* gamma = e^{-alpha G} with G the number of words between two successive matches (eq. 1-3).
  The paper measures G "in a specific sentence" (its worked example weighs
  "machine translated automatically" e^{-3 alpha} in K1 and e^{-12 alpha} in K2).  For a
  match across two sentences we take **the larger of the two gaps** by default
  (``gap_side="max"``), so that gamma treats both sentences alike and a very large alpha
  leaves exactly the n-grams contiguous in both (section 3's special case);
  ``gap_side="hyp"`` (Y's gap) and ``"ref"`` (X's gap) are the alternatives;
* delta = e^{-beta |G_X - G_Y|} (eq. 4-5).

``common_skip_ngram_mass(M, ...)`` returns, for k = 1..max_k, the total S over all common
skip-k-grams (eq. 10), where ``M[x, y]`` holds node(x, y) (0 = no match).

Two exact ways to compute it:

* ``dense``: the paper's DAG, an explicit edge weight for every pair of matches,
  O(matches^2) per size k (step 3 of 2.3.3);
* ``grid``: the edge weights are exponentials of gap sizes, so the sum over all earlier
  matches is carried by recurrences over the (x, y) grid, O(|X| |Y|) per size.  From an
  earlier match (x1, y1) to (x2, y2) there is exactly one *canonical* lattice path: min(dx,
  dy) diagonal steps, then only x-steps or only y-steps.  Each step multiplies by a
  constant: a diagonal step by e^{-alpha} (the first one by 1), an x-step by fx and a
  y-step by fy, where for ``gap_side="max"`` fx = fy = e^{-(alpha + beta)}, for ``"hyp"``
  fx = e^{-beta}, fy = e^{-(alpha + beta)}, and for ``"ref"`` the reverse.  The product
  along the path is exactly gamma * delta.  Three running sums (paths ending in a diagonal,
  an x- or a y-step) make each cell O(1).

``method="auto"`` uses whichever is cheaper for the pair at hand.  Both are compiled
with numba.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numba import njit

from textqa.runtime import numba_cache

GAP_SIDES = ("max", "hyp", "ref")


def step_factors(alpha: float, beta: float, gap_side: str = "max") -> tuple[float, float, float]:
    """(diagonal, x-step, y-step) factors of the canonical lattice path (module docstring)."""
    a, b = math.exp(-alpha), math.exp(-beta)
    if gap_side == "max":
        return a, a * b, a * b
    if gap_side == "hyp":        # Y's gap: an x-step adds no Y gap
        return a, b, a * b
    if gap_side == "ref":
        return a, a * b, b
    raise ValueError(f"gap_side must be one of {GAP_SIDES}, not {gap_side!r}")


numba_cache.install()          # processes that compile into the same cache at once: locked


@njit(cache=True)
def _grid(M, diag, fx, fy, max_k, out):
    """Fill out[k-1] with the weighted count of common skip-k-grams; return the largest k > 0 found."""
    m, n = M.shape
    V = M.copy()
    out[0] = V.sum()
    if out[0] == 0.0:
        return 0
    top = 1
    Vn = np.zeros((m, n))
    d_prev = np.zeros(n)
    h_prev = np.zeros(n)
    d_cur = np.zeros(n)
    h_cur = np.zeros(n)
    for k in range(2, max_k + 1):
        d_prev[:] = 0.0
        h_prev[:] = 0.0
        total = 0.0
        for x in range(m):
            vy = 0.0                     # running sum of paths ending in a y-step, this row
            for y in range(n):
                if x > 0 and y > 0:
                    d = V[x - 1, y - 1] + diag * d_prev[y - 1]
                else:
                    d = 0.0
                h = fx * (d_prev[y] + h_prev[y]) if x > 0 else 0.0
                if y > 0:
                    vy = fy * (d_cur[y - 1] + vy)
                d_cur[y] = d
                h_cur[y] = h
                w = M[x, y]
                if w != 0.0:
                    s = w * (d + h + vy)
                    Vn[x, y] = s
                    total += s
                else:
                    Vn[x, y] = 0.0
            d_prev, d_cur = d_cur, d_prev
            h_prev, h_cur = h_cur, h_prev
        out[k - 1] = total
        if total == 0.0:
            break
        top = k
        V, Vn = Vn, V
    return top


@njit(cache=True)
def _dense(xs, ys, ws, alpha, beta, side, max_k, out):
    """The paper's DAG (2.3.2-2.3.3) with an explicit weight per edge; matches sorted by x."""
    n_m = xs.shape[0]
    W = np.zeros((n_m, n_m))
    for i in range(n_m):
        for j in range(n_m):
            dx = xs[j] - xs[i]
            dy = ys[j] - ys[i]
            if dx > 0 and dy > 0:
                if side == 0:
                    g = max(dx, dy) - 1
                elif side == 1:
                    g = dy - 1
                else:
                    g = dx - 1
                W[i, j] = math.exp(-alpha * g - beta * abs(dx - dy))
    V = ws.copy()
    out[0] = V.sum()
    if out[0] == 0.0:
        return 0
    top = 1
    for k in range(2, max_k + 1):
        Vn = ws * (V @ W)
        total = Vn.sum()
        out[k - 1] = total
        if total == 0.0:
            break
        top = k
        V = Vn
    return top


def common_skip_ngram_mass(M: np.ndarray, alpha: float = 0.0, beta: float = 0.0, max_k: int | None = None,
                           gap_side: str = "max", method: str = "auto") -> np.ndarray:
    """Weighted counts of common skip-k-grams for k = 1..max_k (eq. 10); ``M[x, y]`` = node weight.

    ``max_k`` defaults to min(|X|, |Y|) (every size up to the LCS); sizes beyond the LCS are 0.
    """
    M = np.ascontiguousarray(M, dtype=np.float64)
    m, n = M.shape
    if max_k is None:
        max_k = min(m, n)
    out = np.zeros(max(max_k, 0))
    if max_k <= 0 or m == 0 or n == 0:
        return out
    xs, ys = np.nonzero(M)
    if method == "auto":
        method = "dense" if len(xs) * len(xs) < 3 * m * n else "grid"
    if method == "grid":
        diag, fx, fy = step_factors(alpha, beta, gap_side)
        _grid(M, diag, fx, fy, max_k, out)
    elif method == "dense":
        if gap_side not in GAP_SIDES:
            raise ValueError(f"gap_side must be one of {GAP_SIDES}, not {gap_side!r}")
        _dense(xs.astype(np.int64), ys.astype(np.int64), M[xs, ys].copy(), float(alpha), float(beta),
               GAP_SIDES.index(gap_side), max_k, out)
    else:
        raise ValueError(f"method must be auto, grid or dense, not {method!r}")
    return out


@lru_cache(maxsize=4096)
def _own_mass(length: int, alpha: float, max_k: int) -> tuple:
    a = math.exp(-alpha)
    out = [0.0] * max_k
    if length == 0 or max_k == 0:
        return tuple(out)
    prev = [1.0] * length           # skip-1-grams ending at each position
    out[0] = float(length)
    for k in range(2, max_k + 1):
        cur = [0.0] * length
        carry = 0.0                  # sum_{i < j} prev[i] a^(j - i - 1)
        for j in range(1, length):
            carry = prev[j - 1] + a * carry
            cur[j] = carry
        out[k - 1] = sum(cur)
        prev = cur
        if out[k - 1] == 0.0:
            break
    return tuple(out)


def own_skip_ngram_mass(length: int, alpha: float = 0.0, max_k: int = 4) -> np.ndarray:
    """A sentence's own weighted skip-k-gram mass, k = 1..max_k: sum over its k-subsequences of
    e^{-alpha * total gap} (eq. 1-3).  With alpha = 0 it is C(length, k) (ROUGE-S's denominator)."""
    return np.array(_own_mass(int(length), float(alpha), int(max_k)))


def lcs_length(x: list, y: list) -> int:
    """Longest common subsequence by dynamic programming (for tests and for max_k)."""
    prev = [0] * (len(y) + 1)
    for a in x:
        cur = [0]
        for j, b in enumerate(y, start=1):
            cur.append(prev[j - 1] + 1 if a == b else max(prev[j], cur[-1]))
        prev = cur
    return prev[-1]


def exact_match_matrix(ref: list[str], hyp: list[str]) -> np.ndarray:
    """All-pairs word matches (the paper's step 1): M[x, y] = 1 where ref[x] == hyp[y]."""
    if not ref or not hyp:
        return np.zeros((len(ref), len(hyp)))
    r = np.array(ref, dtype=object)[:, None]
    h = np.array(hyp, dtype=object)[None, :]
    return (r == h).astype(np.float64)
