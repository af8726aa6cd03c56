"""Cased multi-word phrases seen in training: evidence the trigram LM cannot see (beyond the paper).

Lita et al. 2003 decode with a trigram LM alone, so a token's casing depends on at most the two
tokens before it and (through the next token's probability) the one after.  A name of four or
five words ("the Lord of the Rings", "Bank of New York") or a phrase whose words are each
ambiguous is cased one way in training far more often than a trigram can tell.  The table here
keeps, for the lowercased form of every such phrase, how often each of its casings was seen:

1. a *phrase* is a run of 2..``max_n`` training tokens, not at a sentence's start, whose first and
   last tokens begin with a capital letter, seen at least ``min_count`` times in that casing;
2. for each phrase's lowercased form, every casing in which that word sequence occurs in training
   (sentence starts aside) is counted, lowercase ones included, so the table knows that "the city"
   is mostly lowercase even though "The City" is a phrase.

At decoding time each token not at a sentence's start gets the longest known phrase covering it
(ties: the most frequent), and each of its candidate casings ``f`` the score
``log10((n(f) + 1/2) / (N + k/2))`` with ``n(f)`` the phrase occurrences in which the token was
``f``, ``N`` all occurrences and ``k`` the token's candidates (add-half smoothing), weighted by the
truecaser's ``phrase_weight`` and added to the candidate's emission in the same exact Viterbi
search.  ``dev/truecaser_phrases.py`` measures the weight and the table's minimum count.

Counting is a map-reduce (:mod:`.phrase_counts`), so ``textqa train truecaser --scheduler`` builds
the same table as one process does.
"""
from __future__ import annotations

import math
from collections import defaultdict
from itertools import accumulate, count, repeat

import numpy as np

from .casing import group_by_lowercase, index
from .context_samples import ranges
from .phrase_counts import HASH_P, MAX_N, phrase_keys, run_counts, variant_counts

_MASK = (1 << 64) - 1
_FILTER_BITS = 24
_UNPARSED = -2


class PhraseTable:
    """Lowercased phrase -> (occurrences in any casing, [(cased form, count), ...] most frequent first).

    Each phrase's entry is kept as one string, ``"N\tForm\tcount\t..."``, parsed when the phrase is
    first met; an entry that does not parse is no phrase.  Stored (``to_arrays``) as numpy arrays: the
    phrase words, each phrase as its words' ids, and the entries, so that loading builds no Python
    object per phrase (the phrase strings are made for the phrases met)."""

    def __init__(self, phrases: dict, max_n: int = MAX_N):
        keys = list(phrases)
        flat = " ".join(keys).split(" ") if keys else []           # one split: no list per phrase
        word_id: dict[str, int] = dict(zip(dict.fromkeys(flat), count(1)))   # (C loops: load time)
        lengths = np.fromiter(map(str.count, keys, repeat(" ")), dtype=np.int64, count=len(keys)) + 1
        ids = np.fromiter(map(word_id.__getitem__, flat), dtype=np.uint64, count=len(flat))
        self._setup(list(word_id), ids, lengths, list(phrases.values()), max_n, keys)

    def _setup(self, words: list[str], ids: np.ndarray, lengths: np.ndarray, values: list, max_n: int,
               keys: list | None = None, search: dict | None = None) -> None:
        """``words[i - 1]``: the word of id i; ``ids``: every phrase's word ids, one phrase after the
        other; ``lengths``: each phrase's; ``values``: each phrase's entry ((N, variants) or its stored
        string); ``keys``: the phrases themselves, if at hand (else made from their ids when met);
        ``search``: the search's hashes and filter as :meth:`to_arrays` stores them (else made here)."""
        self.max_n = max_n
        self._words = words
        self._word_id = dict(zip(words, count(1)))
        self._values = values                     # by phrase index: (N, variants), its string, or None
        self._flat, self._lengths = ids, lengths
        self._starts = np.cumsum(lengths) - lengths
        self._keys = keys if keys is not None else [None] * len(lengths)
        # phrase -> index: every phrase's when the keys are at hand, else those made so far (all on demand)
        self._index_of = dict(zip(keys, count())) if keys is not None else {}
        self._all_indexed = keys is not None
        self._positions: dict = {}
        self._totals = np.full(len(lengths), _UNPARSED, dtype=np.int64)  # N of each phrase met (-1: no phrase)
        if search is not None:
            self._read_search(search)
        else:
            self._make_search()

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
            self._rows[n] = ids[starts[which][:, None] + np.arange(n)]
        # a one-hash Bloom filter (2**24 bits on the hashes' top bits) screens windows before the
        # binary search, which is slower (random access into the sorted hashes)
        self._bits = np.zeros(1 << (_FILTER_BITS - 3), dtype=np.uint8)
        if self._hashes:
            top = np.concatenate(list(self._hashes.values())) >> np.uint64(64 - _FILTER_BITS)
            np.bitwise_or.at(self._bits, (top >> np.uint64(3)).astype(np.int64),
                             (np.uint8(1) << (top & np.uint64(7)).astype(np.uint8)))
        self._bits_bytes = self._bits.tobytes()        # read byte by byte by the short texts' look-up

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
            self._rows[length] = self._flat[self._starts[which][:, None] + np.arange(length)]
        self._bits = bits
        self._bits_bytes = bits.tobytes()

    @classmethod
    def from_variants(cls, variants: dict[str, int], max_n: int = MAX_N) -> "PhraseTable":
        grouped = group_by_lowercase(variants)
        return cls({k: (sum(c for _, c in v), v) for k, v in sorted(grouped.items())}, max_n)

    @classmethod
    def build(cls, sentences, min_count: int = 2, max_n: int = MAX_N) -> "PhraseTable":
        """Both counting passes over a list of whitespace-tokenized sentences, in this process."""
        ix = index(sentences)
        keys = phrase_keys(run_counts(ix, max_n, min_count), min_count)
        return cls.from_variants(variant_counts(ix, keys, max_n), max_n)

    def __len__(self) -> int:
        return len(self._values)

    def _key(self, w: int) -> str:
        """Phrase ``w`` (by index), made from its word ids when first needed."""
        k = self._keys[w]
        if k is None:
            self._make_keys([w])
            k = self._keys[w]
        return k

    def _find(self, key: str) -> int | None:
        """The index of phrase ``key``, or None (a phrase no search has met: every phrase is made, once)."""
        w = self._index_of.get(key)
        if w is None and not self._all_indexed:
            self._make_keys(range(len(self._keys)))
            self._all_indexed = True
            w = self._index_of.get(key)
        return w

    def _entry_at(self, w: int):
        e = self._values[w]
        if e is None or isinstance(e, tuple):
            return e
        e = self._values[w] = self._parse(self._key(w), e)
        return e

    def entry(self, key: str):
        """(N, [(form, count), ...]) of a lowercased phrase, or None."""
        w = self._find(key)
        return None if w is None else self._entry_at(w)

    @staticmethod
    def _parse(key: str, text: str):
        f = text.split("\t")
        forms = f[1::2]
        try:
            counts = list(map(int, f[2::2]))
            total = int(f[0])
        except ValueError:
            return None
        k = len(forms)
        # every form is the phrase in some casing (the forms hold no tab: joined, they compare at once)
        if not k or len(counts) != k or "\t".join(forms).lower() != "\t".join([key] * k) \
                or min(counts) < 0 or total < max(1, sum(counts)):
            return None
        return total, list(zip(forms, counts))

    def _entries(self):
        """(phrase, its stored string) of every phrase whose entry parses, in order."""
        for w in range(len(self._values)):
            e = self._entry_at(w)
            if e is not None:
                yield self._key(w), "\t".join([str(e[0])] + [x for form, c in e[1] for x in (form, str(c))])

    def to_data(self) -> dict:
        """The table as JSON (the format before :meth:`to_arrays`; the tests' small tables)."""
        return {"max_n": self.max_n, "phrases": dict(self._entries())}

    @classmethod
    def from_data(cls, data: dict) -> "PhraseTable":
        """The table from ``to_data``'s JSON; ValueError when it is not one."""
        try:
            max_n, phrases = data["max_n"], data["phrases"]
        except (KeyError, TypeError) as e:
            raise ValueError(f"not a phrase table (no {e})") from e
        if not isinstance(max_n, int) or not 2 <= max_n <= 10 or not isinstance(phrases, dict) \
                or not all(type(v) is str and " " in k for k, v in phrases.items()):
            raise ValueError("not a phrase table (max_n 2..10 and a {phrase: string} map expected)")
        return cls(phrases, max_n)

    def to_arrays(self) -> tuple[dict, dict]:
        """(JSON-able metadata, numpy arrays) for :func:`.artifact.save_arrays`, no pickle: the phrase
        words and the entries as UTF-8 bytes, one a line; each phrase as its length and word ids."""
        entries = list(self._entries())
        word_id: dict[str, int] = {}
        ids = [word_id.setdefault(w, len(word_id) + 1) for k, _ in entries for w in k.split(" ")]
        lines = lambda xs: np.frombuffer("\n".join(xs).encode("utf-8"), dtype=np.uint8)
        lengths = np.array([k.count(" ") + 1 for k, _ in entries], dtype=np.uint8)
        stored = np.array(ids, dtype=np.uint32)
        # the search's tables, over the stored phrases (those whose entries parse) and their word ids
        search = PhraseTable.__new__(PhraseTable)
        search._setup(list(word_id), stored.astype(np.uint64), lengths.astype(np.int64), [None] * len(entries),
                      self.max_n)
        return ({"max_n": self.max_n, "phrases": len(entries)},
                {"words": lines(word_id), "ids": stored, "lengths": lengths, "entries": lines(v for _, v in entries),
                 **search.search_arrays()})

    @classmethod
    def from_arrays(cls, meta: dict, arrays: dict) -> "PhraseTable":
        """The inverse of :meth:`to_arrays`; ValueError on malformed input."""
        try:
            max_n, n = meta["max_n"], meta["phrases"]
            words = arrays["words"].tobytes().decode("utf-8").split("\n")
            entries = arrays["entries"].tobytes().decode("utf-8").split("\n") if n else []
            ids, lengths = np.asarray(arrays["ids"]), np.asarray(arrays["lengths"])
        except (KeyError, TypeError, AttributeError, UnicodeDecodeError) as e:
            raise ValueError(f"not a phrase table ({e!r})") from e
        if not isinstance(max_n, int) or not 2 <= max_n <= 10 or not isinstance(n, int) or len(entries) != n \
                or ids.dtype != np.uint32 or lengths.dtype != np.uint8 or ids.ndim != 1 or lengths.shape != (n,) \
                or (n and (lengths.min() < 2 or lengths.max() > max_n)) or int(lengths.sum()) != len(ids) \
                or (len(ids) and (ids.min() < 1 or ids.max() > len(words))) \
                or len(set(words)) != len(words) or any(" " in w or not w for w in words if len(ids)):
            raise ValueError("not a phrase table (inconsistent arrays)")
        table = cls.__new__(cls)
        search = {k: arrays[k] for k in arrays if k.startswith("search_")}     # format 9
        table._setup(words, ids.astype(np.uint64), lengths.astype(np.int64), entries, max_n,
                     search=search if search else None)
        return table

    def _position(self, key: str, p: int) -> dict[str, int]:
        """{form of the phrase's p-th token: occurrences} (cached)."""
        d = self._positions.get((key, p))
        if d is None:
            d = defaultdict(int)
            for form, c in self.entry(key)[1]:
                d[form.split(" ")[p]] += c
            d = dict(d)
            if len(self._positions) < 200_000:
                self._positions[(key, p)] = d
        return d

    #: Below this many tokens, :meth:`covered` looks the windows up in Python: numpy's call overheads
    #: (some sixty calls) cost more than the work for a sentence or two (a service's requests).
    SMALL = 64

    def _covered_small(self, low: list[str], sent_off) -> dict:
        """:meth:`covered` of a short text, window by window: the same matches, the same choice."""
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
                if int(table[k]) == h and self._rows[length][k].tolist() == ids[i:i + length]:
                    matches.append((i, length, int(self._index[length][k])))
        if not matches:
            return {}
        totals = self._totals_of(np.array([w for _, _, w in matches], dtype=np.int64)).tolist()
        best: dict[int, tuple] = {}
        for (i, length, w), total in zip(matches, totals):
            if total < 0:                               # an entry that does not parse is no phrase
                continue
            rank = (-length, -total, i)
            for p in range(length):
                cur = best.get(i + p)
                if cur is None or rank < cur[0]:
                    best[i + p] = (rank, w, p)
        return {t: (self._key(w), p) for t, (_, w, p) in sorted(best.items())}

    def covered(self, low: list[str], sent_off=None) -> dict:
        """{token index: ``(phrase, position in it)``} of the tokens of lowercased text inside a
        known phrase, the longest covering it (ties: the most frequent, then the leftmost).
        ``sent_off``: sentence boundaries in ``low`` (offsets, first 0 and last ``len(low)``;
        default one sentence); no phrase crosses one, and a sentence's first token is never
        covered."""
        n = len(low)
        if sent_off is None:
            sent_off = [0, n]
        if n < 3 or not self._hashes:
            return {}
        if n < self.SMALL:
            return self._covered_small(low, sent_off)
        matches = self._matches(low, sent_off)
        if matches is None:
            return {}
        starts, lens, which = matches
        totals = self._totals_of(which)
        good = totals >= 0                                   # entries that do not parse are no phrase
        starts, lens, which, totals = starts[good], lens[good], which[good], totals[good]
        if not len(starts):
            return {}
        # every (token, match covering it); per token the longest match wins, then the most
        # frequent, then the leftmost
        pos_in = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
        match = np.repeat(np.arange(len(lens)), lens)
        token = starts[match] + pos_in
        order = np.lexsort((starts[match], -totals[match], -lens[match], token))
        token, match, pos_in = token[order], match[order], pos_in[order]
        first = np.r_[True, token[1:] != token[:-1]]
        key = self._key
        return {t: (key(w), p) for t, w, p in zip(token[first].tolist(), which[match[first]].tolist(),
                                                  pos_in[first].tolist())}

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
                same = (ids[cand[:, None] + np.arange(length)] == self._rows[length][at]).all(axis=1)
                at_.append(cand[same])
                len_.append(np.full(int(same.sum()), length, dtype=np.int64))
                phrase_.append(self._index[length][at[same]])
        if not at_:
            return None
        return np.concatenate(at_), np.concatenate(len_), np.concatenate(phrase_)

    def _totals_of(self, which: np.ndarray) -> np.ndarray:
        """The occurrences N of phrases (by index), parsed from their stored entries on first use
        (-1: an entry that does not parse, which is no phrase)."""
        totals = self._totals[which]
        new = np.unique(which[totals == _UNPARSED]).tolist()
        if new:
            self._make_keys(new)
            self._totals[new] = [-1 if e is None else e[0] for e in map(self._entry_at, new)]
        return self._totals[which]

    def _make_keys(self, which: list[int]) -> None:
        """:meth:`_key` of many phrases at once (their word ids read together)."""
        keys = self._keys
        which = [w for w in which if keys[w] is None]
        if not which:
            return
        at = np.array(which, dtype=np.int64)
        lengths = self._lengths[at]
        tokens = list(map(self._words.__getitem__, (self._flat[ranges(self._starts[at], lengths)] - 1).tolist()))
        a = 0
        for w, b in zip(which, accumulate(lengths.tolist())):
            k = keys[w] = " ".join(tokens[a:b])
            self._index_of[k] = w
            a = b

    def covering_keys(self, low: list[str], sent_off=None) -> list:
        """``covered`` as a list: ``(phrase, position)`` or None for each token."""
        out: list = [None] * len(low)
        for i, c in self.covered(low, sent_off).items():
            out[i] = c
        return out

    def covering(self, low: list[str]) -> list:
        """For each token of a lowercased sentence: ``(N, {form: count})`` of its covering phrase
        (``covering_keys``), or None."""
        return [None if c is None else (self.entry(c[0])[0], self._position(*c)) for c in self.covering_keys(low)]

    def position_scores(self, key: str, p: int, forms: list[str]) -> list[float]:
        """The log10 phrase score of each candidate form of the ``p``-th token of phrase ``key``:
        ``log10((n(f) + 1/2) / (N + k/2))``, k = ``len(forms)``."""
        total, dist = self.entry(key)[0], self._position(key, p)
        denom = total + 0.5 * len(forms)
        return [math.log10((dist.get(f, 0) + 0.5) / denom) for f in forms]

    def scores(self, low: list[str], forms_of, sent_off=None, weight: float = 1.0, cache: dict | None = None) -> dict:
        """{token index: ``weight`` times the log10 phrase score (``position_scores``) of each of its
        candidate forms ``forms_of(word)``} for the tokens of lowercased text inside a known phrase
        (``covered``; ``sent_off`` as there) that have two or more candidates.  ``cache`` ({(phrase,
        position): weighted scores or None}, kept by the caller across calls) must be emptied when
        ``forms_of`` or ``weight`` change."""
        cache = {} if cache is None else cache
        out = {}
        for i, c in self.covered(low, sent_off).items():
            s = cache.get(c, False)                        # False: not cached (None is a cached "no score")
            if s is False:
                forms = forms_of(c[0].split(" ")[c[1]])
                s = [weight * x for x in self.position_scores(c[0], c[1], forms)] if len(forms) > 1 else None
                if len(cache) < 500_000:
                    cache[c] = s
            if s is not None:
                out[i] = s
        return out
