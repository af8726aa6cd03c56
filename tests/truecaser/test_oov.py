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
    X = model._vectorizer().transform(words)
    full = LogisticRegression(C=model.C, max_iter=model.max_iter).fit(X, classes, sample_weight=weights)
    assert model.clf_.coef_.shape == full.coef_.shape == (len(full.classes_), 2 ** 15)
    assert model.clf_.n_features_in_ == 2 ** 15 and list(model.clf_.classes_) == list(full.classes_)
    unused = np.setdiff1d(np.arange(2 ** 15), X.indices)
    assert len(unused) > 2 ** 13 and not model.clf_.coef_[:, unused].any()
    np.testing.assert_allclose(model.clf_.coef_, full.coef_, atol=1e-6)
    np.testing.assert_allclose(model.clf_.intercept_, full.intercept_, atol=1e-6)
    unseen = ["zorblaxian", "quixotl", "mcgillicuddy-smythe", "ibm-compatible", "x86"]
    P = model.clf_.predict_proba(model._vectorizer().transform(unseen))
    np.testing.assert_allclose(P, full.predict_proba(model._vectorizer().transform(unseen)), atol=1e-6)
