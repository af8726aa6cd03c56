"""The ARPA writer and both smoothing methods produce proper distributions that KenLM reads back."""
import math

import kenlm
import numpy as np
import pytest

from textqa.models.truecaser import kneser_ney as kn
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
        model = kn.estimate_kneser_ney(full, 0, 1, 2)
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
    assert_normalised(m, [w for w in words if w != lmmod.BOS],
                      [[], ["the"], ["the", "cat"], ["a", "dog"], ["cat", "the"], ["bird", "sang"]])


def assert_normalised(m, predictable, contexts):
    """P(w | context) sums to 1 over every word but <s>, for each context (after <s> when empty)."""
    for context in contexts:
        state = kenlm.State()
        m.NullContextWrite(state) if context else m.BeginSentenceWrite(state)
        for w in context:
            out = kenlm.State()
            m.BaseScore(state, w, out)
            state = out
        total = sum(10 ** m.BaseScore(state, w, kenlm.State()) for w in predictable)
        assert total == pytest.approx(1.0, abs=1e-4), (m.order, context, total)


def test_deleted_interpolation_prefers_seen_trigrams(tmp_path):
    m, _ = build("deleted_interpolation", tmp_path)
    assert m.score("the cat sat") > m.score("the sat cat")
    assert math.isfinite(m.perplexity("a bird ran"))


def test_count_buckets():
    assert lmmod.count_bucket(np.array([0, 1, 2, 3, 4, 8, 10**9])).tolist() == [0, 1, 2, 2, 3, 4, lmmod.N_BUCKETS - 1]


def arpa_of_order(sentences, order, path, prune=None):
    words = [lmmod.BOS, lmmod.EOS, lmmod.UNK]
    idx = {w: i for i, w in enumerate(words)}
    seqs = [np.array([idx.setdefault(w, len(idx)) for w in s.split()]) for s in sentences]
    counts = lmmod.OrderCounts.from_packed(lmmod.pack_sentences(seqs, 0, 1), len(idx), 0, 1, order)
    lmmod.write_arpa(kn.estimate_kneser_ney(counts, 0, 1, 2, prune=prune), list(idx), path)
    return kenlm.Model(str(path)), counts


@pytest.mark.parametrize("order", [2, 4, 5])
def test_kneser_ney_of_any_order_is_normalised(order, tmp_path):
    m, counts = arpa_of_order(SYNTHETIC, order, tmp_path / "lm.arpa")
    assert m.order == order and len(counts.keys) == order
    assert_normalised(m, sorted({w for s in SYNTHETIC for w in s.split()}) + [lmmod.EOS, lmmod.UNK],
                      [[], ["the"], ["the", "cat"], ["the", "cat", "sat"], ["a", "cat", "sat", "down"], ["dog", "the"]])


def test_order_counts_match_the_trigram_counts_and_count_by_hand():
    words = [lmmod.BOS, lmmod.EOS, lmmod.UNK] + sorted({w for s in SYNTHETIC for w in s.split()})
    idx = {w: i for i, w in enumerate(words)}
    A = lmmod.pack_sentences([np.array([idx[w] for w in s.split()]) for s in SYNTHETIC], 0, 1)
    tri, general = lmmod.NGramCounts.from_packed(A, len(words), 0, 1).to_orders(), \
        lmmod.OrderCounts.from_packed(A, len(words), 0, 1, 4)
    for k in range(3):
        assert (tri.keys[k] == general.keys[k]).all() and (tri.counts[k] == general.counts[k]).all()
    # the 4-grams, decoded, are exactly the windows of four within a sentence (with <s> and </s>)
    V = len(words)

    def text(k, key):
        return [words[key]] if k == 1 else text(k - 1, int(general.keys[k - 2][key // V])) + [words[key % V]]
    by_hand = {}
    for s in SYNTHETIC:
        t = ["<s>"] + s.split() + ["</s>"]
        for i in range(len(t) - 3):
            by_hand[tuple(t[i:i + 4])] = by_hand.get(tuple(t[i:i + 4]), 0) + 1
    assert {tuple(text(4, int(j))): int(c) for j, c in zip(general.keys[3], general.counts[3])} == by_hand
    assert general.sizes() == {"1": len(words) - 2, "2": len(general.keys[1]), "3": len(general.keys[2]), "4": len(by_hand)}


@pytest.mark.parametrize("order", [2, 3, 5])
def test_merged_counts_of_stretches_are_the_counts_of_the_whole(order):
    """``OrderCounts.merge`` (the Dask map-reduce's reduction): the counts of any split of the corpus,
    merged in any tree, equal one pass's counts, key for key; merging differently built counts is
    refused."""
    words = [lmmod.BOS, lmmod.EOS, lmmod.UNK] + sorted({w for s in SYNTHETIC for w in s.split()})
    idx = {w: i for i, w in enumerate(words)}
    seqs = [np.array([idx[w] for w in s.split()]) for s in SYNTHETIC]

    def counts(part):
        return lmmod.OrderCounts.from_packed(lmmod.pack_sentences(part, 0, 1), len(words), 0, 1, order)
    whole = counts(seqs)
    one, two, three = counts(seqs[:1]), counts(seqs[1:4]), counts(seqs[4:])
    for merged in (one.merge(two).merge(three), one.merge(two.merge(three)), three.merge(one).merge(two),
                   counts([]).merge(whole)):
        assert merged.order == order
        for k in range(order):
            assert merged.keys[k].tolist() == whole.keys[k].tolist(), k
            assert merged.counts[k].tolist() == whole.counts[k].tolist(), k
    with pytest.raises(ValueError, match="cannot merge counts of order"):
        whole.merge(lmmod.OrderCounts.from_packed(lmmod.pack_sentences(seqs, 0, 1), len(words), 0, 1, order + 1))


def test_kneser_ney_equals_kenlm_lmplz_at_every_order(tmp_path):
    """The estimator against the reference implementation: KenLM's ``lmplz`` on 2,000 real Wikipedia
    lines (golden scores of 300 further lines by ``dev/truecaser_lmplz_golden.py``), at orders 2-5
    and with count pruning (``lmplz --prune``: the same n-grams kept, the same probabilities)."""
    import gzip
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    golden = json.loads((root / "tests" / "fixtures" / "lmplz" / "golden.json").read_text(encoding="utf-8"))
    with gzip.open(root / "data" / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        train = [l for _, l in zip(range(golden["training_lines"]), f) if l.split()]
    assert sum("prune" in name for name in golden["log10_scores"]) == 3
    for name, expected in golden["log10_scores"].items():
        order, *prune = [int(x) for x in name.replace("prune", "").split()]
        path = tmp_path / "lm.arpa"
        m, _ = arpa_of_order(train, order, path, prune=prune)
        ours = [sum(lp for lp, _, oov in m.full_scores(s) if not oov) for s in golden["sentences"]]
        assert len(ours) == 300 and np.allclose(ours, expected, atol=2e-3), name
        header = path.read_text(encoding="utf-8").split("\n\n")[0].splitlines()[1:]
        assert [int(line.split("=")[1]) for line in header] == golden["ngram_counts"][name], name


@pytest.mark.parametrize("order,prune", [(3, [0, 0, 1]), (4, [0, 1, 1, 2]), (5, [0, 0, 1])])
def test_pruned_kneser_ney_is_normalised_and_keeps_every_history(order, prune, tmp_path):
    """Pruning moves a dropped n-gram's mass to its history's back-off: every distribution still sums
    to one, and every kept n-gram's history and suffix are kept (the thresholds do not decrease)."""
    m, counts = arpa_of_order(SYNTHETIC + SYNTHETIC[:3], order, tmp_path / "lm.arpa", prune=prune)
    lines = (tmp_path / "lm.arpa").read_text(encoding="utf-8").split("\n")
    grams = {tuple(l.split("\t")[1].split()) for l in lines if l.count("\t") >= 1}
    assert len(grams) < sum(len(k) for k in counts.keys)           # something was pruned
    assert all(g[:-1] in grams and g[1:] in grams for g in grams if len(g) > 1)
    assert_normalised(m, sorted({w for s in SYNTHETIC for w in s.split()}) + [lmmod.EOS, lmmod.UNK],
                      [[], ["the"], ["the", "cat"], ["the", "cat", "sat"], ["a", "cat", "sat", "down"], ["dog", "the"]])


@pytest.mark.parametrize("prune,error", [([1], "unigrams cannot be pruned"), ([0, 2, 1], "non-decreasing"),
                                         ([0, 0, 1, 1], "4 pruning thresholds"), ([0, -1], "non-decreasing")])
def test_bad_pruning_thresholds_are_refused(prune, error):
    with pytest.raises(ValueError, match=error):
        kn.prune_thresholds(prune, 3)
    assert kn.prune_thresholds([0, 1], 4) == [0, 1, 1, 1] and kn.prune_thresholds(None, 3) == [0, 0, 0]


def test_discounts_out_of_range_fall_back_as_lmplz_does(tmp_path):
    """Counts-of-counts from little or odd text can give a discount outside [0, k] (here D2 < 0: ten
    trigrams seen three times against one seen twice), which would put a probability above one (KenLM
    refuses such a file).  As ``lmplz --discount_fallback``, that order takes the discounts 0.5, 1, 1.5.
    Synthetic sentences of unique words, each repeated 1, 2, 3 or 4 times."""
    repeats = [1] * 10 + [2] + [3] * 10 + [4]
    sentences = [f"s{i}a s{i}b s{i}c" for i, r in enumerate(repeats) for _ in range(r)]
    m, counts = arpa_of_order(sentences, 3, tmp_path / "lm.arpa")
    model = kn.estimate_kneser_ney(counts, 0, 1, 2)
    assert model.info["discounts"]["trigram"] == [0.5, 1.0, 1.5]
    assert all((lp <= 0).all() for lp in model.logp)
    assert_normalised(m, sorted({w for s in sentences for w in s.split()}) + [lmmod.EOS, lmmod.UNK],
                      [[], ["s0a"], ["s0a", "s0b"], ["s11a", "s11b"]])
