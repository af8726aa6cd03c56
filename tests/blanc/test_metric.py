"""The BLANC metric (section 2.2) and its matching policies."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from textqa.models.blanc.matching import match_matrix
from textqa.models.blanc.metric import BLANC, BLANCParams, combine_sizes


def test_identical_and_disjoint_sentences():
    b = BLANC()
    assert b.sentence_score("The cat sat on the mat.", ["The cat sat on the mat."]).score == pytest.approx(1.0)
    assert b.sentence_score("dogs bark", ["The cat sat."]).score == 0.0


def test_multiple_references_take_max_precision_and_max_recall():
    b = BLANC(BLANCParams(partial_weight=0.0))
    hyp = "the cat sat on the mat"
    refs = ["the cat sat", "a dog lay on the mat today"]
    singles = [b.sentence_score(hyp, [r]) for r in refs]
    both = b.sentence_score(hyp, refs)
    assert both.precision == max(s.precision for s in singles)
    assert both.recall == max(s.recall for s in singles)
    p, r = both.precision, both.recall
    assert both.score == pytest.approx(2 * p * r / (p + r))


def test_alpha_zero_single_size_is_rouge_s_precision_recall():
    # size weights (0, 1): skip-bigrams only, alpha = beta = 0, all-pairs matching, unique words
    b = BLANC(BLANCParams(alpha=0, beta=0, size_weights=(0, 1), matching="all", partial_weight=0,
                          tokenize="none", lowercase=False))
    s = b.sentence_score("a b c d", ["a c b e d"])
    # common skip-bigrams: ab ac ad bd cd = 5 of C(4,2) = 6 (hyp) and C(5,2) = 10 (ref)
    assert s.precision == pytest.approx(5 / 6) and s.recall == pytest.approx(5 / 10)


def test_beta_f_weights_recall():
    hyp, ref = "a b", "a b c d e f"
    p_heavy = BLANC(BLANCParams(beta_f=0.2, tokenize="none")).sentence_score(hyp, [ref]).score
    r_heavy = BLANC(BLANCParams(beta_f=5.0, tokenize="none")).sentence_score(hyp, [ref]).score
    assert p_heavy > r_heavy


def test_one_to_one_matching_pairs_each_word_once_by_relative_position():
    ref = "the cat and the dog".split()
    hyp = "the dog and the cat".split()
    M = match_matrix(ref, hyp, "one-to-one")
    assert M.sum(0).max() == 1 and M.sum(1).max() == 1
    assert M[0, 0] == 1 and M[3, 3] == 1               # each 'the' pairs with the one at the same place
    all_pairs = match_matrix(ref, hyp, "all")
    assert all_pairs.sum() == 7                         # the x4, cat, and, dog


def test_partial_matches_get_the_partial_weight():
    M = match_matrix("the translations were evaluated".split(), "the translated text was evaluating".split(),
                     partial_weight=0.4)
    assert M[0, 0] == 1.0 and M[1, 1] == 0.4 and M[3, 4] == 0.4
    assert match_matrix(["running"], ["runs"], partial_weight=0.0).sum() == 0


texts = st.lists(st.sampled_from("the a cat dog sat mat on , .".split()), min_size=1, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(texts, texts, st.floats(0, 2), st.floats(0, 2))
def test_one_to_one_scores_lie_in_unit_interval(hyp, ref, alpha, beta):
    s = BLANC(BLANCParams(alpha=alpha, beta=beta)).sentence_score(hyp, [ref])
    assert 0.0 <= s.precision <= 1.0 + 1e-9 and 0.0 <= s.recall <= 1.0 + 1e-9


def test_corpus_score_pools_statistics():
    # alpha = beta = 0, all-pairs matching, sizes 1-2, distinct words: counts by hand.
    # pair 1: hyp "a b c" (3 words, 3 skip-bigrams), ref "a c b d" (4, 6); common: a b c; ab ac (bc: c before b in ref)
    # pair 2: hyp "e f" (2, 1), ref "e f g" (3, 3); common: e f; ef
    b = BLANC(BLANCParams(alpha=0, beta=0, size_weights=(0.25, 0.75), matching="all", partial_weight=0,
                          tokenize="none", lowercase=False))
    hyps = ["a b c", "e f"]
    refs = [["a c b d"], ["e f g"]]
    c = b.corpus_score(hyps, refs)
    # pooled: unigrams 5/5 (P), 5/7 (R); skip-bigrams 3/4 (P), 3/9 (R)
    p, r = 0.25 * 5 / 5 + 0.75 * 3 / 4, 0.25 * 5 / 7 + 0.75 * 3 / 9
    assert c.precision == pytest.approx(p) and c.recall == pytest.approx(r)
    assert c.score == pytest.approx(2 * p * r / (p + r))
    # pooling is not averaging: the mean of the two sentence precisions differs
    mean_p = sum(b.sentence_score(h, rr).precision for h, rr in zip(hyps, refs)) / 2
    assert mean_p == pytest.approx((0.25 + 0.75 * 2 / 3 + 0.25 + 0.75) / 2) and mean_p != pytest.approx(p)
    with pytest.raises(ValueError, match="2 hypotheses but references for 1 segments"):
        b.corpus_score(hyps, refs[:1])


def test_effective_order_for_short_sentences():
    # a 2-word hypothesis has no skip-3/4-grams: P uses sizes 1-2 only, so a perfect match scores 1
    b = BLANC(BLANCParams(tokenize="none"))
    assert b.sentence_score("hello world", ["hello world"]).score == pytest.approx(1.0)
    assert combine_sizes(np.array([1.0, 0.0]), np.array([1.0, 0.0]), (0.5, 0.5)) == pytest.approx(1.0)


def test_params_validation_and_signature():
    with pytest.raises(ValueError, match="alpha"):
        BLANCParams(alpha=-1)
    with pytest.raises(ValueError, match="matching"):
        BLANCParams(matching="fuzzy")
    with pytest.raises(ValueError, match="unknown BLANC parameter"):
        BLANCParams.from_dict({"alpha": 1, "gamma": 2})
    p = BLANCParams(alpha=0.25, beta=1.5, size_weights=(0.1, 0.9), beta_f=2.0)
    assert BLANCParams.from_dict(p.to_dict()) == p
    sig = BLANC(p, version="9.9").signature
    for part in ("alpha:0.25", "beta:1.5", "w:0.1,0.9", "beta_f:2", "m:one-to-one", "pw:0.5", "gap:max",
                 "lc:yes", "tok:13a", "version:textqa-9.9"):
        assert part in sig


def test_lowercase_and_tokenizer_options():
    hyp, ref = "Hello, World!", "hello , world !"
    assert BLANC(BLANCParams(lowercase=True)).sentence_score(hyp, [ref]).score == pytest.approx(1.0)
    assert BLANC(BLANCParams(lowercase=False)).sentence_score(hyp, [ref]).score < 1.0
    assert BLANC(BLANCParams(tokenize="none")).tokens("Hello, World!") == ["hello,", "world!"]


def test_explain_matches_the_statistics_behind_the_score():
    """``explain`` (the playground's BLANC panel) reports the best reference, an alignment whose
    exact matches are the words the sentences share, the same per-size masses as ``pair_stats``,
    and with alpha = beta = 0 exactly C(m, 2) matched skip-bigrams for m monotonic matches."""
    m = BLANC(BLANCParams(alpha=0.0, beta=0.0, partial_weight=0.0, size_weights=(0.5, 0.5), tokenize="none",
                          lowercase=True))
    hyp = "the cat sat on the mat"
    e = m.explain(hyp, ["a dog barked", "the cat is on the mat"])
    assert e["reference"] == 1
    matched = [(e["hypothesis_tokens"][a["hypothesis"]], e["reference_tokens"][a["reference"]]) for a in e["alignment"]]
    assert all(h == r for h, r in matched) and len(matched) == 5 and all(a["weight"] == 1 for a in e["alignment"])
    stats = m.pair_stats(hyp.split(), "the cat is on the mat".split())
    assert [s["common"] for s in e["sizes"]] == pytest.approx(stats[0].tolist())
    assert [s["hypothesis"] for s in e["sizes"]] == pytest.approx(stats[1].tolist())
    assert len(e["skip_bigrams"]) == 10 == stats[0][1]
    assert "the cat" in e["skip_bigrams"] and "cat .. mat" in e["skip_bigrams"] and "sat .. mat" not in e["skip_bigrams"]
    assert m.explain("zzz", "the cat")["alignment"] == []
    crossed = m.explain("mat the cat", "the cat mat")        # three matches, one pair in the same order
    assert len(crossed["alignment"]) == 3 and crossed["skip_bigrams"] == ["the cat"]
    assert crossed["sizes"][1]["common"] == 1
