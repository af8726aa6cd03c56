"""Character-level casing model for words the language model has not seen.

Beyond Lita et al. 2003 (whose section 2.3 gives unseen words only the context of
UNKNOWN_* class tokens): a multinomial logistic regression over character
prefixes, suffixes and trigrams of the lowercased word predicts its casing class
(LC/UC/CA/MC).  The decoder adds ``weight * (log P(class|chars) - log P(class))``
to each UNKNOWN_* candidate, i.e. it turns the LM's contextual prior for the
class into a posterior given the spelling too (Bayes' rule with a tunable weight).
"""
from __future__ import annotations

import re
import warnings
from collections import Counter

import mmh3
import numpy as np

from ..params import Params
from ..sklearn_data import linear_from_arrays, linear_to_arrays
from .casing import CASE_CLASSES, MC, UC

#: The key of :meth:`CharCasingClassifier.log10_ratio`'s score of UC or MC together: the spelling
#: evidence of an unseen compound's capitalised candidate when the compound casing writes it part by
#: part ("Alpes-Maritimes", MC); a spelling like that one is one the classifier puts in UC or MC.
CAPITALISED = "UC|MC"


_SURROGATE = re.compile("[\ud800-\udfff]")


def char_features(word: str) -> list[str]:
    """Spelling features of a lowercased word.  Lone surrogates (undecodable input bytes that the CLI
    passes through as surrogate escapes, or JSON's unpaired ``\\udXXX``) become U+FFFD here: they
    cannot be hashed as UTF-8."""
    w = _SURROGATE.sub("\ufffd", word.lower())
    feats = [f"len={min(len(w), 12)}"]
    for k in range(1, 5):
        if len(w) >= k:
            feats.append(f"p{k}={w[:k]}")
            feats.append(f"s{k}={w[-k:]}")
    padded = f"^{w}$"
    feats.extend(f"c3={padded[i:i + 3]}" for i in range(len(padded) - 2))
    if any(ch.isdigit() for ch in w):
        feats.append("has_digit")
    if "-" in w:
        feats.append("has_hyphen")
    if "." in w:
        feats.append("has_period")
    if not w.isascii():
        feats.append("non_ascii")
    return feats


def hashed_features(words, n_features: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, data) of the rows that scikit-learn's ``HashingVectorizer(analyzer=char_features,
    n_features=n_features, alternate_sign=False, norm="l2")`` makes of ``words``, computed without
    scikit-learn: each feature's signed 32-bit MurmurHash3 of its UTF-8 bytes, seed 0 (``mmh3.hash``
    is scikit-learn's ``murmurhash3_32``), its absolute value modulo ``n_features`` (-2**31 mapped as
    ``_hashing_fast.transform`` maps it), the counts of a column summed, the columns of a row
    increasing (``sum_duplicates``), and each row over its L2 norm (the same divisions).  The counts
    are small whole numbers, so the norms are exact and the rows the same numbers as scikit-learn's."""
    indptr, indices, data = [0], [], []
    for w in words:
        cols = Counter()
        for f in char_features(w):
            h = mmh3.hash(f, 0, signed=True)
            cols[(2147483647 - (n_features - 1)) % n_features if h == -2147483648 else abs(h) % n_features] += 1
        keys = sorted(cols)
        counts = np.array([cols[k] for k in keys], dtype=np.float64)
        norm = np.sqrt(float((counts * counts).sum()))
        indices += keys
        data.append(counts / norm if norm else counts)
        indptr.append(len(indices))
    return (np.array(indptr, dtype=np.int64), np.array(indices, dtype=np.int64),
            np.concatenate(data) if data else np.zeros(0))


def linear_scores(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, coef: np.ndarray,
                  intercept: np.ndarray) -> np.ndarray:
    """``X @ coef.T + intercept`` for the CSR rows ``X``, summed as scipy's sparse product sums (from
    zero, each row's entries in their order, a product then an addition), so the same numbers as
    scikit-learn's ``decision_function`` on the same rows."""
    n = len(indptr) - 1
    out = np.zeros((n, coef.shape[0]))
    lengths = np.diff(indptr)
    columns = np.ascontiguousarray(coef.T)
    for k in range(int(lengths.max(initial=0))):
        rows = np.flatnonzero(lengths > k)
        at = indptr[rows] + k
        out[rows] += data[at, None] * columns[indices[at]]
    return out + intercept


def softmax(scores: np.ndarray) -> np.ndarray:
    """Each row's softmax, in place, computed as ``sklearn.utils.extmath.softmax`` computes it."""
    scores -= scores.max(axis=1).reshape((-1, 1))
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=1).reshape((-1, 1))
    return scores


class CharCasingClassifier(Params):
    """P(casing class | spelling) for out-of-vocabulary words.  Fitted with scikit-learn's
    ``HashingVectorizer`` and ``LogisticRegression`` (imported by :meth:`fit` only); its
    probabilities are then worked out from the stored weights with numpy and ``mmh3``
    (:func:`hashed_features`, :func:`linear_scores`, :func:`softmax`: scikit-learn's numbers)."""

    def __init__(self, C: float = 1.0, n_features: int = 2 ** 18, max_iter: int = 300):
        self.C = C
        self.n_features = n_features
        self.max_iter = max_iter

    def vectorizer(self):
        """scikit-learn's feature hashing of the words (what :meth:`fit` reads; :func:`hashed_features`
        gives the same rows)."""
        from sklearn.feature_extraction.text import HashingVectorizer  # deferred: loads sklearn, scipy
        return HashingVectorizer(analyzer=char_features, n_features=self.n_features,
                                 alternate_sign=False, norm="l2")

    def fit(self, words, classes, sample_weight=None):
        """Fit the logistic regression on the hashed features that occur in ``words`` only.

        A hashed feature no word has is a column of zeros: its gradient is its L2 term alone, zero
        at the zero start, so L-BFGS keeps it at zero in every iterate, and the fit over the other
        columns is the fit over all of them (up to floating-point summation order).  Dropping those
        columns saves L-BFGS's own work, which grows with the number of weights, not of samples:
        on a small corpus most of the 2**18 columns are empty and that work was most of the fit
        (docs/experiments/truecaser.md, "Training time").  The weights are then put back in their columns, so the
        stored model has every column, as before."""
        from sklearn.exceptions import ConvergenceWarning  # deferred: loads sklearn, scipy
        from sklearn.linear_model import LogisticRegression  # deferred: loads sklearn, scipy
        X = self.vectorizer().transform(words).tocsr()
        used = np.unique(X.indices)
        clf = LogisticRegression(C=self.C, max_iter=self.max_iter)
        with warnings.catch_warnings():
            # lbfgs may stop at max_iter short of its tolerance on the full corpus; the
            # reported dev F1 is measured with the model as it stops, so for a user
            # running training the warning is only noise.
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(X[:, used], classes, sample_weight=sample_weight)
        coef = np.zeros((clf.coef_.shape[0], self.n_features), dtype=clf.coef_.dtype)
        coef[:, used] = clf.coef_
        self.coef_, self.intercept_, self.classes_ = coef, clf.intercept_, clf.classes_
        self.n_features_in_ = self.n_features
        counts = {c: 0.0 for c in CASE_CLASSES}
        w = np.ones(len(classes)) if sample_weight is None else np.asarray(sample_weight, float)
        for c, wt in zip(classes, w):
            counts[c] += wt
        total = sum(counts.values())
        self.prior_ = {c: max(counts[c] / total, 1e-6) for c in CASE_CLASSES}
        return self

    def predict_proba(self, words) -> np.ndarray:
        """P(class | spelling) of each word, a row a word, a column a class of ``classes_``: the
        logistic regression's ``predict_proba`` on its hashed features, the same numbers."""
        if len(self.classes_) == 2:
            raise ValueError("the casing classifier has four classes (a two-class model is not supported)")
        return softmax(linear_scores(*hashed_features(words, self.n_features), self.coef_, self.intercept_))

    def log10_ratio(self, words) -> list[dict[str, float]]:
        """Per word, log10 P(class|chars) - log10 P(class) for each casing class, and the same ratio
        for the union of UC and MC (:data:`CAPITALISED`: the word capitalised, whether first letter
        only or not)."""
        if not words:
            return []
        P = self.predict_proba(words)
        idx = {c: i for i, c in enumerate(self.classes_)}
        out = []
        logprior = {c: np.log10(self.prior_[c]) for c in CASE_CLASSES}
        logP = np.log10(np.maximum(P, 1e-9))
        cap = [idx[c] for c in (UC, MC) if c in idx]
        logprior_cap = np.log10(self.prior_[UC] + self.prior_[MC])
        logP_cap = np.log10(np.maximum(P[:, cap].sum(axis=1), 1e-9))
        for row, row_cap in zip(logP, logP_cap):
            d = {c: (row[idx[c]] - logprior[c]) if c in idx else -9.0 for c in CASE_CLASSES}
            d[CAPITALISED] = float(row_cap - logprior_cap)
            out.append(d)
        return out


def oov_to_data(model: CharCasingClassifier) -> tuple[dict, dict]:
    """(JSON-ready description, numpy arrays) of a fitted classifier: data only, no pickle."""
    meta = {"C": model.C, "n_features": model.n_features, "max_iter": model.max_iter, "prior": model.prior_}
    return meta, linear_to_arrays(model, "")


def oov_from_data(meta: dict, arrays: dict) -> CharCasingClassifier:
    """Rebuild the classifier from ``oov_to_data``'s output (a logistic regression's fitted weights)."""
    model = CharCasingClassifier(C=meta["C"], n_features=meta["n_features"], max_iter=meta["max_iter"])
    linear_from_arrays(model, arrays, "")
    if model.n_features_in_ != model.n_features or len(model.classes_) < 3:
        raise ValueError(f"OOV weights for {model.n_features_in_} features and {len(model.classes_)} classes, "
                         f"expected {model.n_features} and three or more")
    model.prior_ = {c: float(v) for c, v in meta["prior"].items()}
    return model
