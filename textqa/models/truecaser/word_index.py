"""A word index stored as arrays and read, not built: ``{word: i}`` for a list of distinct words.

Building a Python dictionary of the casing table's words costs a noticeable part of the
truecaser's start-up at every load (``dict(zip(words, range(n)))``, however it is spelt; "Figures
behind the code" in docs/experiments/truecaser.md), while the words themselves are already
stored as one UTF-8 blob.  :class:`WordIndex` keeps that blob with each word's offset, and beside
it each word's CRC-32 (``zlib.crc32`` of its UTF-8 bytes) sorted, with the word each hash belongs
to.  A look-up hashes the word, finds its hash with a binary search (numpy) and compares the
stored bytes: two words with one hash are told apart, and a word not in the index is never taken
for one that is.  The words looked up are remembered in a dictionary, so that a text's words cost
the search once: :meth:`find` looks up a batch's distinct new words at once with numpy, and
:meth:`get` one word at a time.
"""
from __future__ import annotations

import zlib
from collections.abc import Mapping
from itertools import repeat

import numpy as np

#: At most this many looked-up words are remembered (then forgotten all at once): a bound on a
#: long-running service's memory.
MAX_REMEMBERED = 1_000_000


class WordIndex(Mapping):
    """{word: its place in the list} over the words in ``blob`` (UTF-8, each ended by ``\\n``;
    word i is ``blob[off[i]:off[i + 1] - 1]``), with their CRC-32s sorted (``hashes``) and, beside
    each, its word's place (``order``)."""

    def __init__(self, blob: bytes, off: np.ndarray, hashes: np.ndarray, order: np.ndarray):
        self._blob, self._off, self._hashes, self._order = blob, off, hashes, order
        self._offsets = None            # off as a list, made at the first look-up (ints, not numpy scalars)
        self._known: dict = {}          # word -> place, or -1: the words looked up so far

    # ------------------------------------------------------------------ making and storing
    @classmethod
    def build(cls, words: list[str]) -> "WordIndex":
        """The index of ``words`` (distinct, none holding a newline)."""
        encoded = [w.encode("utf-8") for w in words]
        blob = b"".join(e + b"\n" for e in encoded)
        off = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(words)) + 1, out=off[1:])
        h = np.fromiter(map(zlib.crc32, encoded), dtype=np.uint32, count=len(words))
        order = np.argsort(h, kind="stable").astype(np.int32)
        return cls(blob, off, h[order], order)

    @classmethod
    def from_words_blob(cls, blob: bytes, hashes: np.ndarray, order: np.ndarray) -> "WordIndex":
        """The index over the words of ``blob`` (UTF-8, one a line, no newline after the last: how the
        casing table stores them) with the stored ``hashes`` and ``order`` (:meth:`arrays`);
        ValueError when they do not fit the words (a wrong hash would only lose a word: every
        match is checked against the stored bytes)."""
        hashes, order = np.asarray(hashes), np.asarray(order)
        raw = np.frombuffer(blob, dtype=np.uint8)
        ends = np.flatnonzero(raw == 10)
        n = len(ends) + 1 if len(raw) else 0
        off = np.zeros(n + 1, dtype=np.int64)
        off[1:n] = ends + 1
        off[n] = len(raw) + 1 if n else 0
        if hashes.dtype != np.uint32 or order.dtype != np.int32 or hashes.shape != (n,) or order.shape != (n,) \
                or (n and (order.min() < 0 or order.max() >= n)) or (hashes[1:] < hashes[:-1]).any() \
                or (n and np.bincount(order, minlength=n).max() != 1):          # each word once
            raise ValueError("the stored word index does not fit its words")
        index = cls(bytes(blob) + b"\n" if n else b"", off, hashes, order)
        index._check_shared_hashes()
        return index

    def _check_shared_hashes(self) -> None:
        """ValueError when a word is in the index twice (two words of one hash, the same bytes)."""
        same = np.flatnonzero(self._hashes[1:] == self._hashes[:-1])
        if not len(same):
            return
        blob, off = self._blob, self._off
        word = lambda k: blob[int(off[self._order[k]]):int(off[self._order[k] + 1])]
        for run in np.split(same, np.flatnonzero(np.diff(same) > 1) + 1):
            seen = {word(k) for k in range(int(run[0]), int(run[-1]) + 2)}
            if len(seen) != len(run) + 1:
                raise ValueError("a word is in the word index twice")

    def arrays(self) -> dict:
        """What is stored beside the words: the sorted hashes and each one's word."""
        return {"word_hashes": self._hashes, "word_order": self._order}

    # ------------------------------------------------------------------ look-ups
    def _search(self, words: list[str]) -> list[int]:
        """Each word's place, or -1, by its hash and its bytes."""
        if self._offsets is None:
            self._offsets = self._off.tolist()
        # (a word of undecodable input carries surrogates, which pass as bytes no stored word has)
        encoded = [w.encode("utf-8", "surrogatepass") for w in words]
        h = np.fromiter(map(zlib.crc32, encoded), dtype=np.uint32, count=len(words))
        lo = np.searchsorted(self._hashes, h, side="left").tolist()
        hi = np.searchsorted(self._hashes, h, side="right").tolist()
        blob, off, order, out = self._blob, self._offsets, self._order, []
        for e, a, b in zip(encoded, lo, hi):
            place = -1
            for k in range(a, b):                   # one hash, most often one word
                i = int(order[k])
                if blob[off[i]:off[i + 1] - 1] == e:
                    place = i
                    break
            out.append(place)
        return out

    def _remember(self, words, places) -> None:
        if len(self._known) + len(words) > MAX_REMEMBERED:
            self._known.clear()
        self._known.update(zip(words, places))

    def find(self, words: list[str]) -> np.ndarray:
        """Each word's place (int64), -1 for a word not in the index."""
        known = self._known
        new = [w for w in dict.fromkeys(words) if w not in known]
        if new:
            self._remember(new, self._search(new))
            known = self._known
        return np.fromiter(map(known.get, words, repeat(-1)), dtype=np.int64, count=len(words))

    def get(self, word, default=None):
        place = self._known.get(word)
        if place is None:
            if not isinstance(word, str):
                return default
            place = self._search([word])[0]
            self._remember([word], [place])
        return default if place < 0 else place

    def __getitem__(self, word: str) -> int:
        place = self.get(word)
        if place is None:
            raise KeyError(word)
        return place

    def __contains__(self, word) -> bool:
        return self.get(word) is not None

    def __len__(self) -> int:
        return len(self._off) - 1

    def words(self) -> list[str]:
        """Every word, in its place's order."""
        return self._blob.decode("utf-8").split("\n")[:len(self)]

    def __iter__(self):
        return iter(self.words())

    def items(self):
        return zip(self.words(), range(len(self)))

    def values(self):
        return range(len(self))
