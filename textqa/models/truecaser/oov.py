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

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import LogisticRegression

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


class CharCasingClassifier(BaseEstimator):
    """P(casing class | spelling) for out-of-vocabulary words."""

    def __init__(self, C: float = 1.0, n_features: int = 2 ** 18, max_iter: int = 300):
        self.C = C
        self.n_features = n_features
        self.max_iter = max_iter

    def vectorizer(self):
        return HashingVectorizer(analyzer=char_features, n_features=self.n_features,
                                 alternate_sign=False, norm="l2")

    def fit(self, words, classes, sample_weight=None):
        """Fit the logistic regression on the hashed features that occur in ``words`` only.

        A hashed feature no word has is a column of zeros: its gradient is its L2 term alone, zero
        at the zero start, so L-BFGS keeps it at zero in every iterate, and the fit over the other
        columns is the fit over all of them (up to floating-point summation order).  Dropping those
        columns saves L-BFGS's own work, which grows with the number of weights, not of samples:
        on a small corpus most of the 2**18 columns are empty and that work was most of the fit
        (21 of 25 s for the test suite's 350,000-token model; on the default training text 174,363
        columns of 262,144 are used).  The weights are then put back in their columns, so the
        stored model has every column, as before."""
        X = self.vectorizer().transform(words).tocsr()
        used = np.unique(X.indices)
        self.clf_ = LogisticRegression(C=self.C, max_iter=self.max_iter)
        with warnings.catch_warnings():
            # lbfgs may stop at max_iter short of its tolerance on the full corpus; the
            # reported dev F1 is measured with the model as it stops, so for a user
            # running training the warning is only noise.
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.clf_.fit(X[:, used], classes, sample_weight=sample_weight)
        coef = np.zeros((self.clf_.coef_.shape[0], self.n_features), dtype=self.clf_.coef_.dtype)
        coef[:, used] = self.clf_.coef_
        self.clf_.coef_, self.clf_.n_features_in_ = coef, self.n_features
        counts = {c: 0.0 for c in CASE_CLASSES}
        w = np.ones(len(classes)) if sample_weight is None else np.asarray(sample_weight, float)
        for c, wt in zip(classes, w):
            counts[c] += wt
        total = sum(counts.values())
        self.prior_ = {c: max(counts[c] / total, 1e-6) for c in CASE_CLASSES}
        return self

    def log10_ratio(self, words) -> list[dict[str, float]]:
        """Per word, log10 P(class|chars) - log10 P(class) for each casing class, and the same ratio
        for the union of UC and MC (:data:`CAPITALISED`: the word capitalised, whether first letter
        only or not)."""
        if not words:
            return []
        P = self.clf_.predict_proba(self.vectorizer().transform(words))
        idx = {c: i for i, c in enumerate(self.clf_.classes_)}
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
    return meta, linear_to_arrays(model.clf_, "")


def oov_from_data(meta: dict, arrays: dict) -> CharCasingClassifier:
    """Rebuild the classifier from ``oov_to_data``'s output (a logistic regression's fitted weights)."""
    model = CharCasingClassifier(C=meta["C"], n_features=meta["n_features"], max_iter=meta["max_iter"])
    model.clf_ = linear_from_arrays(LogisticRegression(C=model.C, max_iter=model.max_iter), arrays, "")
    if model.clf_.n_features_in_ != model.n_features:
        raise ValueError(f"OOV weights for {model.clf_.n_features_in_} features, expected {model.n_features}")
    model.prior_ = {c: float(v) for c, v in meta["prior"].items()}
    return model
