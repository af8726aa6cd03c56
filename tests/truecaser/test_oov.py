"""The character-level casing model for unseen words (``oov.CharCasingClassifier``)."""
import numpy as np
from sklearn.linear_model import LogisticRegression

from textqa.models.truecaser.casing import NONE, case_class
from textqa.models.truecaser.oov import CharCasingClassifier


def test_fitting_on_the_used_columns_is_the_fit_on_all_of_them(wiki_sentences):
    """The fit drops the hashed columns no word has and puts the weights back: the same weights and
    probabilities as scikit-learn's fit over all the columns, zeros in the unused ones (real
    Wikipedia words, weighted by their counts as training weights them; 2**15 columns, not the
    default 2**18, so that scikit-learn's fit over all of them is quick)."""
    from collections import Counter
    counts = Counter(t for s in wiki_sentences[:3000] for t in s.split()[1:])
    pairs = [(w, c) for w, c in counts.items() if case_class(w) != NONE and c <= 3]
    words, weights = [w.lower() for w, _ in pairs], [c for _, c in pairs]
    classes = [case_class(w) for w, _ in pairs]
    assert len(set(classes)) >= 3 and len(words) > 2000
    model = CharCasingClassifier(n_features=2 ** 15).fit(words, classes, sample_weight=weights)
    X = model.vectorizer().transform(words)
    full = LogisticRegression(C=model.C, max_iter=model.max_iter).fit(X, classes, sample_weight=weights)
    assert model.coef_.shape == full.coef_.shape == (len(full.classes_), 2 ** 15)
    assert model.n_features_in_ == 2 ** 15 and list(model.classes_) == list(full.classes_)
    unused = np.setdiff1d(np.arange(2 ** 15), X.indices)
    assert len(unused) > 2 ** 13 and not model.coef_[:, unused].any()
    np.testing.assert_allclose(model.coef_, full.coef_, atol=1e-6)
    np.testing.assert_allclose(model.intercept_, full.intercept_, atol=1e-6)
    unseen = ["zorblaxian", "quixotl", "mcgillicuddy-smythe", "ibm-compatible", "x86"]
    P = model.predict_proba(unseen)
    np.testing.assert_allclose(P, full.predict_proba(model.vectorizer().transform(unseen)), atol=1e-6)


def test_the_stored_weights_give_scikit_learns_numbers_without_it(truecaser_copy, dev_sentences):
    """Decoding works out the OOV model's probabilities with ``mmh3`` and numpy: on every word of
    the dev set the model has not seen (and a lone surrogate), the hashed rows are
    ``HashingVectorizer``'s, entry for entry, and the probabilities ``LogisticRegression.predict_proba``'s
    on the same weights, bit for bit."""
    from textqa.models.sklearn_data import linear_from_arrays
    from textqa.models.truecaser.oov import hashed_features, oov_to_data
    oov, forms = truecaser_copy.oov_, truecaser_copy.casing_.forms
    words = sorted({t.lower() for s in dev_sentences for t in s.split()} - set(forms)) + ["\ud800x", "é-ü"]
    assert len(words) > 3000
    X = oov.vectorizer().transform(words)
    indptr, indices, data = hashed_features(words, oov.n_features)
    assert np.array_equal(X.indptr, indptr) and np.array_equal(X.indices, indices) and np.array_equal(X.data, data)
    clf = linear_from_arrays(LogisticRegression(C=oov.C), oov_to_data(oov)[1], "")
    assert np.array_equal(oov.predict_proba(words), clf.predict_proba(X))


def test_the_model_fitted_in_a_worker_process_is_the_one_fitted_here(wiki_sentences, monkeypatch):
    """Training fits a small OOV model in its own process (starting the worker processes would cost
    more than the fit) and a large one in a worker, beside the rest of training: the same model
    either way, weight for weight (one BLAS thread in both)."""
    from collections import Counter

    from textqa.runtime import process_pool
    from textqa.models.truecaser import fitting
    from textqa.models.truecaser.model import Truecaser
    from textqa.models.truecaser.oov import oov_to_data
    counts = Counter(t for s in wiki_sentences[:4000] for t in s.split())
    known = {w: c for w, c in counts.items() if c >= 3}
    rare = {w: c for w, c in counts.items() if c < 3}
    words = fitting.oov_training_words(known, rare, 3)
    assert 1000 < len(words[0]) <= fitting._OOV_IN_PROCESS
    pools, real = [], process_pool.pool
    monkeypatch.setattr(process_pool, "pool", lambda: pools.append(1) or real())
    said = []
    here = Truecaser()
    here.start_oov(words, said.append)
    assert here.oov_ is not None and not pools and "worker" not in said[-1]
    monkeypatch.setattr(fitting, "_OOV_IN_PROCESS", len(words[0]) - 1)
    there = Truecaser()
    there.start_oov(words, said.append)
    assert pools and "worker" in said[-1]
    there.finish_oov(said.append)
    (a_meta, a), (b_meta, b) = oov_to_data(here.oov_), oov_to_data(there.oov_)
    assert a_meta == b_meta and sorted(a) == sorted(b)
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_the_oov_ratios_of_a_word_are_its_own_whatever_the_batch(small_truecaser, monkeypatch):
    """The decoder keeps each unseen word's OOV ratios: the numbers a batch of other words gives, and
    the kept ones survive only as long as the OOV model does."""
    model = small_truecaser
    words = ["zorbulate", "Quixlo", "mcfrobnitz", "xt-9000", "ballyhooing"]
    alone = {w: model.oov_.log10_ratio([w])[0] for w in words}
    assert model.scores().oov_log10_ratios(words[:3]) == {w: alone[w] for w in words[:3]}
    calls = []
    real = type(model.oov_).log10_ratio
    monkeypatch.setattr(type(model.oov_), "log10_ratio", lambda self, ws: calls.append(list(ws)) or real(self, ws))
    assert model.scores().oov_log10_ratios(words) == alone and calls == [sorted(words[3:])]      # only the new ones


def test_a_lone_surrogate_is_hashed_as_the_replacement_character(truecaser_copy):
    """Undecodable input bytes reach the OOV model as lone surrogates (the command line's surrogate
    escapes, JSON's unpaired escapes); they are featurised as U+FFFD, as the model was trained to
    see them, so the word's features, hashed row and ratios are those of its U+FFFD spelling."""
    from textqa.models.truecaser.oov import char_features, hashed_features
    oov = truecaser_copy.oov_
    odd, plain = "zorb\udc80lax", "zorb\ufffdlax"
    assert char_features(odd) == char_features(plain)
    a, b = hashed_features([odd], oov.n_features), hashed_features([plain], oov.n_features)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert oov.log10_ratio([odd]) == oov.log10_ratio([plain])
