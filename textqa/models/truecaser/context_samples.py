"""The sentence-context model's training samples: the ambiguous words it is fitted for, and each
occurrence's sentence words, collected in one pass over the training text with a quota per casing
(:func:`collect`; ``textqa train truecaser --scheduler`` runs it per partition and merges)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .casing import index, lowercase_ids


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenated ranges ``starts[i] .. starts[i] + lengths[i] - 1``."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, np.int64)
    ends = np.cumsum(lengths)
    return np.repeat(np.asarray(starts, np.int64) - (ends - lengths), lengths) + np.arange(total, dtype=np.int64)

class RowColumnIndex:
    """A read-only index of a sparse matrix's entries (CSR: ``indptr``, ``indices`` with increasing
    columns in each row), built and searched with numpy, for looking up many (row, column) pairs at
    once.  Each row has as many buckets as entries; an entry's bucket within its row is its column's
    place in the columns' overall distribution (the share of all entries at smaller columns), so
    buckets follow the sort order (no sort to build: a count) and hold about one entry each, however
    the columns are spread.  ``find(rows, cols)`` gives each pair's entry position, or -1, in a few
    vectorised passes (one per entry of the fullest bucket a look-up meets); a binary search of the
    sorted keys makes about 22 random reads a look-up at 7 M entries.  The default model's 7.4 M
    weights are indexed with a few passes over them."""
    _BITS = 20

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, n_cols: int, stored: dict | None = None):
        """``stored``: :meth:`to_arrays`' arrays of this index, read instead of made (ValueError when
        they do not fit the matrix)."""
        self.indptr = np.asarray(indptr, np.int64)
        self.indices = np.asarray(indices)
        self.n = np.diff(self.indptr)
        if stored is not None:
            self._read(stored, n_cols)
            return
        freq = np.bincount(self.indices, minlength=n_cols)
        below = np.cumsum(freq) - freq                   # entries at smaller columns
        self.place = (below << self._BITS) // max(int(freq.sum()), 1)     # in [0, 2**BITS)
        # each entry's bucket, _bucket(its row, its column), with the rows' values repeated (no gather)
        bucket = np.repeat(self.indptr[:-1], self.n) + ((self.place[self.indices] * np.repeat(self.n, self.n))
                                                        >> self._BITS)
        self.start = np.zeros(len(self.indices) + 1, np.int64)
        np.cumsum(np.bincount(bucket, minlength=len(self.indices)), out=self.start[1:])

    def to_arrays(self) -> dict:
        """The index as arrays: each column's place (``column_places``) and each bucket's number of
        entries (``bucket_counts``, one byte each when they fit, as they do: a bucket holds about one)."""
        counts = np.diff(self.start)
        small = np.uint8 if counts.max(initial=0) < 256 else np.int64
        return {"column_places": self.place.astype(np.int32), "bucket_counts": counts.astype(small)}

    def _read(self, stored: dict, n_cols: int) -> None:
        place, counts = np.asarray(stored["column_places"]), np.asarray(stored["bucket_counts"])
        if place.dtype != np.int32 or place.shape != (n_cols,) or counts.dtype not in (np.uint8, np.int64) \
                or counts.shape != (len(self.indices),) or (len(place) and (place.min() < 0 or
                                                                          place.max() >= 1 << self._BITS)) \
                or int(counts.sum(dtype=np.int64)) != len(self.indices):
            raise ValueError("the stored row-column index does not fit its matrix")
        self.place = place.astype(np.int64)
        self.start = np.zeros(len(self.indices) + 1, np.int64)
        np.cumsum(counts, out=self.start[1:])

    def _bucket(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        return self.indptr[rows] + ((self.place[cols] * self.n[rows]) >> self._BITS)

    def find(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        out = np.full(len(rows), -1, np.int64)
        todo = np.flatnonzero(self.n[rows] > 0)
        b = self._bucket(rows[todo], cols[todo])
        at, end = np.zeros(len(rows), np.int64), np.zeros(len(rows), np.int64)
        at[todo], end[todo] = self.start[b], self.start[b + 1]
        todo = todo[at[todo] < end[todo]]
        while len(todo):                # a bucket holds entries of its row only, by increasing column
            i = at[todo]
            c = self.indices[i]
            found = c == cols[todo]
            out[todo[found]] = i[found]
            todo = todo[c < cols[todo]]
            at[todo] += 1
            todo = todo[at[todo] < end[todo]]
        return out

def target_words(forms: dict, candidate_forms, min_count: int = 20, min_second: float = 0.01) -> dict:
    """{lowercased word: its candidate forms} of the ambiguous known words of a casing table
    (``forms``: {key: [[form, count], ...]}; ``candidate_forms(key)``: the decoder's candidates)."""
    out = {}
    for w, f in forms.items():
        if len(f) < 2:
            continue
        total = sum(c for _, c in f)
        if total < min_count:
            continue
        cands = candidate_forms(w)
        if len(cands) < 2:
            continue
        counts = dict(f)
        if sorted((counts.get(c, 0) for c in cands), reverse=True)[1] >= min_second * total:
            out[w] = list(cands)
    return out

class _Hits(NamedTuple):
    """The non-initial occurrences of the targets' casings in indexed sentences, in corpus order."""
    at: np.ndarray              # token positions
    word: np.ndarray            # target index
    casing: np.ndarray          # casing index
    low: np.ndarray             # lowercased-word id of each token id
    low_words: list             # the lowercased word of each such id

def _hits(sentences, targets: dict) -> _Hits:
    """The :class:`_Hits` of ``sentences`` (token lists, whitespace-tokenized strings or
    :class:`.casing.Indexed`): numpy over the token ids, each distinct token looked up once."""
    ix = index(sentences)
    tid = {w: i for i, w in enumerate(targets)}
    form_idx = [{f: k for k, f in enumerate(c)} for c in targets.values()]
    low, low_id = lowercase_ids(ix.words)
    low_words = list(low_id)
    word, casing = np.full(len(ix.words), -1, np.int64), np.full(len(ix.words), -1, np.int64)
    for i, (w, lw) in enumerate(zip(ix.words, low.tolist())):
        j = tid.get(low_words[lw])
        if j is not None:
            k = form_idx[j].get(w)
            if k is not None:
                word[i], casing[i] = j, k
    lengths = np.asarray(ix.lengths, np.int64)
    hit = word[ix.ids] >= 0
    hit[(np.cumsum(lengths) - lengths)[lengths > 0]] = False          # not a sentence's first token
    at = np.flatnonzero(hit)
    return _Hits(at, word[ix.ids[at]], casing[ix.ids[at]], low, low_words)

def occurrences(sentences, targets: dict) -> np.ndarray:
    """How many non-initial occurrences of each of the ``targets``' casings ``sentences`` have (what
    :func:`collect` would take with no cap): a row a target, a column a casing (0 past its last)."""
    out = np.zeros((len(targets), max((len(c) for c in targets.values()), default=1)), np.int64)
    h = _hits(sentences, targets)
    np.add.at(out, (h.word, h.casing), 1)
    return out

def quotas(counts: list, cap: int) -> list:
    """Each stretch's share of the first ``cap`` occurrences of each word and casing over consecutive
    stretches of a corpus whose :func:`occurrences` are ``counts`` (in corpus order): the caps under which
    each stretch's :func:`collect` gives exactly its part of the whole corpus's samples."""
    out, before = [], 0                 # the occurrences in the stretches before this one
    for c in counts:
        out.append(np.clip(cap - before, 0, c))
        before = before + c
    return out

def _first_of_each(h: _Hits, targets: dict, cap) -> np.ndarray:
    """Which of the hits ``h`` are among the first ``cap`` of their (word, casing) in corpus order
    (``cap``: a number, or a matrix as :func:`occurrences` gives): each hit's rank in its group."""
    width = max((len(c) for c in targets.values()), default=1)
    limit = (np.asarray(cap, np.int64) if np.ndim(cap) else np.full((len(targets), width), cap, np.int64)).ravel()
    group = h.word * width + h.casing
    by_group = np.argsort(group, kind="stable")
    group = group[by_group]
    new_group = np.r_[True, group[1:] != group[:-1]] if len(group) else np.zeros(0, bool)
    rank = np.arange(len(group)) - np.maximum.accumulate(np.where(new_group, np.arange(len(group)), 0))
    keep = np.zeros(len(group), bool)
    keep[by_group[rank < limit[group]]] = True
    return keep


def collect(sentences, targets: dict, cap, progress=None, stop=(), block: int = 2_000_000):
    """(sparse 0/1 rows of the other words of the sentence, target index, casing index, {feature
    word: column}) of each non-initial occurrence of the ``targets`` in ``sentences`` (token lists,
    whitespace-tokenized strings or :class:`.casing.Indexed`, already folded as the model's), the
    first ``cap`` of each word and casing in corpus order (``cap``: a number, or a matrix as
    :func:`occurrences` gives, a cap for each).  The ``stop`` words are not features (nor targets);
    the columns are numbered in the order the sentences with samples meet their words.  Built with
    numpy, sentences of about ``block`` tokens at a time (the memory it takes)."""
    import scipy.sparse as sp  # deferred: loads scipy
    ix = index(sentences)
    h = _hits(ix, targets)
    keep = _first_of_each(h, targets, cap)
    at, words, labels = h.at[keep], h.word[keep], h.casing[keep]
    del keep
    n_low = max(1, len(h.low_words))
    is_stop = np.zeros(n_low, bool)
    stop = frozenset(stop)
    is_stop[[i for i, w in enumerate(h.low_words) if w in stop]] = True
    lengths = np.asarray(ix.lengths, np.int64)
    ends = np.cumsum(lengths)
    sample_sentence = np.searchsorted(ends, at, side="right")
    column, met = np.full(n_low, -1, np.int64), []
    indices, counts = [], []
    cuts = np.unique(np.r_[0, np.searchsorted(ends, np.arange(block, int(ends[-1]) if len(ends) else 0, block)),
                           len(lengths)])
    for s0, s1 in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        a0, a1 = np.searchsorted(sample_sentence, [s0, s1]).tolist()
        if a0 == a1:
            continue
        t0 = int(ends[s0 - 1]) if s0 else 0
        sentence = np.repeat(np.arange(s1 - s0), lengths[s0:s1])
        low = h.low[ix.ids[t0:int(ends[s1 - 1])]]
        with_sample = np.zeros(s1 - s0, bool)
        with_sample[sample_sentence[a0:a1] - s0] = True
        mask = with_sample[sentence] & ~is_stop[low]
        sentence, low = sentence[mask], low[mask]
        # columns for the words met first here, in the order met
        seen, first = np.unique(low, return_index=True)
        fresh = column[seen] < 0
        fresh_words = seen[fresh][np.argsort(first[fresh], kind="stable")]
        column[fresh_words] = np.arange(len(met), len(met) + len(fresh_words))
        met.extend(fresh_words.tolist())
        # each sample's row: the distinct words of its sentence but its own
        pairs = np.unique(sentence * n_low + low)
        pair_sentence, pair_low = pairs // n_low, pairs % n_low
        where = sample_sentence[a0:a1] - s0
        seg_start = np.searchsorted(pair_sentence, where)
        seg_len = np.searchsorted(pair_sentence, where, side="right") - seg_start
        entries = ranges(seg_start, seg_len)
        sample = np.repeat(np.arange(a1 - a0), seg_len)
        other = pair_low[entries] != h.low[ix.ids[at[a0:a1]]][sample]
        indices.append(column[pair_low[entries[other]]].astype(np.int32))
        counts.append(np.bincount(sample[other], minlength=a1 - a0))
    indptr = np.zeros(len(at) + 1, np.int64)
    if counts:
        np.cumsum(np.concatenate(counts), out=indptr[1:])
    indices = np.concatenate(indices) if indices else np.zeros(0, np.int32)
    X = sp.csr_matrix((np.ones(len(indices), np.float32), indices, indptr), shape=(len(at), len(met)))
    if progress:
        progress(f"sentence-context model: {len(lengths):,} sentences read, {len(at):,} samples")
    return X, words, labels, {h.low_words[w]: i for i, w in enumerate(met)}

def merge_samples(parts: list):
    """:func:`collect`'s samples of consecutive stretches of a corpus (``parts``, in corpus order, each
    collected under its :func:`quotas`) as :func:`collect` gives them for the whole: one after the
    other, their columns renumbered over one vocabulary (in the order the parts met the words)."""
    import scipy.sparse as sp  # deferred: loads scipy
    vocab: dict = {}
    indices, indptr, words, labels, nnz = [], [np.zeros(1, np.int64)], [], [], 0
    for X, w, y, v in parts:
        cols = np.fromiter((vocab.setdefault(x, len(vocab)) for x in v), dtype=np.int32, count=len(v))
        indices.append(cols[X.indices])
        indptr.append(np.asarray(X.indptr[1:], np.int64) + nnz)
        nnz += len(X.indices)
        words.append(np.asarray(w, np.int64))
        labels.append(np.asarray(y, np.int64))
    words, labels = np.concatenate(words or [np.zeros(0, np.int64)]), np.concatenate(labels or [np.zeros(0, np.int64)])
    X = sp.csr_matrix((np.ones(nnz, np.float32), np.concatenate(indices or [np.zeros(0, np.int32)]),
                       np.concatenate(indptr)), shape=(len(words), len(vocab)))
    return X, words, labels, vocab
