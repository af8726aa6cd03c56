"""ROUGE exactly as NIST's ROUGE-1.5.5.pl computes it (Lin 2004, "ROUGE: A Package for Automatic
Evaluation of Summaries"; the Perl script's own behaviour where the paper is silent).

What "exactly" takes, each point read from ``ROUGE-1.5.5.pl`` (in ``../shared/reference``) and
pinned by tests against NIST's official DUC 2006 output:

* **Text.**  Files are read as bytes (one character per byte), lower-cased (ASCII only), cut to
  ``-l`` words or ``-b`` bytes *before* tokenisation (``readText``; ``readText_LCS`` keeps the
  sentences and, with ``-b``, compares every sentence with the limit on its own, as the script
  does), then "-" is spaced out and every other character outside ``[A-Za-z0-9-]`` becomes a
  space.  Tokens that do not start with a letter or digit (the "-" tokens) are dropped.
* **Stemming** (``-m``): words longer than 3 characters go through the WordNet 2.0 exception
  lists (adj, adv, noun, verb; a later list overrides an earlier one, as the database the script
  ships was built) and otherwise through ROUGE's Porter stemmer, which differs from Porter (1980)
  in step 4 ("-ement", then "-ment", then "-ent" are tried in turn).
* **Counts.**  N-grams and skip-bigrams are clipped per model (``min`` of the two counts).  With
  ``-u`` the unigrams of every token but the last are added (the script's loop stops one short).
  ROUGE-L is the union LCS of every model sentence against all peer sentences, clipped by the
  unigram counts; ROUGE-W weights runs by ``k ** w`` (Lin 2004, section 3.3) and takes the
  ``1/w``-th root of the ratio.
* **Rounding before F.**  Recall and precision are rounded to 5 decimals (``%7.5f``) and F is
  computed from the rounded values; the average over evaluations is the mean of the per-evaluation
  rounded scores.
* **Averages are bootstrap means.**  The printed ``Average_X`` is the mean of ``-r`` bootstrap
  sample means (not the plain mean), sample ``i`` drawn with Perl's ``srand(i)``/``rand`` (the
  48-bit ``drand48`` generator), over the evaluations in string order; the interval bounds are
  the script's order statistics.  Reproducing the generator reproduces the averages and the
  interval bounds digit for digit.
* **Formula ``-f``.**  ``A`` sums hits and counts over the models (jackknifing is done by the
  configuration file, one ``<EVAL>`` per left-out model, as NIST's DUC files do); ``B`` keeps the
  model with the best rounded recall.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from textqa.errors import InputError
from textqa.runtime import numba_cache

from .rouge_input import Resources, Tokenizer, _lower, limited_text, limited_units, read_sentences

# --- summaries and n-grams -------------------------------------------------------------------------

@dataclass
class Summary:
    """One file as the measures see it: all tokens, and tokens per sentence (for ROUGE-L/W)."""
    tokens: list
    units: list
    _grams: dict = field(default_factory=dict)
    encoded: tuple | None = None        # (token ids, sentence offsets, {id: count}) for ROUGE-L/W

    def ngrams(self, n: int) -> Counter:
        key = ("n", n)
        if key not in self._grams:
            t = self.tokens
            self._grams[key] = Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1))
        return self._grams[key]

    def skip_bigrams(self, gap: int, unigrams: bool) -> Counter:
        """``createSkipBigram``: pairs at most ``gap`` words apart (any distance when negative),
        plus, with ``-u``, the unigrams of every token but the last."""
        key = ("s", gap, unigrams)
        if key not in self._grams:
            t, c = self.tokens, Counter()
            for i in range(len(t) - 1):
                if unigrams:
                    c[(t[i],)] += 1
                end = len(t) if gap < 0 else min(len(t), i + gap + 2)
                for j in range(i + 1, end):
                    c[(t[i], t[j])] += 1
            self._grams[key] = c
        return self._grams[key]


def clipped_hits(model: Counter, peer: Counter) -> int:
    """Matches of ``model``'s grams in ``peer``, each clipped to the smaller count (``ngramScore``)."""
    if len(peer) < len(model):
        return sum(min(c, model[g]) for g, c in peer.items() if g in model)
    return sum(min(c, peer[g]) for g, c in model.items() if g in peer)


numba_cache.install()          # processes that compile into the same cache at once: locked


# --- LCS and WLCS ---------------------------------------------------------------------------------

@njit(cache=True)
def _mark(model, peer, mask, weight, weighted):
    """One model sentence against one peer sentence: the script's DP (``lcs_inner`` or
    ``wlcs_inner``) and ``markLCS``'s trace-back, marking the model positions on the path."""
    m, n = model.shape[0], peer.shape[0]
    if m == 0:
        return
    c = np.zeros((m + 1, n + 1))
    run = np.zeros((m + 1, n + 1), dtype=np.int64)
    move = np.zeros((m + 1, n + 1), dtype=np.int8)      # 1 diagonal, 2 up, 3 left
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if model[i - 1] == peer[j - 1]:
                if weighted:
                    k = run[i - 1, j - 1]
                    c[i, j] = c[i - 1, j - 1] + (k + 1.0) ** weight - float(k) ** weight
                    run[i, j] = k + 1
                else:
                    c[i, j] = c[i - 1, j - 1] + 1.0
                move[i, j] = 1
            elif c[i - 1, j] >= c[i, j - 1]:
                c[i, j] = c[i - 1, j]
                move[i, j] = 2
            else:
                c[i, j] = c[i, j - 1]
                move[i, j] = 3
    i, j = m, n
    while i != 0 and j != 0:
        if move[i, j] == 1:
            i -= 1
            j -= 1
            mask[i] = 1
        elif move[i, j] == 2:
            i -= 1
        else:
            j -= 1


@njit(cache=True)
def _union_lcs(m_tok, m_off, p_tok, p_off, m_count, p_count, weight, weighted):
    """``lcs``/``wlcs``: the union LCS hits of every model sentence against all peer sentences,
    clipped by the unigram counts (which the hits use up), and the model's length base."""
    hit, base = 0.0, 0.0
    for u in range(m_off.shape[0] - 1):
        model = m_tok[m_off[u]:m_off[u + 1]]
        m = model.shape[0]
        base += float(m) ** weight if weighted else float(m)
        mask = np.zeros(m, dtype=np.int8)
        for v in range(p_off.shape[0] - 1):
            _mark(model, p_tok[p_off[v]:p_off[v + 1]], mask, weight, weighted)
        run = 0
        for j in range(m):
            t = model[j]
            if mask[j] == 1 and m_count[t] > 0 and p_count[t] > 0:
                if weighted:
                    run += 1
                    if (j + 1 < m and mask[j + 1] == 0) or j + 1 == m:
                        hit += float(run) ** weight
                        run = 0
                else:
                    hit += 1.0
                m_count[t] -= 1
                p_count[t] -= 1
    return hit, base


class Vocabulary:
    """Token ids for the LCS kernels."""

    def __init__(self):
        self.ids: dict[str, int] = {}

    def encode(self, units: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
        ids = self.ids
        flat = [ids.setdefault(t, len(ids)) for u in units for t in u]
        off = np.zeros(len(units) + 1, dtype=np.int64)
        np.cumsum([len(u) for u in units], out=off[1:])
        return np.asarray(flat, dtype=np.int64), off

    def counts(self, tokens: list[str]) -> dict[int, int]:
        ids = self.ids
        return Counter(ids.setdefault(t, len(ids)) for t in tokens)

    def summary(self, s: "Summary") -> tuple:
        if s.encoded is None:
            s.encoded = (*self.encode(s.units), self.counts(s.tokens))
        return s.encoded


# --- one evaluation -----------------------------------------------------------------------------------

def _f(x: float) -> str:
    return f"{x:7.5f}"


def _prf(hit: float, model_count: float, peer_count: float, alpha: float, root: float = 1.0):
    """Recall, precision (rounded to 5 decimals, as strings) and F computed from the rounded values."""
    r = _f((hit / model_count) ** root) if model_count else _f(0)
    p = _f((hit / peer_count) ** root) if peer_count else _f(0)
    rv, pv = float(r), float(p)
    den = (1 - alpha) * pv + alpha * rv
    return r, p, _f(pv * rv / den) if den > 0 else _f(0)


@dataclass
class Options:
    """The scoring options of ``ROUGE-1.5.5.pl`` (the letters in brackets)."""
    max_n: int | None = None            # -n
    compute_l: bool = True              # not -x
    weight: str | None = None           # -w (kept as typed: it names ROUGE-W-<w>)
    skip: str | None = None             # -2 (kept as typed: it names ROUGE-S<d>)
    unigrams: bool = False              # -u
    both_skip: bool = False             # -U
    stem: bool = False                  # -m
    remove_stopwords: bool = False      # -s
    words: int = 0                      # -l
    nbytes: int = 0                     # -b
    formula: str = "A"                  # -f
    alpha: float = 0.5                  # -p
    average: int = 0                    # -t
    confidence: str = "95"              # -c (kept as typed: the script prints it)
    resamples: int = 1000               # -r
    per_eval: bool = False              # -d

    def measures(self) -> list[tuple[str, str, dict]]:
        """(tag, kind, parameters) in the order the script prints them."""
        out = [(f"ROUGE-{n}", "N", {"n": n}) for n in range(1, (self.max_n or 0) + 1)]
        if self.compute_l:
            out.append(("ROUGE-L", "L", {}))
        if self.weight is not None:
            out.append((f"ROUGE-W-{self.weight}", "W", {"w": float(self.weight)}))
        if self.skip is not None:
            gap = int(self.skip)
            name = self.skip if gap >= 0 else "*"
            if self.unigrams:
                out.append((f"ROUGE-SU{name}", "S", {"gap": gap, "u": True}))
            else:
                out.append((f"ROUGE-S{name}", "S", {"gap": gap, "u": False}))
                if self.both_skip:
                    out.append((f"ROUGE-SU{name}", "S", {"gap": gap, "u": True}))
        return out


class Scorer:
    """Scores peers against models with one set of options; files are read and tokenised once."""

    def __init__(self, options: Options, resources: Resources | None = None):
        self.o = options
        self.tok = Tokenizer(resources or Resources.load(), options.stem, options.remove_stopwords)
        self.vocab = Vocabulary()
        self._files: dict = {}
        self._counts = [np.zeros(1024, dtype=np.int64), np.zeros(1024, dtype=np.int64)]

    def _scratch(self, counts: dict, which: int = 0) -> np.ndarray:
        """A zeroed count array over the vocabulary (reused; the caller zeroes what it set)."""
        size = len(self.vocab.ids)
        if self._counts[which].shape[0] < size:
            self._counts[which] = np.zeros(max(size, 2 * self._counts[which].shape[0]), dtype=np.int64)
        a = self._counts[which]
        for t, c in counts.items():
            a[t] = c
        return a

    def _summarise(self, sents: list[str]) -> Summary:
        """Lower-cased sentences -> all tokens (``readText``) and tokens per sentence (``readText_LCS``)."""
        return Summary(self.tok.tokens(limited_text(sents, self.o.words, self.o.nbytes)),
                       [self.tok.tokens(u) for u in limited_units(sents, self.o.words, self.o.nbytes)])

    def from_sentences(self, sentences: list[str]) -> Summary:
        """A summary given as sentences (lower-cased and cut as a file's would be)."""
        return self._summarise([_lower(x) for x in sentences if x])

    def summary(self, path: Path, fmt: str, missing: str | None = None) -> Summary:
        """A file's summary, read and tokenised once; ``missing``: the message for a file that does
        not exist (the script's "Cannot find model summary")."""
        key = (str(path), fmt.upper())
        s = self._files.get(key)
        if s is None:
            if missing and not Path(path).exists():
                raise InputError(f"{missing}: {path}")
            s = self._files[key] = self._summarise(read_sentences(path, fmt))
        return s

    def forget(self, paths) -> None:
        """Drop the summaries of these files (a peer's, once it is scored: its n-gram and skip-bigram
        tables would otherwise stay for the whole run, about 10 MB a DUC peer)."""
        for path in paths:
            for fmt in ("SEE", "SPL", "ISI"):
                self._files.pop((str(path), fmt), None)

    def score(self, kind: str, params: dict, models: list[Summary], peer: Summary):
        """``computeNGramScore`` / ``computeLCSScore`` / ``computeWLCSScore`` /
        ``computeSkipBigramScore``: (model count, hit, peer count, R, P, F)."""
        o = self.o
        total_hit = total_model = total_peer = 0.0
        best = -1.0
        root = 1.0
        if kind in ("L", "W"):
            weighted = kind == "W"
            w = params.get("w", 1.0)
            root = 1.0 / w if weighted else 1.0
            p_tok, p_off, p_counts = self.vocab.summary(peer)
        else:
            grams = ((lambda x: x.ngrams(params["n"])) if kind == "N"
                     else (lambda x: x.skip_bigrams(params["gap"], params["u"])))
            pg = grams(peer)
            pc = sum(pg.values())
        for model in models:
            if kind in ("N", "S"):
                mg = grams(model)
                hit, mc = clipped_hits(mg, pg), sum(mg.values())
                score = float(_f(hit / mc)) if mc else 0.0
            else:
                m_tok, m_off, m_counts = self.vocab.summary(model)
                m_count, p_count = self._scratch(m_counts), self._scratch(p_counts, 1)
                hit, base = _union_lcs(m_tok, m_off, p_tok, p_off, m_count, p_count, w if weighted else 1.0,
                                       weighted)
                m_count[list(m_counts)] = 0
                p_count[list(p_counts)] = 0
                if weighted:
                    score = (hit / base) ** root if base else 0.0
                    mc, pc = base ** w, float(len(peer.tokens)) ** w
                else:
                    score = hit / base if base else 0.0
                    mc, pc = base, len(peer.tokens)
            if o.formula == "B":
                if score > best:
                    best = score
                    total_hit, total_model, total_peer = hit, mc, pc
            else:
                total_hit += hit
                total_model += mc
                total_peer += pc
        r, p, f = _prf(total_hit, total_model, total_peer, o.alpha, root)
        return total_model, total_hit, total_peer, r, p, f


# --- configuration ----------------------------------------------------------------------------------


# --- averages and the bootstrap -------------------------------------------------------------------

_DRAND48_A, _DRAND48_C, _MASK48 = np.uint64(0x5DEECE66D), np.uint64(0xB), np.uint64((1 << 48) - 1)
_INDEX_CACHE: dict = {}


def perl_bootstrap_indices(n: int, resamples: int) -> np.ndarray:
    """Row ``i``: the ``n`` indices ``int(rand(n))`` that Perl draws after ``srand(i)`` (Perl's
    ``drand48``: x <- (0x5DEECE66D x + 0xB) mod 2^48 from x = seed * 2^16 + 0x330E; rand = x / 2^48)."""
    key = (n, resamples)
    if key not in _INDEX_CACHE:
        x = (np.arange(resamples, dtype=np.uint64) << np.uint64(16)) | np.uint64(0x330E)
        out = np.empty((resamples, n), dtype=np.int64)
        with np.errstate(over="ignore"):
            for j in range(n):
                x = (x * _DRAND48_A + _DRAND48_C) & _MASK48
                out[:, j] = (float(n) * np.ldexp(x.astype(np.float64), -48)).astype(np.int64)
        _INDEX_CACHE[key] = out
    return _INDEX_CACHE[key]


def _seq_sum(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """Left-to-right sums (the script adds one value at a time; numpy's ``sum`` is pairwise)."""
    return np.add.accumulate(a, axis=axis).take(-1, axis=axis) if a.shape[axis] else np.zeros(a.shape[:-1])


def averages(rows: list[tuple], options: Options) -> dict:
    """``computeAverages``: ``rows`` are the per-evaluation triples in string order of their test
    ids ((R, P, F) strings with ``-t 0``; (model count, peer count, hits) with ``-t 1``/``2``)."""
    o = options
    vals = np.array([[float(v) for v in r] for r in rows], dtype=np.float64).reshape(-1, 3)
    n = len(vals)
    out = {"M_cnt": _seq_sum(vals[:, 0]) if n else 0.0, "P_cnt": _seq_sum(vals[:, 1]) if n else 0.0,
           "H_cnt": _seq_sum(vals[:, 2]) if n else 0.0}
    if o.average == 2:
        return out
    R = o.resamples
    if n:
        idx = perl_bootstrap_indices(n, R)
        sums = np.stack([_seq_sum(vals[idx, k]) for k in range(3)], axis=1)      # (R, 3)
    else:
        sums = np.zeros((R, 3))
    if o.average == 0:
        samples = sums / n if n else sums
    else:
        m, p, h = sums[:, 0], sums[:, 1], sums[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            rr = np.where(m > 0, h / np.where(m > 0, m, 1), 0.0)
            pp = np.where(p > 0, h / np.where(p > 0, p, 1), 0.0)
            den = (1 - o.alpha) * pp + o.alpha * rr
            ff = np.where(den > 0, rr * pp / np.where(den > 0, den, 1), 0.0)
        samples = np.stack([rr, pp, ff], axis=1)
    delta = R * ((100 - float(o.confidence)) / 2.0) / 100.0
    ua = int(R - delta - 1)
    la = int(delta)
    ratio = R - delta - 1 - ua

    def at(a, i):
        return a[i] if 0 <= i < len(a) else 0.0

    for k, name in enumerate("RPF"):
        ranked = np.sort(samples[:, k])
        out[f"Avg{name}"] = _f(_seq_sum(ranked) / R)
        out[f"CIAvgL_{name}"] = _f(at(ranked, la) + (at(ranked, la + 1) - at(ranked, la)) * ratio)
        out[f"CIAvgU_{name}"] = _f(at(ranked, ua) + (at(ranked, ua + 1) - at(ranked, ua)) * ratio)
    return out


def sentence_scores(hypotheses: list[str], references: list[str], measure: str = "L", options: Options | None = None,
                    resources: Resources | None = None) -> list[tuple[float, float, float]]:
    """(R, P, F) of each hypothesis against its reference, each a one-sentence summary, as
    ROUGE-1.5.5 scores them with ``options`` (default: none, alpha 0.5).  ``measure``: "L", "W",
    "1".."4", or "S<gap>"/"SU<gap>" (gap -1: any distance)."""
    o = options or Options()
    scorer = Scorer(o, resources)
    if measure == "L":
        kind, params = "L", {}
    elif measure == "W":
        kind, params = "W", {"w": float(o.weight or 1.2)}
    elif measure.isdigit():
        kind, params = "N", {"n": int(measure)}
    elif measure.startswith("SU") or measure.startswith("S"):
        u = measure.startswith("SU")
        kind, params = "S", {"gap": int(measure[2 if u else 1:]), "u": u}
    else:
        raise ValueError(f"unknown ROUGE measure {measure!r}")
    out = []
    for h, r in zip(hypotheses, references):
        *_, rr, pp, ff = scorer.score(kind, params, [scorer.from_sentences([r])], scorer.from_sentences([h]))
        out.append((float(rr), float(pp), float(ff)))
    return out


