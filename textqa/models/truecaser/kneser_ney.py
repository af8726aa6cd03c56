"""Interpolated modified Kneser-Ney smoothing (Chen & Goodman 1998), the truecaser's default
(``smoothing="kneser_ney"``; beyond the paper, whose equation 1 is deleted interpolation,
:mod:`.lm`), at any order, with KenLM's count pruning; the model in ARPA form (:class:`.lm.ArpaModel`)."""
from __future__ import annotations

import numpy as np

from .lm import ArpaModel, NGramCounts, OrderCounts

ORDER_NAMES = {1: "unigram", 2: "bigram", 3: "trigram"}


def estimate_kneser_ney(counts: "OrderCounts | NGramCounts", bos: int, eos: int, unk: int,
                        prune: "tuple[int, ...] | list[int] | None" = None) -> ArpaModel:
    """Interpolated modified Kneser-Ney (Chen & Goodman 1998, eq. 17-19), three discounts per order,
    at the order of ``counts``.

    The highest order uses real counts; lower orders continuation counts (the number of distinct
    words seen to the left; an n-gram starting with ``<s>`` has none and keeps its real count).
    Discounts D1, D2, D3+ come from counts-of-counts: Y = n1/(n1 + 2 n2), Dk = k - (k+1) Y n_{k+1}/n_k;
    an order where some n_k is 0 or some Dk falls outside [0, k] takes 0.5, 1, 1.5 instead, as
    ``lmplz --discount_fallback`` does (lmplz without it refuses such counts).
    The unigrams interpolate with the uniform distribution.  In ARPA form a seen n-gram stores its
    interpolated probability and a history its interpolation weight as back-off, which is exact.

    ``prune`` (count pruning as KenLM's ``lmplz --prune``; :func:`prune_thresholds`): an n-gram of
    order k >= 2 seen (raw count) no more than ``prune[k-1]`` times is dropped.  The discounts and
    every history's total are those of the unpruned model; a dropped n-gram's whole adjusted count
    goes to its history's interpolation weight (gamma), so each distribution still sums to one, and
    a history all of whose followers were dropped gets back-off weight 1.  The thresholds do not
    decrease with the order, so every kept n-gram's history and suffix are kept too.
    """
    if isinstance(counts, NGramCounts):
        counts = counts.to_orders()
    V, N = counts.V, counts.order
    thresholds = prune_thresholds(prune, N)
    kept = [np.ones(V, dtype=bool)] + [counts.counts[k] > thresholds[k] for k in range(1, N)]
    suffix, from_bos = counts.structure(bos)

    adjusted = _adjusted_counts(counts, suffix, from_bos, bos)
    del from_bos
    D = [_discounts(a[a > 0]) for a in adjusted]

    # unigrams: discounted continuation counts, interpolated with the uniform distribution
    a = adjusted[0].astype(np.float64)
    d = D[0][np.minimum(adjusted[0], 3)]
    tot = a.sum()
    p = (a - d) / tot + d.sum() / tot / (V - 1)      # every word but <s> can be predicted
    p[bos] = 0
    logp = [np.log10(np.where(p > 0, p, 1e-99))]
    logp[0][bos] = -99.0
    bow = [np.zeros(V)]
    for k in range(2, N + 1):                   # each order's arrays are let go once used
        a, h = adjusted[k - 1], counts.keys[k - 1] // V
        d = D[k - 1][np.minimum(a, 3)]
        n_hist = len(counts.keys[k - 2])
        tot = np.bincount(h, weights=a, minlength=n_hist)
        if not kept[k - 1].all():
            d = np.where(kept[k - 1], d, a)          # a dropped n-gram's mass goes to the back-off
        gamma = np.divide(np.bincount(h, weights=d, minlength=n_hist), tot, out=np.zeros(n_hist), where=tot > 0)
        p = (a - d) / tot[h] + gamma[h] * p[suffix[k - 1]]
        adjusted[k - 1] = suffix[k - 1] = None
        del a, h, d, tot
        bow[k - 2] = np.log10(gamma, out=np.zeros(n_hist), where=gamma > 0)
        logp.append(np.log10(p))
        bow.append(np.broadcast_to(0.0, len(p)) if k == N else None)   # the highest order has none
    info = {"smoothing": "kneser_ney", "order": N,
            "discounts": {ORDER_NAMES.get(k + 1, f"{k + 1}-gram"): x[1:].round(4).tolist() for k, x in enumerate(D)}}
    keys = list(counts.keys)
    if any(thresholds):
        info["prune"] = list(thresholds)
        _drop(keys, logp, bow, kept, V)
        info["kept"] = {str(k + 1): len(x) for k, x in enumerate(keys) if k}
    return ArpaModel(V, keys, logp, bow, info)


def _discounts(c: np.ndarray) -> np.ndarray:
    """[0, D1, D2, D3+] of one order's counts ``c``, Chen & Goodman 1998's estimates: Y = n1/(n1 + 2 n2),
    Dk = k - (k+1) Y n_{k+1}/n_k; ``lmplz --discount_fallback``'s 0.5, 1, 1.5 when some n_k is 0 or
    some Dk falls outside [0, k] (odd counts-of-counts of little text: a probability above one)."""
    fallback = np.array([0.0, 0.5, 1.0, 1.5])
    n = [np.count_nonzero(c == k) for k in (1, 2, 3, 4)]
    if min(n) == 0:
        return fallback
    Y = n[0] / (n[0] + 2 * n[1])
    d = np.array([0.0, 1 - 2 * Y * n[1] / n[0], 2 - 3 * Y * n[2] / n[1], 3 - 4 * Y * n[3] / n[2]])
    return d if ((d >= 0) & (d <= np.arange(4))).all() else fallback


def _adjusted_counts(counts: "OrderCounts", suffix: list, from_bos: list, bos: int) -> list:
    """Kneser-Ney's counts of each order: the real counts at the highest; below, continuation counts
    (the distinct words seen to the left, from the order above), an n-gram starting with ``<s>``
    keeping its real count and ``<s>`` itself none."""
    N = counts.order
    adjusted = [None] * N
    adjusted[N - 1] = counts.counts[N - 1]
    for k in range(N - 1, 0, -1):
        cont = np.bincount(suffix[k], minlength=len(counts.keys[k - 1])).astype(np.int64)
        if k == 1:
            cont[bos] = 0
        else:
            cont = np.where(from_bos[k - 1], counts.counts[k - 1], cont)
        adjusted[k - 1] = cont
    return adjusted


def _drop(keys: list, logp: list, bow: list, kept: list, V: int) -> None:
    """Drop, in place, the n-grams of order 2 and up not ``kept``, renumbering their histories among
    the kept ones of the order below."""
    for k in range(2, len(keys) + 1):
        m, rank = kept[k - 1], np.cumsum(kept[k - 2]) - 1
        kk = keys[k - 1][m]
        keys[k - 1] = rank[kk // V] * V + kk % V
        logp[k - 1], bow[k - 1] = logp[k - 1][m], bow[k - 1][m]


def prune_thresholds(prune, order: int) -> list[int]:
    """Count-pruning thresholds of each order 1..``order`` as ``lmplz --prune`` reads them: one per
    order from the unigrams up, the last repeated for the orders not given; unigrams are never
    pruned (the first must be 0) and a threshold may not be below the one of the order before, or
    a kept n-gram could lose its history.  ``None`` or empty: no pruning."""
    t = [int(x) for x in (prune or [])]
    if not t:
        return [0] * order
    if len(t) > order:
        raise ValueError(f"{len(t)} pruning thresholds for an LM of order {order}")
    if t[0] != 0:
        raise ValueError("unigrams cannot be pruned: the first pruning threshold must be 0")
    if any(b < a for a, b in zip(t, t[1:])) or min(t) < 0:
        raise ValueError(f"pruning thresholds must be >= 0 and non-decreasing, got {' '.join(map(str, t))}")
    return t + [t[-1]] * (order - len(t))
