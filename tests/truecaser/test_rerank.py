"""The discriminative pass over the truecasing lattice (``Truecaser(discriminative=...)``
item 2): held-out blocks, features by hand, a perceptron trained on real Wikipedia text, the same
output from the C++ and the Python search, and the weights saved and loaded with the artifact."""
import json
import shutil

import pytest

from textqa.models.artifact import ArtifactError
from textqa.models.truecaser.model import Truecaser
from textqa.models.truecaser.options import TRIGRAM_DECODER
from textqa.models.truecaser.store import load_truecaser, save_truecaser
from textqa.models.truecaser.rerank import FEATURE_SETS, CandidateWeights, candidate_features, held_out
from textqa.runtime.paths import PUNKT_DIR


def test_held_out_blocks_are_one_in_forty_and_contiguous():
    big = held_out(100_000)
    assert sum(big) == 2_500 and big[10_000:10_500] == [True] * 500 and not any(big[:10_000])
    small = held_out(3_000)                                  # blocks shrink so that a small corpus has four
    runs = sum(1 for i in range(1, len(small)) if small[i] and not small[i - 1])
    assert runs >= 4 and 50 <= sum(small) <= 100


def test_candidate_features_by_hand():
    low = ["the", "new", "york", "times"]
    local = candidate_features(FEATURE_SETS["local"], low, 1, ["new", "New"], [["new", 90], ["New", 10]])
    assert local == [["b||LC", "r|0|LC", "sh|9|LC", "pos|1|LC"], ["b||UC", "r|1|UC", "sh|1|UC", "pos|1|UC"]]
    ctx = candidate_features(FEATURE_SETS["context"], low, 3, ["times", "Times", "TIMES"], None)  # an unseen word
    assert "sh|0|CA" in ctx[2] and "p1|york|CA" in ctx[2] and "n1|</s>|UC" in ctx[1] and "p3|the|LC" in ctx[0]
    assert "p1w|york times|UC" in ctx[1] and "p2p1|new york|UC" in ctx[1] and "pos|3|UC" in ctx[1]


def test_a_weight_table_is_checked_when_read():
    w = CandidateWeights("local", {"b||UC": 0.01})
    assert CandidateWeights.from_data(json.loads(json.dumps(w.to_data()))).weights == {"b||UC": 0.01}
    for bad in ({"feature_set": "local", "weights": {"b||UC": float("nan")}},
                {"feature_set": "local", "weights": {"b||UC": "1"}}, {"feature_set": "other", "weights": {}}, [1]):
        with pytest.raises(ValueError):
            CandidateWeights.from_data(bad)


@pytest.fixture(scope="module")
def discriminative(wiki_sentences, tmp_path_factory):
    work = tmp_path_factory.mktemp("tc-disc")
    model = Truecaser(discriminative="lexical", work_dir=str(work)).fit(wiki_sentences)
    save_truecaser(model, work / "artifact", punkt_dir=PUNKT_DIR)
    return model, work / "artifact"


def test_the_pass_learns_on_held_out_text_and_changes_decisions(discriminative, wiki_sentences, dev_sentences):
    model, _ = discriminative
    info, n_held = model.reranker_.info, sum(held_out(len(wiki_sentences)))
    assert info["held_out_sentences"] == n_held and model.n_train_sentences_ == len(wiki_sentences) - n_held
    assert len(info["online_errors"]) == 3 and len(model.reranker_) > 100
    assert all(k.split("|")[0] in FEATURE_SETS["lexical"] for k in model.reranker_.weights)
    lowered = [s.lower() for s in dev_sentences[:600]]
    on = model.predict(lowered)
    off = model.set_params(discriminative="none").predict(lowered)
    model.set_params(discriminative="lexical")
    changed = sum(a != b for x, y in zip(on, off) for a, b in zip(x.split(), y.split()))
    assert changed > 10, changed


def test_native_and_python_search_agree_with_the_pass(discriminative, dev_sentences, monkeypatch):
    model, _ = discriminative
    lowered = [s.lower() for s in dev_sentences[:300]]
    monkeypatch.setattr(model, "search", "python")
    python = model.predict(lowered)
    monkeypatch.setattr(model, "search", "native")
    assert model.native_decoder() is not None and model.predict(lowered) == python


def test_the_weights_are_saved_loaded_and_switched_off_by_the_trigram_decoder(discriminative, dev_sentences, tmp_path,
                                                                             resign):
    model, path = discriminative
    loaded = load_truecaser(path)
    lowered = [s.lower() for s in dev_sentences[:300]]
    assert loaded.reranker_.weights == model.reranker_.weights and loaded.predict(lowered) == model.predict(lowered)
    assert loaded.set_params(**TRIGRAM_DECODER).discriminative == "none"
    bad = tmp_path / "bad"
    shutil.copytree(path, bad)
    (bad / "discriminative.json").write_text('{"feature_set": "local", "weights": {"b||UC": "lots"}}')
    with pytest.raises(ArtifactError, match="discriminative.json"):         # the checksum
        load_truecaser(bad)
    resign(bad, "discriminative.json")
    with pytest.raises(ArtifactError, match="discriminative.json: cannot read the discriminative weights"):
        load_truecaser(bad)


def test_truecase_cli_switches_the_pass_off(discriminative, dev_sentences):
    """``textqa truecase`` decodes with the pass the model was trained with; --no-discriminative and
    --decoder trigram without it."""
    import subprocess
    import sys
    model, path = discriminative
    lowered = [s.lower() for s in dev_sentences[:200]]
    data = ("\n".join(lowered) + "\n").encode()

    def run(*flags):
        r = subprocess.run([sys.executable, "-m", "textqa.cli", "truecase", "--model", str(path), "--tokenized", *flags],
                           input=data, capture_output=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return r.stdout.decode().splitlines()
    assert run() == model.predict(lowered)
    off = model.set_params(discriminative="none").predict(lowered)
    assert run("--no-discriminative") == off != model.set_params(discriminative="lexical").predict(lowered)
    assert run("--decoder", "trigram") == model.set_params(**TRIGRAM_DECODER).predict(lowered)
    model.set_params(discriminative="lexical", phrase_weight=0.5, compound_casing=True)


def test_too_little_text_for_the_pass_is_a_one_line_error(tmp_path):
    """Two sentences (synthetic, made up for this test) leave nothing to hold out: an error naming
    the file, no traceback, no artifact."""
    import subprocess
    import sys
    data = tmp_path / "tiny.txt"
    data.write_text("The Cat sat .\nA Dog ran .\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "textqa.cli", "train", "truecaser", "--data", str(data), "--pretokenized",
                        "--no-cache", "--discriminative", "local", "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"error: too few training sentences to hold some out for the discriminative pass ({data})" in r.stderr
    assert not (tmp_path / "out").exists()
