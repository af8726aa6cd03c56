"""Counting the cased phrases of :mod:`.phrases` (beyond the paper): a map-reduce over stretches of
the corpus (``run_counts`` then ``variant_counts``, each stretch's counts summed with
``merge_counts``), so that ``textqa train truecaser --scheduler`` builds the same table as one
process does."""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from .casing import Indexed, index, lowercase_ids, positions

MAX_N = 5
#: The multiplier of the 64-bit polynomial (rolling) hash of a phrase's word ids
HASH_P = 0x9E3779B97F4A7C15


def _windows(ix: Indexed, where: tuple, n: int, ok: list) -> np.ndarray:
    """The start of every window of ``n`` tokens inside one sentence, not at its start (``where``:
    :func:`.casing.positions`), whose k-th token's id has ``ok[k]`` (a boolean table over ids, or None)."""
    pos, left = where
    i = np.flatnonzero((pos >= 1) & (left >= n - 1) & ok[0][ix.ids])
    for k in range(1, n):
        if ok[k] is not None:
            i = i[ok[k][ix.ids[i + k]]]
    return i


def _row_codes(columns: list) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes of the rows of equal-length id columns (equal rows, equal codes), and the first
    row of each code.  One sort of the rows' 64-bit polynomial hashes, checked exact: on a
    collision, the codes are made column by column."""
    h = np.zeros(len(columns[0]), np.uint64)
    with np.errstate(over="ignore"):
        for c in columns:
            h = h * np.uint64(HASH_P) + np.asarray(c).astype(np.uint64)
    _, first, code = np.unique(h, return_index=True, return_inverse=True)
    code = code.reshape(-1)
    if all(np.array_equal(np.asarray(c)[first][code], c) for c in columns):
        return code, first
    code = np.asarray(columns[0], np.int64)                     # a hash collision: exact, slower
    for c in columns[1:]:
        c = np.asarray(c, np.int64)
        _, first, code = np.unique(code * (int(c.max()) + 1) + c, return_index=True, return_inverse=True)
        code = code.reshape(-1)
    return code, first


def _counted_rows(ix: Indexed, starts: np.ndarray, n: int):
    """The distinct id rows of the windows of ``n`` tokens at ``starts``, with their counts."""
    if not len(starts):
        return np.zeros((0, n), np.int64), np.zeros(0, np.int64)
    codes, first = _row_codes([ix.ids[starts + k] for k in range(n)])
    return ix.ids[starts[first][:, None] + np.arange(n)], np.bincount(codes)


def _strings(words: list, rows: np.ndarray) -> list[str]:
    return [" ".join(map(words.__getitem__, r)) for r in rows.tolist()]


def _run_rows(ix: Indexed, max_n: int):
    """Per length n, the distinct cased runs as id rows, with their counts."""
    caps = np.fromiter((w[:1].isupper() for w in ix.words), dtype=bool, count=len(ix.words))
    where = positions(ix)
    return {n: _counted_rows(ix, _windows(ix, where, n, [caps] + [None] * (n - 2) + [caps]), n)
            for n in range(2, max_n + 1)}


def run_counts(sentences, max_n: int = MAX_N, min_count: int = 1) -> dict[str, int]:
    """Counts of the cased runs of 2..``max_n`` tokens (not at a sentence's start) whose first and
    last tokens are capitalised, over ``sentences`` (token lists or whitespace-tokenized strings, or
    :class:`Indexed`); only the runs seen at least ``min_count`` times (a whole corpus's counts:
    a map-reduce's parts keep every run).  Counted with numpy over the token ids: the strings are
    made once each, for the runs kept."""
    ix = index(sentences)
    out: dict[str, int] = {}
    for rows, counts in _run_rows(ix, max_n).values():
        kept = counts >= min_count
        out.update(zip(_strings(ix.words, rows[kept]), counts[kept].tolist()))
    return out


def merge_counts(a: dict, b: dict) -> dict:
    """The sum of two count dicts (for a reduction; either order gives the same counts)."""
    out = dict(a)
    for k, c in b.items():
        out[k] = out.get(k, 0) + c
    return out


def phrase_keys(runs: dict[str, int], min_count: int) -> frozenset:
    """The lowercased forms of the runs seen at least ``min_count`` times."""
    return frozenset(k.lower() for k, c in runs.items() if c >= min_count)


def variant_counts(sentences, keys: frozenset, max_n: int = MAX_N) -> dict[str, int]:
    """Counts of every cased occurrence (sentence starts aside) of the lowercased phrases ``keys``,
    over ``sentences`` (as :func:`run_counts` takes them)."""
    ix = index(sentences)
    low, lower_id = lowercase_ids(ix.words)
    by_n: dict[int, list] = defaultdict(list)
    for k in keys:
        parts = k.split(" ")
        if 2 <= len(parts) <= max_n and all(p in lower_id for p in parts):
            by_n[len(parts)].append([lower_id[p] for p in parts])
    out: dict[str, int] = {}
    where = positions(ix) if by_n else None
    for n, key_rows in sorted(by_n.items()):
        key_rows = np.asarray(key_rows, np.int64)
        ok = []                          # the windows whose k-th word is some key's k-th word
        for k in range(n):
            seen = np.zeros(len(lower_id), bool)
            seen[key_rows[:, k]] = True
            ok.append(seen[low])
        starts = _windows(ix, where, n, ok)
        # the keys' rows and the windows' lowercased rows coded together: a window is a key's
        # occurrence when its code is a key's
        codes = _row_codes([np.concatenate([key_rows[:, k], low[ix.ids[starts + k]]]) for k in range(n)])[0]
        is_key = np.zeros(int(codes.max()) + 1, bool)
        is_key[codes[:len(key_rows)]] = True
        rows, counts = _counted_rows(ix, starts[is_key[codes[len(key_rows):]]], n)
        out.update(zip(_strings(ix.words, rows), counts.tolist()))
    return out
