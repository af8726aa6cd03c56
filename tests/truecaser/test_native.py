"""The C++ Viterbi decoder (textqa/models/truecaser/native): built by make, and exactly the Python
search's output on real text, whatever the decoding options."""
import os
import pickle

import pytest

from textqa.models.truecaser import native


def test_the_library_is_built():
    assert native.library_path() is not None, f"{native.LIBRARY} missing: `make venv` builds it"
    assert native.available()


def _both(model, lowered, monkeypatch):
    monkeypatch.setattr(model, "search", "python")
    python = model.predict(lowered)
    monkeypatch.setattr(model, "search", "native")
    assert model.native_decoder() is not None
    return python, model.predict(lowered)


@pytest.mark.parametrize("first_word, split", [("lm+upper", True), ("lm", False), ("mask", True), ("mask+upper", False)])
def test_native_decoder_is_the_python_search(truecaser_copy, dev_sentences, monkeypatch, first_word, split):
    model = truecaser_copy
    model.first_word, model.split_sentences = first_word, split
    lowered = [s.lower() for s in dev_sentences[:600]] + [
        "", "zorblaxian traders met mr. quixotl in the old city of a .",      # unseen words: the OOV model's scores
        "the new york times said on monday that the president will visit paris . he did ."]
    python, fast = _both(model, lowered, monkeypatch)
    assert fast == python
    assert sum(p != l for p, l in zip(python, lowered)) > 300          # it really recased


def test_oov_weight_and_casing_options_reach_the_native_decoder(truecaser_copy, dev_sentences, monkeypatch):
    model = truecaser_copy
    lowered = [s.lower() for s in dev_sentences[600:800]]
    before = model.predict(lowered)                         # fills the candidate caches
    model.set_params(oov_weight=3.0, n_casings=1)           # ... which must not outlive the parameters
    python, fast = _both(model, lowered, monkeypatch)
    assert fast == python and fast != before


def test_an_unreadable_lm_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "lm.binary"
    bad.write_bytes(b"not a language model")
    with pytest.raises(RuntimeError, match="lm.binary"):
        native.NativeViterbi(str(bad))


def test_a_model_with_its_decoder_pickles(truecaser_copy, dev_sentences):
    lowered = [s.lower() for s in dev_sentences[:50]]
    before = truecaser_copy.predict(lowered)
    assert truecaser_copy.native_decoder() is not None
    again = pickle.loads(pickle.dumps(truecaser_copy))
    assert again.predict(lowered) == before


def test_lm_binary_layouts(small_truecaser):
    from textqa.models.truecaser.model import Truecaser
    with pytest.raises(ValueError, match="lm_binary"):
        Truecaser(lm_binary="hash").check_params()
    assert small_truecaser.lm_binary == "trie-q8"
    with open(small_truecaser.lm_path_, "rb") as f:          # a KenLM binary, not the ARPA fallback
        assert f.read(8) == b"mmap lm "


def test_another_lm_file_gets_its_own_decoder_and_word_ids(truecaser_copy, dev_sentences, tmp_path, monkeypatch):
    import shutil

    import kenlm
    model = truecaser_copy
    lowered = [s.lower() for s in dev_sentences[:100]]
    before = model.predict(lowered)
    first = model.native_decoder()
    copy = tmp_path / "lm.binary"
    shutil.copyfile(model.lm_path_, copy)
    model.lm_, model.lm_path_ = kenlm.Model(str(copy)), str(copy)
    assert model.predict(lowered) == before and model.native_decoder() is not first
    assert model.native_decoder().lm_path == str(copy)


def test_candidate_rows_grow_and_gather():
    """The C++ search's inputs are gathered from rows of flat arrays (``CandidateRows``) that grow
    past their first capacity; ``ranges`` concatenates index ranges."""
    import numpy as np

    from textqa.models.truecaser.native_search import CandidateRows
    from textqa.models.truecaser.context_samples import ranges
    assert ranges(np.array([5, 0, 9]), np.array([2, 0, 3])).tolist() == [5, 6, 9, 10, 11]
    rows = CandidateRows()
    made = [rows.add([i, i + 1, i + 2][: 1 + i % 3], [i] * (1 + i % 3), [-0.5 * i] * (1 + i % 3)) for i in range(3000)]
    assert made == list(range(3000)) and rows.size == sum(1 + i % 3 for i in range(3000))
    r = np.array([2999, 7, 1024])
    at = ranges(rows.start[r], rows.count[r])
    assert rows.ids[at].tolist() == [2999, 3000, 3001, 7, 8, 1024, 1025]          # 3, 2 and 2 candidates
    assert rows.cids[at].tolist() == [2999] * 3 + [7] * 2 + [1024] * 2 and rows.cem[at][0] == -0.5 * 2999
    again = pickle.loads(pickle.dumps(rows))
    assert again.add([1], [1], [0.0]) == 3000 and (again.ids[at] == rows.ids[at]).all()


def test_threads_sharing_a_model_decode_as_one_thread_does(truecaser_copy, dev_sentences):
    """A threaded server shares one model: its cached candidate rows (``CandidateRows``) and the
    garbage collector's pause are shared too. Four threads on a fresh cache, each decoding its own
    slice of dev in small batches, give the single thread's output, and the collector is enabled
    again afterwards."""
    import gc
    from concurrent.futures import ThreadPoolExecutor
    lowered = [s.lower().split() for s in dev_sentences[:800]]
    alone = truecaser_copy.predict_tokens(lowered)
    slices = [lowered[i::4] for i in range(4)]

    def run(part):
        return [out for k in range(0, len(part), 8) for out in truecaser_copy.predict_tokens(part[k:k + 8])]
    for _ in range(5):                           # each round from empty caches, which the threads fill
        truecaser_copy.set_params(oov_weight=truecaser_copy.oov_weight)
        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(run, slices))
        assert all(together[i] == alone[i::4] for i in range(4))
    assert gc.isenabled()


def test_loading_pauses_the_collector_and_gives_it_back_as_it_was(truecaser_artifact, copy_root, monkeypatch):
    """``load_truecaser`` reads its JSON tables with the cyclic collector paused (a third of the
    default model's load time went to collections), and leaves it as it found it: enabled, disabled,
    or after a load that fails."""
    import gc

    from textqa.models.artifact import ArtifactError
    from textqa.models.truecaser import baseline, store
    seen, init = [], baseline.CasingTable.__init__

    def spy(self, forms):
        seen.append(gc.isenabled())
        init(self, forms)
    monkeypatch.setattr(baseline.CasingTable, "__init__", spy)
    path = truecaser_artifact / "truecaser"
    assert gc.isenabled()
    store.load_truecaser(path)
    assert seen == [False] and gc.isenabled()
    broken = copy_root(truecaser_artifact) / "truecaser"
    with open(broken / "casing.json.gz", "ab") as f:
        f.write(b" ")
    with pytest.raises(ArtifactError):
        store.load_truecaser(broken)
    assert gc.isenabled()
    gc.disable()
    try:
        store.load_truecaser(path)
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()


def test_a_loaded_model_starts_in_the_collectors_oldest_generation(truecaser_artifact):
    """The model's objects skip the young generations (whose first collections after a load walked
    them all), and are still collected there; objects frozen by someone else stay frozen."""
    import gc

    from textqa.models.truecaser import store
    path = truecaser_artifact / "truecaser"

    def generation_of(obj):
        return next((g for g in range(3) if any(o is obj for o in gc.get_objects(generation=g))), None)
    gc.unfreeze()                       # what a service or command loaded earlier in this process froze
    model = store.load_truecaser(path)
    assert gc.get_freeze_count() == 0
    table = model.compound_parts_                             # a dict read from casing.json.gz
    assert len(table) > 100 and generation_of(table) == 2 and generation_of(model.casing_.forms) == 2
    keep = [[1], [2]]                                        # frozen by the test, not by the load
    gc.freeze()
    try:
        model = store.load_truecaser(path)
        assert gc.get_freeze_count() > 0 and generation_of(keep) is None
        assert generation_of(model.compound_parts_) in (0, 1, 2)
    finally:
        gc.unfreeze()


def test_the_public_search_switch_and_emission_scorers(truecaser_copy, dev_sentences, monkeypatch):
    """``search`` picks the search ("python" decodes like "native"; "native" without the library is
    an error, not a silent fallback), and ``add_emission_scorer`` (the experiments' subclass) reaches
    both searches alike."""
    from textqa.models.truecaser.experiments import ExperimentalTruecaser
    model = ExperimentalTruecaser.of(truecaser_copy)
    lowered = [s.lower() for s in dev_sentences[:120]]
    assert model.search == "auto" and model.search_in_use() == "native"
    native = model.predict(lowered)
    model.search = "python"
    assert model.search_in_use() == "python" and model.predict(lowered) == native
    with pytest.raises(ValueError, match="search must be one of"):
        model.search = "gpu"
    seen = []

    def capitals_for_paris(low, sent_off):
        """+5 (log10) for the second candidate of every 'paris' that has two or more."""
        seen.append(len(low))
        return {i: [0.0, 5.0] + [0.0] * (len(model.candidates(w)) - 2)
                for i, w in enumerate(low) if w == "paris" and len(model.candidates(w)) > 1}
    model.add_emission_scorer(capitals_for_paris)
    sentences = ["he lives in paris .", "paris is a city in france ."] + lowered[:20]
    python = model.predict(sentences)
    model.search = "native"
    assert model.predict(sentences) == python and seen and len(model.emission_scorers) == 1
    forms = model.candidate_forms("paris")
    if len(forms) > 1:
        assert python[0].split()[3] == forms[1]
    monkeypatch.setenv("TEXTQA_NATIVE_VITERBI", "0")
    with pytest.raises(RuntimeError, match="search='native'"):
        model.predict(["paris ."])
    model.search = "auto"
    assert model.search_in_use() == "python" and model.predict(sentences) == python


def test_a_library_of_another_interface_is_named_and_not_used():
    """The C++ library states its interface version; one that does not (or states another) is not
    used, and the status says to run make (here: a shared library that is no search at all)."""
    import subprocess
    import sys

    import numpy._core._multiarray_umath as some_library
    env = {**os.environ, "TEXTQA_VITERBI_LIBRARY": some_library.__file__}
    out = subprocess.run([sys.executable, "-m", "textqa.cli", "--version"], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert "truecaser search: python (" in out and "another version of the C++ search" in out and "run make" in out
    assert native.VERSION == 2 and native._library() is not None      # this checkout's own build speaks it
