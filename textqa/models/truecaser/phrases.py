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

from collections import defaultdict
from itertools import accumulate, count, repeat

import numpy as np

from .casing import group_by_lowercase, index
from .context_samples import ranges
from .phrase_counts import MAX_N, phrase_keys, run_counts, variant_counts
from .phrase_search import PhraseSearch


def _lines(xs) -> np.ndarray:
    return np.frombuffer("\n".join(xs).encode("utf-8"), dtype=np.uint8)


def _positions_of(key: str, value) -> tuple | None:
    """(N, [{form of the phrase's p-th token: occurrences} for each p]) of an entry given as
    ``(N, [(cased phrase, count), ...])``, as its string ``"N\tForm\tcount\t..."`` (the stored
    form before format 10) or as ``[N, [{form: count}, ...]]`` (:meth:`PhraseTable.to_data`); None
    when it is not an entry of ``key`` (it is then no phrase)."""
    n_words = key.count(" ") + 1
    if isinstance(value, list) and len(value) == 2:
        total, positions = value
        if type(total) is not int or not isinstance(positions, list) or len(positions) != n_words:
            return None
        words = key.split(" ")
        for word, d in zip(words, positions):
            if not isinstance(d, dict) or not d or any(type(c) is not int or c < 0 or not isinstance(f, str)
                                                        or f.lower() != word for f, c in d.items()):
                return None
        if total < max(1, *(sum(d.values()) for d in positions)):
            return None
        return total, [dict(d) for d in positions]
    if isinstance(value, str):
        f = value.split("\t")
        try:
            value = int(f[0]), list(zip(f[1::2], map(int, f[2::2])))
        except ValueError:
            return None
        if len(f) % 2 == 0:
            return None
    total, variants = value
    forms = [v for v, _ in variants]
    counts = [c for _, c in variants]
    k = len(forms)
    # every form is the phrase in some casing (the forms hold no tab: joined, they compare at once)
    if not k or "\t".join(forms).lower() != "\t".join([key] * k) or min(counts) < 0 or total < max(1, sum(counts)):
        return None
    positions = [defaultdict(int) for _ in range(n_words)]
    for form, c in variants:
        for d, x in zip(positions, form.split(" ")):
            d[x] += c
    return total, [dict(d) for d in positions]


class PhraseTable(PhraseSearch):
    """Lowercased phrase -> its occurrences in any casing N and, at each of its positions, how often
    each casing of the word there was seen: the per-position counts that the phrase score reads.

    Held and stored (``to_arrays``) as numpy arrays, no Python object per phrase: the phrase words;
    each phrase as its words' ids; each phrase's N (``totals``); and for each token of each phrase
    (the phrases' word ids one after the other) the number of its forms (``pos_n``), each form's id
    and count (``pos_forms``, ``pos_counts``, ids growing within a token).  A form's id is its place
    in a list of forms: stored, the casing table's forms (``casing_forms`` of them) followed by the
    phrase forms the casing table lacks (``extra_forms``), so that the search's candidates, which are
    casing-table forms, are their own ids (:meth:`bound_to`); counted, the table's own forms."""

    def __init__(self, phrases: dict, max_n: int = MAX_N):
        """``phrases``: {lowercased phrase: entry (:func:`_positions_of`)}; a value that is no entry is left out."""
        entries = [(k, e) for k, e in ((k, _positions_of(k, v)) for k, v in phrases.items()) if e is not None]
        keys = [k for k, _ in entries]
        flat = " ".join(keys).split(" ") if keys else []           # one split: no list per phrase
        word_id: dict[str, int] = dict(zip(dict.fromkeys(flat), count(1)))   # (C loops: load time)
        lengths = np.fromiter(map(str.count, keys, repeat(" ")), dtype=np.int64, count=len(keys)) + 1
        ids = np.fromiter(map(word_id.__getitem__, flat), dtype=np.uint64, count=len(flat))
        form_id: dict[str, int] = {}
        pos_n, pos_form, pos_count = [], [], []
        for _, (_, positions) in entries:
            for d in positions:
                got = sorted((form_id.setdefault(f, len(form_id)), c) for f, c in d.items())
                pos_n.append(len(got))
                pos_form += [f for f, _ in got]
                pos_count += [c for _, c in got]
        self._setup(list(word_id), ids, lengths, max_n, np.array([e[0] for _, e in entries], dtype=np.int64),
                    (np.array(pos_n, dtype=np.int64), np.array(pos_form, dtype=np.int64),
                     np.array(pos_count, dtype=np.int64)), [], list(form_id), keys)

    def _setup(self, words: list[str], ids: np.ndarray, lengths: np.ndarray, max_n: int, totals: np.ndarray,
               pos: tuple, base: list, extra: list, keys: list | None = None, search: dict | None = None) -> None:
        """``words[i - 1]``: the word of id i; ``ids``: every phrase's word ids, one phrase after the
        other; ``lengths``: each phrase's; ``totals``: each phrase's N; ``pos``: (``pos_n``,
        ``pos_forms``, ``pos_counts``) as the class describes them, the forms' ids places in ``base``
        (the casing table's forms, or none) followed by ``extra``; ``keys``: the phrases themselves, if
        at hand (else made from their ids when met); ``search``: the search's hashes and filter as
        :meth:`to_arrays` stores them (else made here)."""
        self.max_n = max_n
        self._words = words
        self._word_id = dict(zip(words, count(1)))
        if len(self._word_id) != len(words) and len(ids):
            raise ValueError("not a phrase table (a word stored twice)")
        self._flat, self._lengths = ids, lengths
        self._starts = np.cumsum(lengths) - lengths
        self._totals = totals
        self._pos_n, self._pos_form, self._pos_count = pos
        self._base, self._extra = base, extra
        self._space = len(base) + len(extra) + 1           # form ids < space - 1; space - 1: no form
        self._pos_off = None                                # where each token's forms start, made on first use
        self._pos_keys = None                               # token * space + form id, made on first use
        self._form_ids: dict | None = None                  # {form: id}, made on first use
        self._extra_ids: dict | None = None                 # {extra form: id}, made on first use
        self._keys = keys if keys is not None else [None] * len(lengths)
        # phrase -> index: every phrase's when the keys are at hand, else those made so far (all on demand)
        self._index_of = dict(zip(keys, count())) if keys is not None else {}
        self._all_indexed = keys is not None
        if search is not None:
            self._read_search(search)
        else:
            self._make_search()

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
        return len(self._totals)

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

    def _form(self, i: int) -> str:
        base = self._base
        return base[i] if i < len(base) else self._extra[i - len(base)]

    def _positions_at(self, w: int) -> tuple:
        """(N, [{form: count} for each position]) of phrase ``w`` (by index)."""
        j = int(self._starts[w])
        off = self._offsets()[j:j + int(self._lengths[w]) + 1].tolist()
        forms, counts = self._pos_form, self._pos_count
        return int(self._totals[w]), [{self._form(f): c for f, c in zip(forms[a:b].tolist(), counts[a:b].tolist())}
                                      for a, b in zip(off, off[1:])]

    def _offsets(self) -> np.ndarray:
        """Where each phrase token's forms start in ``pos_forms`` (and, last, their number); made once,
        when first needed."""
        if self._pos_off is None:
            off = np.zeros(len(self._pos_n) + 1, dtype=np.int64)
            np.cumsum(self._pos_n, out=off[1:])
            self._pos_off = off
        return self._pos_off

    def positions(self, key: str) -> tuple | None:
        """(N, [{form of the p-th token: occurrences} for each position p]) of a lowercased phrase, or None."""
        w = self._find(key)
        return None if w is None else self._positions_at(w)

    def to_data(self) -> dict:
        """The table as JSON (the tests' small tables): {phrase: [N, [{form: count} for each position]]}."""
        return {"max_n": self.max_n, "phrases": {self._key(w): list(self._positions_at(w)) for w in range(len(self))}}

    @classmethod
    def from_data(cls, data: dict) -> "PhraseTable":
        """The table from ``to_data``'s JSON (or the entry strings of formats 3 to 7); ValueError when it is not one."""
        try:
            max_n, phrases = data["max_n"], data["phrases"]
        except (KeyError, TypeError) as e:
            raise ValueError(f"not a phrase table (no {e})") from e
        if not isinstance(max_n, int) or not 2 <= max_n <= 10 or not isinstance(phrases, dict) \
                or not all(isinstance(v, (str, list)) and " " in k for k, v in phrases.items()):
            raise ValueError("not a phrase table (max_n 2..10 and a {phrase: entry} map expected)")
        return cls(phrases, max_n)

    def bound_to(self, forms: list) -> bool:
        """Whether the table's form ids are places in ``forms`` (the casing table's forms, as loaded)."""
        return len(self._base) > 0 and self._base is forms

    def to_arrays(self, casing_forms: list) -> tuple[dict, dict]:
        """(JSON-able metadata, numpy arrays) for :func:`.artifact.save_arrays`, no pickle: the phrase
        words as UTF-8 bytes, one a line; each phrase as its length and word ids, its N, and its
        per-position counts with form ids in ``casing_forms`` (the casing table's forms, distinct)
        followed by the forms it lacks (``extra_forms``)."""
        if self.bound_to(casing_forms):
            forms, extra = self._pos_form, self._extra
        else:
            place = dict(zip(casing_forms, count()))
            own = [self._form(i) for i in range(self._space - 1)]
            extra = [f for f in own if f not in place]
            place.update(zip(extra, count(len(casing_forms))))
            forms = np.array([place[f] for f in own], dtype=np.int64)[self._pos_form] if own else self._pos_form
        # ids grow within each token: sorted by (token, id)
        token = np.repeat(np.arange(len(self._pos_n)), self._pos_n)
        order = np.lexsort((forms, token))
        search = self.search_arrays()
        return ({"max_n": self.max_n, "phrases": len(self), "casing_forms": len(casing_forms)},
                {"words": _lines(self._words), "ids": self._flat.astype(np.uint32), "lengths": self._lengths.astype(np.uint8),
                 "totals": self._totals.astype(np.int64), "pos_n": self._pos_n.astype(np.uint8),
                 "pos_forms": forms[order].astype(np.uint32), "pos_counts": self._pos_count[order].astype(np.uint32),
                 "extra_forms": _lines(extra), **search})

    @classmethod
    def from_arrays(cls, meta: dict, arrays: dict, casing_forms: list) -> "PhraseTable":
        """The inverse of :meth:`to_arrays` (``casing_forms``: the casing table's forms, as ``to_arrays``
        was given them); the entry strings of format 8 and 9 are parsed.  ValueError on malformed input."""
        try:
            max_n, n = meta["max_n"], meta["phrases"]
            text = arrays["words"].tobytes().decode("utf-8")
            words = text.split("\n")
            ids, lengths = np.asarray(arrays["ids"]), np.asarray(arrays["lengths"])
        except (KeyError, TypeError, AttributeError, UnicodeDecodeError) as e:
            raise ValueError(f"not a phrase table ({e!r})") from e
        # (the words: no space, none empty; distinct, checked by _setup's dictionary of them)
        if not isinstance(max_n, int) or not 2 <= max_n <= 10 or not isinstance(n, int) \
                or ids.dtype != np.uint32 or lengths.dtype != np.uint8 or ids.ndim != 1 or lengths.shape != (n,) \
                or (n and (lengths.min() < 2 or lengths.max() > max_n)) or int(lengths.sum()) != len(ids) \
                or (len(ids) and (ids.min() < 1 or ids.max() > len(words))) \
                or (len(ids) and (" " in text or "\n\n" in text or text.startswith("\n") or text.endswith("\n"))):
            raise ValueError("not a phrase table (inconsistent arrays)")
        if "entries" in arrays:                                          # formats 8 and 9: entry strings
            return cls._from_entry_strings(words, ids, lengths, arrays, n, max_n)
        try:
            totals, pos_n = np.asarray(arrays["totals"]), np.asarray(arrays["pos_n"])
            pos_form, pos_count = np.asarray(arrays["pos_forms"]), np.asarray(arrays["pos_counts"])
            blob = arrays["extra_forms"].tobytes().decode("utf-8")
            extra = blob.split("\n") if blob else []
            n_casing = meta["casing_forms"]
        except (KeyError, TypeError, AttributeError, UnicodeDecodeError) as e:
            raise ValueError(f"not a phrase table ({e!r})") from e
        if n_casing != len(casing_forms):
            raise ValueError(f"not a phrase table of this casing table ({n_casing} forms, not {len(casing_forms)})")
        if totals.dtype != np.int64 or totals.shape != (n,) or (n and totals.min() < 1) \
                or pos_n.dtype != np.uint8 or pos_n.shape != ids.shape or (len(pos_n) and pos_n.min() < 1) \
                or pos_form.dtype != np.uint32 or pos_count.dtype != np.uint32 or pos_form.shape != pos_count.shape \
                or pos_form.ndim != 1 or int(pos_n.sum(dtype=np.int64)) != len(pos_form) \
                or (len(pos_form) and int(pos_form.max()) >= n_casing + len(extra)):
            raise ValueError("not a phrase table (inconsistent arrays)")
        table = cls.__new__(cls)
        search = {k: arrays[k] for k in arrays if k.startswith("search_")}
        table._setup(words, ids.astype(np.uint64), lengths.astype(np.int64), max_n, totals,
                     (pos_n.astype(np.int64), pos_form.astype(np.int64), pos_count.astype(np.int64)),
                     casing_forms if n_casing else [], extra, search=search if search else None)
        return table

    @classmethod
    def _from_entry_strings(cls, words, ids, lengths, arrays, n, max_n) -> "PhraseTable":
        """A table of format 8 or 9, which stored each entry as its string: every one parsed now."""
        try:
            entries = arrays["entries"].tobytes().decode("utf-8").split("\n") if n else []
        except (AttributeError, UnicodeDecodeError) as e:
            raise ValueError(f"not a phrase table ({e!r})") from e
        if len(entries) != n:
            raise ValueError("not a phrase table (inconsistent arrays)")
        tokens = [words[i - 1] for i in ids.tolist()]
        keys = [" ".join(tokens[a:b]) for a, b in zip(accumulate(lengths.tolist(), initial=0), accumulate(lengths.tolist()))]
        return cls(dict(zip(keys, entries)), max_n)

    def covered(self, low: list[str], sent_off=None) -> dict:
        """:meth:`covered_arrays` as {token index: ``(phrase, position in it)``}."""
        t, w, p = self.covered_arrays(low, sent_off)
        key = self._key
        return {i: (key(x), y) for i, x, y in zip(t.tolist(), w.tolist(), p.tolist())}

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
        out: list = [None] * len(low)
        for t, w, p in zip(*(a.tolist() for a in self.covered_arrays(low))):
            total, positions = self._positions_at(w)
            out[t] = (total, positions[p])
        return out

    # ------------------------------------------------------------------ the scores
    def form_ids(self, forms: list[str], casing_free: bool = False) -> np.ndarray:
        """Each form's id in the table (:class:`PhraseTable`), or the id no phrase token has.
        ``casing_free``: the forms are none of the casing table's (an unseen word's candidates), so that
        a table bound to it (:meth:`bound_to`) looks them up among its extra forms only."""
        if casing_free and self._base:
            ids = self._extra_ids
            if ids is None:
                ids = self._extra_ids = dict(zip(self._extra, count(len(self._base))))
        else:
            ids = self._form_ids
            if ids is None:
                ids = self._form_ids = dict(zip(self._base, count()))
                ids.update(zip(self._extra, count(len(self._base))))
        return np.fromiter(map(ids.get, forms, repeat(self._space - 1)), dtype=np.int64, count=len(forms))

    def candidate_scores(self, tokens: np.ndarray, which: np.ndarray, position: np.ndarray, n_cands: np.ndarray,
                         form_ids: np.ndarray, weight: float) -> np.ndarray:
        """``weight`` times the log10 phrase score of each candidate, ``log10((n(f) + 1/2) / (N + k/2))``
        with N the covering phrase's occurrences, n(f) those in which its token was the candidate's form
        f and k the token's candidates (add-half smoothing; :mod:`.phrases`).  Per covered token (as
        :meth:`covered_arrays` gives them: the phrase ``which``, the ``position`` in it) its
        ``n_cands`` candidates' ``form_ids`` (:meth:`form_ids`), one token's after the other."""
        keys = self._pos_keys
        if keys is None:
            keys = np.repeat(np.arange(len(self._pos_n), dtype=np.int64), self._pos_n) * self._space + self._pos_form
            if len(keys) and (keys[1:] <= keys[:-1]).any():
                raise ValueError("not a phrase table (a token's form ids do not grow)")
            self._pos_keys = keys
        token = np.repeat(self._starts[which] + position, n_cands)
        q = token * self._space + form_ids
        at = np.minimum(np.searchsorted(keys, q), max(len(keys) - 1, 0))
        n = np.where(keys[at] == q, self._pos_count[at], 0) if len(keys) else np.zeros(len(q), np.int64)
        denom = np.repeat(self._totals[which] + 0.5 * n_cands, n_cands)
        return weight * np.log10((n + 0.5) / denom)

    def scores(self, low: list[str], forms_of, sent_off=None, weight: float = 1.0) -> dict:
        """{token index: :meth:`candidate_scores` of its candidate forms ``forms_of(word)``} for the
        tokens of lowercased text inside a known phrase (:meth:`covered_arrays`; ``sent_off`` as there)
        that have two or more candidates (the Python search's; the C++ search's inputs gather the
        same with numpy, :meth:`.native_search.NativeSearch.inputs`)."""
        t, w, p = self.covered_arrays(low, sent_off)
        forms = [forms_of(low[i]) for i in t.tolist()]
        n = np.fromiter(map(len, forms), dtype=np.int64, count=len(forms))
        keep = n > 1
        if not keep.any():
            return {}
        t, w, p, n = t[keep], w[keep], p[keep], n[keep]
        flat = [f for fs, k in zip(forms, keep.tolist()) if k for f in fs]
        s = self.candidate_scores(t, w, p, n, self.form_ids(flat), weight).tolist()
        return {i: s[a:b] for i, a, b in zip(t.tolist(), accumulate(n.tolist(), initial=0), accumulate(n.tolist()))}
