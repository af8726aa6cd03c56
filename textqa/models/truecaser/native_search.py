"""The truecaser's C++ search (:mod:`.native`): the inputs it takes for a whole batch, gathered with
numpy from rows of each word's candidates, and its output turned back into tokens.

Every word of the casing table has its row from the start: :class:`NativeSearch` builds them all
at once with numpy when it is made (at load, ``Truecaser.prepare``), so that a file's first lines
decode as fast as its last.  Unseen words (the OOV model's candidates) get theirs when first met."""
from __future__ import annotations

import threading
from itertools import accumulate, chain
from types import SimpleNamespace

import numpy as np

from .baseline import capitalize_first_word_in
from .context_samples import ranges
from .scores import MAX_CACHED, CandidateScores

class CandidateRows:
    """The C++ search's per-candidate inputs of words, one row of consecutive entries per word:
    KenLM ids, class-LM ids, log10 P(w | c), the output form's length (``length``) and its id in
    the phrase table (``form``, :meth:`.phrases.PhraseTable.form_ids`), in growing flat arrays, and
    the word's code in the sentence-context model (``code``, -1: none), so that a batch's inputs are
    numpy gathers, not per-token Python lists.  A row is seen only once :meth:`add` has returned, and the lock keeps
    two threads of a server from taking the same row."""

    def __init__(self, rows: int = 1024, entries: int = 4096):
        self.n_rows, self.size, self.lock = 0, 0, threading.Lock()
        self.start, self.count = np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64)
        self.code = np.full(rows, -1, dtype=np.int64)
        self.ids, self.cids = np.zeros(entries, dtype=np.uint32), np.zeros(entries, dtype=np.uint32)
        self.cem = np.zeros(entries)
        self.length = np.zeros(entries, dtype=np.int64)
        self.form = np.zeros(entries, dtype=np.int64)

    def copy(self) -> "CandidateRows":
        """A copy with room to grow (its own arrays and lock)."""
        new = CandidateRows(len(self.start), len(self.ids))
        for name in ("start", "count", "code", "ids", "cids", "cem", "length", "form"):
            getattr(new, name)[:] = getattr(self, name)
        new.n_rows, new.size = self.n_rows, self.size
        return new

    def __getstate__(self):                     # pickled with its model, less the lock
        return {k: v for k, v in self.__dict__.items() if k != "lock"}

    def __setstate__(self, state):
        self.__dict__.update(state, lock=threading.Lock())

    def add(self, ids: list, cids: list, cem: list, code: int = -1, length=0, form=0) -> int:
        """Append one token's row; its index."""
        k = len(ids)
        with self.lock:
            r, size = self._reserve(1, k)
            self.start[r], self.count[r], self.code[r] = size, k, code
            self.ids[size:size + k], self.cids[size:size + k] = ids, cids
            self.cem[size:size + k] = cem
            self.length[size:size + k] = length
            self.form[size:size + k] = form
            self.n_rows, self.size = r + 1, size + k
        return r

    def _reserve(self, rows: int, entries: int) -> tuple[int, int]:
        """Room for ``rows`` more rows and ``entries`` more entries (the arrays at least doubled when
        they grow); the first free row and entry.  The caller holds the lock."""
        r, size = self.n_rows, self.size
        if r + rows > len(self.start):
            cap = 2 * (r + rows)
            self.start, self.count, self.code = (np.resize(a, cap) for a in (self.start, self.count, self.code))
        if size + entries > len(self.ids):
            cap = 2 * (size + entries)
            self.ids, self.cids, self.cem, self.length, self.form = (
                np.resize(a, cap) for a in (self.ids, self.cids, self.cem, self.length, self.form))
        return r, size

def table_inputs(model, decoder, forms=None, index=None) -> dict:
    """What the C++ search takes of each form and word of ``model``'s casing table, whatever the
    decode-time parameters: each form's KenLM id (``lm_ids``, in the LM that ``decoder`` opened),
    with a class LM its place among the class LM's words (``class_places``) and every LM word's
    (``class_place_table``, :meth:`.classes.WordClasses.place_table`), and each word's
    code in the sentence-context model (``context_codes``).  Stored with the model
    (``search.npz``), so that loading reads them; made here at saving, or at loading for an artifact
    that has none (``forms``, ``index``: the table's, if at hand)."""
    if forms is None:
        index, forms, _, _ = model.casing_.arrays()
    out = {"lm_ids": decoder.index_many(forms)}
    if model.classes_ is not None:
        classes = model.classes_
        table = classes.place_table(decoder.index_many(classes.words))
        out["class_places"] = classes.places(out["lm_ids"], forms, table).astype(np.int32)
        if table is not None:                   # (None: two class-LM words share an id; made at each load)
            out["class_place_table"] = table.astype(np.int32)
    if model.context_ is not None:
        out["context_codes"] = model.context_.codes(index).astype(np.int32)
    return out


def check_table_inputs(inputs: dict, model, n_forms: int, n_words: int, decoder) -> None:
    """``ArtifactError`` unless ``inputs`` (:func:`table_inputs`) fit ``model``'s tables and ``decoder``'s LM:
    one entry a form or a word, every id and place in range (the C++ search reads them unchecked)."""
    ids = np.asarray(inputs.get("lm_ids", ()))
    ok = ids.dtype == np.uint32 and ids.shape == (n_forms,) and (not n_forms or int(ids.max()) < decoder.vocab_size())
    if ok and model.classes_ is not None:
        c = np.asarray(inputs.get("class_places", ()))
        ok = c.dtype == np.int32 and c.shape == (n_forms,) and (not n_forms or (c.min() >= 0 and
                                                                              c.max() < len(model.classes_.of)))
        t = np.asarray(inputs.get("class_place_table", np.zeros(0, np.int32)))
        ok = ok and t.dtype == np.int32 and t.ndim == 1 and (not len(t) or (t.min() >= -1 and
                                                                           t.max() < len(model.classes_.of)))
    if ok and model.context_ is not None:
        codes = np.asarray(inputs.get("context_codes", ()))
        ok = codes.dtype == np.int32 and codes.shape == (n_words,) and (
            not n_words or (codes.min() >= -1 and codes.max() < model.context_.n_codes))
    if not ok:
        from ..artifact import ArtifactError  # deferred: loads orjson
        raise ArtifactError(f"{decoder.lm_path}: the search inputs stored beside it (search.npz) do not fit the "
                            f"model's tables and LM; retrain it")


class NativeSearch:
    """The C++ search over a truecaser's candidates and scores (``scores``, a
    :class:`.scores.CandidateScores`) with the decoder of its word LM (``decoder``, a
    :class:`.native.NativeViterbi`) and of its class LM (``class_decoder``, or None when the class LM
    is off).  Made, it holds the row of every word of the casing table (:meth:`_known_rows`)."""

    def __init__(self, scores: CandidateScores, decoder, class_decoder=None):
        self.scores, self.model = scores, scores.model
        self.decoder, self.class_decoder = decoder, class_decoder
        self._class_ids = None if class_decoder is None else \
            class_decoder.index_many(list(self.model.classes_.names))
        self._class_places = None           # {KenLM id: place among the class LM's words}, with a class LM
        self._index, self._known, self._known_forms = self._known_rows()
        self._lock = threading.Lock()
        self._forget_unseen()

    def _forget_unseen(self) -> None:
        """Start the unseen words' rows afresh (a bound on a long-running service's memory): the
        known words' rows, and an empty table of unseen ones.  A batch keeps the set it started with."""
        self._state = (self._known.copy(), {}, list(self._known_forms))

    def _known_rows(self) -> tuple[dict, CandidateRows, list]:
        """({word: row}, the rows of every word of the casing table, the output form of each entry).

        A word's candidates are its ``n_casings`` most frequent forms, less those below
        ``min_casing_share`` of its occurrences (the first kept whatever its share), as
        :meth:`.scores.CandidateScores.candidates` selects them, here for all words at once from the
        table's arrays.  Their LM ids, class places and the words' context codes are those the
        artifact stores (:func:`table_inputs`, read, not made), or made now when it stores none."""
        m = self.model
        index, all_forms, counts, off = m.casing_.arrays()
        n = np.diff(off)
        first = off[:-1]
        at = ranges(first, n)
        of = np.repeat(np.arange(len(n)), n)
        rank, count = at - first[of], counts[at]
        total = np.add.reduceat(count, first) if len(count) else count
        p = self.scores.params
        keep = (rank < p.n_casings) & ((rank == 0) | (count >= p.min_casing_share * total[of]))
        kept = at[keep]
        forms = list(map(all_forms.__getitem__, kept.tolist()))
        n_kept = np.bincount(of[keep], minlength=len(n))
        rows = CandidateRows(len(n) + 1024, len(forms) + 4096)
        rows.start[:len(n)] = np.cumsum(n_kept) - n_kept
        rows.count[:len(n)] = n_kept
        rows.length[:len(forms)] = np.fromiter(map(len, forms), dtype=np.int64, count=len(forms))
        stored = m.search_inputs_ or table_inputs(m, self.decoder, forms=all_forms, index=index)
        check_table_inputs(stored, m, len(all_forms), len(n), self.decoder)
        rows.ids[:len(forms)] = stored["lm_ids"][kept]
        if self.class_decoder is not None:          # the class LM's ids and log10 P(w | c)
            classes = m.classes_
            self._class_places = stored.get("class_place_table")
            if self._class_places is None:
                self._class_places = classes.place_table(self.decoder.index_many(classes.words))
            c = stored["class_places"][kept]
            rows.cids[:len(forms)], rows.cem[:len(forms)] = self._class_ids[classes.of[c]], classes.emission[c]
        if m.context_ is not None:
            rows.code[:len(n)] = stored["context_codes"]
        if m.phrases_ is not None:                  # (a loaded table's form ids are the casing forms' places)
            rows.form[:len(forms)] = kept if m.phrases_.bound_to(all_forms) else m.phrases_.form_ids(forms)
        rows.n_rows, rows.size = len(n), len(forms)
        return index, rows, forms

    def _unseen_entry(self, key: str, rows: CandidateRows, unseen: dict, forms_at: list) -> tuple:
        """(row, OOV classes or None, output forms) of an unseen lowercased word, its row added to
        ``rows`` and its output forms to ``forms_at`` (kept in ``unseen``)."""
        cands = self.scores.candidates(key)
        classes = [c for _, _, c in cands]
        forms = [f for f, _, _ in cands]
        lm = [lmw for _, lmw, _ in cands]
        ids = self.decoder.index_many(lm)
        if self.class_decoder is not None:          # the class LM's ids and log10 P(w | c)
            table = self.model.classes_
            c = table.places(ids, lm, self._class_places)
            cids, cem = self._class_ids[table.of[c]], table.emission[c]
        else:
            cids, cem = [0] * len(cands), [0.0] * len(cands)
        ctx = self.model.context_
        with self._lock:
            got = unseen.get(key)
            if got is not None:                    # another thread added it meanwhile
                return got
            phrases = self.model.phrases_
            r = rows.add(ids, cids, cem, ctx.code(key) if ctx is not None else -1, [len(f) for f in forms],
                         phrases.form_ids(forms, casing_free=True) if phrases is not None else 0)
            forms_at.extend(forms)
            entry = unseen[key] = (r, classes if any(c is not None for c in classes) else None, forms)
        return entry

    def known_entry(self, key: str) -> tuple | None:
        """(KenLM ids, class-LM ids, log10 P(w | c), context code, output forms) of a word of the casing
        table as its row holds them; None for another word."""
        r = self._index.get(key)
        if r is None:
            return None
        rows = self._known
        at = slice(int(rows.start[r]), int(rows.start[r] + rows.count[r]))
        return (rows.ids[at].tolist(), rows.cids[at].tolist(), rows.cem[at].tolist(), int(rows.code[r]),
                self._known_forms[at])

    def inputs(self, token_lists) -> SimpleNamespace:
        """The C++ search's inputs for a batch: its parts (``sent_off`` ranges of the flat tokens
        ``flat``, lowercased ``low``; ``parts_of``: each token list's number of parts), each token's
        candidates (``cand_off`` ranges of KenLM ids ``ids``; their output forms from
        ``forms_at[first_entry[t]]`` on, :meth:`forms`) and their emission scores ``em``: the OOV
        model's scores of the unseen words (at ``unseen_at``), the phrase scores, the discriminative
        pass's, the sentence-context model's (and, with a class LM, its class ids ``cids``).  Gathered
        with numpy from the words' rows (:class:`CandidateRows`; no per-token Python loop but the
        sentence split's, the phrases', the discriminative features' and the unseen words')."""
        m, scores = self.model, self.scores
        rows, unseen, forms_at = self._state
        if len(unseen) >= MAX_CACHED:
            with self._lock:
                self._forget_unseen()
            rows, unseen, forms_at = self._state
        parts_of, flat, low, sent_off = self._parts(token_lists)
        row = self._index.find(low)
        unseen_at, oov_classes = [], {}          # the unseen words with OOV classes
        for t in np.flatnonzero(row < 0).tolist():
            key = low[t]
            e = unseen.get(key) or self._unseen_entry(key, rows, unseen, forms_at)
            row[t] = e[0]
            if e[1] is not None:
                unseen_at.append(t)
                oov_classes[key] = e[1]
        n_cands = rows.count[row]
        cand_off = np.zeros(len(row) + 1, dtype=np.int32)
        np.cumsum(n_cands, out=cand_off[1:])
        at = ranges(rows.start[row], n_cands)              # each candidate's place in the rows
        em = np.zeros(int(cand_off[-1]))
        self._add_phrase_scores(em, low, sent_off, row, n_cands, cand_off, rows)
        extra = scores.extra_scores(low, sent_off, context=False, phrases=False)
        if extra:                    # the discriminative scores of the tokens that have some
            tok = np.fromiter(extra, dtype=np.int64, count=len(extra))
            em[ranges(cand_off[tok].astype(np.int64), n_cands[tok])] += np.fromiter(
                chain.from_iterable(extra.values()), dtype=np.float64, count=int(n_cands[tok].sum()))
        scored = scores.context_scores(low, sent_off, codes=rows.code[row])
        if scored is not None:       # the sentence-context scores, added as arrays
            pos, n, vals = scored
            if not np.array_equal(n, n_cands[pos]):
                raise RuntimeError("the sentence-context model's candidates differ from the decoder's")
            em[ranges(cand_off[pos].astype(np.int64), n)] += vals
        if unseen_at and m.oov_ is not None:
            self._add_oov(em, cand_off, low, unseen_at, oov_classes)
        cids = None
        if self.class_decoder is not None:     # + mu * log10 P(w | c), added last as the Python search does
            cids = rows.cids[at]
            em += self.scores.params.class_lm_weight * rows.cem[at]
        return SimpleNamespace(parts_of=parts_of, flat=flat, low=low, sent_off=sent_off, ids=rows.ids[at], em=em,
                               cand_off=cand_off, first_entry=rows.start[row], forms_at=forms_at, lengths=rows.length,
                               unseen_at=unseen_at, cids=cids)

    def _add_phrase_scores(self, em: np.ndarray, low: list, sent_off, row: np.ndarray, n_cands: np.ndarray,
                           cand_off: np.ndarray, rows: CandidateRows) -> None:
        """Set in ``em`` the weighted phrase score of each candidate of the tokens inside a known phrase
        that have two or more (:meth:`.scores.CandidateScores.phrase_scores`, with numpy over the
        rows' form ids)."""
        table, w = self.model.phrases_, self.scores.params.phrase_weight
        if table is None or not w:
            return
        t, which, pos = table.covered_arrays(low, sent_off)
        keep = n_cands[t] > 1
        t, which, pos = t[keep], which[keep], pos[keep]
        if not len(t):
            return
        k = n_cands[t]
        at = ranges(cand_off[t].astype(np.int64), k)
        em[at] = table.candidate_scores(t, which, pos, k, rows.form[ranges(rows.start[row[t]], k)], w)

    def _parts(self, token_lists) -> tuple[list, list, list, list]:
        """(each token list's number of parts, the parts' tokens flat, lowercased, the parts' offsets)."""
        parts_of, parts = [], []
        for toks in token_lists:
            p = self.scores.parts(toks)
            parts_of.append(len(p))
            parts += p
        flat = list(chain.from_iterable(parts))
        return parts_of, flat, [t.lower() for t in flat], list(accumulate(map(len, parts), initial=0))

    def _add_oov(self, em: np.ndarray, cand_off: np.ndarray, low: list, unseen_at: list, oov_classes: dict) -> None:
        """Add to ``em`` the weighted OOV-model score of each candidate of the unseen words at
        ``unseen_at`` that has an OOV class (``oov_classes``: each word's, by candidate)."""
        ratios = self.scores.oov_log10_ratios(oov_classes)
        w = self.scores.params.oov_weight
        pos, add = [], []
        for t in unseen_at:
            first, score = int(cand_off[t]), ratios[low[t]]
            for j, c in enumerate(oov_classes[low[t]]):
                if c is not None:
                    pos.append(first + j)
                    add.append(w * score[c])
        em[pos] += add           # each position once: the same sum as one addition per candidate

    def forms(self, inp: SimpleNamespace, t: int) -> list[str]:
        """The output forms of token ``t``'s candidates in the batch ``inp`` (:meth:`inputs`)."""
        a = int(inp.first_entry[t])
        return inp.forms_at[a:a + int(inp.cand_off[t + 1] - inp.cand_off[t])]

    def decode(self, token_lists) -> list[list[str]]:
        """Truecase a batch of token lists with the C++ Viterbi: one call for the whole batch."""
        p = self.scores.params
        inp = self.inputs(token_lists)
        sent_off = inp.sent_off
        begin = not p.first_word.startswith("mask")
        if inp.cids is not None:
            choice = self.decoder.decode_classes(self.class_decoder, sent_off, inp.cand_off, inp.ids, inp.cids,
                                                 inp.em, p.class_lm_weight, begin)
        else:
            choice = self.decoder.decode(sent_off, inp.cand_off, inp.ids, inp.em, begin)
        at = inp.first_entry + choice
        cased = list(map(inp.forms_at.__getitem__, at.tolist()))
        flat = inp.flat          # a form of another length than its token (Unicode case mappings) keeps the token
        for t in np.flatnonzero(inp.lengths[at] != np.fromiter(map(len, flat), np.int64, len(flat))).tolist():
            cased[t] = flat[t]
        if p.first_word.endswith("+upper"):
            for a, b in zip(sent_off, sent_off[1:]):
                capitalize_first_word_in(cased, a, b)
        self.scores.case_compounds(cased, inp.low, inp.unseen_at)
        out, p = [], 0
        for n_parts in inp.parts_of:
            out.append(cased[sent_off[p]:sent_off[p + n_parts]])
            p += n_parts
        return out
