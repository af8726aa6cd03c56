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

Interpolated modified Kneser-Ney (Chen & Goodman 1998) is offered as the
alternative smoothing (``smoothing="kneser_ney"``), in the same ARPA form.

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

    @staticmethod
    def group_sums(keys: np.ndarray, counts: np.ndarray, V: int):
        """Sum counts by history (key // V): returns (history keys, totals, distinct followers)."""
        hist = keys // V
        starts = np.flatnonzero(np.r_[True, hist[1:] != hist[:-1]])
        return hist[starts], np.add.reduceat(counts, starts), np.diff(np.r_[starts, len(keys)])


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
    """Log10 probabilities and back-offs of a trigram back-off model (ARPA content)."""

    V: int
    uni_logp: np.ndarray
    uni_bow: np.ndarray
    bi_keys: np.ndarray
    bi_logp: np.ndarray
    bi_bow: np.ndarray
    tri_keys: np.ndarray
    tri_logp: np.ndarray
    info: dict = field(default_factory=dict)


def estimate_deleted_interpolation(train: NGramCounts, heldout: np.ndarray, full: NGramCounts,
                                   bos: int, eos: int, unk: int) -> ArpaModel:
    """Fit bucketed lambdas by EM on ``heldout`` with ``train`` counts; build the model from ``full``.

    Lita et al. 2003 eq. 1; lambdas per history-count bucket (Jelinek & Mercer).
    """
    V = full.V
    V_eff = V - 1                                   # every word but <s> can be predicted

    # ---- lambdas on held-out events -------------------------------------------------
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

    # ---- final model from the full counts ---------------------------------------------
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
    return ArpaModel(V, uni_logp, uni_bow, full.bi_keys, np.log10(p2_all), bi_bow,
                     full.tri_keys, np.log10(p3), info)


def estimate_kneser_ney(full: NGramCounts, bos: int, eos: int, unk: int) -> ArpaModel:
    """Interpolated modified Kneser-Ney (Chen & Goodman 1998, eq. 17-19), three discounts per order.

    Lower orders use continuation counts (number of distinct left contexts).
    Discounts D1, D2, D3+ come from counts-of-counts: Y = n1/(n1 + 2 n2),
    Dk = k - (k+1) Y n_{k+1}/n_k.
    """
    V = full.V

    def discounts(counts):
        n = [np.count_nonzero(counts == k) for k in (1, 2, 3, 4)]
        if min(n) == 0:
            return np.array([0.0, 0.5, 1.0, 1.5])
        Y = n[0] / (n[0] + 2 * n[1])
        return np.array([0.0, 1 - 2 * Y * n[1] / n[0], 2 - 3 * Y * n[2] / n[1], 3 - 4 * Y * n[3] / n[2]])

    def discount_of(counts, D):
        return D[np.minimum(counts, 3)]

    # Continuation counts: N1+(. v w) for bigrams, N1+(. w) for unigrams.
    tri_vw = full.tri_keys % (V * V)
    cc_bi_keys, cc_bi = np.unique(tri_vw, return_counts=True)
    # bigrams starting with <s> have no left context: keep their real counts
    bi_v = full.bi_keys // V
    bi_cont = lookup(cc_bi_keys, cc_bi, full.bi_keys)
    bi_cont = np.where(bi_v == bos, full.bi_counts, bi_cont)
    uni_cont = np.bincount(full.bi_keys % V, minlength=V).astype(np.float64)
    uni_cont[bos] = 0

    # unigram: interpolate with uniform, discount continuation counts
    D1 = discounts(uni_cont[uni_cont > 0].astype(np.int64))
    tot1 = uni_cont.sum()
    disc1 = discount_of(uni_cont.astype(np.int64), D1)
    disc1[uni_cont == 0] = 0
    gamma0 = disc1.sum() / tot1
    V_eff = V - 1
    p1 = (uni_cont - disc1) / tot1 + gamma0 / V_eff
    p1[bos] = 0
    uni_logp = np.log10(np.where(p1 > 0, p1, 1e-99))
    uni_logp[bos] = -99.0

    # bigram level with continuation counts (real counts after <s>)
    D2 = discounts(bi_cont)
    hv, tot2, _ = NGramCounts.group_sums(full.bi_keys, bi_cont, V)
    d2 = discount_of(bi_cont, D2)
    hv_, dsum2, _ = NGramCounts.group_sums(full.bi_keys, d2, V)
    tot2_of = lookup(hv, tot2, bi_v).astype(np.float64)
    gamma2 = lookup(hv, dsum2 / tot2, bi_v, default=0.0)
    p2 = (bi_cont - d2) / tot2_of + gamma2 * p1[full.bi_keys % V]
    uni_bow = np.zeros(V)
    uni_bow[hv] = np.log10(dsum2 / tot2)

    # trigram level, real counts
    D3 = discounts(full.tri_counts)
    huv, tot3, _ = NGramCounts.group_sums(full.tri_keys, full.tri_counts, V)
    d3 = discount_of(full.tri_counts, D3)
    _, dsum3, _ = NGramCounts.group_sums(full.tri_keys, d3, V)
    tuv = full.tri_keys // V
    tot3_of = lookup(huv, tot3, tuv).astype(np.float64)
    gamma3 = lookup(huv, dsum3 / tot3, tuv, default=0.0)
    tvw = full.tri_keys % (V * V)
    p2_of = lookup(full.bi_keys, p2, tvw, default=0.0)
    p3 = (full.tri_counts - d3) / tot3_of + gamma3 * p2_of
    bi_bow = lookup(huv, np.log10(dsum3 / tot3), full.bi_keys, default=0.0)
    info = {"smoothing": "kneser_ney", "discounts": {"unigram": D1[1:].round(4).tolist(),
            "bigram": D2[1:].round(4).tolist(), "trigram": D3[1:].round(4).tolist()}}
    return ArpaModel(V, uni_logp, uni_bow, full.bi_keys, np.log10(p2), bi_bow,
                     full.tri_keys, np.log10(p3), info)


def write_arpa(model: ArpaModel, words: list[str], path: str | Path) -> None:
    """Write the model in ARPA format (unigrams include <s> at -99 and <unk>)."""
    V = model.V
    uni_ids = np.arange(V)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\\data\\\n")
        f.write(f"ngram 1={V}\nngram 2={len(model.bi_keys)}\nngram 3={len(model.tri_keys)}\n\n")
        f.write("\\1-grams:\n")
        f.writelines(f"{lp:.6f}\t{words[i]}\t{bo:.6f}\n"
                     for i, lp, bo in zip(uni_ids.tolist(), model.uni_logp.tolist(), model.uni_bow.tolist()))
        f.write("\n\\2-grams:\n")
        a, b = (model.bi_keys // V).tolist(), (model.bi_keys % V).tolist()
        f.writelines(f"{lp:.6f}\t{words[x]} {words[y]}\t{bo:.6f}\n"
                     for x, y, lp, bo in zip(a, b, model.bi_logp.tolist(), model.bi_bow.tolist()))
        f.write("\n\\3-grams:\n")
        uv = model.tri_keys // V
        a, b, c = (uv // V).tolist(), (uv % V).tolist(), (model.tri_keys % V).tolist()
        f.writelines(f"{lp:.6f}\t{words[x]} {words[y]} {words[z]}\n"
                     for x, y, z, lp in zip(a, b, c, model.tri_logp.tolist()))
        f.write("\n\\end\\\n")


def find_build_binary() -> str | None:
    """Locate KenLM's ``build_binary`` (built by ``make``), or None."""
    env = os.environ.get("KENLM_BUILD_BINARY")
    if env and Path(env).is_file():
        return env
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / ".venv" / "bin" / "build_binary"
        if cand.is_file():
            return str(cand)
    return shutil.which("build_binary")


# KenLM binary layouts (build_binary arguments).  "trie-q8": a trie with 8-bit quantised
# probabilities and back-offs, 124 MB for the default LM against 520 MB for the probing hash,
# with the same dev accuracy and F1 (+0.01) and the same speed with the C++ decoder (README).
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
