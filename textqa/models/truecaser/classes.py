"""A class-based LM beside the word LM (beyond the paper; ``Truecaser(class_lm=K)``; the default model
of ``textqa train truecaser`` has one with :data:`DEFAULT_CLASSES` classes).

Brown et al. 1992 ("Class-based n-gram models of natural language", eq. 3) score a word as
P(w_i | c_i) P(c_i | c_i-n+1 .. c_i-1): words used alike share their class's counts, so "Abbottabad
District", unseen, gets the evidence of every (place name, name-part noun) pair that was seen.

- Classes: each of the ``targets`` most frequent LM tokens (cased: "district" and "District" are
  different words) is described by the counts of its left and right neighbours among the
  ``contexts`` most frequent tokens (log(1 + count)), reduced to 100 dimensions by truncated SVD,
  length-normalised and clustered by k-means (scikit-learn, seeded) into ``n_classes`` classes.
  The specials and the ``UNKNOWN_*`` tokens are their own classes; any other rarer token's class
  is its case class (``R_LC`` ...).
- The class LM: interpolated modified Kneser-Ney (:func:`.kneser_ney.estimate_kneser_ney`) of order
  :data:`CLASS_ORDER` (or the model's ``class_lm_order``) over the training text's class sequence,
  unpruned (the class vocabulary is small), binarised in the model's ``class_lm_binary`` layout
  (KenLM's probing hash by default).
- P(w | c) = N(w) / N(c) over the same text.

The search adds ``class_lm_weight * (log10 P_class(c | class history) + log10 P(w | c))`` to each
candidate's score and recombines paths on pairs of states (word LM, class LM), so it stays exact
(docs/experiments/truecaser.md: "A class-based LM").
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from ..sklearn_data import same_numbers_anywhere
from . import lm as lmmod
from .casing import NONE, case_class
from .kneser_ney import estimate_kneser_ney

CLASS_ORDER = 3
#: The number of classes of the default model (``textqa train truecaser``; the estimator's default
#: is no class LM).
DEFAULT_CLASSES = 600
TARGETS, CONTEXTS, SVD_DIMS = 30_000, 3_000, 100


def ranks(counts: np.ndarray) -> np.ndarray:
    """Each id's rank by ``counts`` (0: the most frequent; ties in id order), int32."""
    rank = np.empty(len(counts), dtype=np.int32)
    rank[np.argsort(-counts, kind="stable")] = np.arange(len(counts), dtype=np.int32)
    return rank


def neighbour_counts(packed: np.ndarray, rank: np.ndarray, targets: int, contexts: int, bos: int = 0,
                     eos: int = 1):
    """The counts under :func:`neighbour_matrix`'s logarithm, over one stretch of text (a canonical
    CSR matrix of int32: the stretches' matrices add up to the whole text's, exactly, since no
    neighbour crosses a sentence's ``<s>`` or ``</s>``).  ``rank``: :func:`ranks` of the whole
    text's counts; ``targets`` and ``contexts`` at most the number of ids."""
    import scipy.sparse as sp  # deferred: loads scipy
    r = rank[packed]                              # int32 and one side at a time: the whole training
    inner = packed[1:-1]                          # text passes through here (in int64, the peak of the training)
    keep = r[1:-1] < targets                      # positions 0 and -1 are <s> and </s>
    keep &= inner != bos
    keep &= inner != eos
    mid = np.flatnonzero(keep) + 1
    del keep
    rows = r[mid]
    shape = (targets, 2 * (contexts + 1))
    m = None
    for side, first_col in ((-1, 0), (1, contexts + 1)):    # left neighbours, then right ones
        cols = np.minimum(r[mid + side], contexts)            # every rarer id shares column ``contexts``
        cols += first_col
        half = sp.coo_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=shape).tocsr()
        del cols
        m = half if m is None else m + half
    m.sum_duplicates()
    m.sort_indices()
    return m


def neighbour_matrix(text, counts: np.ndarray, targets: int, contexts: int, bos: int = 0, eos: int = 1):
    """Rows: the ``targets`` most frequent ids (by ``counts``); columns: their left, then right,
    neighbour among the ``contexts`` most frequent (one more column for every other id), each cell
    log(1 + count).  ``text``: sentences as :func:`.lm.pack_sentences` packs them, between ``bos``
    and ``eos``, which are neighbours but never counted as words (a packed id array, a
    :class:`PackedText` or what stands for one).  Returns (the row ids, the matrix)."""
    text = as_text(text)
    targets, contexts = min(targets, len(counts)), min(contexts, len(counts))
    rank = ranks(counts)
    m = text.neighbours(rank, targets, contexts, bos, eos).astype(np.float32)   # exact below 2**24
    m.data = np.log1p(m.data)
    return np.argsort(rank)[:targets], m


class PackedText:
    """The training text as the class LM reads it: one packed id array (:func:`.lm.pack_sentences`).
    ``textqa train truecaser --scheduler`` has another with the same three methods, which sums its
    partitions' results on a Dask cluster (:class:`textqa.training.truecaser_dask.ClusterText`);
    every result is a sum of integers, so both give the same classes and class LM."""

    def __init__(self, packed: np.ndarray):
        self.packed = packed

    def totals(self, V: int) -> np.ndarray:
        """Each id's count (``<s>`` and ``</s>`` included)."""
        return np.bincount(self.packed, minlength=V)

    def neighbours(self, rank: np.ndarray, targets: int, contexts: int, bos: int, eos: int):
        return neighbour_counts(self.packed, rank, targets, contexts, bos, eos)

    def class_counts(self, of: np.ndarray, n_classes: int, bos: int, eos: int, order: int) -> "lmmod.OrderCounts":
        """The n-gram counts of the class sequence (``of``: each id's class)."""
        return lmmod.OrderCounts.from_packed(of[self.packed], n_classes, bos, eos, order)


def as_text(text):
    """``text`` as a :class:`PackedText` if it is a packed id array, else as it is."""
    return PackedText(text) if isinstance(text, np.ndarray) else text


@same_numbers_anywhere
def cluster(text, counts: np.ndarray, n_classes: int, bos: int, eos: int, seed: int = 0,
            targets: int = TARGETS, contexts: int = CONTEXTS) -> tuple[np.ndarray, np.ndarray]:
    """(ids, their k-means class) for the most frequent ids of ``text`` (a :class:`PackedText`, or a
    packed id array; module docstring).  With one BLAS and OpenMP thread: the SVD's and k-means's
    sums, and so the classes, would otherwise depend on the thread count, which differs between
    machines and between a run alone and one beside a Dask cluster."""
    from sklearn.cluster import KMeans  # deferred: loads sklearn, scipy, joblib
    from sklearn.decomposition import TruncatedSVD  # deferred: loads sklearn, scipy, joblib
    from sklearn.preprocessing import normalize  # deferred: loads sklearn, scipy, joblib
    ids, m = neighbour_matrix(text, counts, targets, contexts, bos, eos)
    k = min(n_classes, len(ids))
    dims = min(SVD_DIMS, m.shape[0] - 1, m.shape[1] - 1)
    x = normalize(TruncatedSVD(dims, random_state=seed).fit_transform(m)) if dims >= 1 else np.ones((len(ids), 1))
    # Lloyd's k-means run to convergence, the best of three starts by inertia: better and steadier
    # clusters than mini-batch k-means (docs/experiments/truecaser.md, "Accent folding and converged clusters").
    labels = KMeans(k, random_state=seed, n_init=3).fit(x).labels_
    return ids, labels


class WordClasses:
    """The class of each word-LM token (``words``) and log10 P(token | class)."""

    def __init__(self, names: list[str], words: list[str], of: np.ndarray, emission: np.ndarray):
        if not len(words) == len(of) == len(emission) or (len(of) and (of.min() < 0 or of.max() >= len(names))):
            raise ValueError("class ids out of range or tables of different lengths")
        if not np.all(np.isfinite(emission)):
            raise ValueError("class emissions must be finite")
        self.names, self.words, self.of, self.emission = names, words, of, emission

    @cached_property
    def index(self) -> dict[str, int]:
        """{word-LM token: its place in ``words``} (made when first needed: the C++ search finds the
        known words' classes by their KenLM ids, :meth:`places`)."""
        return dict(zip(self.words, range(len(self.words))))

    def place_table(self, word_ids: np.ndarray) -> np.ndarray | None:
        """{KenLM id: place in ``words``} as an array (-1: no word), given ``word_ids``, the KenLM id
        of each of ``words``; None when two words share an id."""
        if len(word_ids) and np.bincount(word_ids).max() > 1:
            return None
        at = np.full(int(word_ids.max(initial=0)) + 1, -1, dtype=np.int64)
        at[word_ids] = np.arange(len(word_ids))
        return at

    def places(self, ids: np.ndarray, tokens: list[str], table: np.ndarray | None) -> np.ndarray:
        """The place in ``words`` of each of ``tokens``, whose KenLM ids are ``ids``: read from
        ``table`` (:meth:`place_table`) when it tells them apart, else looked up by name."""
        if table is not None and (not len(ids) or int(ids.max()) < len(table)):
            found = table[ids]
            if not (found < 0).any():
                return found
        return np.fromiter(map(self.index.__getitem__, tokens), dtype=np.int64, count=len(tokens))

    def lookup(self, token: str) -> tuple[str, float]:
        """(class name, log10 P(token | class)) of a word-LM token."""
        i = self.index[token]
        return self.names[self.of[i]], float(self.emission[i])

    @classmethod
    def build(cls, text, words: list[str], n_specials: int, n_classes: int, bos: int, eos: int,
              seed: int = 0, targets: int = TARGETS):
        """Classes of the word-LM ``words`` (the first ``n_specials``: ``<s>``, ``</s>``, ``<unk>``
        and the ``UNKNOWN_*`` tokens) from the training text (a :class:`PackedText` or what stands
        for one, or a packed id array; sentences between ``bos`` and ``eos``): the ``targets`` most
        frequent are clustered."""
        text = as_text(text)
        total = text.totals(len(words))            # each word's count, read once
        ranked = total.astype(np.int64)
        ranked[:n_specials] = 0                    # specials are their own classes, never clustered
        ids, labels = cluster(text, ranked, n_classes, bos, eos, seed, targets=targets)
        keep = ranked[ids] > 0
        ids, labels = ids[keep], labels[keep]
        names = list(words[:n_specials]) + [f"R_{c}" for c in ("LC", "UC", "CA", "MC", NONE)] + \
            [f"C{k}" for k in range(int(labels.max()) + 1 if len(labels) else 0)]
        index = {n: i for i, n in enumerate(names)}
        of = np.empty(len(words), dtype=np.int64)
        of[:n_specials] = np.arange(n_specials)
        for i in range(n_specials, len(words)):
            of[i] = index[f"R_{case_class(words[i])}"]
        if len(labels):
            of[ids] = labels + index["C0"]
        per_class = np.bincount(of, weights=total, minlength=len(names))
        with np.errstate(divide="ignore"):
            emission = np.where(total > 0, np.log10(np.maximum(total, 1) / np.maximum(per_class[of], 1)), -7.0)
        return cls(names, list(words), of, emission)

    def estimate(self, text, bos: int, eos: int, unk: int, order: int = CLASS_ORDER) -> "lmmod.ArpaModel":
        """The class LM (module docstring) of ``order`` over the class sequence of the training text
        (as :meth:`build` takes it)."""
        counts = as_text(text).class_counts(self.of, len(self.names), bos, eos, order)
        return estimate_kneser_ney(counts, bos, eos, unk, prune=None)

    def to_data(self) -> tuple[dict, dict]:
        return ({"names": self.names, "words": self.words},
                {"of": self.of.astype(np.int32), "emission": self.emission.astype(np.float64)})

    @classmethod
    def from_data(cls, meta: dict, arrays: dict) -> "WordClasses":
        names, words = meta.get("names"), meta.get("words")
        if not all(isinstance(x, list) and set(map(type, x)) <= {str} for x in (names, words)):   # (C loops: load time)
            raise ValueError("class names and words must be lists of strings")
        return cls(names, words, np.asarray(arrays["of"], dtype=np.int64),
                   np.asarray(arrays["emission"], dtype=np.float64))
