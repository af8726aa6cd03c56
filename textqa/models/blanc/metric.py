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

from .acs import GAP_SIDES, common_skip_ngram_mass, own_skip_ngram_mass
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

    def __post_init__(self):
        self.size_weights = tuple(float(w) for w in self.size_weights)
        problems = []
        if self.alpha < 0 or self.beta < 0:
            problems.append("alpha and beta must be >= 0")
        if not self.size_weights or any(w < 0 for w in self.size_weights) or sum(self.size_weights) <= 0:
            problems.append("size_weights must be non-negative with a positive sum")
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
            raise ValueError("; ".join(problems))

    @property
    def max_k(self) -> int:
        return len(self.size_weights)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["size_weights"] = list(self.size_weights)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "BLANCParams":
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown BLANC parameter(s): {', '.join(sorted(unknown))}")
        return cls(**d)


@dataclass
class BLANCScore:
    score: float            # F, in [0, 1] for one-to-one matching
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


def combine_sizes(common: np.ndarray, own: np.ndarray, size_weights) -> np.ndarray:
    """sum_k w_k common_k / own_k over the sizes with own_k > 0, divided by those sizes' weights.

    ``common`` and ``own`` are [..., K]; the result drops the last axis.
    """
    w = np.asarray(size_weights, dtype=float)
    has = own > 0
    ratio = np.divide(common, own, out=np.zeros_like(common, dtype=float), where=has)
    wsum = (has * w).sum(-1)
    return np.divide((ratio * w).sum(-1), wsum, out=np.zeros_like(wsum, dtype=float), where=wsum > 0)


def stats_f(stats: np.ndarray, size_weights, beta_f: float) -> np.ndarray:
    """F of each [3, K] statistics block in ``stats`` [N, 3, K] (common, hypothesis-own, reference-own)."""
    p = combine_sizes(stats[:, 0, :], stats[:, 1, :], size_weights)
    r = combine_sizes(stats[:, 0, :], stats[:, 2, :], size_weights)
    return f_measure(p, r, beta_f)


class BLANC:
    """``BLANC(params).sentence_score(hyp, refs)`` / ``corpus_score(hyps, refs_lists)``."""

    def __init__(self, params: BLANCParams | None = None, version: str | None = None):
        self.params = params or BLANCParams()
        if version is None:
            from textqa import __version__ as version
        self.version = version
        self._tokenizer = None
        self._token_cache: dict = {}

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
            from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
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
        return np.stack([self.pair_stats(hyp, self.tokens(r)) for r in references])

    def _pr(self, stats) -> tuple[float, float]:
        """(P, R) of one [3, K] statistics block, in plain floats (faster than numpy for small K)."""
        w = self.params.size_weights
        common, own_h, own_r = stats[0].tolist(), stats[1].tolist(), stats[2].tolist()
        pn = pd = rn = rd = 0.0
        for k, wk in enumerate(w):
            if own_h[k] > 0:
                pn += wk * common[k] / own_h[k]
                pd += wk
            if own_r[k] > 0:
                rn += wk * common[k] / own_r[k]
                rd += wk
        return (pn / pd if pd else 0.0), (rn / rd if rd else 0.0)

    def _f(self, p: float, r: float) -> float:
        b2 = self.params.beta_f ** 2
        den = b2 * p + r
        return (1 + b2) * p * r / den if den > 0 else 0.0

    def sentence_score(self, hypothesis: str, references) -> BLANCScore:
        stats = self.reference_stats(hypothesis, references)
        prs = [self._pr(s) for s in stats]
        best_p, best_r = max(p for p, _ in prs), max(r for _, r in prs)
        best = max(range(len(prs)), key=lambda i: self._f(*prs[i]))
        return BLANCScore(self._f(best_p, best_r), best_p, best_r, {"best_reference": best, "per_reference": stats})

    def score(self, hypothesis: str, references) -> BLANCScore:
        """Sentence BLANC of ``hypothesis`` against one reference (a string) or several (a list)."""
        return self.sentence_score(hypothesis, references)

    def corpus_score(self, hypotheses: list[str], references: list) -> BLANCScore:
        """System-level score.  ``references[i]`` is the list of references of segment i
        (unlike sacrebleu's streams, so that segments may have different numbers of references)."""
        if len(hypotheses) != len(references):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
        total = np.zeros((3, self.params.max_k))
        for hyp, refs in zip(hypotheses, references):
            s = self.sentence_score(hyp, refs).stats
            total += s["per_reference"][s["best_reference"]]
        return self.score_of_total(total)

    def score_of_total(self, total: np.ndarray) -> BLANCScore:
        """The score of summed [3, K] statistics (``corpus_score``'s last step; ``textqa batch blanc
        --corpus`` sums the partitions' statistics and calls it)."""
        p, r = self._pr(total)
        return BLANCScore(self._f(p, r), p, r, {"total": total})

    def scores_from_stats(self, stats: np.ndarray, size_weights=None, beta_f=None) -> np.ndarray:
        """Sentence F for a batch of single-reference stats [N, 3, K] (training re-weights these)."""
        return stats_f(stats, self.params.size_weights if size_weights is None else size_weights,
                       self.params.beta_f if beta_f is None else beta_f)

    # ------------------------------------------------------------ signature
    def signature(self) -> str:
        p = self.params
        w = ",".join(f"{x:.4g}" for x in p.size_weights)
        return (f"BLANC|alpha:{p.alpha:.4g}|beta:{p.beta:.4g}|w:{w}|beta_f:{p.beta_f:.4g}|m:{p.matching}"
                f"|pw:{p.partial_weight:.4g}|pl:{p.prefix_len}|gap:{p.gap_side}|lc:{'yes' if p.lowercase else 'no'}"
                f"|tok:{p.tokenize}|version:textqa-{self.version}")

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
    from .acs import exact_match_matrix
    common = common_skip_ngram_mass(exact_match_matrix(reference, hypothesis), 0.0, 0.0, 2)[1]
    own_h = own_skip_ngram_mass(len(hypothesis), 0.0, 2)[1]
    own_r = own_skip_ngram_mass(len(reference), 0.0, 2)[1]
    p = common / own_h if own_h else 0.0
    r = common / own_r if own_r else 0.0
    return {"precision": p, "recall": r, "f": float(f_measure(p, r, beta_f)), "skip2": common}
