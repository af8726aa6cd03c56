"""The class-based LM beside the word LM (``Truecaser(class_lm=K)``, :mod:`textqa.models.truecaser.classes`):
the neighbour matrix by hand, P(w | c) sums to one over each class, the search over pairs of states
(and over triples, with a second LM) is exact (brute force), the C++ search gives the Python
search's output, weight 0 is the model without it, and the artifact round trip."""
import gzip
import itertools
import json
import shutil

import numpy as np
import pytest

from textqa.models.artifact import ArtifactError
from textqa.models.truecaser.classes import PackedText, WordClasses, neighbour_matrix, ranks
from textqa.models.truecaser.vocabulary import LM_SPECIALS
from textqa.models.truecaser.model import Truecaser
from textqa.models.truecaser.store import load_truecaser, save_truecaser
from textqa.runtime.paths import PUNKT_DIR


def test_neighbour_matrix_by_hand():
    # synthetic ids: 0 = <s>, 1 = </s>; two sentences "2 3 2" and "3 4"
    packed = np.array([0, 2, 3, 2, 1, 0, 3, 4, 1])
    counts = np.bincount(packed, minlength=5)
    ids, m = neighbour_matrix(packed, counts, targets=3, contexts=2, bos=0, eos=1)
    # ranks by count (stable): 0 (2), 1 (2), 2 (2), 3 (2), 4 (1): targets are ids 0, 1, 2; contexts 0, 1
    assert list(ids) == [0, 1, 2]
    dense = np.expm1(m.toarray())               # cells are log(1 + count)
    # id 2 occurs twice: left neighbours <s> (id 0) and 3 (an "other" context, column 2); right 3 and </s>
    assert dense[2].tolist() == [1, 0, 1, 0, 1, 1]
    assert dense[:2].sum() == 0                 # <s> and </s> are never a middle token


def test_two_stretches_of_text_add_up_to_the_whole():
    """What ``textqa train truecaser --scheduler`` relies on (``ClusterText``): the words' counts, the
    neighbour counts and the class n-gram counts of two stretches of packed text sum to those of
    both together (synthetic ids: 0 = <s>, 1 = </s>)."""
    a, b = np.array([0, 2, 3, 2, 1, 0, 3, 4, 1]), np.array([0, 4, 2, 2, 3, 1])
    whole, left, right = PackedText(np.concatenate([a, b])), PackedText(a), PackedText(b)
    assert np.array_equal(whole.totals(6), left.totals(6) + right.totals(6))
    rank = ranks(whole.totals(6))
    m = left.neighbours(rank, 4, 3, 0, 1) + right.neighbours(rank, 4, 3, 0, 1)
    w = whole.neighbours(rank, 4, 3, 0, 1)
    # the four commonest ids are 2, 0, 1 and 3; 2 is a middle token 4 times and 3 three times, each with
    # a left and a right neighbour
    assert (m != w).nnz == 0 and w.sum() == 2 * 7
    of = np.array([0, 1, 2, 2, 3, 2])                      # ids 2, 3 and 5 in class 2, id 4 in class 3
    c, c1, c2 = (t.class_counts(of, 4, 0, 1, 3) for t in (whole, left, right))
    merged = c1.merge(c2)
    assert all(np.array_equal(x, y) for x, y in zip(c.keys + c.counts, merged.keys + merged.counts))
    assert c.counts[0].tolist() == [0, 3, 7, 2]            # <s> never counted; </s> 3 times; class 2 seven times


@pytest.fixture(scope="module")
def class_model(wiki_sentences, tmp_path_factory):
    work = tmp_path_factory.mktemp("tc-classes")
    model = Truecaser(class_lm=40, class_lm_weight=0.5, work_dir=str(work)).fit(wiki_sentences)
    save_truecaser(model, work / "artifact", punkt_dir=PUNKT_DIR)
    return model, work / "artifact"


def test_the_classes_of_the_specials_and_the_class_emissions(class_model):
    model, _ = class_model
    wc = model.classes_
    assert wc.names[:len(LM_SPECIALS)] == LM_SPECIALS and sum(n.startswith("C") for n in wc.names) == 40
    assert all(wc.lookup(t)[0] == t for t in LM_SPECIALS)
    # P(w | c) sums to one over the words of each class seen in training
    seen = np.array([model.lm_.score(w, bos=False, eos=False) > -99 for w in wc.words])
    totals = np.bincount(wc.of[seen], weights=10 ** wc.emission[seen], minlength=len(wc.names))
    used = np.bincount(wc.of[seen], minlength=len(wc.names)) > 0
    assert np.allclose(totals[used][len(LM_SPECIALS):], 1.0)
    # cased forms of one word can fall in different classes: the class LM can tell them apart
    forms = [(w, w.capitalize()) for w in ("district", "city", "church") if w.capitalize() in wc.index and w in wc.index]
    assert any(wc.lookup(a)[0] != wc.lookup(b)[0] for a, b in forms)


def brute_force(model, tokens, oov):
    """Every combination of candidates scored with every LM's full-sentence scores and the emissions."""
    cands = [model.candidates(t) for t in tokens]
    best, best_forms = -1e9, None
    for combo in itertools.product(*cands):
        lm_tokens = [lmw for _, lmw, _ in combo]
        s = model.lm_.score(" ".join(lm_tokens), bos=True, eos=True)
        for clm, table, mu in model.scores().class_lms():
            classes = [table.lookup(t) for t in lm_tokens]
            s += mu * (clm.score(" ".join(c for c, _ in classes), bos=True, eos=True) + sum(e for _, e in classes))
        s += sum(model.oov_weight * oov[t.lower()][cls] for t, (_, _, cls) in zip(tokens, combo) if cls)
        if s > best:
            best, best_forms = s, [f for f, _, _ in combo]
    return best_forms


@pytest.mark.parametrize("weight", [0.5, 3.0])
def test_the_search_over_pairs_of_states_is_exact(class_model, dev_sentences, weight):
    model, _ = class_model
    sentences = ["in 1991 the district of mastung was separated from kalat .",
                 "zorblaxian traders met mr. quixotl in the old city ."]
    for s in dev_sentences:                              # short real sentences with a few thousand paths at most
        tokens = s.lower().split()
        if len(tokens) <= 12 and np.prod([len(model.candidates(t)) for t in tokens]) <= 3000:
            sentences.append(" ".join(tokens))
        if len(sentences) == 40:
            break
    model.set_params(class_lm_weight=weight)
    try:
        for sentence in sentences:
            tokens = sentence.split()
            oov = model.scores().oov_scores([tokens])
            assert model.python_search().viterbi(tokens, oov, None) == brute_force(model, tokens, oov), sentence
    finally:
        model.set_params(class_lm_weight=0.5)


class _Identity:
    """A class table that puts each LM token in a class of its own, with P(w | c) = 1."""
    @staticmethod
    def lookup(token):
        return token, 0.0


def test_the_search_over_several_class_lms_is_exact(class_model, dev_sentences):
    """A second class LM through ``extra_class_lms`` (``dev/truecaser_two_class_lms.py``'s way; here
    the word LM itself behind an identity class table, weight 0.3): the search over triples of
    states is exact, and the Python search decodes it."""
    from textqa.models.truecaser.experiments import ExperimentalTruecaser
    model = ExperimentalTruecaser.of(class_model[0])
    model.extra_class_lms = [(model.lm_, _Identity(), 0.3)]
    assert model.scores().class_lms() == [(model.class_lm_, model.classes_, 0.5), (model.lm_, model.extra_class_lms[0][1], 0.3)]
    assert model.search_in_use() == "python"
    sentences = ["in 1991 the district of mastung was separated from kalat ."]
    sentences += [" ".join(s.lower().split()) for s in dev_sentences
                  if len(s.split()) <= 10 and np.prod([len(model.candidates(t)) for t in s.lower().split()]) <= 500][:15]
    assert len(sentences) == 16
    for sentence in sentences:
        tokens = sentence.split()
        oov = model.scores().oov_scores([tokens])
        assert model.python_search().viterbi(tokens, oov, None) == brute_force(model, tokens, oov), sentence
    model.extra_class_lms = []
    assert model.scores().class_lms() == [(model.class_lm_, model.classes_, 0.5)]


def test_weight_zero_is_the_model_without_it_and_the_weight_changes_decisions(class_model, dev_sentences, monkeypatch):
    model, _ = class_model
    lowered = [s.lower() for s in dev_sentences[:400]]
    on = model.predict(lowered)
    model.set_params(class_lm_weight=0.0)
    assert model.scores().class_lm_active() is False and model.native_decoder() is not None   # the C++ search, as without it
    off = model.predict(lowered)
    monkeypatch.setattr(model, "search", "python")
    assert model.predict(lowered) == off                 # and the Python search agrees
    model.set_params(class_lm_weight=0.5)
    assert model.predict(lowered) == on                  # so does the Python search over pairs of states
    changed = sum(a != b for x, y in zip(on, off) for a, b in zip(x.split(), y.split()))
    assert changed > 5, changed


def test_the_native_search_over_pairs_of_states_is_the_python_search(class_model, dev_sentences, monkeypatch):
    model, _ = class_model
    lowered = [s.lower() for s in dev_sentences[:600]]
    for weight in (0.5, 3.0):
        model.set_params(class_lm_weight=weight)
        monkeypatch.setattr(model, "search", "native")
        assert model.native_class_decoder() is not None
        native = model.predict(lowered)
        monkeypatch.setattr(model, "search", "python")
        assert model.predict(lowered) == native
    model.set_params(class_lm_weight=0.5)


def test_the_class_lm_is_saved_loaded_and_checked(class_model, dev_sentences, tmp_path, resign):
    model, path = class_model
    loaded = load_truecaser(path)
    lowered = [s.lower() for s in dev_sentences[:200]]
    assert loaded.classes_.names == model.classes_.names and loaded.predict(lowered) == model.predict(lowered)
    bad = tmp_path / "bad"
    shutil.copytree(path, bad)
    meta = json.loads(gzip.decompress((bad / "classes.json.gz").read_bytes()))
    meta["words"] = meta["words"][:-1]                   # tables of different lengths
    (bad / "classes.json.gz").write_bytes(gzip.compress(json.dumps(meta).encode()))
    resign(bad, "classes.json.gz")
    with pytest.raises(ArtifactError):
        load_truecaser(bad)


def test_bad_class_settings_are_refused():
    for bad in ({"class_lm": -1}, {"class_lm": 2.5}, {"class_lm_weight": float("nan")},
                {"class_lm": 10, "discriminative": "local"}, {"class_lm": 10, "class_lm_order": 7},
                {"class_lm_binary": "hash"}, {"class_lm_words": 0}):
        with pytest.raises(ValueError):
            Truecaser(**bad).check_params()
    with pytest.raises(ValueError):
        WordClasses(["<s>"], ["a", "b"], np.array([0]), np.array([0.0]))


def test_the_class_lm_order_and_words_are_the_ones_asked_for_and_survive_saving(wiki_sentences, tmp_path):
    model = Truecaser(class_lm=20, class_lm_order=2, class_lm_words=300, work_dir=str(tmp_path)).fit(wiki_sentences[:2000])
    assert model.class_lm_.order == 2
    clustered = [w for w, c in zip(model.classes_.words, model.classes_.of) if model.classes_.names[c].startswith("C")]
    assert len(clustered) == 300                     # the 300 commonest tokens; the rest in case-class classes
    save_truecaser(model, tmp_path / "artifact", punkt_dir=PUNKT_DIR)
    loaded = load_truecaser(tmp_path / "artifact")
    assert loaded.class_lm_order == 2 and loaded.class_lm_.order == 2


def test_the_known_words_rows_made_at_once_are_those_of_each_word_alone(class_model, dev_sentences):
    """The C++ search holds every known word's row from the start, made for all of them at once with
    numpy from the casing table's arrays (the candidates, their word- and class-LM ids, the class
    emissions, the context codes): each is the row made from the word alone (its candidates,
    ``index``, ``classes_.lookup``, ``context_.code``), whatever the candidate parameters."""
    from textqa.models.truecaser.baseline import StoredForms
    _, path = class_model
    model = load_truecaser(path)
    words = list(dict.fromkeys(t for s in dev_sentences[:400] for t in s.lower().split() if t in model.casing_.forms))
    assert isinstance(model.casing_.forms, StoredForms) and len(words) > 1000

    def alone(search, w: str) -> tuple:
        cands = model.candidates(w)
        lm = [lmw for _, lmw, _ in cands]
        looked = [model.classes_.lookup(x) for x in lm]
        code = model.context_.code(w) if model.context_ is not None else -1
        return ([search.decoder.index(x) for x in lm], [search.class_decoder.index(c) for c, _ in looked],
                [e for _, e in looked], code, [f for f, _, _ in cands])

    # a share that one word's second casing has exactly (kept: "at least the share")
    tie = next((c / t, w) for w in words
               for forms in [model.casing_.forms[w]] for t in [sum(n for _, n in forms)]
               for c in [forms[1][1] if len(forms) > 1 else 0] if c and c / t * t == c)
    default = {"n_casings": model.n_casings, "min_casing_share": model.min_casing_share}
    for params in ({}, {"n_casings": 1}, {"min_casing_share": 0.3}, {"min_casing_share": tie[0]}):
        model.set_params(**{**default, **params})
        search = model.native_search()
        assert search.class_decoder is not None
        rows = {w: search.known_entry(w) for w in words}
        assert rows == {w: alone(search, w) for w in words}
        assert search.known_entry("zorblaxian") is None
        if params.get("min_casing_share") == tie[0]:
            assert len(rows[tie[1]][0]) > 1
        if not params:
            assert sum(len(e[0]) > 1 for e in rows.values()) > 100
            assert len({e[1][0] for e in rows.values()}) > 20       # many classes


def test_places_by_kenlm_id_refuse_ids_that_do_not_tell_words_apart():
    """The C++ search finds the forms' classes by their KenLM ids (no dictionary of the LM's words at
    load); when two words share an id, or a form's id is no word's, the forms are looked up by name."""
    from textqa.models.truecaser.classes import WordClasses
    table = WordClasses(["A", "B"], ["x", "y", "z"], np.array([0, 1, 1]), np.array([-0.5, -0.2, -0.9]))
    by_id = table.place_table(np.array([5, 7, 3]))
    assert table.place_table(np.array([5, 7, 7])) is None                    # two words, one id
    assert "index" not in table.__dict__                                      # no dictionary made
    assert table.places(np.array([7, 3, 7]), ["y", "z", "y"], by_id).tolist() == [1, 2, 1]
    assert "index" not in table.__dict__
    assert table.places(np.array([4]), ["x"], by_id).tolist() == [0]           # an id no word has: by name
    assert table.places(np.array([9]), ["z"], by_id).tolist() == [2]           # past every word's id
    assert table.places(np.array([7]), ["x"], None).tolist() == [0]
    assert table.index == {"x": 0, "y": 1, "z": 2}
