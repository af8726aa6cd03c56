"""Which word pairs become ACS matches, and with what node weight (the eq. 6 feature terms).

* ``all``: the paper's step 1 (2.3.1): every pair of identical words is a match.  Repeated
  tokens ("the", ",") then match many times over, so common skip-ngram mass can exceed a
  sentence's own mass; the paper's special cases (ROUGE-S, n-gram overlap) are defined on it.
* ``one-to-one``: each word of either sentence is used at most once.  Identical words are
  paired greedily, closest relative position (x / |X| against y / |Y|) first; then, when
  ``partial_weight > 0``, words left over that share their first ``prefix_len`` characters
  (or their Porter stem) are paired the same way with node weight ``partial_weight``: a
  feature term e^{lambda f} of eq. 6 with f = 1 for a partial match, lambda = ln(partial_weight);
  last, words still left over whose character-trigram Dice coefficient is at least 0.3 are
  paired with node weight ``partial_weight * dice`` (a second, graded feature term).

Beyond the paper; the one-to-one alignment and partial matches are what made ACS competitive
with chrF on WMT DA data (README, "BLANC").
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..porter import stem
from .acs import exact_match_matrix

MATCHINGS = ("one-to-one", "all")


def _greedy(pairs, m: int, n: int, used_x: list, used_y: list, weights=None) -> list:
    """Accept candidate (x, y) pairs closest in relative position first, each word once.

    Returns the accepted (x, y, weight) triples; ``weights`` maps a pair to its node factor."""
    pairs.sort(key=lambda p: (abs((p[0] + 0.5) / m - (p[1] + 0.5) / n), p[0], p[1]))
    accepted = []
    for x, y in pairs:
        if not used_x[x] and not used_y[y]:
            used_x[x] = used_y[y] = True
            accepted.append((x, y, 1.0 if weights is None else weights[(x, y)]))
    return accepted


def alignment(ref: list[str], hyp: list[str], partial: bool = True, prefix_len: int = 4) -> tuple[list, list]:
    """One-to-one alignment: (exact pairs, partial triples (x, y, node factor))."""
    m, n = len(ref), len(hyp)
    if not m or not n:
        return [], []
    where: dict = {}
    for y, w in enumerate(hyp):
        where.setdefault(w, []).append(y)
    pairs = [(x, y) for x, w in enumerate(ref) for y in where.get(w, ())]
    used_x, used_y = [False] * m, [False] * n
    exact = [(x, y) for x, y, _ in _greedy(pairs, m, n, used_x, used_y)]
    if not partial or len(exact) == min(m, n):
        return exact, []
    keys_h: dict = {}
    for y, w in enumerate(hyp):
        if not used_y[y] and w[:1].isalnum():
            for key in _partial_keys(w, prefix_len):
                keys_h.setdefault(key, []).append(y)
    candidates = set()
    for x, w in enumerate(ref):
        if not used_x[x] and w[:1].isalnum():
            for key in _partial_keys(w, prefix_len):
                candidates.update((x, y) for y in keys_h.get(key, ()))
    partial_pairs = _greedy(sorted(candidates), m, n, used_x, used_y)
    # then character-trigram look-alikes (misspellings, inflections the stemmer misses):
    # node factor = their Dice coefficient
    left_y = [(y, _trigrams(hyp[y])) for y in range(n)
              if not used_y[y] and len(hyp[y]) >= 3 and hyp[y][:1].isalnum()]
    if left_y:
        dice_of = {}
        postings: dict = {}                   # trigram -> hypothesis words left over that have it
        size_y = {}
        for y, gy in left_y:
            size_y[y] = len(gy)
            for g in gy:
                postings.setdefault(g, []).append(y)
        for x in range(m):
            if used_x[x] or len(ref[x]) < 3 or not ref[x][:1].isalnum():
                continue
            gx = _trigrams(ref[x])
            lx = len(gx)
            shared: dict = {}                 # |gx & gy| for the words sharing a trigram at all
            for g in gx:
                for y in postings.get(g, ()):
                    shared[y] = shared.get(y, 0) + 1
            for y, c in shared.items():
                dice = 2 * c / (lx + size_y[y])
                if dice >= CHAR_DICE_MIN:
                    dice_of[(x, y)] = dice
        if dice_of:
            partial_pairs += _greedy(list(dice_of), m, n, used_x, used_y, dice_of)   # sorted there: the
                                                                                 # dict's order is no matter
    return exact, partial_pairs


def match_parts(ref: list[str], hyp: list[str], matching: str = "one-to-one", partial: bool = True,
                prefix_len: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """(exact, partial) matrices, x indexing ``ref`` and y ``hyp``: exact matches are 1, partial
    ones hold their node factor (1 for a prefix/stem match, the Dice coefficient for a look-alike).

    The alignment does not depend on the partial weight (exact pairs are made first), so
    training can re-weight partial matches without aligning again.
    """
    if matching == "all":
        E = exact_match_matrix(ref, hyp)
        return E, np.zeros_like(E)
    if matching != "one-to-one":
        raise ValueError(f"matching must be one of {MATCHINGS}, not {matching!r}")
    E, P = np.zeros((len(ref), len(hyp))), np.zeros((len(ref), len(hyp)))
    exact, partial_pairs = alignment(ref, hyp, partial, prefix_len)
    for x, y in exact:
        E[x, y] = 1.0
    for x, y, f in partial_pairs:
        P[x, y] = f
    return E, P


CHAR_DICE_MIN = 0.3


@lru_cache(maxsize=200_000)
def _trigrams(word: str) -> frozenset:
    w = f"#{word}#"
    return frozenset(w[i:i + 3] for i in range(len(w) - 2))


def match_matrix(ref: list[str], hyp: list[str], matching: str = "one-to-one", partial_weight: float = 0.0,
                 prefix_len: int = 4) -> np.ndarray:
    """Node weights ``M[x, y]`` for ACS (x indexes ``ref``, y ``hyp``); 0 = no match."""
    E, P = match_parts(ref, hyp, matching, partial_weight > 0, prefix_len)
    return E + partial_weight * P if partial_weight > 0 else E


def _partial_keys(word: str, prefix_len: int) -> tuple:
    keys = ("s:" + stem(word),)
    if len(word) >= prefix_len:
        keys += ("p:" + word[:prefix_len],)
    return keys
