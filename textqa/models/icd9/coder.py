"""Per-code ICD-9 classifiers (Lita et al. 2008, "Large scale diagnostic code classification for
medical patient records", sections 3-4).

For every code with at least ``min_positives`` training documents, one binary model:

* chi-square feature selection: the top ``k`` features by chi^2 against the code (paper k =
  1500), after a minimum document frequency over the whole training set (``min_df``);
* feature weights: chi^2 normalised into the phi coefficient, phi = sqrt(chi^2 / n); each
  document vector (binary features x phi) normalised to Euclidean norm 1;
* ``svm``: a linear SVM (scikit-learn's liblinear).  The paper's cost for the positive class is
  the negative/positive ratio (``svm_cost="ratio"``); equal costs (``"equal"``) scored higher in
  5-fold cross-validation here and are the default;
* ``brr``: Bayesian ridge regression on mean-centred labels with sigma^2 chosen by maximum
  marginal likelihood (:mod:`textqa.models.icd9.bayes_ridge`, eq. 1-2).  The paper fixes the prior
  w ~ N(0, I) (``brr_prior="fixed"``); on the CMC's short reports that under-regularises, so by
  default the prior variance is learned by marginal likelihood too (``"evidence"``; the
  cross-validated scores are in "Results" in docs/icd9.md).  The decision threshold is the one maximising F1 on out-of-fold
  predictions of the training documents (the paper used a validation split), kept within
  [0.25, 0.75] because with few positives the out-of-fold cut is unstable.

Codes with fewer examples are listed in ``unpredicted_codes_``.  Over the per-code decisions the
coding guidelines of :mod:`textqa.models.icd9.guidelines` apply (``guidelines``; default: a
symptom code is dropped beside a diagnosis that explains it).  ``at_least_one`` gives every
document its most likely code when no score passes its threshold (every CMC document has one);
it lowered cross-validated micro-F1 of both classifiers ("Results" in docs/icd9.md), so it is off by
default.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
from scipy import sparse

from textqa.models.sklearn_data import same_numbers_anywhere
from textqa.runtime.loaded import LoadedModel

from .bayes_ridge import optimal_sigma2, optimal_sigma2_tau2, posterior_mean
from .guidelines import (
    MIN_EXPECTED,
    drop_excluded,
    drop_explained_symptoms,
    learn_cap,
    learn_exclusive_pairs,
    learn_symptom_suppression,
)
from .guidelines import RULES as GUIDELINES
from .records import Record, record_from_object
from .text import TRIGGER_GROUPS, TextOptions, record_features, scope_spans, trigger_table

CLASSIFIERS = ("svm", "brr")


def _phi_select(X: sparse.csr_matrix, y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the top-k chi^2 features and their phi weights."""
    from sklearn.feature_selection import chi2  # deferred: loads sklearn, joblib, threadpoolctl
    scores, _ = chi2(X, y)
    scores = np.nan_to_num(scores)
    k = min(k, X.shape[1])
    idx = np.argsort(-scores, kind="stable")[:k]
    idx = idx[scores[idx] > 0]
    return np.sort(idx).astype(np.int32), np.sqrt(scores[np.sort(idx)] / X.shape[0])


def _design(X: sparse.csr_matrix, idx: np.ndarray, phi: np.ndarray) -> sparse.csr_matrix:
    from sklearn.preprocessing import normalize  # deferred: loads sklearn, joblib, threadpoolctl
    return normalize(X[:, idx].multiply(phi).tocsr())


def best_f1_threshold(scores: np.ndarray, y: np.ndarray) -> float:
    """Threshold maximising F1 of ``scores > t`` (midpoint between neighbouring scores)."""
    order = np.argsort(-scores, kind="stable")
    s, labels = scores[order], y[order].astype(float)
    tp = np.cumsum(labels)
    k = np.arange(1, len(s) + 1)
    f1 = 2 * tp / (k + labels.sum())
    # only cut between distinct scores
    valid = np.r_[s[:-1] > s[1:], True]
    f1 = np.where(valid, f1, -1)
    i = int(np.argmax(f1))
    return float((s[i] + s[i + 1]) / 2) if i + 1 < len(s) else float(s[i] - 1e-9)


@same_numbers_anywhere
def _fit_code(X: sparse.csr_matrix, y: np.ndarray, classifier: str, k: int, C: float, svm_cost: str,
              inner_folds: int, seed: int, min_threshold: float = 0.25, brr_prior: str = "fixed") -> dict:
    """One code's model; the same numbers wherever it runs (this process, a joblib or a Dask worker):
    liblinear's coordinate order is seeded (unseeded, it drew from the process's global RNG)."""
    idx, phi = _phi_select(X, y, k)
    D = _design(X, idx, phi)
    model = {"features": idx, "phi": phi.astype(np.float64)}
    if classifier == "svm":
        from sklearn.svm import LinearSVC  # deferred: loads sklearn, joblib, threadpoolctl
        pos = y.sum()
        weight = {1: (len(y) - pos) / pos if svm_cost == "ratio" else 1.0, 0: 1.0}
        clf = LinearSVC(C=C, class_weight=weight, max_iter=5000, random_state=seed).fit(D, y)
        model.update(weights=clf.coef_.ravel().astype(np.float64), bias=float(clf.intercept_[0]), threshold=0.0)
        return model
    Dd = D.toarray()
    mean = float(y.mean())
    yc = y - mean
    svd = np.linalg.svd(Dd, full_matrices=False)     # for sigma^2 and for the variance basis: one SVD
    if brr_prior == "fixed":           # the paper: w ~ N(0, I), only sigma^2 learned
        sigma2, evidence = optimal_sigma2(Dd, yc, svd=svd)
        tau2 = 1.0
    else:                              # prior variance learned too
        sigma2, tau2, evidence = optimal_sigma2_tau2(Dd, yc, svd=svd)
    ridge = sigma2 / tau2
    w = posterior_mean(Dd, yc, ridge)
    # threshold: F1-maximising cut on out-of-fold predictions (features and sigma^2 as above)
    rng = np.random.default_rng(seed)
    fold = rng.permutation(len(y)) % inner_folds
    oof = np.empty(len(y))
    for f in range(inner_folds):
        tr, te = fold != f, fold == f
        m = float(y[tr].mean())
        oof[te] = m + Dd[te] @ posterior_mean(Dd[tr], y[tr] - m, ridge)
    # few positives make the out-of-fold cut unstable (it can fall to ~0 and code every document):
    # it is kept within [min_threshold, 1 - min_threshold] of the 0/1 label scale
    t = min(max(best_f1_threshold(oof, y), min_threshold), 1.0 - min_threshold)
    model.update(weights=w, bias=mean, threshold=t, sigma2=sigma2, tau2=tau2, log_evidence=evidence)
    model.update(_variance_basis(Dd, ridge, svd=svd))
    model.update(_platt(oof, y))
    return model


VARIANCE_RANK = 128          # posterior directions kept per code (see _variance_basis)


def _variance_basis(D: np.ndarray, ridge: float, max_rank: int = VARIANCE_RANK, min_share: float = 0.02,
                    svd=None) -> dict:
    """The posterior covariance of the BRR weights in a compact form (Lita et al. 2008 eq. 2's
    posterior, N(w_hat, sigma^2 (D'D + r I)^-1) with r = sigma^2 / tau^2).  With D = U S V', the
    predictive variance of f(x) = w'x is

        var f(x) = tau^2 (|x|^2 - sum_i s_i^2 / (s_i^2 + r) (v_i'x)^2),

    each direction v_i removing the share s_i^2 / (s_i^2 + r) of the prior variance that the data
    explain.  The ``max_rank`` directions with the largest shares are kept (float32: float16 rounding
    made some deviations 0.4% too small), those below
    ``min_share`` never: leaving a direction out can only over-state the variance (by at most
    its share of tau^2 |x|^2), so the stored standard deviations are conservative.  ``svd``:
    ``np.linalg.svd(D, full_matrices=False)`` when the caller has it already."""
    _, sv, Vt = svd if svd is not None else np.linalg.svd(D, full_matrices=False)
    share = sv * sv / (sv * sv + ridge)
    m = int(min(max_rank, np.sum(share > min_share)))
    return {"var_basis": Vt[:m].T.astype(np.float32), "var_share": share[:m].astype(np.float64),
            "var_dropped_share": float(share[m]) if m < len(share) else 0.0}


def _platt(scores: np.ndarray, y: np.ndarray) -> dict:
    """Platt scaling: P(code | score) = 1 / (1 + exp(-(a score + b))), fitted on the out-of-fold
    scores of the training documents (the same ones that set the threshold); a slope that is not
    positive (scores that do not rank the code) falls back to the code's base rate."""
    from sklearn.linear_model import LogisticRegression  # deferred: loads sklearn, joblib, threadpoolctl
    if y.min() == y.max():
        return {"platt_a": 0.0, "platt_b": float(np.log((y.mean() + 1e-3) / (1 - y.mean() + 1e-3)))}
    lr = LogisticRegression(C=1e4, max_iter=1000).fit(scores.reshape(-1, 1), y.astype(int))
    if lr.coef_[0, 0] <= 0:            # the scores do not rank this code at all: its base rate, flat
        rate = float(y.mean())
        return {"platt_a": 0.0, "platt_b": float(np.log(rate / (1 - rate)))}
    return {"platt_a": float(lr.coef_[0, 0]), "platt_b": float(lr.intercept_[0])}


class ICD9Coder(LoadedModel):
    """``fit(records)`` then ``scores(records)`` / ``predict(records)``.  Loaded from an artifact
    (:func:`textqa.models.icd9.store.load_coder`), it also carries ``manifest``, ``descriptions`` and
    ``load_options``: a :class:`textqa.LoadedModel`."""

    def __init__(self, classifiers=("svm", "brr"), k: int = 1500, min_df: int = 2, min_positives: int = 3,
                 C: float = 1.0, svm_cost: str = "equal", negation: bool = True, window: int = 6,
                 sections: bool = True, at_least_one: bool = False, inner_folds: int = 3, n_jobs: int = 1,
                 seed: int = 13, stopwords: frozenset = frozenset(), brr_min_threshold: float = 0.25,
                 brr_prior: str = "evidence", guidelines=("symptoms",), concepts: bool = True,
                 triggers=TRIGGER_GROUPS, symptom_min_expected: float = MIN_EXPECTED):
        self.classifiers = tuple(classifiers)
        for c in self.classifiers:
            if c not in CLASSIFIERS:
                raise ValueError(f"unknown classifier {c!r}; choose from {', '.join(CLASSIFIERS)}")
        if svm_cost not in ("equal", "ratio"):
            raise ValueError("svm_cost must be 'equal' or 'ratio'")
        self.k, self.min_df, self.min_positives, self.C, self.svm_cost = k, min_df, min_positives, C, svm_cost
        self.negation, self.window, self.sections, self.at_least_one = negation, window, sections, at_least_one
        self.concepts = concepts
        self.triggers = tuple(triggers)
        self.symptom_min_expected = float(symptom_min_expected)
        trigger_table(self.triggers)             # unknown groups: ValueError now, not at the first document
        self.inner_folds, self.n_jobs, self.seed = inner_folds, n_jobs, seed
        self.brr_min_threshold = brr_min_threshold
        if brr_prior not in ("fixed", "evidence"):
            raise ValueError("brr_prior must be 'fixed' (the paper's N(0, I)) or 'evidence'")
        self.brr_prior = brr_prior
        self.guidelines = tuple(guidelines)
        for g in self.guidelines:
            if g not in GUIDELINES:
                raise ValueError(f"unknown coding guideline {g!r}; choose from {', '.join(GUIDELINES)}")
        self.stopwords = frozenset(stopwords)
        self.suppress_: dict = {}
        self.exclusive_: dict = {}
        self.cap_ = 0

    # ---------------------------------------------------------------- params
    def get_params(self) -> dict:
        return {"classifiers": list(self.classifiers), "k": self.k, "min_df": self.min_df,
                "min_positives": self.min_positives, "C": self.C, "svm_cost": self.svm_cost,
                "negation": self.negation, "window": self.window, "sections": self.sections,
                "at_least_one": self.at_least_one, "inner_folds": self.inner_folds, "seed": self.seed,
                "brr_min_threshold": self.brr_min_threshold, "brr_prior": self.brr_prior,
                "guidelines": list(self.guidelines), "concepts": self.concepts, "triggers": list(self.triggers),
                "symptom_min_expected": self.symptom_min_expected}

    @property
    def text_options(self) -> TextOptions:
        return TextOptions(self.negation, self.window, self.sections, self.stopwords, self.concepts, self.triggers)

    def features(self, records: list[Record]) -> list[list[str]]:
        opts = self.text_options
        return [record_features(r.sections, opts) for r in records]

    def matrix(self, records: list[Record]) -> sparse.csr_matrix:
        """Binary feature matrix of ``records`` over the training vocabulary (reusable across classifiers)."""
        vocabulary, indices, indptr = self.vocabulary_.get, [], [0]
        for feats in self.features(records):
            cols = set(map(vocabulary, feats))
            cols.discard(None)
            indices.extend(sorted(cols))
            indptr.append(len(indices))
        return sparse.csr_matrix((np.ones(len(indices)), np.array(indices, dtype=np.int32),
                                  np.array(indptr, dtype=np.int64)), shape=(len(records), len(self.vocabulary_)))

    # ---------------------------------------------------------------- training
    def warm_up(self) -> None:
        self.code(["warm up"])

    def fit(self, records: list[Record], progress=None) -> "ICD9Coder":

        from joblib import Parallel, delayed  # deferred: loads joblib, psutil
        if not records:
            raise ValueError("no training records")
        feats = self.features(records)
        df = Counter(f for fs in feats for f in set(fs))
        self.vocabulary_ = {f: i for i, f in enumerate(sorted(f for f, c in df.items() if c >= self.min_df))}
        X = self.matrix(records)
        counts = Counter(c for r in records for c in r.codes)
        self.codes_ = sorted(c for c, n in counts.items() if n >= self.min_positives)
        self.unpredicted_codes_ = {c: n for c, n in sorted(counts.items()) if n < self.min_positives}
        self.code_counts_ = dict(sorted(counts.items()))
        Y = np.array([[c in r.codes for c in self.codes_] for r in records], dtype=float).reshape(len(records), -1)
        self.suppress_ = (learn_symptom_suppression([r.codes for r in records], min_expected=self.symptom_min_expected)
                          if "symptoms" in self.guidelines else {})
        self.exclusive_ = (learn_exclusive_pairs([r.codes for r in records], self.symptom_min_expected)
                           if "exclusive" in self.guidelines else {})
        self.cap_ = learn_cap([r.codes for r in records]) if "cap" in self.guidelines else 0
        self.models_ = {}
        self.__dict__.pop("_stack_cache", None)          # stacked weights of a previous fit
        self.__dict__.pop("_variance_cache", None)
        for clf in self.classifiers:
            if progress:
                progress(f"{clf}: {len(self.codes_)} codes x {X.shape[1]} features, {len(records)} documents")
            fitted = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_code)(X, Y[:, j], clf, self.k, self.C, self.svm_cost, self.inner_folds, self.seed,
                                   self.brr_min_threshold, self.brr_prior)
                for j in range(len(self.codes_)))
            self.models_[clf] = dict(zip(self.codes_, fitted))
        return self

    # ---------------------------------------------------------------- prediction
    def scores(self, records: list[Record], classifier: str, X=None) -> tuple[np.ndarray, np.ndarray]:
        """(scores [docs x codes], thresholds [codes]) of one classifier; ``X``: ``matrix(records)``."""
        if classifier not in self.models_:
            raise ValueError(f"classifier {classifier!r} is not in this model (it has "
                             f"{', '.join(self.models_)})")
        if X is None:
            X = self.matrix(records)
        num, sq, bias, T = self._stacked(classifier)
        X = sparse.csr_matrix(X, dtype=np.float64)
        X2 = X.copy()
        X2.data **= 2
        numerator = (X @ num).toarray()
        norm = np.sqrt((X2 @ sq).toarray())
        S = np.divide(numerator, norm, out=np.zeros_like(numerator), where=norm > 0) + bias
        return S, T.copy()

    def _stacked(self, classifier: str):
        """All codes of one classifier as two sparse [vocabulary x codes] matrices, so that scoring is
        two sparse products instead of a loop over codes (each through scikit-learn's validation).

        Code j's score is ``normalize(X[:, f_j] * phi_j) @ w_j + b_j`` (L2 rows, as in training):
        the numerator is ``X @ (phi_j * w_j)`` scattered over the vocabulary and the squared row norm
        ``X**2 @ phi_j**2``.  Built once per classifier and kept."""
        cache = self.__dict__.setdefault("_stack_cache", {})
        if classifier not in cache:
            V, C = len(self.vocabulary_), len(self.codes_)
            rows, cols, wv, pv = [], [], [], []
            bias, T = np.zeros(C), np.zeros(C)
            for j, code in enumerate(self.codes_):
                m = self.models_[classifier][code]
                f = np.asarray(m["features"], dtype=np.int64)
                rows.append(f)
                cols.append(np.full(len(f), j, dtype=np.int64))
                wv.append(np.asarray(m["phi"], dtype=np.float64) * np.asarray(m["weights"], dtype=np.float64)
                          if len(f) else np.zeros(0))
                pv.append(np.asarray(m["phi"], dtype=np.float64) ** 2 if len(f) else np.zeros(0))
                bias[j], T[j] = m["bias"], m["threshold"]
            r, c = np.concatenate(rows) if rows else np.zeros(0, int), np.concatenate(cols) if cols else np.zeros(0, int)
            num = sparse.csc_matrix((np.concatenate(wv) if wv else np.zeros(0), (r, c)), shape=(V, C))
            sq = sparse.csc_matrix((np.concatenate(pv) if pv else np.zeros(0), (r, c)), shape=(V, C))
            cache[classifier] = (num, sq, bias, T)
        return cache[classifier]

    def has_uncertainty(self, classifier: str) -> bool:
        models = self.models_.get(classifier, {})
        return bool(models) and all("var_basis" in m and "platt_a" in m for m in models.values())

    def uncertainty(self, records: list[Record], classifier: str = "brr", X=None) -> np.ndarray:
        """Predictive standard deviation [docs x codes] of each BRR score (``_variance_basis``)."""
        if not self.has_uncertainty(classifier):
            raise ValueError(f"the {classifier!r} models of this coder carry no posterior (BRR, retrained "
                             f"with this version, does)")
        if X is None:
            X = self.matrix(records)
        P, sq, tau2, share, starts = self._stacked_variance(classifier)
        X = sparse.csr_matrix(X, dtype=np.float32)
        X2 = X.copy()
        X2.data **= 2
        norm2 = (X2 @ sq).toarray()                               # |phi-weighted row|^2 per code
        proj = X @ P                                   # sqrt(share_i) v_i'x, every direction (unnormalised)
        np.square(proj, out=proj)
        explained = np.add.reduceat(proj, starts, axis=1) if len(starts) else norm2 * 0
        with np.errstate(invalid="ignore", divide="ignore"):
            var = tau2 * np.where(norm2 > 0, 1.0 - explained / np.where(norm2 > 0, norm2, 1.0), 0.0)
        return np.sqrt(np.maximum(var, 0.0)).astype(np.float64)

    def probabilities(self, S: np.ndarray, classifier: str = "brr") -> np.ndarray:
        """Calibrated P(code) of each score (Platt scaling, ``_platt``)."""
        a = np.array([self.models_[classifier][c]["platt_a"] for c in self.codes_])
        b = np.array([self.models_[classifier][c]["platt_b"] for c in self.codes_])
        return 1.0 / (1.0 + np.exp(-(a * S + b)))

    def _stacked_variance(self, classifier: str):
        """Every code's posterior directions scattered over the vocabulary: [vocabulary x sum of
        ranks] (phi folded in), with phi^2 per code for the row norms; built once and kept."""
        cache = self.__dict__.setdefault("_variance_cache", {})
        if classifier not in cache:
            V = len(self.vocabulary_)
            rows, cols, vals, shares, tau2 = [], [], [], [], []
            start = 0
            for code in self.codes_:
                m = self.models_[classifier][code]
                f = np.asarray(m["features"], dtype=np.int64)
                B = np.asarray(m["var_basis"], dtype=np.float64) * np.asarray(m["phi"], dtype=np.float64)[:, None]
                r = B.shape[1]
                rr, cc = np.nonzero(B)
                rows.append(f[rr])
                cols.append(cc + start)
                vals.append(B[rr, cc])
                shares.append(np.asarray(m["var_share"], dtype=np.float64))
                tau2.append(float(m["tau2"]))
                start += r
            # dense: every feature of a code has a coordinate on every direction (one BLAS-like product)
            P = np.zeros((V, start), dtype=np.float32)
            P[np.concatenate(rows), np.concatenate(cols)] = np.concatenate(vals)
            starts = np.cumsum([0] + [len(x) for x in shares[:-1]]).astype(np.int64)
            shares = np.concatenate(shares) if shares else np.zeros(0)
            P *= np.sqrt(shares).astype(np.float32)          # each direction weighted by its share, once
            _, sq, _, _ = self._stacked(classifier)
            cache[classifier] = (P, sq, np.array(tau2), shares, starts)
        return cache[classifier]

    def decide(self, S: np.ndarray, T: np.ndarray) -> list[list[int]]:
        """Code indices per document, best first: every score above its threshold, or (with
        ``at_least_one``) the one furthest above or closest below it; then the coding guidelines
        (:mod:`textqa.models.icd9.guidelines`) drop what they rule out."""
        out = []
        margin = S - T
        suppress = self.suppress_ if "symptoms" in self.guidelines else {}
        exclusive = self.exclusive_ if "exclusive" in self.guidelines else {}
        cap = self.cap_ if "cap" in self.guidelines else 0
        for row, pos in zip(margin, margin > 0):
            above = np.flatnonzero(pos)
            chosen = above.tolist() if len(above) < 2 else above[np.argsort(-row[above], kind="stable")].tolist()
            if not chosen and self.at_least_one and len(row):
                chosen = [int(np.argmax(row))]
            if suppress and len(chosen) > 1:
                kept = set(drop_explained_symptoms([self.codes_[j] for j in chosen], suppress))
                chosen = [j for j in chosen if self.codes_[j] in kept]
            if exclusive and len(chosen) > 1:
                kept = set(drop_excluded([self.codes_[j] for j in chosen], exclusive))
                chosen = [j for j in chosen if self.codes_[j] in kept]
            if cap:
                chosen = chosen[:cap]
            out.append(chosen)
        return out

    def predict(self, records: list[Record], classifier: str = "svm") -> list[list[tuple[str, float]]]:
        S, T = self.scores(records, classifier)
        return [[(self.codes_[j], float(S[i, j])) for j in idx] for i, idx in enumerate(self.decide(S, T))]

    def code(self, records, classifier: str = "svm", all_scores: bool = False, explain: bool = False) -> list[dict]:
        """JSON-ready results: {"id", "codes": [{"code", "score", "description"}, ...]} per record, codes
        above threshold best first; ``all_scores`` adds every code's margin over its threshold.  With
        the BRR classifier each code also has its predictive standard deviation ``std`` and a
        calibrated ``probability``, and the record ``review``: true when any code's score is within
        one standard deviation of its threshold (a decision the model is unsure of either way).
        ``explain`` adds ``spans``: the negation/uncertainty triggers and the words in their scopes,
        as character spans of each section (``text.scope_spans``).

        ``records``: ``Record`` objects, plain strings (ids "1", "2", ...) or JSONL-style dicts
        (``{"id", "text"}`` or ``{"id", "sections": {name: text}}``)."""
        records = [_as_record(r, i) for i, r in enumerate(records, start=1)]
        descriptions = getattr(self, "descriptions", {}) or {}
        X = self.matrix(records)
        S, T = self.scores(records, classifier, X)
        bayes = classifier == "brr" and self.has_uncertainty(classifier)
        if bayes:
            std, prob = self.uncertainty(records, classifier, X), self.probabilities(S, classifier)
            review = np.any(np.abs(S - T) < std, axis=1).tolist()
            std, prob = np.round(std, 6).tolist(), np.round(prob, 6).tolist()
        rounded = np.round(S, 6).tolist()            # Python floats once, not per code
        out = []
        for i, idx in enumerate(self.decide(S, T)):
            item = {"id": records[i].id,
                    "codes": [{"code": self.codes_[j], "score": rounded[i][j],
                               "description": descriptions.get(self.codes_[j])} for j in idx]}
            if bayes:
                for c, j in zip(item["codes"], idx):
                    c["std"], c["probability"] = std[i][j], prob[i][j]
                item["review"] = review[i]
            if all_scores:
                item["scores"] = {c: round(float(S[i, j] - T[j]), 6) for j, c in enumerate(self.codes_)}
            if explain:
                opts = self.text_options
                item["spans"] = [{"section": name, **sp} for name, body in records[i].sections.items()
                                 for sp in scope_spans(body, opts)]
            out.append(item)
        return out


def _as_record(item, i: int) -> Record:
    if isinstance(item, Record):
        return item
    if isinstance(item, str):
        item = {"id": str(i), "text": item}
    if isinstance(item, dict):
        return record_from_object({"id": str(i), **item}, f"document {i}")
    raise TypeError(f"document {i}: expected a string, a dict or a Record, not {type(item).__name__}")
