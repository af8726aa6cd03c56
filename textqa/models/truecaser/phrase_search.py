"""The phrase table's search (:class:`.phrases.PhraseTable`): which known phrase covers each token
of a lowercased text.

Each phrase of L words has a 64-bit rolling hash of its word ids, sorted per length beside the
phrase; a text's windows are hashed with numpy (one by one in Python for a short text), screened
by a one-hash Bloom filter, looked up in the sorted hashes and checked against the phrase's ids, so
that a match is never false.  The hashes and the filter are stored with the table
(:meth:`PhraseSearch.search_arrays`) and read at load."""
from __future__ import annotations

from itertools import accumulate, repeat

import numpy as np

from .phrase_counts import HASH_P

_MASK = (1 << 64) - 1
_FILTER_BITS = 24
_NONE_COVERED = (np.zeros(0, np.int64),) * 3


class PhraseSearch:
    """The search over a phrase table's phrases, which the table sets up: ``max_n``, its words' ids
    (``_word_id``, from 1), every phrase's word ids one phrase after the other (``_flat``), each
    phrase's length and start there (``_lengths``, ``_starts``) and occurrences (``_totals``)."""

    def _make_search(self) -> None:
        """The search's tables (below) made from the phrases' word ids."""
        ids, lengths, starts = self._flat, self._lengths, self._starts
        # the search: each phrase of length L has a 64-bit rolling hash of its word ids (sorted per
        # length, with the phrase's ids and index beside it); a batch's windows are hashed with numpy
        # and a window whose hash is a phrase's is then checked against the phrase's ids (no false matches)
        h = np.zeros(len(lengths), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for p in range(int(lengths.max()) if len(lengths) else 0):      # h = h * P + id, mod 2**64
                sel = np.flatnonzero(lengths > p)
                h[sel] = h[sel] * np.uint64(HASH_P) + ids[starts[sel] + p]
        self._hashes, self._rows, self._index = {}, {}, {}
        for n in np.unique(lengths).tolist():
            which = np.flatnonzero(lengths == n)
            self._hashes[n], first = np.unique(h[which], return_index=True)   # (a hash collision keeps one)
            which = which[first]
            self._index[n] = which
        # a one-hash Bloom filter (2**24 bits on the hashes' top bits) screens windows before the
        # binary search, which is slower (random access into the sorted hashes)
        self._bits = np.zeros(1 << (_FILTER_BITS - 3), dtype=np.uint8)
        if self._hashes:
            top = np.concatenate(list(self._hashes.values())) >> np.uint64(64 - _FILTER_BITS)
            np.bitwise_or.at(self._bits, (top >> np.uint64(3)).astype(np.int64),
                             (np.uint8(1) << (top & np.uint64(7)).astype(np.uint8)))
        self._bits_bytes = self._bits.tobytes()        # read byte by byte by the short texts' look-up

    def _row_ids(self, length: int) -> np.ndarray:
        """The word ids of the phrases of ``length`` words, a row each in the order of their hashes
        (made when the search first needs them)."""
        rows = self._rows.get(length)
        if rows is None:
            rows = self._rows[length] = self._flat[self._starts[self._index[length]][:, None] + np.arange(length)]
        return rows

    def search_arrays(self) -> dict:
        """The search's tables as arrays (stored by :meth:`to_arrays`, read by :meth:`_read_search`):
        the phrases' hashes sorted within each length (``search_hashes``), each one's phrase
        (``search_index``), the lengths (``search_lengths``) and how many phrases have each
        (``search_counts``), and the filter's bits (``search_bits``)."""
        n = sorted(self._hashes)
        return {"search_hashes": np.concatenate([self._hashes[k] for k in n]) if n else np.zeros(0, np.uint64),
                "search_index": np.concatenate([self._index[k] for k in n]).astype(np.uint32) if n
                else np.zeros(0, np.uint32),
                "search_lengths": np.array(n, dtype=np.uint8),
                "search_counts": np.array([len(self._hashes[k]) for k in n], dtype=np.int64),
                "search_bits": self._bits}

    def _read_search(self, arrays: dict) -> None:
        """The search's tables from :meth:`search_arrays`; ValueError when they do not fit the phrases
        (a hash that is wrong only loses a match: every match is checked against the phrase's ids)."""
        hashes, index = np.asarray(arrays["search_hashes"]), np.asarray(arrays["search_index"])
        lengths, counts = np.asarray(arrays["search_lengths"]), np.asarray(arrays["search_counts"])
        bits = np.asarray(arrays["search_bits"])
        n = len(self._lengths)
        if hashes.dtype != np.uint64 or index.dtype != np.uint32 or lengths.dtype != np.uint8 \
                or counts.dtype != np.int64 or bits.dtype != np.uint8 or bits.shape != (1 << (_FILTER_BITS - 3),) \
                or hashes.shape != index.shape or lengths.shape != counts.shape or int(counts.sum()) != len(hashes) \
                or (len(counts) and counts.min() < 1) or (len(index) and int(index.max()) >= n) \
                or len(np.unique(lengths)) != len(lengths):
            raise ValueError("not a phrase table (inconsistent search arrays)")
        self._hashes, self._rows, self._index = {}, {}, {}
        for length, a, b in zip(lengths.tolist(), accumulate(counts.tolist(), initial=0), accumulate(counts.tolist())):
            which = index[a:b].astype(np.int64)
            h = hashes[a:b]
            if (self._lengths[which] != length).any() or (h[1:] <= h[:-1]).any():
                raise ValueError("not a phrase table (inconsistent search arrays)")
            self._hashes[length], self._index[length] = h, which
        self._bits = bits
        self._bits_bytes = bits.tobytes()

    #: Below this many tokens, :meth:`covered` looks the windows up in Python: numpy's call overheads
    #: (some sixty calls) cost more than the work for a sentence or two (a service's requests).
    SMALL = 64

    def _covered_small(self, low: list[str], sent_off) -> tuple:
        """:meth:`covered_arrays` of a short text, window by window: the same matches, the same choice."""
        wid = self._word_id.get
        ids = [wid(t, 0) for t in low]
        mask, bits, P, shift = _MASK, self._bits_bytes, HASH_P, 64 - _FILTER_BITS
        found: dict[int, list] = {}                     # length -> [(start, hash, ids)]
        for a, b in zip(sent_off, sent_off[1:]):
            for i in range(a + 1, b - 1):               # not a sentence's first token
                h = ids[i]
                if not h:
                    continue
                for length in range(2, min(self.max_n, b - i) + 1):
                    nxt = ids[i + length - 1]
                    if not nxt:
                        break
                    h = (h * P + nxt) & mask
                    if length in self._hashes:
                        top = h >> shift
                        if bits[top >> 3] >> (top & 7) & 1:
                            found.setdefault(length, []).append((i, h))
        matches = []                                    # (start, length, phrase)
        for length, cands in found.items():
            table = self._hashes[length]
            hs = np.array([h for _, h in cands], dtype=np.uint64)
            at = np.minimum(np.searchsorted(table, hs), len(table) - 1).tolist()
            for (i, h), k in zip(cands, at):
                if int(table[k]) == h and self._row_ids(length)[k].tolist() == ids[i:i + length]:
                    matches.append((i, length, int(self._index[length][k])))
        if not matches:
            return _NONE_COVERED
        totals = self._totals[[w for _, _, w in matches]].tolist()
        best: dict[int, tuple] = {}
        for (i, length, w), total in zip(matches, totals):
            rank = (-length, -total, i)
            for p in range(length):
                cur = best.get(i + p)
                if cur is None or rank < cur[0]:
                    best[i + p] = (rank, w, p)
        chosen = sorted(best.items())
        return (np.array([t for t, _ in chosen], dtype=np.int64), np.array([c[1] for _, c in chosen], dtype=np.int64),
                np.array([c[2] for _, c in chosen], dtype=np.int64))

    def covered_arrays(self, low: list[str], sent_off=None) -> tuple:
        """(token indexes, increasing; the phrase covering each; the token's position in it) of the
        tokens of lowercased text inside a known phrase, the longest covering it (ties: the most
        frequent, then the leftmost).  ``sent_off``: sentence boundaries in ``low`` (offsets, first 0
        and last ``len(low)``; default one sentence); no phrase crosses one, and a sentence's first
        token is never covered."""
        n = len(low)
        if sent_off is None:
            sent_off = [0, n]
        if n < 3 or not self._hashes:
            return _NONE_COVERED
        if n < self.SMALL:
            return self._covered_small(low, sent_off)
        matches = self._matches(low, sent_off)
        if matches is None:
            return _NONE_COVERED
        starts, lens, which = matches
        if not len(starts):
            return _NONE_COVERED
        totals = self._totals[which]
        # every (token, match covering it); per token the longest match wins, then the most
        # frequent, then the leftmost
        pos_in = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
        match = np.repeat(np.arange(len(lens)), lens)
        token = starts[match] + pos_in
        order = np.lexsort((starts[match], -totals[match], -lens[match], token))
        token, match, pos_in = token[order], match[order], pos_in[order]
        first = np.r_[True, token[1:] != token[:-1]]
        return token[first], which[match[first]], pos_in[first]

    def _matches(self, low: list[str], sent_off) -> tuple | None:
        """(start, length, phrase index) of every window of ``low`` that is a known phrase, inside a
        sentence (``sent_off``) and not at its first token; None when there is none.  Windows are
        hashed with numpy, screened by the Bloom filter, looked up in the sorted hashes and checked
        against the phrase's ids."""
        n = len(low)
        wid = self._word_id.get
        ids = np.fromiter(map(wid, low, repeat(0)), dtype=np.uint64, count=n)
        lengths = np.diff(np.asarray(sent_off, dtype=np.int64))
        start = np.repeat(np.asarray(sent_off[:-1], dtype=np.int64), lengths)
        end = start + np.repeat(lengths, lengths)            # each token's sentence end
        idx = np.arange(n, dtype=np.int64)
        ok = (ids > 0) & (idx > start)                       # a phrase word, not a sentence's first
        h = ids.copy()
        at_, len_, phrase_ = [], [], []                      # the matches: where, how long, which phrase
        with np.errstate(over="ignore"):
            for length in range(2, self.max_n + 1):
                m = n - length + 1
                if m <= 0:
                    break
                h = h[:m] * np.uint64(HASH_P) + ids[length - 1:]
                ok = ok[:m] & (ids[length - 1:] > 0)
                table = self._hashes.get(length)
                if table is None:
                    continue
                cand = np.flatnonzero(ok & (idx[:m] + length <= end[:m]))
                top = h[cand] >> np.uint64(64 - _FILTER_BITS)
                cand = cand[((self._bits[(top >> np.uint64(3)).astype(np.int64)] >> (top & np.uint64(7)).astype(np.uint8))
                             & 1).astype(bool)]
                hc = h[cand]
                at = np.minimum(np.searchsorted(table, hc), len(table) - 1)
                hit = table[at] == hc
                cand, at = cand[hit], at[hit]
                same = (ids[cand[:, None] + np.arange(length)] == self._row_ids(length)[at]).all(axis=1)
                at_.append(cand[same])
                len_.append(np.full(int(same.sum()), length, dtype=np.int64))
                phrase_.append(self._index[length][at[same]])
        if not at_:
            return None
        return np.concatenate(at_), np.concatenate(len_), np.concatenate(phrase_)
