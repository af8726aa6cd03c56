"""The truecaser's C++ search (:mod:`.native`): the inputs it takes for a whole batch, gathered with
numpy from cached rows of each token's candidates, and its output turned back into tokens."""
from __future__ import annotations

import logging
import threading
from itertools import accumulate, chain, repeat
from operator import getitem, itemgetter
from types import SimpleNamespace

import numpy as np

from . import native
from .baseline import StoredForms, capitalize_first_word_in
from .context_samples import ranges

log = logging.getLogger(__name__)

_rows_lock = threading.Lock()

class CandidateRows:
    """The C++ search's per-candidate inputs of every token in a decoder's cache (``cache``), one
    row of consecutive entries per token: KenLM ids, class-LM ids and log10 P(w | c), in growing
    flat arrays, and the token's code in the sentence-context model (``code``, -1: none), so that a
    batch's inputs are numpy gathers, not per-token Python lists.  A row is
    seen only once :meth:`add` has returned (its index is then put in the cache), and the lock keeps
    two threads of a server from taking the same row."""

    def __init__(self, cache: dict):
        self.cache, self.n_rows, self.size, self.lock = cache, 0, 0, threading.Lock()
        self.start, self.count = np.zeros(1024, dtype=np.int64), np.zeros(1024, dtype=np.int64)
        self.code = np.full(1024, -1, dtype=np.int64)
        self.ids, self.cids = np.zeros(4096, dtype=np.uint32), np.zeros(4096, dtype=np.uint32)
        self.cem = np.zeros(4096)

    def __getstate__(self):                     # pickled with its model, less the lock
        return {k: v for k, v in self.__dict__.items() if k != "lock"}

    def __setstate__(self, state):
        self.__dict__.update(state, lock=threading.Lock())

    def add(self, ids: list, cids: list, cem: list, code: int = -1) -> int:
        """Append one token's row; its index."""
        k = len(ids)
        with self.lock:
            r, size = self._reserve(1, k)
            self.start[r], self.count[r], self.code[r] = size, k, code
            self.ids[size:size + k], self.cids[size:size + k] = ids, cids
            self.cem[size:size + k] = cem
            self.n_rows, self.size = r + 1, size + k
        return r

    def add_many(self, counts: np.ndarray, ids, cids, cem, codes) -> np.ndarray:
        """Append a row of ``counts[i]`` entries for each of many tokens (``ids``, ``cids`` and ``cem``
        their entries one row after the other, ``codes`` one a token); their row indices."""
        m, k = len(counts), int(counts.sum())
        with self.lock:
            r, size = self._reserve(m, k)
            self.start[r:r + m] = size + np.cumsum(counts) - counts
            self.count[r:r + m], self.code[r:r + m] = counts, codes
            self.ids[size:size + k], self.cids[size:size + k], self.cem[size:size + k] = ids, cids, cem
            self.n_rows, self.size = r + m, size + k
        return np.arange(r, r + m)

    def _reserve(self, rows: int, entries: int) -> tuple[int, int]:
        """Room for ``rows`` more rows and ``entries`` more entries (the arrays at least doubled when
        they grow); the first free row and entry.  The caller holds the lock."""
        r, size = self.n_rows, self.size
        if r + rows > len(self.start):
            cap = 2 * (r + rows)
            self.start, self.count, self.code = (np.resize(a, cap) for a in (self.start, self.count, self.code))
        if size + entries > len(self.ids):
            cap = 2 * (size + entries)
            self.ids, self.cids, self.cem = (np.resize(a, cap) for a in (self.ids, self.cids, self.cem))
        return r, size

class NativeSearch:
    """The C++ search of :class:`.model.Truecaser` (a mixin: the estimator's attributes and its
    Python search's scores are the model's)."""

    def native_decoder(self):
        """The C++ decoder of the same LM file (:mod:`.native`), or None (not built, switched off
        with ``TEXTQA_NATIVE_VITERBI=0``, or the LM is not in a file)."""
        if not native.available() or not getattr(self, "lm_path_", None):
            return None
        return self._native_handle("_native", self.lm_path_)

    def native_class_decoder(self):
        """The C++ decoder's handle of the class LM (:mod:`.classes`), or None (no class LM, or a
        library built before the class search: the Python search then decodes)."""
        if getattr(self, "class_lm_", None) is None or not hasattr(native._library(), "tc_viterbi_classes"):
            return None
        return self._native_handle("_native_classes", self.class_lm_path_)

    def _native_handle(self, attr: str, path: str):
        """The C++ decoder's handle of the LM file ``path``, kept in ``attr`` (False: it failed to
        open, and the Python search decodes); opening one resets the cached candidate ids, which
        belong to one LM's vocabulary."""
        dec = getattr(self, attr, None)
        if dec is None or (dec and dec.lm_path != path):
            try:
                dec = native.NativeViterbi(path)
            except RuntimeError as e:
                log.warning("%s; decoding in Python", e)
                dec = False
            setattr(self, attr, dec)
            self._native_cache = {}
        return dec or None

    def _native_entry(self, key: str, dec, cdec, cache: dict, rows: "CandidateRows"):
        """(candidates, KenLM ids, OOV classes or None, row in ``rows``, output forms) of a lowercased
        token for the C++ decoder (and the class LM's, ``cdec``, or None), built on a cache miss and
        put in ``cache`` (the batch's ``_native_cache``, reset with the decoder; its ids and class
        scores are the row)."""
        cands = self.candidates(key)
        classes = [c for _, _, c in cands]
        ids = [dec.index(lmw) for _, lmw, _ in cands]
        if cdec is not None:                    # the class LM's ids and log10 P(w | c)
            looked = [self.classes_.lookup(lmw) for _, lmw, _ in cands]
            cids, cem = [cdec.index(c) for c, _ in looked], [e for _, e in looked]
        else:
            cids, cem = [0] * len(cands), [0.0] * len(cands)
        ctx = getattr(self, "context_", None)
        entry = (cands, ids, classes if any(c is not None for c in classes) else None,
                 rows.add(ids, cids, cem, ctx.code(key) if ctx is not None else -1), [f for f, _, _ in cands])
        cache[key] = entry
        return entry

    def _native_entries(self, keys: list, dec, cdec, cache: dict, rows: "CandidateRows") -> None:
        """:meth:`_native_entry` of many lowercased tokens at once (a batch's new ones; the same
        entries).  The words of a stored casing table (:class:`.baseline.StoredForms`) have their
        candidates selected with numpy from the table's arrays and their rows added in one go: a
        batch meets most of its words for the first time when a process starts (a command's first
        lines), and one at a time their entries took longer than the search itself.  Unseen words
        (the OOV model's candidates) go one at a time."""
        table = self.casing_.forms
        stored = table.arrays() if isinstance(table, StoredForms) else None
        if stored is None:
            for key in keys:
                self._native_entry(key, dec, cdec, cache, rows)
            return
        index, all_forms, counts, off = stored
        at_word = np.fromiter(map(index.get, keys, repeat(-1)), dtype=np.int64, count=len(keys))
        for j in np.flatnonzero(at_word < 0).tolist():
            self._native_entry(keys[j], dec, cdec, cache, rows)
        which = np.flatnonzero(at_word >= 0)
        if not len(which):
            return
        word = at_word[which]
        first, n = off[word], off[word + 1] - off[word]       # each word's forms, most frequent first
        at = ranges(first, n)
        of = np.repeat(np.arange(len(word)), n)
        rank, count = at - first[of], counts[at]
        total = np.add.reduceat(count, np.cumsum(n) - n)
        # :meth:`.model.Truecaser.candidates`: the n_casings most frequent, those below the share dropped
        keep = (rank < self.n_casings) & ((rank == 0) | (count >= self.min_casing_share * total[of]))
        forms = list(map(all_forms.__getitem__, at[keep].tolist()))
        n_kept = np.bincount(of[keep], minlength=len(word))
        index_of = dec.index
        ids = [index_of(f) for f in forms]
        if cdec is not None:                    # the class LM's ids and log10 P(w | c)
            classes = self.classes_
            c = np.fromiter(map(classes.index.__getitem__, forms), dtype=np.int64, count=len(forms))
            cids, cem = self._class_ids(cdec)[classes.of[c]], classes.emission[c]
        else:
            cids, cem = 0, 0.0
        ctx = getattr(self, "context_", None)
        known = [keys[j] for j in which.tolist()]
        codes = [ctx.code(k) for k in known] if ctx is not None else -1
        row = rows.add_many(n_kept, ids, cids, cem, codes).tolist()
        cand_cache = self._cand_cache
        a = 0
        for key, r, b in zip(known, row, accumulate(n_kept.tolist())):
            fs = forms[a:b]
            cands = list(zip(fs, fs, repeat(None)))
            cache[key] = (cands, ids[a:b], None, r, fs)
            if len(cand_cache) < 500_000:
                cand_cache[key] = cands
            a = b

    def _class_ids(self, cdec) -> np.ndarray:
        """The class LM's id (``cdec``'s) of each class of :attr:`classes_`, by class index (kept per
        decoder and class table)."""
        kept = getattr(self, "_class_id_table", None)
        if kept is None or kept[0] is not cdec or kept[1] is not self.classes_:
            names = self.classes_.names
            kept = self._class_id_table = (cdec, self.classes_, np.array([cdec.index(c) for c in names],
                                                                          dtype=np.uint32))
        return kept[2]

    def _native_inputs(self, token_lists, dec) -> "SimpleNamespace":
        """The C++ search's inputs for a batch: its parts (``sent_off`` ranges of the flat tokens
        ``flat``, lowercased ``low``), each token's candidates (``cand_off`` ranges of KenLM ids
        ``ids``) and their emission scores ``em``: the OOV model's scores of the unseen words, the
        phrase scores and the discriminative pass's (and, with a class LM, its handle ``cdec`` and
        class ids ``cids``).
        Gathered with numpy from the cached tokens' rows (:class:`CandidateRows`; no per-token Python
        loop but the sentence split's, the discriminative features' and the unseen words')."""
        cdec = self.native_class_decoder() if self.class_lm_active() else None    # opened before the cache is read
        with _rows_lock:             # threads that find a new cache must share one set of rows for it
            ctx = getattr(self, "context_", None)
            if len(self._native_cache) >= 500_000 or getattr(self, "_native_cache_context", None) is not ctx:
                self._native_cache = {}     # a bound on a long-running service's cache; or a new context model
                self._native_cache_context = ctx
            cache = self._native_cache
            rows = getattr(self, "_native_rows", None)
            if rows is None or rows.cache is not cache:
                rows = self._native_rows = CandidateRows(cache)     # a new cache: new rows
        get = cache.get              # this batch keeps its cache and rows if another thread resets them
        parts_of, parts = [], []
        for toks in token_lists:
            p = self._parts(toks)
            parts_of.append(len(p))
            parts += p
        flat = list(chain.from_iterable(parts))
        low = [t.lower() for t in flat]
        sent_off = list(accumulate(map(len, parts), initial=0))
        ents = list(map(get, low))
        if None in ents:             # words not met before: their entries made together
            self._native_entries([k for k in dict.fromkeys(low) if k not in cache], dec, cdec, cache, rows)
            ents = [e or cache[k] for e, k in zip(ents, low)]
        row = np.fromiter(map(itemgetter(3), ents), dtype=np.int64, count=len(ents))
        n_cands = rows.count[row]
        cand_off = np.zeros(len(ents) + 1, dtype=np.int32)
        np.cumsum(n_cands, out=cand_off[1:])
        n = int(cand_off[-1])
        at = ranges(rows.start[row], n_cands)              # each candidate's place in the rows
        ids = rows.ids[at]
        em = np.zeros(n)
        extra = self.extra_scores(low, sent_off, context=False)
        if extra:                    # the phrase and discriminative scores of the tokens that have some
            tok = np.fromiter(extra, dtype=np.int64, count=len(extra))
            em[ranges(cand_off[tok].astype(np.int64), n_cands[tok])] = np.fromiter(
                chain.from_iterable(extra.values()), dtype=np.float64, count=int(n_cands[tok].sum()))
        scored = self._context_scores(low, sent_off, codes=rows.code[row])
        if scored is not None:       # the sentence-context scores, added as arrays
            pos, n, vals = scored
            if not np.array_equal(n, n_cands[pos]):
                raise RuntimeError("the sentence-context model's candidates differ from the decoder's")
            em[ranges(cand_off[pos].astype(np.int64), n)] += vals
        unseen_at = [t for t, e in enumerate(ents) if e[2] is not None]      # unseen words (OOV classes)
        if unseen_at and self.oov_ is not None:
            scores = self.oov_log10_ratios({low[t] for t in unseen_at})
            w = self.oov_weight
            pos, add = [], []
            for t in unseen_at:
                first, score = int(cand_off[t]), scores[low[t]]
                for j, c in enumerate(ents[t][2]):
                    if c is not None:
                        pos.append(first + j)
                        add.append(w * score[c])
            em[pos] += add           # each position once: the same sum as one addition per candidate
        cids = None
        if cdec is not None:         # + mu * log10 P(w | c), added last as the Python search does
            cids = rows.cids[at]
            em += self.class_lm_weight * rows.cem[at]
        return SimpleNamespace(parts_of=parts_of, flat=flat, low=low, sent_off=sent_off, ents=ents, ids=ids, em=em,
                               cand_off=cand_off, unseen_at=unseen_at, cids=cids, cdec=cdec)

    def _predict_native(self, token_lists, dec) -> list[list[str]]:
        """:meth:`predict_tokens` with the C++ Viterbi: one call for the whole batch."""
        inp = self._native_inputs(token_lists, dec)
        sent_off = inp.sent_off
        begin = not self.first_word.startswith("mask")
        if inp.cids is not None:
            choice = dec.decode_classes(inp.cdec, sent_off, inp.cand_off, inp.ids, inp.cids, inp.em,
                                        self.class_lm_weight, begin).tolist()
        else:
            choice = dec.decode(sent_off, inp.cand_off, inp.ids, inp.em, begin).tolist()
        cased = [form if len(form) == len(tok) else tok
                 for form, tok in zip(map(getitem, [e[4] for e in inp.ents], choice), inp.flat)]
        if self.first_word.endswith("+upper"):
            for a, b in zip(sent_off, sent_off[1:]):
                capitalize_first_word_in(cased, a, b)
        self._case_compounds(cased, inp.low, inp.unseen_at)
        out, p = [], 0
        for n_parts in inp.parts_of:
            out.append(cased[sent_off[p]:sent_off[p + n_parts]])
            p += n_parts
        return out
