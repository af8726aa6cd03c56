"""Trigram language model with deleted interpolation, written as ARPA for KenLM.

Lita et al. 2003, section 2.2.1, equation 1::

    P(w3 | w1 w2) = l_tri P(w3 | w1 w2) + l_bi P(w3 | w2) + l_uni P(w3) + l_uniform P0

with the lambdas "learned by observing training examples".  We use the
recursive form of Jelinek & Mercer's deleted interpolation, whose lambdas
depend on the count of the history (bucketed by powers of two) and are fitted
by EM on held-out data:

    P3(w|uv) = a3(c(uv)) P_ML(w|uv) + (1 - a3) P2(w|v)
    P2(w|v)  = a2(c(v))  P_ML(w|v)  + (1 - a2) P1(w)
    P1(w)    = a1        P_ML(w)    + (1 - a1) / V

Expanding gives equation 1 with l_tri = a3, l_bi = (1-a3) a2, l_uni =
(1-a3)(1-a2) a1 and l_uniform = the rest.  This model is exactly an ARPA
back-off model: seen n-grams store P3 / P2 / P1 and a history's back-off
weight is (1 - a).  KenLM (the ``kenlm`` package) then queries it.

Interpolated modified Kneser-Ney (Chen & Goodman 1998, :mod:`.kneser_ney`) is offered as the
alternative smoothing (``smoothing="kneser_ney"``), in the same ARPA form, at any order
(:class:`OrderCounts`).

Counting is done on numpy arrays of token ids: an n-gram is packed into one
int64 key, so counting ten million trigrams is a sort, not a dictionary loop.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
N_BUCKETS = 24


def pack_sentences(sentences_ids, bos: int, eos: int) -> np.ndarray:
    """Concatenate id sequences as ``<s> w1 .. wn </s> <s> ...`` in one int64 array."""
    lengths = np.fromiter((len(s) for s in sentences_ids), dtype=np.int64)
    total = int(lengths.sum() + 2 * len(lengths))
    out = np.empty(total, dtype=np.int64)
    pos = 0
    for s in sentences_ids:
        out[pos] = bos
        n = len(s)
        out[pos + 1:pos + 1 + n] = s
        out[pos + 1 + n] = eos
        pos += n + 2
    return out


@dataclass
class NGramCounts:
    """Sorted unique n-gram keys and their counts (orders 1..3) over a packed id array."""

    V: int
    uni: np.ndarray                      # counts indexed by id
    bi_keys: np.ndarray
    bi_counts: np.ndarray
    tri_keys: np.ndarray
    tri_counts: np.ndarray

    @classmethod
    def from_packed(cls, A: np.ndarray, V: int, bos: int, eos: int) -> "NGramCounts":
        uni = np.bincount(A, minlength=V).astype(np.int64)
        uni[bos] = 0                                    # <s> is never predicted
        ok2 = A[:-1] != eos
        bk = A[:-1][ok2] * V + A[1:][ok2]
        bi_keys, bi_counts = np.unique(bk, return_counts=True)
        ok3 = (A[:-2] != eos) & (A[1:-1] != eos)
        tk = (A[:-2][ok3] * V + A[1:-1][ok3]) * V + A[2:][ok3]
        tri_keys, tri_counts = np.unique(tk, return_counts=True)
        return cls(V, uni, bi_keys, bi_counts.astype(np.int64), tri_keys, tri_counts.astype(np.int64))

    def to_orders(self) -> "OrderCounts":
        """The same counts as :class:`OrderCounts` (a trigram's key becomes its bigram's index)."""
        tri = np.searchsorted(self.bi_keys, self.tri_keys // self.V) * self.V + self.tri_keys % self.V
        return OrderCounts(self.V, [np.arange(self.V, dtype=np.int64), self.bi_keys, tri],
                           [self.uni, self.bi_counts, self.tri_counts])

    def sizes(self) -> dict[str, int]:
        """How many distinct n-grams of each order (unigrams: the words seen)."""
        return {"1": int(np.count_nonzero(self.uni)), "2": len(self.bi_keys), "3": len(self.tri_keys)}

    @staticmethod
    def group_sums(keys: np.ndarray, counts: np.ndarray, V: int):
        """Sum counts by history (key // V): returns (history keys, totals, distinct followers)."""
        hist = keys // V
        starts = np.flatnonzero(np.r_[True, hist[1:] != hist[:-1]])
        return hist[starts], np.add.reduceat(counts, starts), np.diff(np.r_[starts, len(keys)])


@dataclass
class OrderCounts:
    """Counts of the n-grams of every order 1..N over a packed id array (any N).

    ``keys[k-1]`` holds the distinct n-grams of order k, sorted, and ``counts[k-1]`` their counts.
    A key is the index of the n-gram's first k-1 words among the (k-1)-grams, times V, plus its
    last word; so keys sort as the n-grams do (lexicographically) and stay below
    (number of (k-1)-grams) * V, which fits an int64 at any order.  Order 1: key = word id, for
    every id (count 0 when unseen; ``<s>`` is never predicted).  No n-gram crosses ``</s>``.
    """

    V: int
    keys: list
    counts: list

    @property
    def order(self) -> int:
        return len(self.keys)

    @classmethod
    def from_packed(cls, A: np.ndarray, V: int, bos: int, eos: int, order: int) -> "OrderCounts":
        uni = np.bincount(A, minlength=V).astype(np.int64)
        uni[bos] = 0
        keys, counts = [np.arange(V, dtype=np.int64)], [uni]
        prefix_id, valid = A, np.ones(len(A), dtype=bool)      # the (k-1)-gram starting at each position
        for k in range(2, order + 1):
            if len(keys[-1]) * V >= 2 ** 63:
                raise ValueError(f"too many {k - 1}-grams to pack {k}-grams in 64 bits")
            m = max(len(A) - k + 1, 0)
            valid = valid[:m] & (A[k - 2:k - 2 + m] != eos)   # only the last word may be </s>
            key = prefix_id[:m][valid] * V + A[k - 1:k - 1 + m][valid]
            uk, c = np.unique(key, return_counts=True)
            keys.append(uk)
            counts.append(c.astype(np.int64))
            prefix_id = np.zeros(m, dtype=np.int64)
            prefix_id[valid] = np.searchsorted(uk, key)
        return cls(V, keys, counts)

    def merge(self, other: "OrderCounts") -> "OrderCounts":
        """The counts of two stretches of a corpus (a Dask map-reduce sums its partitions' counts
        with this): integer sums, so any tree of merges gives the same counts as one pass.

        A key of order k holds the index of its history among that stretch's (k-1)-grams, which
        differs between the two, so the orders are merged from the bigrams up: each side's
        (k-1)-gram indices are mapped to the merged table (a sorted merge keeps their order, so the
        mapped keys stay sorted), the mapped k-gram keys are merged and summed, and each side's
        k-grams are located in the merged table for the next order."""
        if other.V != self.V or other.order != self.order:
            raise ValueError(f"cannot merge counts of order {self.order} over {self.V} words with order "
                             f"{other.order} over {other.V}")
        V = self.V
        keys, counts = [self.keys[0]], [self.counts[0] + other.counts[0]]
        map_a = map_b = None                      # order 1: the keys are the word ids themselves
        for k in range(1, self.order):
            ka, kb = self.keys[k], other.keys[k]
            if map_a is not None:
                ka = map_a[ka // V] * V + ka % V
                kb = map_b[kb // V] * V + kb % V
            merged, summed = merge_sorted_counts(ka, self.counts[k], kb, other.counts[k])
            keys.append(merged)
            counts.append(summed)
            if k + 1 < self.order:
                map_a, map_b = np.searchsorted(merged, ka), np.searchsorted(merged, kb)
        return OrderCounts(V, keys, counts)

    def sizes(self) -> dict[str, int]:
        """How many distinct n-grams of each order (unigrams: the words seen)."""
        return {"1": int(np.count_nonzero(self.counts[0])),
                **{str(k + 1): len(x) for k, x in enumerate(self.keys) if k}}

    def structure(self, word: int):
        """Per order k >= 2 (index k-1; None at index 0): each n-gram's suffix (index among the
        (k-1)-grams of its last k-1 words) and whether its first word is ``word``.  (An n-gram's
        history is its key // V.)"""
        V = self.V
        suffix, starts = [None], [self.keys[0] == word]
        for k in range(2, self.order + 1):
            keys = self.keys[k - 1]
            h, last = keys // V, keys % V
            suffix.append(last if k == 2 else np.searchsorted(self.keys[k - 2], suffix[k - 2][h] * V + last))
            starts.append(starts[k - 2][h])
            del h, last
        return suffix, starts


def merge_sorted_counts(k1: np.ndarray, c1: np.ndarray, k2: np.ndarray, c2: np.ndarray):
    """(keys, counts) of two sorted unique key arrays with their counts: the union, counts summed."""
    keys = np.concatenate([k1, k2])
    if not len(keys):
        return keys, np.concatenate([c1, c2])
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], np.concatenate([c1, c2])[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], np.add.reduceat(counts, starts)


def lookup(sorted_keys: np.ndarray, values: np.ndarray, query: np.ndarray, default=0):
    """Vectorised dictionary lookup of ``query`` keys in ``sorted_keys``."""
    if len(sorted_keys) == 0:
        return np.full(len(query), default, dtype=values.dtype)
    idx = np.searchsorted(sorted_keys, query)
    idx = np.minimum(idx, len(sorted_keys) - 1)
    found = sorted_keys[idx] == query
    return np.where(found, values[idx], default)


def count_bucket(c: np.ndarray) -> np.ndarray:
    """History-count bucket: 0 for unseen, then 1 + floor(log2(count)), capped."""
    c = np.asarray(c)
    b = np.zeros(len(c), dtype=np.int64)
    pos = c > 0
    b[pos] = 1 + np.floor(np.log2(c[pos])).astype(np.int64)
    return np.minimum(b, N_BUCKETS - 1)


def _em_lambdas(p_hi: np.ndarray, p_lo: np.ndarray, buckets: np.ndarray, iters: int = 30) -> np.ndarray:
    """EM for a two-component mixture weight per bucket (deleted interpolation)."""
    lam = np.full(N_BUCKETS, 0.5)
    lam[0] = 0.0
    for _ in range(iters):
        l = lam[buckets]
        num = l * p_hi
        post = np.divide(num, num + (1 - l) * p_lo, out=np.zeros_like(num), where=(num + (1 - l) * p_lo) > 0)
        tot = np.bincount(buckets, weights=post, minlength=N_BUCKETS)
        n = np.bincount(buckets, minlength=N_BUCKETS)
        new = np.divide(tot, n, out=lam.copy(), where=n > 0)
        new[0] = 0.0
        lam = np.clip(new, 0.0, 0.999)
    # Buckets with no held-out event take the weight of the nearest lower bucket that had one
    # (a history seen more often deserves at least as much trust in its own estimate).
    n = np.bincount(buckets, minlength=N_BUCKETS)
    for b in range(2, N_BUCKETS):
        if n[b] == 0:
            lam[b] = lam[b - 1]
    return lam


@dataclass
class ArpaModel:
    """Log10 probabilities and back-offs of a back-off model (ARPA content), per order: the n-grams
    of order k are ``keys[k-1]`` (as :class:`OrderCounts`), with ``logp[k-1]`` and ``bow[k-1]`` (the
    highest order's back-offs are not written)."""

    V: int
    keys: list
    logp: list
    bow: list
    info: dict = field(default_factory=dict)


def _held_out_lambdas(train: NGramCounts, heldout: np.ndarray, V: int, bos: int, eos: int) -> tuple:
    """(lambda_1, lambda_2 per history bucket, lambda_3 per history bucket) fitted by EM on the
    held-out events ``heldout`` (a packed id array) with the ``train`` counts."""
    V_eff = V - 1                                   # every word but <s> can be predicted
    A = heldout
    N = train.uni.sum()
    u_ev = A[A != bos]
    p_ml1 = train.uni[u_ev] / N
    lam1 = float(_em_lambdas(p_ml1, np.full(len(u_ev), 1.0 / V_eff), np.ones(len(u_ev), dtype=np.int64))[1])
    p1_train = lam1 * train.uni / N + (1 - lam1) / V_eff

    h2, c2, _ = NGramCounts.group_sums(train.bi_keys, train.bi_counts, V)
    c_hist1 = np.zeros(V, dtype=np.int64)
    c_hist1[h2] = c2
    ok2 = A[:-1] != eos
    v, w = A[:-1][ok2], A[1:][ok2]
    cb = lookup(train.bi_keys, train.bi_counts, v * V + w)
    ch = c_hist1[v]
    p_ml2 = np.divide(cb, ch, out=np.zeros(len(cb)), where=ch > 0)
    lam2 = _em_lambdas(p_ml2, p1_train[w], count_bucket(ch))

    h3, c3, _ = NGramCounts.group_sums(train.tri_keys, train.tri_counts, V)
    ok3 = (A[:-2] != eos) & (A[1:-1] != eos)
    u, v, w = A[:-2][ok3], A[1:-1][ok3], A[2:][ok3]
    ct = lookup(train.tri_keys, train.tri_counts, (u * V + v) * V + w)
    chh = lookup(h3, c3, u * V + v)
    p_ml3 = np.divide(ct, chh, out=np.zeros(len(ct)), where=chh > 0)
    cb = lookup(train.bi_keys, train.bi_counts, v * V + w)
    ch = c_hist1[v]
    l2 = lam2[count_bucket(ch)]
    p2 = l2 * np.divide(cb, ch, out=np.zeros(len(cb)), where=ch > 0) + (1 - l2) * p1_train[w]
    lam3 = _em_lambdas(p_ml3, p2, count_bucket(chh))
    return lam1, lam2, lam3


def estimate_deleted_interpolation(train: NGramCounts, heldout: np.ndarray, full: NGramCounts,
                                   bos: int, eos: int, unk: int) -> ArpaModel:
    """Fit bucketed lambdas by EM on ``heldout`` with ``train`` counts; build the model from ``full``.

    Lita et al. 2003 eq. 1; lambdas per history-count bucket (Jelinek & Mercer).
    """
    V = full.V
    V_eff = V - 1                                   # every word but <s> can be predicted

    lam1, lam2, lam3 = _held_out_lambdas(train, heldout, V, bos, eos)
    Nf = full.uni.sum()
    p1 = lam1 * full.uni / Nf + (1 - lam1) / V_eff
    uni_logp = np.log10(p1)
    uni_logp[bos] = -99.0
    fh2, fc2, _ = NGramCounts.group_sums(full.bi_keys, full.bi_counts, V)
    chist1 = np.zeros(V, dtype=np.int64)
    chist1[fh2] = fc2
    uni_bow = np.zeros(V)
    uni_bow[fh2] = np.log10(1 - lam2[count_bucket(fc2)])

    bv, bw = full.bi_keys // V, full.bi_keys % V
    l2 = lam2[count_bucket(chist1[bv])]
    p2_all = l2 * full.bi_counts / chist1[bv] + (1 - l2) * p1[bw]
    fh3, fc3, _ = NGramCounts.group_sums(full.tri_keys, full.tri_counts, V)
    bi_bow = lookup(fh3, np.log10(1 - lam3[count_bucket(fc3)]), full.bi_keys, default=0.0)

    tuv = full.tri_keys // V
    tw = full.tri_keys % V
    tv = tuv % V
    l3 = lam3[count_bucket(lookup(fh3, fc3, tuv))]
    p2_tri = lookup(full.bi_keys, p2_all, tv * V + tw, default=0.0)
    p3 = l3 * full.tri_counts / lookup(fh3, fc3, tuv) + (1 - l3) * p2_tri
    info = {"smoothing": "deleted_interpolation", "lambda_unigram": lam1,
            "lambda_bigram_by_bucket": [round(float(x), 4) for x in lam2],
            "lambda_trigram_by_bucket": [round(float(x), 4) for x in lam3]}
    return ArpaModel(V, full.to_orders().keys, [uni_logp, np.log10(p2_all), np.log10(p3)],
                     [uni_bow, bi_bow, np.zeros(len(p3))], info)


def write_arpa(model: ArpaModel, words: list[str], path: str | Path, chunk: int = 1_000_000) -> None:
    """Write the model in ARPA format (unigrams include <s> at -99 and <unk>), order by order; an
    n-gram's text is its history's text and its last word, built in chunks."""
    V, N = model.V, len(model.keys)
    words = np.asarray(words, dtype=object)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\\data\\\n")
        f.writelines(f"ngram {k + 1}={len(keys)}\n" for k, keys in enumerate(model.keys))
        text = None
        for k in range(1, N + 1):
            keys, logp, bow = model.keys[k - 1], model.logp[k - 1], model.bow[k - 1]
            f.write(f"\n\\{k}-grams:\n")
            parts = []
            for i in range(0, len(keys), chunk):
                kk = keys[i:i + chunk]
                t = words[kk] if k == 1 else text[kk // V] + " " + words[kk % V]
                lp = logp[i:i + chunk].tolist()
                if k < N:
                    f.writelines(f"{x:.6f}\t{w}\t{y:.6f}\n" for x, w, y in zip(lp, t.tolist(), bow[i:i + chunk].tolist()))
                    parts.append(t)
                else:
                    f.writelines(f"{x:.6f}\t{w}\n" for x, w in zip(lp, t.tolist()))
            text = np.concatenate(parts) if parts else np.zeros(0, dtype=object)
        f.write("\n\\end\\\n")


def find_build_binary() -> str | None:
    """Locate KenLM's ``build_binary``: ``$KENLM_BUILD_BINARY``, the one an install built into the
    package (``native/build_binary``), the one ``make`` built in the repository's ``.venv/bin``,
    or one on ``PATH``; None when there is none (training then says so)."""
    env = os.environ.get("KENLM_BUILD_BINARY")
    if env and Path(env).is_file():
        return env
    here = Path(__file__).resolve()
    packaged = here.parent / "native" / "build_binary"
    if packaged.is_file():
        return str(packaged)
    for parent in here.parents:
        cand = parent / ".venv" / "bin" / "build_binary"
        if cand.is_file():
            return str(cand)
    return shutil.which("build_binary")


# KenLM binary layouts (build_binary arguments).  "trie-q8": a trie with 8-bit quantised
# probabilities and back-offs, a fraction of the probing hash's size, with the same dev accuracy and F1
# and the same speed with the C++ decoder ("Figures behind the code" in docs/experiments/truecaser.md).
BINARY_FORMATS = {"probing": ["probing"], "trie": ["trie"], "trie-q8": ["-q", "8", "-b", "8", "trie"]}


def binarize(arpa: str | Path, out: str | Path, build_binary: str | None = None, fmt: str = "trie-q8") -> bool:
    """Convert ARPA to KenLM's mmap-able binary in layout ``fmt`` (:data:`BINARY_FORMATS`);
    False if no build_binary exists."""
    exe = build_binary or find_build_binary()
    if exe is None:
        return False
    subprocess.run([exe, "-s", *BINARY_FORMATS[fmt], str(arpa), str(out)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return True


def perplexity(lm, sentences_tokens) -> float:
    """Per-token perplexity (including </s>) of token lists under a kenlm model."""
    total, n = 0.0, 0
    for toks in sentences_tokens:
        total += lm.score(" ".join(toks), bos=True, eos=True)
        n += len(toks) + 1
    return math.pow(10.0, -total / max(n, 1))
