"""The ARPA writer and both smoothing methods produce proper distributions that KenLM reads back."""
import math

import kenlm
import numpy as np
import pytest

from textqa.models.truecaser import lm as lmmod

# A small synthetic corpus (labelled as such: made up for this unit test).
SYNTHETIC = ["the cat sat", "the cat ran", "a dog sat", "the dog sat down", "a cat sat down", "the bird sang"]


def build(smoothing, tmp_path):
    words = [lmmod.BOS, lmmod.EOS, lmmod.UNK] + sorted({w for s in SYNTHETIC for w in s.split()})
    idx = {w: i for i, w in enumerate(words)}
    seqs = [np.array([idx[w] for w in s.split()]) for s in SYNTHETIC]
    A = lmmod.pack_sentences(seqs, 0, 1)
    full = lmmod.NGramCounts.from_packed(A, len(words), 0, 1)
    if smoothing == "kneser_ney":
        model = lmmod.estimate_kneser_ney(full, 0, 1, 2)
    else:
        held = lmmod.pack_sentences(seqs[::2], 0, 1)
        train = lmmod.NGramCounts.from_packed(lmmod.pack_sentences(seqs[1::2], 0, 1), len(words), 0, 1)
        model = lmmod.estimate_deleted_interpolation(train, held, full, 0, 1, 2)
    path = tmp_path / "lm.arpa"
    lmmod.write_arpa(model, words, path)
    return kenlm.Model(str(path)), words


@pytest.mark.parametrize("smoothing", ["kneser_ney", "deleted_interpolation"])
def test_distributions_sum_to_one(smoothing, tmp_path):
    m, words = build(smoothing, tmp_path)
    predictable = [w for w in words if w != lmmod.BOS]
    for context in [[], ["the"], ["the", "cat"], ["a", "dog"], ["cat", "the"], ["bird", "sang"]]:
        state = kenlm.State()
        m.NullContextWrite(state) if context else m.BeginSentenceWrite(state)
        for w in context:
            out = kenlm.State()
            m.BaseScore(state, w, out)
            state = out
        total = sum(10 ** m.BaseScore(state, w, kenlm.State()) for w in predictable)
        assert total == pytest.approx(1.0, abs=1e-4), (smoothing, context, total)


def test_deleted_interpolation_prefers_seen_trigrams(tmp_path):
    m, _ = build("deleted_interpolation", tmp_path)
    assert m.score("the cat sat") > m.score("the sat cat")
    assert math.isfinite(m.perplexity("a bird ran"))


def test_count_buckets():
    assert lmmod.count_bucket(np.array([0, 1, 2, 3, 4, 8, 10**9])).tolist() == [0, 1, 2, 2, 3, 4, lmmod.N_BUCKETS - 1]
