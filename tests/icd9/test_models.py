"""Bayesian ridge regression (paper eq. 1-2) against direct formulas and scikit-learn, and the
per-code coder on the real CMC data."""
import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from textqa.models.icd9.bayes_ridge import (log_marginal_likelihood, optimal_sigma2, optimal_sigma2_tau2,
                                     posterior_mean, predictive_variance)
from textqa.models.icd9.coder import ICD9Coder, _phi_select, best_f1_threshold
from textqa.models.icd9.records import read_cmc_xml
from textqa.runtime.paths import DATA_DIR, english_stopwords

STOP = english_stopwords()


def _data(n=40, k=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k))
    y = X @ rng.normal(size=k) + rng.normal(scale=0.5, size=n)
    return X, y - y.mean()


def test_marginal_likelihood_equals_the_gaussian_density():
    X, y = _data()
    U, s, _ = np.linalg.svd(X, full_matrices=False)
    for sigma2, tau2 in [(0.3, 1.0), (2.0, 0.5)]:
        direct = multivariate_normal(np.zeros(len(y)), tau2 * X @ X.T + sigma2 * np.eye(len(y))).logpdf(y)
        ours = log_marginal_likelihood(sigma2, s * s, (U.T @ y) ** 2, float(y @ y), len(y), tau2)
        assert ours == pytest.approx(direct, rel=1e-9)


def test_optimal_sigma2_is_a_maximum():
    X, y = _data()
    s2opt, ll = optimal_sigma2(X, y)
    U, s, _ = np.linalg.svd(X, full_matrices=False)
    f = lambda v: log_marginal_likelihood(v, s * s, (U.T @ y) ** 2, float(y @ y), len(y))
    assert ll == pytest.approx(f(s2opt)) and f(s2opt * 1.2) < ll and f(s2opt / 1.2) < ll


def test_posterior_mean_primal_equals_dual_and_variance_forms_agree():
    X, y = _data(n=30, k=8)
    w_primal = posterior_mean(X, y, 0.7)                      # k <= n: (X'X + s I)^-1 X'y
    w_dual = X.T @ np.linalg.solve(X @ X.T + 0.7 * np.eye(30), y)   # the dual form, directly
    np.testing.assert_allclose(w_primal, w_dual, rtol=1e-8)
    Xw, yw = _data(n=6, k=10, seed=3)                          # k > n: X'(XX' + s I)^-1 y
    direct = np.linalg.solve(Xw.T @ Xw + 0.7 * np.eye(10), Xw.T @ yw)
    np.testing.assert_allclose(posterior_mean(Xw, yw, 0.7), direct, rtol=1e-8)
    star = np.random.default_rng(1).normal(size=(4, 10))
    direct_var = 0.7 * np.einsum("ij,ji->i", star, np.linalg.solve(Xw.T @ Xw + 0.7 * np.eye(10), star.T))
    np.testing.assert_allclose(predictive_variance(Xw, 0.7, star), direct_var, rtol=1e-8)


def test_evidence_prior_agrees_with_scikit_learn_bayesian_ridge():
    from sklearn.linear_model import BayesianRidge
    X, y = _data(n=60, k=6, seed=2)
    sigma2, tau2, _ = optimal_sigma2_tau2(X, y)
    br = BayesianRidge(fit_intercept=False, tol=1e-10, max_iter=2000, alpha_1=0, alpha_2=0, lambda_1=0,
                       lambda_2=0).fit(X, y)
    assert sigma2 == pytest.approx(1 / br.alpha_, rel=1e-3) and tau2 == pytest.approx(1 / br.lambda_, rel=1e-3)
    np.testing.assert_allclose(posterior_mean(X, y, sigma2 / tau2), br.coef_, rtol=1e-3, atol=1e-6)


def test_phi_weights_and_f1_threshold():
    from scipy import sparse
    # feature 0 = the label, feature 1 = noise-free negation of nothing (constant): chi2 = n for feature 0
    X = sparse.csr_matrix(np.array([[1, 1], [1, 1], [0, 1], [0, 1]], dtype=float))
    y = np.array([1, 1, 0, 0])
    idx, phi = _phi_select(X, y, 10)
    assert idx.tolist() == [0] and phi[0] == pytest.approx(math.sqrt(2.0 / 4))   # sklearn's chi2 = 2 here
    assert best_f1_threshold(np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 1, 0, 0])) == pytest.approx(0.55)
    # tied scores are never split: cutting after both 0.9s gives F1 0.5, taking all three 0.8
    assert best_f1_threshold(np.array([0.9, 0.9, 0.2]), np.array([1, 0, 1])) == pytest.approx(0.2)


@pytest.fixture(scope="module")
def cmc():
    return read_cmc_xml(DATA_DIR / "icd9" / "cmc2007_train_dev80.xml.gz")


def test_coder_learns_real_codes(cmc):
    rng = np.random.default_rng(0)
    order = rng.permutation(len(cmc))
    train, test = [cmc[i] for i in order[:600]], [cmc[i] for i in order[600:]]
    coder = ICD9Coder(stopwords=STOP, min_positives=5, at_least_one=True).fit(train)
    assert all(n < 5 for n in coder.unpredicted_codes_.values())
    for clf in ("svm", "brr"):
        tp = fp = fn = 0
        for r, coded in zip(test, coder.predict(test, clf)):
            g, p = set(r.codes), {c for c, _ in coded}
            assert coded                                         # at least one code per document
            tp, fp, fn = tp + len(g & p), fp + len(p - g), fn + len(g - p)
        assert 2 * tp / (2 * tp + fp + fn) > 0.75, clf
    brr = coder.models_["brr"]["786.2"]
    assert brr["sigma2"] > 0 and brr["tau2"] > 0 and 0.25 <= brr["threshold"] <= 0.75
    with pytest.raises(ValueError, match="unknown classifier"):
        ICD9Coder(classifiers=("knn",))
    with pytest.raises(ValueError, match="is not in this model"):
        ICD9Coder(classifiers=("svm",), stopwords=STOP).fit(train[:200]).scores(test[:2], "brr")


def test_symptom_guideline_functions():
    from textqa.models.icd9.guidelines import drop_explained_symptoms, is_symptom, learn_symptom_suppression
    assert is_symptom("786.2") and is_symptom("780.6") and is_symptom("799.9")
    assert not is_symptom("486") and not is_symptom("V13.02") and not is_symptom("779.9") and not is_symptom("800.0")
    # synthetic code sets: fever never beside pneumonia (3 documents), twice beside asthma
    sets = [{"486"}, {"486"}, {"486", "786.2"}, {"493.90", "780.6"}, {"493.90", "780.6"}, {"493.90"}, {"780.6"}]
    table = learn_symptom_suppression(sets, min_diagnosis=3, min_expected=0)
    assert table == {"780.6": ["486"], "786.2": ["493.90"]}   # cough beside 486 once: kept; fever beside asthma: kept
    assert learn_symptom_suppression(sets, min_diagnosis=3, max_rate=0.34, min_expected=0)["786.2"] == ["486", "493.90"]
    # chance alone puts fever (3 of 7) beside pneumonia (3 of 7) in 9/7 documents: never together is no
    # evidence below the default of 3 expected documents; in 10 copies of the same sets it is
    assert learn_symptom_suppression(sets, min_diagnosis=3) == {}
    assert learn_symptom_suppression(sets * 10, min_diagnosis=3)["780.6"] == ["486"]
    assert drop_explained_symptoms(["486", "780.6", "786.2"], table) == ["486", "786.2"]
    assert drop_explained_symptoms(["780.6"], table) == ["780.6"]                   # no diagnosis: kept
    assert drop_explained_symptoms(["493.90", "780.6"], table) == ["493.90", "780.6"]


def test_exclusive_pairs_and_cap_rules():
    from textqa.models.icd9.guidelines import drop_excluded, learn_cap, learn_exclusive_pairs
    # synthetic code sets: UTI (6 of 12) never beside its history (6 of 12): 3 expected, so exclusive;
    # reflux (1) never beside history either, but 0.5 expected is no evidence; cough is a symptom
    sets = [{"599.0"}] * 5 + [{"599.0", "593.70"}] + [{"V13.02"}] * 4 + [{"V13.02", "786.2"}] * 2
    ex = learn_exclusive_pairs(sets, min_expected=3)
    assert ex == {"599.0": ["V13.02"], "V13.02": ["599.0"]}
    assert drop_excluded(["V13.02", "593.70", "599.0"], ex) == ["V13.02", "593.70"]    # the better one stays
    assert drop_excluded(["599.0", "V13.02"], ex) == ["599.0"]
    assert learn_exclusive_pairs(sets, min_expected=4) == {}
    assert learn_cap([{"a"}] * 99 + [{"a", "b", "c"}]) == 1              # 99% of documents have 1 code
    assert learn_cap([{"a"}] * 98 + [{"a", "b"}] + [{"a", "b", "c"}]) == 2
    assert learn_cap([{"a"}] * 97 + [{"a", "b"}] * 3) == 2
    assert learn_cap([]) == 0


def test_guidelines_are_learned_from_training_codes_and_switchable(cmc, tmp_path):
    from textqa.models.icd9.store import load_coder, save_coder
    train = cmc[:500]
    on = ICD9Coder(classifiers=("svm",), stopwords=STOP).fit(train)
    off = ICD9Coder(classifiers=("svm",), stopwords=STOP, guidelines=()).fit(train)
    assert off.suppress_ == {} and "486" in on.suppress_["786.2"]
    S, T = on.scores(cmc[500:], "svm")
    decided_on, decided_off = on.decide(S, T), off.decide(S, T)
    dropped = 0
    for a, b in zip(decided_on, decided_off):
        assert set(a) <= set(b)
        gone = {on.codes_[j] for j in set(b) - set(a)}
        kept = {on.codes_[j] for j in a}
        for s in gone:                                   # only symptoms, each beside a diagnosis that explains it
            assert s in on.suppress_ and kept & set(on.suppress_[s])
        dropped += len(gone)
    assert dropped >= 2
    save_coder(on, tmp_path / "icd9", descriptions={})
    again = load_coder(tmp_path / "icd9")
    assert again.suppress_ == on.suppress_ and again.guidelines == ("symptoms",)
    assert again.decide(S, T) == decided_on
    with pytest.raises(ValueError, match="unknown coding guideline"):
        ICD9Coder(guidelines=("mutual",))
