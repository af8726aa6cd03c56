"""The BLANC metric (Lita, Rogati & Lavie 2005, section 2.2), with sacrebleu's shape.

Per skip-ngram size k = 1..K and reference r:

    P_k = common_k(hyp, r) / own_k(hyp)      R_k = common_k(hyp, r) / own_k(r)

common_k is the ACS mass (:mod:`textqa.models.blanc.acs`, eq. 6 and 10) and own_k a sentence's own
weighted skip-k-gram mass (so alpha = 0 gives C(n, k) denominators, as in ROUGE-S).  Sizes
are combined with learnable weights w_k: P = sum_k w_k P_k / sum_k w_k over the sizes the
sentence has (own_k > 0; "effective order", as sacrebleu's sentence BLEU, so a 3-word
hypothesis is not zeroed by its missing 4-grams), likewise R.  With several references
the maximum P and the maximum R over references are combined (section 2.2):

    F = (1 + beta_F^2) P R / (beta_F^2 P + R)

``corpus_score`` (system level) sums each size's common and own masses over segments
(each segment with the reference that gives its best sentence F) before dividing, as
corpus BLEU sums n-gram counts.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from textqa.runtime.loaded import LoadedModel
from textqa.runtime.metric import SegmentMetric
from textqa.runtime.metric_input import MetricInputError, references_per_segment, text_of, texts
from textqa.version import __version__

from .acs import GAP_SIDES, common_skip_ngram_mass, exact_match_matrix, own_skip_ngram_mass
from .clipped import chrf_chars, chrf_words, clipped_into
from .matching import MATCHINGS, match_matrix

TOKENIZERS = ("13a", "13a-words", "none")
MAX_CELLS = 4_000_000          # |hyp| x |ref| tokens: the grid holds one float per cell


@dataclass
class BLANCParams:
    """Every parameter of a BLANC metric; the defaults are untrained, sensible starting values."""

    alpha: float = 0.0                  # gap decay (eq. 1)
    beta: float = 0.5                   # gap-difference decay (eq. 4)
    size_weights: tuple = (0.25, 0.25, 0.25, 0.25)   # w_k for k = 1..K
    beta_f: float = 1.0                 # F-measure beta_F (2.2)
    matching: str = "one-to-one"        # or "all" (the paper's all-pairs step 1)
    partial_weight: float = 0.5         # node weight of a prefix/stem match (eq. 6 feature), 0 = off
    prefix_len: int = 4
    gap_side: str = "max"               # which sentence's gap gamma uses: max, hyp, ref
    lowercase: bool = True
    tokenize: str = "13a"               # sacrebleu's 13a; "13a-words": 13a without punctuation-only tokens;
                                        # "none": split on whitespace (pre-tokenized input)
    # the character level and chrF++'s word n-grams (clipped masses, textqa.models.blanc.clipped):
    char_weights: tuple = ()            # c_n for character orders n = 1..N (chrF: six 1s); () = no character level
    char_alpha: float = 0.0             # gap decay inside a character skip-n-gram (eq. 1)
    char_max_gap: int = 0               # characters an occurrence may skip (0: contiguous n-grams, chrF)
    word_ngram_weights: tuple = ()      # v_m for chrF++'s word orders m = 1..M (chrF++: (1, 1)); () = none
    char_lowercase: bool = False        # lowercase for both (chrF's default: case-sensitive)

    def __post_init__(self):
        self.size_weights = tuple(float(w) for w in self.size_weights)
        self.char_weights = tuple(float(w) for w in self.char_weights)
        self.word_ngram_weights = tuple(float(w) for w in self.word_ngram_weights)
        problems = []
        if self.alpha < 0 or self.beta < 0 or self.char_alpha < 0:
            problems.append("alpha, beta and char_alpha must be >= 0")
        if any(w < 0 for w in self.weights) or sum(self.weights) <= 0:
            problems.append("size_weights, char_weights and word_ngram_weights must be non-negative with a "
                            "positive sum")
        if not isinstance(self.char_max_gap, int) or not 0 <= self.char_max_gap <= 4:
            problems.append("char_max_gap must be an integer in 0..4")
        if len(self.char_weights) > 9 or len(self.word_ngram_weights) > 4:
            problems.append("at most 9 character orders and 4 word n-gram orders")
        if self.beta_f <= 0:
            problems.append("beta_f must be > 0")
        if self.matching not in MATCHINGS:
            problems.append(f"matching must be one of {MATCHINGS}")
        if not 0 <= self.partial_weight <= 1:
            problems.append("partial_weight must be in [0, 1]")
        if self.gap_side not in GAP_SIDES:
            problems.append(f"gap_side must be one of {GAP_SIDES}")
        if self.tokenize not in TOKENIZERS:
            problems.append(f"tokenize must be one of {TOKENIZERS}")
        if problems:
            raise MetricInputError("; ".join(problems))

    @property
    def max_k(self) -> int:
        return len(self.size_weights)

    @property
    def weights(self) -> tuple:
        """Every column's weight, in the order of a statistics block: ACS sizes, then character
        orders, then word n-gram orders."""
        return self.size_weights + self.char_weights + self.word_ngram_weights

    @property
    def columns(self) -> int:
        """Columns of a statistics block (``weights``)."""
        return len(self.weights)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("size_weights", "char_weights", "word_ngram_weights"):
            d[k] = list(getattr(self, k))
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "BLANCParams":
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise MetricInputError(f"unknown BLANC parameter(s): {', '.join(sorted(unknown))}")
        return cls(**d)


@dataclass
class BLANCScore:
    """``score``: F of ``precision`` and ``recall`` (in [0, 1] with one-to-one matching); ``stats``:
    the statistics behind them (a sentence's per reference and the best one; a corpus's total)."""
    score: float
    precision: float
    recall: float
    stats: dict = field(default_factory=dict, repr=False)

    def __str__(self) -> str:
        return f"BLANC = {self.score:.4f} (P {self.precision:.4f}, R {self.recall:.4f})"


def f_measure(p, r, beta_f: float):
    """Weighted harmonic mean; 0 where p + r = 0 (works on numbers and numpy arrays)."""
    b2 = beta_f * beta_f
    p, r = np.asarray(p, dtype=float), np.asarray(r, dtype=float)
    den = b2 * p + r
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(den > 0, (1 + b2) * p * r / np.where(den > 0, den, 1), 0.0)
    return f if f.ndim else float(f)


def combine_sizes(common: np.ndarray, own: np.ndarray, size_weights, counts=None) -> np.ndarray:
    """sum_k w_k common_k / own_k over the sizes that count, divided by those sizes' weights.

    ``common`` and ``own`` are [..., K]; the result drops the last axis.  A size counts where
    ``counts`` is true (default: where own_k > 0).
    """
    w = np.asarray(size_weights, dtype=float)
    has = own > 0
    ratio = np.divide(common, own, out=np.zeros_like(common, dtype=float), where=has)
    if counts is not None:
        has = counts
    wsum = (has * w).sum(-1)
    return np.divide((ratio * has * w).sum(-1), wsum, out=np.zeros_like(wsum, dtype=float), where=wsum > 0)


def stats_f(stats: np.ndarray, size_weights, beta_f: float, n_acs: int | None = None) -> np.ndarray:
    """F of each statistics block in ``stats`` [N, 3, C] (common, hypothesis-own, reference-own),
    as ``BLANC._pr`` pools them: the first ``n_acs`` columns (default: all) are ACS sizes, which
    count for P where the hypothesis has them and for R where the reference has them; the others
    are character / word n-gram orders, which count for both only where both sentences have them."""
    common, own_h, own_r = stats[:, 0, :], stats[:, 1, :], stats[:, 2, :]
    if n_acs is None or n_acs >= stats.shape[-1]:
        return f_measure(combine_sizes(common, own_h, size_weights), combine_sizes(common, own_r, size_weights),
                         beta_f)
    for_p, for_r = own_h > 0, own_r > 0
    both = for_p & for_r
    for_p[:, n_acs:], for_r[:, n_acs:] = both[:, n_acs:], both[:, n_acs:]
    return f_measure(combine_sizes(common, own_h, size_weights, for_p),
                     combine_sizes(common, own_r, size_weights, for_r), beta_f)


class BLANC(SegmentMetric, LoadedModel):
    """BLANC with the parameters ``params`` (:class:`BLANCParams`; default: untrained starting values).
    ``textqa.load("blanc")`` gives the one trained to correlate with human judgments; the service's
    ``/v1/blanc/score`` and ``textqa blanc score`` score through it.

    References are per segment (``references[i]``: the references of segment ``i``, any number), as
    every scorer of :mod:`textqa.metrics`; sacrebleu's layout (one list per reference stream) is refused
    where it can be told apart.

    >>> metric = BLANC()
    >>> round(metric.corpus_score(["the cat sat on the mat"], [["the cat sat on a mat"]]).score, 4)
    0.5833
    >>> metric.signature.startswith("BLANC|alpha:0|beta:0.5|")
    True
    """

    name = "BLANC"

    def __init__(self, params: BLANCParams | None = None, version: str | None = None):
        self.params = params or BLANCParams()
        self.version = __version__ if version is None else version
        self.manifest: dict = {}            # the artifact's, when loaded from one (``textqa.load("blanc")``)
        self._tokenizer = None
        self._token_cache: dict = {}
        self._unit_cache: dict = {}      # text -> (character codes, word ids) for the clipped levels
        self._word_ids: dict = {}        # chrF++ word -> id (reset with the cache, so ids stay consistent)

    # ------------------------------------------------------------ text -> tokens
    def tokens(self, text: str) -> list[str]:
        cache = self._token_cache
        out = cache.get(text)
        if out is None:
            out = self._tokens(text)
            if len(cache) >= 65536:         # bounded, like sacrebleu's tokenizer cache
                cache.clear()
            cache[text] = out
        return out

    def _tokens(self, text: str) -> list[str]:
        p = self.params
        if p.lowercase:
            text = text.lower()
        if p.tokenize == "none":
            return text.split()
        if self._tokenizer is None:
            from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # deferred: loads sacrebleu
            self._tokenizer = Tokenizer13a()
        tokens = self._tokenizer(text).split()
        if p.tokenize == "13a-words":
            tokens = [t for t in tokens if t[0].isalnum() or any(ch.isalnum() for ch in t)]
        return tokens

    # ------------------------------------------------------------ sufficient statistics
    def pair_stats(self, hyp: list[str], ref: list[str]) -> np.ndarray:
        """[3, K]: common, hypothesis-own and reference-own skip-k-gram mass, k = 1..K."""
        p = self.params
        K = p.max_k
        if K == 0:
            return np.zeros((3, 0))
        if len(hyp) * len(ref) > MAX_CELLS:
            raise ValueError(f"sentence pair too long for ACS: {len(hyp)} x {len(ref)} tokens "
                             f"(limit {MAX_CELLS:,} token pairs)")
        M = match_matrix(ref, hyp, p.matching, p.partial_weight, p.prefix_len)
        out = np.empty((3, K))
        out[0] = common_skip_ngram_mass(M, p.alpha, p.beta, K, p.gap_side)
        out[1] = own_skip_ngram_mass(len(hyp), p.alpha, K)
        out[2] = own_skip_ngram_mass(len(ref), p.alpha, K)
        return out

    def reference_stats(self, hypothesis: str, references) -> np.ndarray:
        """[n_refs, 3, K] statistics of a hypothesis against each of its references."""
        if isinstance(references, str):
            references = [references]
        if not references:
            raise ValueError("at least one reference is needed")
        hyp = self.tokens(hypothesis)
        p = self.params
        if not (p.char_weights or p.word_ngram_weights):
            return np.stack([self.pair_stats(hyp, self.tokens(r)) for r in references])
        K = p.max_k
        out = np.zeros((len(references), 3, p.columns))
        for i, r in enumerate(references):
            if K:
                out[i, :, :K] = self.pair_stats(hyp, self.tokens(r))
            self.clipped_level_stats(hypothesis, r, out[i, :, K:])
        return out

    def clipped_level_stats(self, hypothesis: str, reference: str, out=None) -> np.ndarray:
        """[3, N + M]: the character orders' and chrF++'s word orders' clipped statistics
        (:mod:`textqa.models.blanc.clipped`), counted as chrF counts them (an order the reference
        lacks gets no hypothesis count either: it only matters for corpus sums); into ``out``."""
        p = self.params
        N, M = len(p.char_weights), len(p.word_ngram_weights)
        if out is None:
            out = np.zeros((3, N + M))
        (hc, hw), (rc, rw) = self._units(hypothesis), self._units(reference)
        if N:
            clipped_into(out[:, :N], hc, rc, N, p.char_alpha, p.char_max_gap, chrf=True)
        if M:
            clipped_into(out[:, N:], hw, rw, M, chrf=True)
        return out

    def _units(self, text: str):
        """(character codes, chrF++ word ids) of a text, cached (references recur across systems)."""
        got = self._unit_cache.get(text)
        if got is None:
            if len(self._unit_cache) >= 65536:
                self._unit_cache.clear()
                self._word_ids.clear()         # together: cached ids never mix two numberings
            t = text.lower() if self.params.char_lowercase else text
            ids = self._word_ids
            words = chrf_words(t) if self.params.word_ngram_weights else []
            got = (np.frombuffer(chrf_chars(t).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64),
                   np.array([ids.setdefault(w, len(ids) + 1) for w in words], dtype=np.int64))
            self._unit_cache[text] = got
        return got

    def _pr(self, stats) -> tuple[float, float]:
        """(P, R) of one statistics block, in plain floats (faster than numpy for few columns).

        All levels are pooled: P = sum w P_col / sum w over the columns that count, likewise R.
        An ACS size counts for P when the hypothesis has it and for R when the reference has it
        (module docstring); a character or word n-gram order counts for both only when both
        sentences have it (chrF's "effective order"), so that chrF and chrF++ are points of this
        space: six character orders weighted 1 (plus two word orders for chrF++), beta_F = 2."""
        p = self.params
        common, own_h, own_r = stats[0].tolist(), stats[1].tolist(), stats[2].tolist()
        pn = pd = rn = rd = 0.0
        for k, wk in enumerate(p.size_weights):
            if own_h[k] > 0:
                pn += wk * common[k] / own_h[k]
                pd += wk
            if own_r[k] > 0:
                rn += wk * common[k] / own_r[k]
                rd += wk
        k0 = len(p.size_weights)
        for k, wk in enumerate(p.char_weights + p.word_ngram_weights, start=k0):
            if own_h[k] > 0 and own_r[k] > 0:
                pn += wk * common[k] / own_h[k]
                rn += wk * common[k] / own_r[k]
                pd += wk
                rd += wk
        return (pn / pd if pd else 0.0), (rn / rd if rd else 0.0)

    def _f(self, p: float, r: float) -> float:
        b2 = self.params.beta_f ** 2
        den = b2 * p + r
        return (1 + b2) * p * r / den if den > 0 else 0.0

    def sentence_score(self, hypothesis: str, references) -> BLANCScore:
        """BLANC of one hypothesis against its references (a list, or one string): the best P and the
        best R over the references, combined (section 2.2).

        >>> round(BLANC().sentence_score("the cat sat on the mat", ["the cat sat on a mat"]).score, 4)
        0.5833
        """
        text_of(hypothesis, "hypothesis")
        references = references_per_segment([references], 1)[0]
        stats = self.reference_stats(hypothesis, references)
        prs = [self._pr(s) for s in stats]
        best_p, best_r = max(p for p, _ in prs), max(r for _, r in prs)
        best = max(range(len(prs)), key=lambda i: self._f(*prs[i]))
        return BLANCScore(self._f(best_p, best_r), best_p, best_r, {"best_reference": best, "per_reference": stats})

    def explain(self, hypothesis: str, references, max_skip_ngrams: int = 50,
                scored: BLANCScore | None = None) -> dict:
        """What a sentence score is made of, against its best reference: the word alignment (ACS
        step 1: exact matches weigh 1, prefix/look-alike matches their node weight), the common and
        own skip-k-gram mass per size k (the sums behind P and R, Lita, Rogati & Lavie 2005 eqs. 1-5),
        and the common skip-bigrams the alignment yields (pairs of matches in the same order in both
        sentences; the first ``max_skip_ngrams``).  ``scored``: this pair's ``sentence_score``, when
        the caller has it already."""
        if isinstance(references, str):
            references = [references]
        scored = scored or self.sentence_score(hypothesis, references)
        best = scored.stats["best_reference"]
        hyp, ref = self.tokens(hypothesis), self.tokens(references[best])
        p = self.params
        M = match_matrix(ref, hyp, p.matching, p.partial_weight, p.prefix_len) if hyp and ref else np.zeros((0, 0))
        pairs = sorted((int(y), int(x), float(M[x, y])) for x, y in zip(*np.nonzero(M)))
        stats = scored.stats["per_reference"][best][:, :p.max_k]       # the ACS sizes (then any clipped levels)
        bigrams = []
        for a, (ya, xa, _) in enumerate(pairs):
            for yb, xb, _ in pairs[a + 1:]:
                if yb > ya and xb > xa and len(bigrams) < max_skip_ngrams:
                    bigrams.append(f"{hyp[ya]} {'.. ' if yb > ya + 1 else ''}{hyp[yb]}")
        return {"reference": best, "hypothesis_tokens": hyp, "reference_tokens": ref,
                "alignment": [{"hypothesis": y, "reference": x, "weight": round(w, 6)} for y, x, w in pairs],
                "sizes": [{"k": k + 1, "common": round(float(stats[0, k]), 6), "hypothesis": round(float(stats[1, k]), 6),
                           "reference": round(float(stats[2, k]), 6)} for k in range(stats.shape[1])],
                "skip_bigrams": bigrams}

    def corpus_score(self, hypotheses: list[str], references: list) -> BLANCScore:
        """System-level score.  ``references[i]`` is the list of references of segment i
        (unlike sacrebleu's streams, so that segments may have different numbers of references)."""
        return self.score_of_total(self._segment_blocks(hypotheses, references).sum(0))

    def _segment_blocks(self, hypotheses, references) -> np.ndarray:
        """[N, 3, columns]: each segment's statistics against the reference of its best sentence F."""
        hyps = texts(hypotheses, "hypotheses")
        refs = references_per_segment(references, len(hyps))
        out = np.zeros((len(hyps), 3, self.params.columns))
        for i, (hyp, rs) in enumerate(zip(hyps, refs)):
            try:
                s = self.sentence_score(hyp, rs).stats
            except MetricInputError as e:
                raise MetricInputError(f"segment {i}: {e}") from None
            out[i] = s["per_reference"][s["best_reference"]]
        return out

    def segment_statistics(self, hypotheses, references) -> dict:
        """{"BLANC": (stats, score)}: each segment's common and own masses (flattened [3, columns]
        blocks, with its best reference), and the F of summed rows (``score(stats.sum(0))`` is
        :meth:`corpus_score`'s); what :mod:`textqa.metrics.significance` resamples."""
        blocks = self._segment_blocks(hypotheses, references)
        shape = blocks.shape[1:]
        p = self.params
        return {"BLANC": (blocks.reshape(len(blocks), -1),
                          lambda x: stats_f(np.atleast_2d(x).reshape(-1, *shape), p.weights, p.beta_f, p.max_k))}

    def score_of_total(self, total: np.ndarray) -> BLANCScore:
        """The score of summed [3, K] statistics (``corpus_score``'s last step; ``textqa batch blanc
        --corpus`` sums the partitions' statistics and calls it)."""
        p, r = self._pr(total)
        return BLANCScore(self._f(p, r), p, r, {"total": total})

    def scores_from_stats(self, stats: np.ndarray, weights=None, beta_f=None) -> np.ndarray:
        """Sentence F for a batch of single-reference stats [N, 3, columns] (ACS sizes, then the
        clipped levels, as ``clipped_batch`` appends them); ``weights`` all columns' (default: the
        parameters')."""
        p = self.params
        return stats_f(stats, p.weights if weights is None else weights,
                       p.beta_f if beta_f is None else beta_f, p.max_k)

    def clipped_batch(self, hypotheses: list[str], references: list[str]) -> np.ndarray:
        """[N, 3, N + M]: ``clipped_level_stats`` of many single-reference pairs (the columns that
        the batched ACS statistics lack)."""
        out = np.zeros((len(hypotheses), 3, self.params.columns - self.params.max_k))
        if out.shape[2]:
            for i, (h, r) in enumerate(zip(hypotheses, references)):
                self.clipped_level_stats(h, r, out[i])
        return out

    def warm_up(self) -> None:
        self.sentence_score("warm up", ["warm up ."])

    # ------------------------------------------------------------ signature
    @property
    def signature(self) -> str:
        """Every parameter and the version, as sacrebleu's signatures: a reported score can be reproduced."""
        p = self.params
        w = lambda ws: ",".join(f"{x:.4g}" for x in ws) or "none"
        return (f"BLANC|alpha:{p.alpha:.4g}|beta:{p.beta:.4g}|w:{w(p.size_weights)}|beta_f:{p.beta_f:.4g}"
                f"|m:{p.matching}|pw:{p.partial_weight:.4g}|pl:{p.prefix_len}|gap:{p.gap_side}"
                f"|lc:{'yes' if p.lowercase else 'no'}|tok:{p.tokenize}|c:{w(p.char_weights)}|ca:{p.char_alpha:.4g}"
                f"|cg:{p.char_max_gap}|wn:{w(p.word_ngram_weights)}|clc:{'yes' if p.char_lowercase else 'no'}"
                f"|version:textqa-{self.version}")

    def params_json(self) -> str:
        return json.dumps(self.params.to_dict(), indent=2)


def rouge_s(hypothesis: list[str], reference: list[str], beta_f: float = 1.0) -> dict:
    """ROUGE-S (Lin 2004, skip-bigrams at any distance) through ACS: section 3's special case,
    k = 2 with alpha = beta = 0 and all-pairs matching, so P = SKIP2 / C(|hyp|, 2) and
    R = SKIP2 / C(|ref|, 2).

    Equal to ROUGE-S when no word repeats (a test cross-checks it against a direct count).
    With repeated words ACS counts every pair of occurrences (count_X x count_Y) where
    ROUGE-1.5.5 clips each skip-bigram to min(count_X, count_Y).
    """
    common = common_skip_ngram_mass(exact_match_matrix(reference, hypothesis), 0.0, 0.0, 2)[1]
    own_h = own_skip_ngram_mass(len(hypothesis), 0.0, 2)[1]
    own_r = own_skip_ngram_mass(len(reference), 0.0, 2)[1]
    p = common / own_h if own_h else 0.0
    r = common / own_r if own_r else 0.0
    return {"precision": p, "recall": r, "f": float(f_measure(p, r, beta_f)), "skip2": common}
