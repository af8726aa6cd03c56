"""Clipped skip-n-gram statistics: chrF's character (and chrF++'s word) n-gram matching as a
special case of BLANC's gap-weighted skip-n-grams.

A sequence X (characters with whitespace removed, or words) has, for each n-gram g, a *mass*

    W_X(g) = sum over occurrences x_1 < ... < x_n of g in X of  e^{-alpha G},
    G = (x_n - x_1) - (n - 1)  (the units skipped inside the occurrence, at most ``max_gap``),

the gap decay of Lita, Rogati & Lavie (2005), eq. 1, measured in one sentence.  For n = 1..N:

    common_n = sum_g min(W_X(g), W_Y(g))        own_n(X) = sum_g W_X(g)

With ``max_gap = 0`` only contiguous occurrences count, W is the n-gram count, and common_n is
chrF's clipped match count (Popovic 2015; sacrebleu's ``CHRF`` statistics [hyp, ref, match] are
(own_n(hyp), own_n(ref), common_n)).  With a gap allowance and a finite alpha, skip-n-grams count
too, discounted by their gaps.

Why clipping and not ACS's pair sum (eq. 10): ACS sums over *pairs* of occurrences, so a common
n-gram counts c_X(g) x c_Y(g) times; over characters, which repeat in every sentence ("e" ten times
is common), the product swamps the matches that matter.  chrF, BLEU and ROUGE clip each n-gram to
min(c_X, c_Y); the masses above clip the same way, and keep ACS's gap decay (the delta term of
eq. 4, which compares the gaps of one pair of occurrences, has no meaning once occurrences are
pooled into masses).

``clipped_stats`` is exact: an n-gram is packed into one int64 over the pair's own alphabet
(distinct units numbered from 1, ``bits`` each, so n-grams of different lengths never share a key)
and the masses are merged over sorted keys, compiled with numba.  When the alphabet is too large
to pack (more than 2^(63 // N) - 1 distinct units), a dictionary implementation gives the same
numbers.
"""
from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations

import numpy as np
from numba import njit

from textqa.runtime import numba_cache


@lru_cache(maxsize=64)
def _bound(max_n: int, max_gap: int) -> int:
    """Occurrences one start position can begin: sum over n of C(n - 1 + max_gap, max_gap)
    (the ways to place at most max_gap skipped units among n - 1 steps), an upper bound."""
    return sum(math.comb(n - 1 + max_gap, max_gap) for n in range(1, max_n + 1))


numba_cache.install()          # processes that compile into the same cache at once: locked


@njit(cache=True)
def _masses(seq, max_n, bits, decays, max_gap, bound):
    """(sorted unique keys, their masses, their orders) of every skip-n-gram of ``seq`` (max_gap > 0;
    contiguous n-grams are counted by ``_contiguous_clipped``)."""
    L = seq.shape[0]
    cap = max(1, L * bound)
    keys = np.empty(cap, np.int64)
    weights = np.empty(cap, np.float64)
    m = 0
    depth = max_n * (max_gap + 2) + 2
    s_pos = np.empty(depth * max_n + 1, np.int64)
    s_n = np.empty(depth * max_n + 1, np.int64)
    s_key = np.empty(depth * max_n + 1, np.int64)
    s_gap = np.empty(depth * max_n + 1, np.int64)
    for i in range(L):
        s_pos[0], s_n[0], s_key[0], s_gap[0] = i, 1, seq[i], 0
        top = 1
        while top > 0:
            top -= 1
            p, n, key, g = s_pos[top], s_n[top], s_key[top], s_gap[top]
            keys[m] = key
            weights[m] = decays[g]
            m += 1
            if n < max_n:
                last = min(L - 1, p + 1 + max_gap - g)
                for q in range(last, p, -1):
                    s_pos[top] = q
                    s_n[top] = n + 1
                    s_key[top] = (key << bits) | seq[q]
                    s_gap[top] = g + (q - p - 1)
                    top += 1
    keys = keys[:m]
    weights = weights[:m]
    order = np.argsort(keys)
    keys = keys[order]
    weights = weights[order]
    u = 0
    for j in range(m):
        if j > 0 and keys[j] == keys[u - 1]:
            weights[u - 1] += weights[j]
        else:
            keys[u] = keys[j]
            weights[u] = weights[j]
            u += 1
    keys = keys[:u]
    weights = weights[:u]
    orders = np.empty(u, np.int64)
    for j in range(u):
        k, n = keys[j], 0
        while k > 0:
            k >>= bits
            n += 1
        orders[j] = n
    return keys, weights, orders


@njit(cache=True)
def _slot(table, key, mask):
    """The slot of ``key`` in an open-addressing table (linear probing; 0 marks an empty slot)."""
    h = ((key * 0x9E3779B97F4A7C15) >> 17) & mask
    while table[h] != 0 and table[h] != key:
        h = (h + 1) & mask
    return h


@njit(cache=True)
def _contiguous_clipped(x, y, max_n, bits, out):
    """``_clipped`` for max_gap = 0 in O(|x| + |y|): own_n is the number of n-gram positions, and
    common_n = sum_g min(c_x(g), c_y(g)) is counted in one pass over y against a hash table of
    x's n-grams (open addressing over the exact packed keys: no collision can change a count)."""
    L, M = x.shape[0], y.shape[0]
    for n in range(1, max_n + 1):
        out[1, n - 1] += max(0, L - n + 1)
        out[2, n - 1] += max(0, M - n + 1)
    size = 16
    while size < 2 * L * max_n:
        size *= 2
    mask = size - 1
    table = np.zeros(size, np.int64)          # 0: empty (every key is > 0)
    cx = np.zeros(size, np.int64)
    cy = np.zeros(size, np.int64)
    for i in range(L):
        key = 0
        for n in range(1, min(max_n, L - i) + 1):
            key = (key << bits) | x[i + n - 1]
            h = _slot(table, key, mask)
            table[h] = key
            cx[h] += 1
    for i in range(M):
        key = 0
        for n in range(1, min(max_n, M - i) + 1):
            key = (key << bits) | y[i + n - 1]
            h = _slot(table, key, mask)
            if table[h] == key and cy[h] < cx[h]:
                cy[h] += 1
                out[0, n - 1] += 1.0


@njit(cache=True)
def _clipped(x, y, max_n, bits, decays, max_gap, bound, out):
    if max_gap == 0:
        _contiguous_clipped(x, y, max_n, bits, out)
        return
    kx, wx, ox = _masses(x, max_n, bits, decays, max_gap, bound)
    ky, wy, oy = _masses(y, max_n, bits, decays, max_gap, bound)
    for j in range(kx.shape[0]):
        out[1, ox[j] - 1] += wx[j]
    for j in range(ky.shape[0]):
        out[2, oy[j] - 1] += wy[j]
    a, b = 0, 0
    while a < kx.shape[0] and b < ky.shape[0]:
        if kx[a] == ky[b]:
            out[0, ox[a] - 1] += min(wx[a], wy[b])
            a += 1
            b += 1
        elif kx[a] < ky[b]:
            a += 1
        else:
            b += 1


def clipped_stats_reference(hyp, ref, max_n: int, alpha: float = 0.0, max_gap: int = 0) -> np.ndarray:
    """The same statistics with dictionaries of tuples (for any alphabet; the tests' oracle)."""

    def masses(seq):
        out = {}
        L = len(seq)
        for i in range(L):
            for n in range(1, max_n + 1):
                for rest in combinations(range(i + 1, min(L, i + n + max_gap)), n - 1):
                    G = (rest[-1] - i - (n - 1)) if rest else 0
                    if G <= max_gap:
                        g = (seq[i], *(seq[r] for r in rest))
                        out[g] = out.get(g, 0.0) + math.exp(-alpha * G)
        return out
    mh, mr = masses(list(hyp)), masses(list(ref))
    stats = np.zeros((3, max_n))
    for g, w in mh.items():
        stats[1, len(g) - 1] += w
        if g in mr:
            stats[0, len(g) - 1] += min(w, mr[g])
    for g, w in mr.items():
        stats[2, len(g) - 1] += w
    return stats


@njit(cache=True)
def _code_stats(a, b, max_n, decays, max_gap, bound, out):
    """``_clipped`` for two arrays of code points, renumbered 1..A over their joint alphabet first;
    False (nothing done) when A distinct codes do not pack max_n to an int64."""
    both = np.sort(np.concatenate((a, b)))
    u = 0
    for j in range(both.shape[0]):
        if u == 0 or both[j] != both[u - 1]:
            both[u] = both[j]
            u += 1
    bits = 1
    while (1 << bits) <= u:
        bits += 1
    if bits * max_n > 63:
        return False
    alphabet = both[:u]
    x = np.searchsorted(alphabet, a) + 1
    y = np.searchsorted(alphabet, b) + 1
    _clipped(x, y, max_n, bits, decays, max_gap, bound, out)
    return True


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)


_DECAYS: dict = {}


def clipped_stats(hyp, ref, max_n: int, alpha: float = 0.0, max_gap: int = 0) -> np.ndarray:
    """[3, max_n]: common, hypothesis-own and reference-own clipped skip-n-gram masses of two
    sequences of units, n = 1..max_n (module docstring): two strings (their characters) or two
    lists of words."""
    out = np.zeros((3, max_n))
    clipped_into(out, hyp, ref, max_n, alpha, max_gap)
    return out


@njit(cache=True)
def _chrf_convention(out):
    for n in range(out.shape[1]):
        if out[2, n] == 0.0:
            out[1, n] = 0.0


def clipped_into(out, hyp, ref, max_n: int, alpha: float = 0.0, max_gap: int = 0, chrf: bool = False) -> None:
    """``clipped_stats`` added into ``out`` (a [3, max_n] block, zeros on entry; a view into a
    larger array is fine).  ``hyp`` and ``ref`` may also be int64 arrays of unit codes (equal units,
    equal codes).  ``chrf``: as chrF counts, an order the reference lacks gets no
    hypothesis count either (it matters only for corpus sums)."""
    if max_n < 1 or max_gap < 0 or alpha < 0:
        raise ValueError("max_n must be >= 1, max_gap and alpha >= 0")
    if not out.flags.c_contiguous:
        # a view (BLANC's columns of a wider block): counted in a C-contiguous block and added in, so
        # that numba compiles one version of these functions, not a second for strided blocks
        block = np.zeros(out.shape)
        clipped_into(block, hyp, ref, max_n, alpha, max_gap, chrf)
        out += block
        return
    decays = _DECAYS.get((alpha, max_gap))
    if decays is None:
        decays = _DECAYS[(alpha, max_gap)] = np.exp(-alpha * np.arange(max_gap + 1, dtype=np.float64))
    if isinstance(hyp, np.ndarray) and isinstance(ref, np.ndarray):      # unit codes (int64) already
        done = _code_stats(hyp, ref, max_n, decays, max_gap, _bound(max_n, max_gap), out)
    elif isinstance(hyp, str) and isinstance(ref, str):
        done = _code_stats(_codes(hyp), _codes(ref), max_n, decays, max_gap, _bound(max_n, max_gap), out)
    else:
        alphabet: dict = {}
        x = np.fromiter((alphabet.setdefault(u, len(alphabet) + 1) for u in hyp), dtype=np.int64, count=len(hyp))
        y = np.fromiter((alphabet.setdefault(u, len(alphabet) + 1) for u in ref), dtype=np.int64, count=len(ref))
        bits = max(1, len(alphabet).bit_length())
        done = bits * max_n <= 63
        if done:
            _clipped(x, y, max_n, bits, decays, max_gap, _bound(max_n, max_gap), out)
    if not done:
        out[:] = clipped_stats_reference(hyp, ref, max_n, alpha, max_gap)
    if chrf:
        _chrf_convention(out)


_PUNCTS = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')


def chrf_words(text: str) -> list[str]:
    """chrF++'s words (Popovic's chrF++.py, as sacrebleu applies it): whitespace-split, a
    punctuation mark at the end of a word, else at its start, split off (one, not several)."""
    out = []
    for w in text.split():
        if len(w) == 1:
            out.append(w)
        elif w[-1] in _PUNCTS:
            out += [w[:-1], w[-1]]
        elif w[0] in _PUNCTS:
            out += [w[0], w[1:]]
        else:
            out.append(w)
    return out


def chrf_chars(text: str) -> str:
    """chrF's character sequence: the text with all whitespace removed (sacrebleu's default)."""
    return "".join(text.split())
