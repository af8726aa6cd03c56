"""The sentence's words: a casing model per ambiguous known word (beyond the paper).

A trigram LM sees two words to the left; the truecaser's commonest errors ("district", "church",
"the" in titles of works, "Raw" the television show) hang on what the whole sentence is about.  As
in word-sense disambiguation, each ambiguous word gets its own classifier of its casing given the
other words of its sentence:

- **Words** (:func:`target_words`): the known words with two or more candidate casings, seen at
  least ``min_count`` times in training, whose second candidate has at least ``min_second`` of
  their occurrences.
- **Training** (:func:`collect`, :func:`fit_context`): their occurrences in the training text (not
  the first word of a sentence), the first ``cap`` of each casing; the features are the set of the
  other lowercased words of the sentence, less the stop words (below).  One
  L2-regularised logistic regression a word (scikit-learn; ``liblinear`` for two casings, the
  multinomial ``lbfgs`` for more).
- **Decoding** (:meth:`SentenceContext.candidate_scores`, vectorised over a batch): ``W * (log10 P(casing | sentence words) - log10
  P(casing))``, the prior being the casing's share of the word's sample, is added to each
  candidate's emission score, as the phrase scores are, so the search stays exact (the C++ and the
  Python search alike).  A casing the sample never had scores 0.

Stored as arrays only (no pickle): the feature words, the target words and their casings, and one
sparse row of weights per (word, casing but the first): the first casing's logit is 0, the others'
are relative to it, so a two-casing word is one row (its binary logistic regression) and a
multinomial one K - 1 rows (the softmax is unchanged by subtracting the first logit).  Weights below
``min_weight`` in absolute value are dropped; the artifact keeps the rest as int8, with a scale a row.
The ``DEFAULT_STOP`` commonest words of the training text are neither modelled nor context: their casing
is a matter of the phrase (titles of works), not of the topic, and they are over half the tokens.
"""
from __future__ import annotations

import math
import threading
import warnings
from itertools import chain

import numpy as np

from textqa.runtime import process_pool

from ..sklearn_data import same_numbers_anywhere
from .context_samples import RowColumnIndex, collect, ranges
from .word_index import WordIndex

LN10 = math.log(10)
#: The defaults of ``textqa train truecaser``: samples a casing (measured 1,000 / 3,000 / 10,000 in
#: docs/experiments/truecaser.md), the weight W (best on dev while gaining on news), the regressions' inverse L2
#: strength C, the weights kept (|w| above: at C = 3, 0.3 keeps fewer weights than C = 1 kept at 0.2,
#: for the artifact's size budget) and how many of the commonest words are neither modelled nor context.
DEFAULT_CAP, DEFAULT_WEIGHT, DEFAULT_C, DEFAULT_MIN_WEIGHT, DEFAULT_STOP = 10_000, 0.5, 3.0, 0.3, 100


class SentenceContext:
    """The fitted per-word casing classifiers, as arrays (see the module's docstring).

    ``features``: feature words (column order); ``targets``: target words; ``classes``: each target's
    casings (forms) in its classifier's order; ``prior``: their sample shares, flat, from
    ``class_off[j]``; ``row_off[j]``: the first weight row of target j (it has len(classes[j]) - 1
    rows); ``intercept``: each row's; ``indptr``, ``indices``, ``data``: the rows' sparse weights.
    """

    def __init__(self, features: list | None, targets: list, classes: list, prior, intercept, indptr, indices,
                 data=None, info: dict | None = None, *, quantised: tuple | None = None, index: dict | None = None,
                 words: tuple | None = None):
        """``data``: the weights; or ``quantised``: (int8 weights, each row's float32 scale), as
        :meth:`to_data` stores them, kept so (a weight is the product, made when it is looked up);
        ``index``: the weights' look-up index as :meth:`to_data` stores it (else made here);
        ``words``: (the stored index of the words' codes, :class:`.word_index.WordIndex`, the number
        of features), read in place of ``features`` (None then)."""
        self.targets, self.classes = list(targets), [list(c) for c in classes]
        n_cls = np.array([len(c) for c in self.classes], dtype=np.int64)
        if len(self.classes) != len(self.targets) or (n_cls < 2).any():
            raise ValueError("each target word needs two or more casings")
        self.class_off = np.zeros(len(n_cls) + 1, np.int64)
        np.cumsum(n_cls, out=self.class_off[1:])
        self.row_off = np.zeros(len(n_cls) + 1, np.int64)
        np.cumsum(n_cls - 1, out=self.row_off[1:])
        self.prior = np.asarray(prior, np.float64)
        self.intercept = np.asarray(intercept, np.float64)
        self.indptr = np.asarray(indptr, np.int64)
        self.indices = np.asarray(indices, np.int32)
        if quantised is not None:
            self._data, (self._q, self._scale) = None, (np.asarray(quantised[0]), np.asarray(quantised[1], np.float32))
            weights, finite = self._q, np.isfinite(self._scale).all() and (self._scale > 0).all()
            if self._q.dtype != np.int8 or self._scale.shape != (len(self.indptr) - 1,):
                raise ValueError("inconsistent sentence-context arrays")
        else:
            self._data = weights = np.asarray(data, np.float32)
            finite = np.isfinite(self._data).all()
        if words is not None:
            self._words, self.n_features = words
        else:
            features = list(features)
            known = set(features)
            if len(known) != len(features):
                raise ValueError("the sentence-context words must be distinct")
            # a word's code: its feature index, or past the features, in the targets' order
            self._words = WordIndex.build(features + [w for w in dict.fromkeys(self.targets) if w not in known])
            self.n_features = len(features)
        n_rows, F = int(self.row_off[-1]), self.n_features
        if any(a.ndim != 1 for a in (self.prior, self.intercept, self.indptr, self.indices, weights)):
            raise ValueError("the sentence-context arrays must be one-dimensional")
        if len(self.prior) != self.class_off[-1] or len(self.intercept) != n_rows or len(self.indptr) != n_rows + 1 \
                or self.indptr[0] != 0 or (np.diff(self.indptr) < 0).any() or self.indptr[-1] != len(self.indices) \
                or len(weights) != len(self.indices) or (len(self.indices) and
                                                         (self.indices.min() < 0 or self.indices.max() >= F)):
            raise ValueError("inconsistent sentence-context arrays")
        if (self.prior <= 0).any() or not np.isfinite(self.prior).all() or not np.isfinite(self.intercept).all() \
                or not finite:
            raise ValueError("the sentence-context weights must be finite and the priors positive")
        self.info = dict(info or {})
        if len(self.indices) >= 1 << 31:
            raise ValueError("too many sentence-context weights")
        rising = np.diff(self.indices.astype(np.int64)) > 0
        rising[self.indptr[1:-1][(self.indptr[1:-1] > 0) & (self.indptr[1:-1] < len(self.indices))] - 1] = True
        if not rising.all():                     # a row's last and the next row's first may fall
            raise ValueError("the sentence-context columns must be increasing within a row")
        self._log_prior = np.log(self.prior)
        n_codes = len(self._words)
        target_codes = self._words.find(self.targets)
        if len(set(self.targets)) != len(self.targets) or n_codes < F or (target_codes < 0).any():
            raise ValueError("the sentence-context words must be distinct, and every target word have a code")
        self._feat_of = np.full(n_codes + 1, -1, np.int64)   # the last entry (code -1): a word in neither list
        self._feat_of[:F] = np.arange(F)
        self._target_of = np.full(n_codes + 1, -1, np.int64)
        self._target_of[target_codes] = np.arange(len(self.targets))
        self._index = RowColumnIndex(self.indptr, self.indices, F, stored=index)

    @property
    def features(self) -> list[str]:
        """The context words, by feature index (decoded from the stored words when asked for)."""
        return self._words.words()[:self.n_features]

    @property
    def data(self) -> np.ndarray:
        """The weights, float32, in the order of ``indices``."""
        if self._data is not None:
            return self._data
        return self._q.astype(np.float32) * np.repeat(self._scale, np.diff(self.indptr))

    def _weights(self, at: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The weights at positions ``at``, of rows ``rows``: the same float32 numbers as :attr:`data`'s."""
        return self._data[at] if self._data is not None else self._q[at].astype(np.float32) * self._scale[rows]

    def __len__(self) -> int:
        return len(self.targets)

    @property
    def n_codes(self) -> int:
        """How many words have a :meth:`code` (codes run from 0 to ``n_codes - 1``)."""
        return len(self._words)

    # --------------------------------------------------------------- scoring
    def code(self, word: str) -> int:
        """The word's code in :meth:`log10_ratios`'s ``codes`` (-1: neither modelled nor context)."""
        return self._words.get(word, -1)

    def codes(self, index: dict) -> np.ndarray:
        """The :meth:`code` of each word of ``index`` ({word: i}), at i."""
        out = np.full(len(index), -1, dtype=np.int64)
        out[np.fromiter(index.values(), dtype=np.int64, count=len(index))] = self._words.find(list(index))
        return out

    #: Batches are scored this many tokens at a time at most (whole sentences), which bounds the
    #: look-ups' temporary arrays (about 80 bytes a look-up, 10 look-ups a token).
    CHUNK = 50_000

    def log10_ratios(self, low: list[str], sent_off, codes=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positions of the target words in ``low``, their target indices, a matrix of their
        log10 P(casing | the other words of its sentence) - log10 P(casing), a column per casing of
        ``classes`` (0 past a word's last)), the sentences being ``low[sent_off[k]:sent_off[k + 1]]``.
        Vectorised over the batch: the (row, word) weights are found in one hash look-up.  ``codes``:
        each word's :meth:`code`, if the caller has them (the C++ search's inputs keep them per type)."""
        if codes is None:
            codes = self._words.find(low)
        off = np.asarray(sent_off, dtype=np.int64)
        if off[-1] - off[0] <= self.CHUNK:
            return self._log10_ratios(codes, off)
        parts, first = [], 0
        while first < len(off) - 1:
            last = max(first + 1, int(np.searchsorted(off, off[first] + self.CHUNK, side="right")) - 1)
            pos, tj, ratio = self._log10_ratios(codes, off[first:last + 1])
            parts.append((pos, tj, ratio))
            first = last
        width = max(r.shape[1] for _, _, r in parts)
        return (np.concatenate([p for p, _, _ in parts]), np.concatenate([t for _, t, _ in parts]),
                np.concatenate([np.pad(r, ((0, 0), (0, width - r.shape[1]))) for _, _, r in parts]))

    def _log10_ratios(self, codes: np.ndarray, off: np.ndarray):
        """:meth:`log10_ratios` of the sentences ``codes[off[k]:off[k + 1]]``."""
        codes = codes[off[0]:off[-1]]
        base, off = off[0], off - off[0]
        tgt = self._target_of[codes]
        pos = np.flatnonzero(tgt >= 0)
        if not len(pos):
            return pos, pos, np.zeros((0, 1))
        sent = np.repeat(np.arange(len(off) - 1, dtype=np.int64), np.diff(off))
        feat = self._feat_of[codes]
        F = max(self.n_features, 1)
        has = feat >= 0
        pairs = np.unique(sent[has] * F + feat[has])          # each sentence's distinct feature words
        p_sent, p_feat = pairs // F, pairs % F
        bounds = np.searchsorted(p_sent, np.arange(len(off), dtype=np.int64))
        ts, tj = sent[pos], tgt[pos]
        first = bounds[ts]
        cnt = bounds[ts + 1] - first
        q_t = np.repeat(np.arange(len(pos), dtype=np.int64), cnt)
        q_f = p_feat[ranges(first, cnt)]      # the word itself too: its own row never has a weight for it
        row0 = self.row_off[tj]
        n_rows = self.row_off[tj + 1] - row0
        max_rows = int(n_rows.max())
        logits = np.zeros((len(pos), max_rows + 1))
        logits[:, 1:] = -np.inf
        q_rows = n_rows[q_t]
        for r in range(max_rows):
            ok_t = n_rows > r
            logits[ok_t, r + 1] = self.intercept[row0[ok_t] + r]
            sel = q_rows > r
            qt = q_t[sel]
            rows = row0[qt] + r
            at = self._index.find(rows, q_f[sel])
            hit = at >= 0
            logits[:, r + 1] += np.bincount(qt[hit], weights=self._weights(at[hit], rows[hit]), minlength=len(pos))
        logits -= logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        n_cls = n_rows + 1
        col = ranges(np.zeros(len(pos), np.int64), n_cls)
        at = np.repeat(np.arange(len(pos)), n_cls)
        out = np.zeros_like(logp)
        out[at, col] = (logp[at, col] - self._log_prior[ranges(self.class_off[tj], n_cls)]) / LN10
        return pos + base, tj, out

    def candidate_map(self, candidate_forms) -> "CandidateMap":
        """Where each target's candidates (the decoder's ``candidate_forms(word)``) stand among the
        casings of :meth:`log10_ratios`'s matrix, worked out for each target when a batch first
        holds it (all the targets at once would delay the first answer)."""
        return CandidateMap(self, candidate_forms)

    def candidate_scores(self, low: list[str], sent_off, cmap, codes=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positions of the target words in ``low``, their number of candidates, each candidate's
        log10 ratio, flat, in candidate order: 0 for a casing the sample never had); ``cmap``:
        :meth:`candidate_map` of the decoder's candidates."""
        pos, tj, ratio = self.log10_ratios(low, sent_off, codes)
        count, start, cols = cmap.arrays(tj)
        n = count[tj]
        c = cols[ranges(start[tj], n)]
        t = np.repeat(np.arange(len(pos)), n)
        return pos, n, np.where(c >= 0, ratio[t, np.maximum(c, 0)], 0.0)

    # --------------------------------------------------------------- storage
    def to_data(self) -> tuple[dict, dict]:
        """(JSON-able metadata, numpy arrays) for :func:`.artifact.save_arrays`; no pickle.  The
        weights are stored as int8 with a scale a row (the row's largest weight / 127)."""
        # the words (features, then the targets that are none) stored with their index (format 9), not in the JSON
        meta = {"features": self.n_features, "targets": self.targets, "classes": self.classes, "info": self.info}
        words = np.frombuffer("\n".join(self._words.words()).encode("utf-8"), dtype=np.uint8)
        arrays = {"prior": self.prior, "intercept": self.intercept, "indptr": self.indptr,
                  "indices": self.indices.astype(np.int32), **self._index.to_arrays(),
                  "words": words, **self._words.arrays()}
        if self._data is None:                  # loaded quantised: stored as it was read
            return meta, {**arrays, "scale": self._scale, "data": self._q}
        rows = np.repeat(np.arange(len(self.indptr) - 1), np.diff(self.indptr))
        big = np.zeros(len(self.indptr) - 1, np.float32)
        np.maximum.at(big, rows, np.abs(self._data))
        scale = np.where(big > 0, big / 127, 1).astype(np.float32)
        return meta, {**arrays, "scale": scale, "data": np.rint(self._data / scale[rows]).astype(np.int8)}

    @classmethod
    def from_data(cls, meta: dict, arrays: dict) -> "SentenceContext":
        """The inverse of :meth:`to_data`; ValueError on malformed input."""
        try:
            features, targets, classes = meta["features"], meta["targets"], meta["classes"]
            words = None
            if isinstance(features, int) and "words" in arrays:     # format 9: the words and their index stored
                if arrays["words"].dtype != np.uint8 or arrays["words"].ndim != 1 or features < 0:
                    raise ValueError("malformed sentence-context words")
                words = (WordIndex.from_words_blob(arrays["words"].tobytes(), arrays["word_hashes"],
                                                   arrays["word_order"]), features)
                features = []
            # types checked with C loops (set(map(type, ...))): over the default's 400,000 words a
            # Python loop over every word was a large share of the load
            if not (isinstance(features, list) and isinstance(targets, list) and isinstance(classes, list)) or \
                    not set(map(type, features)) | set(map(type, targets)) <= {str} or \
                    not set(map(type, classes)) <= {list} or \
                    not set(map(type, chain.from_iterable(classes))) <= {str}:
                raise ValueError("features, targets and classes must be lists of strings")
            indptr, scale, q = (np.asarray(arrays[k]) for k in ("indptr", "scale", "data"))
            if q.dtype != np.int8 or indptr.ndim != 1 or q.ndim != 1 or len(indptr) < 1 or \
                    scale.shape != (len(indptr) - 1,) or not np.issubdtype(indptr.dtype, np.integer) or \
                    not np.issubdtype(np.asarray(arrays["indices"]).dtype, np.integer) or \
                    not np.isfinite(scale).all() or (scale <= 0).any() or indptr[-1] != len(q) or \
                    (np.diff(indptr) < 0).any():
                raise ValueError("malformed quantised weights")
            stored = {k: arrays[k] for k in ("column_places", "bucket_counts") if k in arrays}    # format 9
            return cls(features, targets, classes, arrays["prior"], arrays["intercept"], indptr,
                       arrays["indices"], info=meta.get("info"), quantised=(q, scale), index=stored or None,
                       words=words)
        except (KeyError, TypeError) as e:
            raise ValueError(f"malformed sentence-context model ({e!r})") from e


class CandidateMap:
    """:meth:`SentenceContext.candidate_map`: for each target word, its number of candidates and each
    candidate's column in the matrix of casings (-1: a casing the word's sample never had), filled in
    for the targets of each batch as they first occur."""

    def __init__(self, ctx: SentenceContext, candidate_forms):
        self.ctx, self.candidate_forms = ctx, candidate_forms
        self.count = np.full(len(ctx.targets), -1, np.int64)     # -1: not worked out yet
        self.start = np.zeros(len(ctx.targets), np.int64)
        self.cols = np.zeros(0, np.int64)
        self._lock = threading.Lock()           # the service's threads share the model

    def arrays(self, tj: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(count, start, cols) with every target of ``tj`` worked out: each target's candidates are
        ``cols[start[j]:start[j] + count[j]]``."""
        new = np.unique(tj[self.count[tj] < 0]) if len(tj) else tj
        if len(new):
            with self._lock:
                new = new[self.count[new] < 0]
                cols = []
                count, start = self.count.copy(), self.start.copy()
                at = len(self.cols)
                for j in new.tolist():
                    idx = {f: k for k, f in enumerate(self.ctx.classes[j])}
                    cands = self.candidate_forms(self.ctx.targets[j])
                    count[j], start[j] = len(cands), at + len(cols)
                    cols.extend(idx.get(f, -1) for f in cands)
                self.cols = np.concatenate([self.cols, np.array(cols, dtype=np.int64)])
                self.start, self.count = start, count        # count last: a reader sees whole entries
        return self.count, self.start, self.cols


def _fit_word(indptr: np.ndarray, indices: np.ndarray, y: np.ndarray, n_casings: int, C: float, min_weight: float):
    """One word's logistic regression (see the module's docstring) on its samples (the 0/1 rows
    ``indptr``/``indices`` over the context columns, the casings ``y``): (the casings present, their
    shares, the intercepts, [(columns, weights) of each row]), or None when the sample has one casing."""
    import scipy.sparse as sp  # deferred: loads scipy
    from sklearn.linear_model import LogisticRegression  # deferred: loads sklearn, scipy, joblib
    present = np.unique(y)
    if len(present) < 2:
        return None
    cols, local = np.unique(indices, return_inverse=True)
    Xw = sp.csr_matrix((np.ones(len(indices), np.float32), local.reshape(-1).astype(np.int32), indptr),
                       shape=(len(y), len(cols)))
    clf = LogisticRegression(C=C, solver="liblinear" if len(present) == 2 else "lbfgs", max_iter=200, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(Xw, y)
    coef = np.atleast_2d(clf.coef_)
    b = np.atleast_1d(clf.intercept_)
    if len(present) > 2:          # multinomial: relative to the first casing's logit
        coef, b = coef[1:] - coef[0], b[1:] - b[0]
    return present, np.bincount(y, minlength=n_casings)[present] / len(y), b, \
        [(cols[np.abs(c) > min_weight], c[np.abs(c) > min_weight]) for c in coef]


def _fit_words(tasks: list, C: float, min_weight: float) -> list:
    return [(j, _fit_word(*task, C, min_weight)) for j, task in tasks]


#: Samples a task of the parallel fit (about 40 tasks on the default model); tasks in flight at once.
_TASK_SAMPLES, _IN_FLIGHT = 300_000, 4


def _fit_all(X, labels, order, bounds, n_casings: list, C: float, min_weight: float):
    """(word index, :func:`_fit_word`'s result) of every word, in order.  On more than one task's
    samples, the words are fitted in the two worker processes of :func:`textqa.runtime.process_pool.pool`, about
    ``_TASK_SAMPLES`` samples a task (fitting in threads was no faster: the Python around each fit
    dominates).  Here too BLAS gets one thread, as in the workers, so the fits are the same wherever
    they run and on any number of cores (the lbfgs fits' sums depend on BLAS's threads)."""
    def task(j):
        idx = order[bounds[j]:bounds[j + 1]]
        Xw = X[idx]
        return j, (Xw.indptr, Xw.indices, labels[idx], n_casings[j])
    n = len(n_casings)
    if X.shape[0] <= _TASK_SAMPLES:
        yield from same_numbers_anywhere(_fit_words)([task(j) for j in range(n)], C, min_weight)
        return
    cuts = np.searchsorted(bounds, np.arange(_TASK_SAMPLES, X.shape[0], _TASK_SAMPLES))
    edges = np.unique(np.concatenate([[0], np.clip(cuts, 1, n), [n]]))
    tasks = ([task(j) for j in range(a, b)] for a, b in zip(edges[:-1].tolist(), edges[1:].tolist()))
    for fitted in process_pool.results_in_order(_fit_words, tasks, C, min_weight, in_flight=_IN_FLIGHT):
        yield from fitted


def fit_context(sentences, targets: dict, cap: int = DEFAULT_CAP, C: float = DEFAULT_C, stop=(),
                min_weight: float = DEFAULT_MIN_WEIGHT, progress=None, samples=None) -> SentenceContext:
    """Collect the samples of ``targets`` ({word: candidate forms}) in ``sentences`` (or take them as
    ``samples``, :func:`collect`'s tuple) and fit one logistic regression per word (see the module's
    docstring); words whose sample has one casing are left out, and so are the ``stop`` words as
    context.  The columns are numbered in the order of their words, so the model does not depend on
    the order the words were met in."""
    import scipy.sparse as sp  # deferred: loads scipy
    say = progress or (lambda msg: None)
    X, words, labels, vocab = samples if samples is not None else collect(sentences, targets, cap, progress, stop)
    say(f"sentence-context model: {X.shape[0]:,} samples of {len(targets):,} words, {len(vocab):,} context words")
    if any(w in vocab for w in stop):
        raise ValueError("the sentence-context samples must be collected without the stop words (collect's stop)")
    names = np.array(list(vocab), dtype=object)
    by_name = np.argsort(names)
    rank = np.empty(len(names), np.int32)
    rank[by_name] = np.arange(len(names), dtype=np.int32)
    names = names[by_name]
    # the columns renumbered in word order (int32 throughout: a whole corpus's samples are ~10^8 entries)
    X = sp.csr_matrix((X.data, rank[X.indices], X.indptr), shape=X.shape)
    X.sort_indices()            # a row's columns in order: the fits' sums do not depend on the word order met
    order = np.argsort(words, kind="stable")
    bounds = np.searchsorted(words[order], np.arange(len(targets) + 1))
    items = list(targets.items())
    kept_targets, kept_classes, prior, intercept, rows = [], [], [], [], []
    for j, fitted in _fit_all(X, labels, order, bounds, [len(c) for _, c in items], C, min_weight):
        if fitted is None:
            continue
        present, shares, b, word_rows = fitted
        kept_targets.append(items[j][0])
        kept_classes.append([items[j][1][k] for k in present])
        prior.extend(shares)
        intercept.extend(b.tolist())
        rows.extend(word_rows)
        if progress and len(kept_targets) % 5000 == 0:
            say(f"sentence-context model: {len(kept_targets):,} classifiers fitted")
    used = np.unique(np.concatenate([c for c, _ in rows])) if rows else np.zeros(0, np.int64)
    remap = np.full(X.shape[1], -1, np.int64)
    remap[used] = np.arange(len(used))
    indptr = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(c) for c, _ in rows], out=indptr[1:])
    indices = np.concatenate([remap[c] for c, _ in rows]) if rows else np.zeros(0, np.int64)
    data = np.concatenate([v for _, v in rows]) if rows else np.zeros(0)
    info = {"samples": int(X.shape[0]), "cap": cap, "C": C, "stop_words": len(stop), "min_weight": min_weight}
    model = SentenceContext(names[used].tolist(), kept_targets, kept_classes, prior, intercept, indptr, indices,
                            data, info=info)
    say(f"sentence-context model: {len(model):,} words, {len(data):,} weights over {len(used):,} context words")
    return model
