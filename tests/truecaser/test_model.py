"""The truecaser on a small slice of real Wikipedia text: exact Viterbi, baseline, estimator contract."""
import inspect
import itertools
import pickle

import pytest
from sklearn.base import clone

from textqa.evaluation.truecase import score_truecase
from textqa.models.truecaser.model import Truecaser


from textqa.models.truecaser.baseline import UnigramTruecaser, capitalize_first_word
def brute_force_best(model, tokens, oov):
    """Score every combination of candidates with KenLM's full-sentence score (+ OOV terms)."""
    cands = [model.candidates(t) for t in tokens]
    best, best_forms = -1e9, None
    for combo in itertools.product(*cands):
        s = model.lm_.score(" ".join(lmw for _, lmw, _ in combo), bos=True, eos=True)
        s += sum(model.oov_weight * oov[t.lower()][cls] for t, (_, _, cls) in zip(tokens, combo) if cls)
        if s > best:
            best, best_forms = s, [f for f, _, _ in combo]
    return best_forms, best


def path_score(model, tokens, forms, oov):
    cands = [model.candidates(t) for t in tokens]
    lm_tokens, extra = [], 0.0
    for t, f, cl in zip(tokens, forms, cands):
        (_, lmw, cls), = [c for c in cl if c[0] == f][:1]
        lm_tokens.append(lmw)
        if cls:
            extra += model.oov_weight * oov[t.lower()][cls]
    return model.lm_.score(" ".join(lm_tokens), bos=True, eos=True) + extra


@pytest.mark.parametrize("sentence", [
    "the new york times said on monday that the president will visit paris .",
    "in 1991 the district of mastung was separated from kalat .",
    "he played for the peru national football team and scored a goal against brazil .",
    "zorblaxian traders met mr. quixotl in the old city of a .",
])
def test_viterbi_is_exact(truecaser_copy, sentence):
    model = truecaser_copy
    model.first_word, model.split_sentences = "lm", False
    tokens = sentence.split()
    oov = model.scores().oov_scores([tokens])
    forms = model.python_search().viterbi(tokens, oov)
    brute_forms, brute_score = brute_force_best(model, tokens, oov)
    assert path_score(model, tokens, forms, oov) == pytest.approx(brute_score, abs=1e-4)


def test_lm_beats_baseline_on_dev(small_truecaser, dev_sentences):
    dev = dev_sentences[:400]
    lower = [s.lower() for s in dev]
    lm = score_truecase(dev, small_truecaser.predict(lower))
    base = score_truecase(dev, small_truecaser.baseline_.predict(lower))
    assert lm.f1 > base.f1
    assert lm.accuracy > 90.0


def test_output_keeps_tokens(small_truecaser):
    sents = ["the u.s. -LRB- united states -RRB- and `` nato '' signed it .", "", ". , ;", "1991 2001"]
    out = small_truecaser.predict(sents)
    for s, o in zip(sents, out):
        assert o.lower() == s.lower()
        assert len(o.split()) == len(s.split())
    assert out[0].startswith("The U.S.")


def test_long_sentence(small_truecaser):
    toks = ("the city of london is large and old" .split() * 1250)
    out = small_truecaser.predict_tokens([toks])[0]
    assert len(out) == 10000 and out[0] == "The"


def test_token_lists_and_strings(small_truecaser):
    assert small_truecaser.predict([["paris", "is", "a", "city"]]) == [["Paris", "is", "a", "city"]]
    assert small_truecaser.predict(["paris is a city"]) == ["Paris is a city"]


def test_estimator_contract():
    tc = Truecaser(min_count=3, smoothing="deleted_interpolation")
    params = tc.get_params()
    assert params["min_count"] == 3 and params["smoothing"] == "deleted_interpolation"
    assert clone(tc).get_params() == params
    with pytest.raises(ValueError):
        Truecaser(first_word="always").fit(["a b"])


def test_deleted_interpolation_fits(wiki_sentences, tmp_path):
    tc = Truecaser(smoothing="deleted_interpolation", oov_model="none", work_dir=str(tmp_path))
    tc.fit(wiki_sentences[:3000])
    lam = tc.lm_info_["lambda_trigram_by_bucket"]
    assert all(0.0 <= x < 1.0 for x in lam) and max(lam) > 0.1
    assert tc.predict(["the united states"]) == ["The United States"]


def test_unigram_baseline():
    base = UnigramTruecaser().fit(["I saw New York", "New ideas are new", "new things", "The new car"])
    assert base.predict(["new york is new"]) == ["New York is new"]  # most frequent form each; first word capitalised
    assert capitalize_first_word(["``", "hello"]) == ["``", "Hello"]


def test_paper_figure_1_delay_example(tmp_path):
    """Lita et al. 2003 figure 1: "delay" vs "DeLay" decided by the history.

    Synthetic corpus (made up for this test, not real data): "delay" after "time",
    "DeLay" after "Senator Tom".
    """
    corpus = (["There was a time delay in the schedule ."] * 20 + ["Senator Tom DeLay said no ."] * 20
              + ["The delay was long ."] * 20 + ["Tom said yes ."] * 5)
    tc = Truecaser(min_count=1, oov_model="none", work_dir=str(tmp_path)).fit(corpus)
    assert tc.predict(["there was a time delay ."]) == ["There was a time delay ."]
    assert tc.predict(["senator tom delay said no ."]) == ["Senator Tom DeLay said no ."]


def test_set_params_refreshes_candidates(truecaser_copy):
    model = truecaser_copy
    model.predict(["the city"])
    assert len(model.candidates("the")) > 1
    model.set_params(n_casings=1)
    assert len(model.candidates("the")) == 1


DECODE_CHANGES = {"n_casings": 1, "min_casing_share": 0.3, "first_word": "mask+upper", "oov_weight": 0.5,
                  "phrase_weight": 0.0, "compound_casing": False, "context_weight": 0.0, "split_sentences": False}


@pytest.mark.parametrize("how", ["attribute", "set_params"])
def test_a_decode_parameter_set_on_a_used_model_decodes_as_a_fresh_load_with_it(truecaser_artifact, dev_sentences,
                                                                                how):
    """Every decode-time parameter, set by assignment or by ``set_params`` on a model that has
    decoded already (its candidates and scores made), decodes as a freshly loaded model given that
    parameter; and set back, as the model did before."""
    from textqa.models.truecaser.store import load_truecaser
    lines = [s.lower() for s in dev_sentences[:150]]
    used = load_truecaser(truecaser_artifact / "truecaser")
    before = used.predict(lines)
    for name, value in DECODE_CHANGES.items():
        fresh = load_truecaser(truecaser_artifact / "truecaser").set_params(**{name: value})
        old = getattr(used, name)
        if how == "attribute":
            setattr(used, name, value)
        else:
            used.set_params(**{name: value})
        assert used.predict(lines) == fresh.predict(lines), name
        setattr(used, name, old)
        assert used.predict(lines) == before, name
    changed = load_truecaser(truecaser_artifact / "truecaser").set_params(**DECODE_CHANGES).predict(lines)
    assert changed != before                    # the parameters change what is decoded


def test_a_loaded_baseline_is_read_when_first_used_and_checked_again(small_truecaser, truecaser_artifact, tmp_path):
    """The unigram baseline table of a loaded artifact is read on first use (it is not needed to
    decode with the LM): it then gives the trained model's output, and a table changed after loading
    is refused, naming the file, never read."""
    import shutil

    from textqa.models.artifact import ArtifactError
    from textqa.models.truecaser.store import load_truecaser
    dest = tmp_path / "tc"
    shutil.copytree(truecaser_artifact / "truecaser", dest)
    lines = ["the united states and new york .", "he met paris hilton in london ."]
    fine = load_truecaser(dest)
    assert "best_" not in vars(fine.baseline_)
    shipped = pickle.loads(pickle.dumps(fine))              # as a Dask worker receives it: still unread
    assert "best_" not in vars(shipped.baseline_)
    assert shipped.baseline_.predict(lines) == small_truecaser.baseline_.predict(lines)
    assert fine.baseline_.predict(lines) == small_truecaser.baseline_.predict(lines)
    assert "best_" in vars(fine.baseline_)
    late = load_truecaser(dest)
    import gzip
    with gzip.open(dest / "baseline.json.gz", "wt", encoding="utf-8") as f:
        f.write('{"the": "THE"}')
    with pytest.raises(ArtifactError, match="baseline.json.gz"):
        late.baseline_.predict(lines)
    with pytest.raises(AttributeError):
        late.baseline_.no_such_attribute


def test_a_folded_model_decodes_either_spelling_and_keeps_the_letters(wiki_sentences, tmp_path):
    """``fold_accents``: real text's "Erich Mühsam" and "Joseph Déjacque" are learnt as "Muhsam" and
    "Dejacque", so the accented and the plain spelling decode alike, each keeping its own letters
    (the session's ``small_truecaser`` folds too; the estimator's default keeps "mühsam" apart)."""
    from textqa.models.truecaser.casing import fold_accents
    text = wiki_sentences[:3000]
    assert any("Mühsam" in s for s in text) and not any("Muhsam" in s for s in text)
    assert Truecaser().fold_accents is False
    tc = Truecaser(fold_accents=True, work_dir=str(tmp_path)).fit(text)
    assert all(fold_accents(k) == k for k in tc.casing_.forms)
    assert "muhsam" in tc.casing_.forms and "mühsam" not in tc.casing_.forms
    out = tc.predict(["the anarchist erich mühsam and the anarchist erich muhsam , joseph déjacque ."])
    assert out == ["The anarchist Erich Mühsam and the anarchist Erich Muhsam , Joseph Déjacque ."]
    assert tc.baseline_.predict(["mühsam and muhsam"]) == ["Mühsam and Muhsam"]
    accented = [s.lower() for s in text if not s.isascii()]
    assert len(accented) > 100
    out, out_folded = tc.predict(accented), tc.predict([fold_accents(s) for s in accented])
    assert [fold_accents(o) for o in out] == out_folded         # decoded as its fold, sentence for sentence
    assert all(o.lower() == s for o, s in zip(out, accented))   # its own letters


def test_loading_and_decoding_import_no_training_stack(truecaser_artifact):
    """A trained truecaser loads and decodes tokenized text without scikit-learn, SciPy or joblib (the
    OOV model's probabilities are worked out from its stored weights with mmh3 and numpy): a fresh
    process loads the small model, truecases tokenized lines with an unseen word, and has imported
    none of them.  (Raw text needs NLTK's tokenizers, and importing NLTK imports both.)"""
    import subprocess
    import sys
    code = ("import sys, textqa; svc = textqa.load('truecaser', sys.argv[1]); "
            "print(svc.truecase_tokenized(['zorblaxian traders met in paris on monday .'])[0]); "
            "print(svc.model.predict(['the new york times said so .'])[0]); "
            "print(sorted(m for m in ('sklearn', 'scipy', 'joblib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(truecaser_artifact)], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[-1] == "[]", out
    assert out[0].startswith("Zorblaxian") and "Paris" in out[0] and out[1].startswith("The New York")


def test_parameters_are_scikit_learns_contract_without_it():
    """``get_params``/``set_params`` as scikit-learn documents them: every constructor argument, a
    changed one read back, an unknown one refused by name, and ``sklearn.base.clone`` takes the
    estimator."""
    tc = Truecaser(phrase_weight=0.25)
    assert set(tc.get_params()) == set(inspect.signature(Truecaser).parameters)
    assert tc.set_params(order=4).get_params()["order"] == 4 and "order=4" in repr(tc)
    with pytest.raises(ValueError, match="Invalid parameter 'beam' for estimator Truecaser"):
        tc.set_params(beam=3)
    copy = clone(tc)
    assert copy is not tc and copy.get_params() == tc.get_params()

