"""ACS (Lita, Rogati & Lavie 2005, section 2): the paper's examples, brute force and reference counts."""
import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.helpers import extract_all_word_ngrams

from textqa.models.blanc.acs import (GAP_SIDES, common_skip_ngram_mass, exact_match_matrix, lcs_length,
                              own_skip_ngram_mass)


def brute_force(X, Y, k, alpha=0.0, beta=0.0, gap_side="max", M=None):
    """Every pair of index k-subsequences with equal words, weighted per eq. 1-6 directly."""
    M = exact_match_matrix(X, Y) if M is None else M
    total = 0.0
    for xi in itertools.combinations(range(len(X)), k):
        for yi in itertools.combinations(range(len(Y)), k):
            node = np.prod([M[a, b] for a, b in zip(xi, yi)])
            if node == 0:
                continue
            w = node
            for i in range(k - 1):
                gx, gy = xi[i + 1] - xi[i] - 1, yi[i + 1] - yi[i] - 1
                g = {"max": max(gx, gy), "hyp": gy, "ref": gx}[gap_side]
                w *= math.exp(-alpha * g) * math.exp(-beta * abs(gx - gy))
            total += w
    return total


def test_to_be_or_not_to_be_has_15_skip_bigrams_and_15_skip_4grams():
    own = own_skip_ngram_mass(6, alpha=0.0, max_k=6)
    assert own[1] == 15 and own[3] == 15 and own.tolist() == [math.comb(6, k) for k in range(1, 7)]
    # "three occurrences of 'to be'": skip-bigram (to, be) in X matched against itself word by word
    X = "to be or not to be".split()
    bigrams = Counter((X[i], X[j]) for i, j in itertools.combinations(range(6), 2))
    assert bigrams[("to", "be")] == 3 and sum(bigrams.values()) == 15


def test_paper_example_matches_of_step_1():
    X, Y = "to be or not to be".split(), "to exist or not be".split()
    M = exact_match_matrix(X, Y)
    found = {(X[x], x + 1, y + 1) for x, y in zip(*np.nonzero(M))}
    assert {("to", 1, 1), ("to", 5, 1), ("or", 3, 3), ("be", 2, 5)} <= found
    assert len(found) == 6                            # to x2, be x2, or, not
    counts = common_skip_ngram_mass(M)
    assert counts[0] == 6 and counts[3] == brute_force(X, Y, 4) and counts[4] == 0


def test_paper_worked_example_gap_weights():
    R0 = "machine translated text is evaluated automatically".split()
    K1 = "machine translated stories are chosen automatically".split()
    K2 = ("machine and human together can forge a friendship that cannot be translated into words "
          "automatically").split()
    alpha = 0.1
    # "machine translated automatically" is the only common skip-3gram; weight e^{-3 alpha} in K1 ...
    k1 = common_skip_ngram_mass(exact_match_matrix(R0, K1), alpha, 0.0, 3, gap_side="hyp")
    assert k1[2] == pytest.approx(math.exp(-3 * alpha))
    # ... and e^{-12 alpha} in K2 (gaps of 10 and 2 words), measured in the candidate (gap_side hyp)
    k2 = common_skip_ngram_mass(exact_match_matrix(R0, K2), alpha, 0.0, 3, gap_side="hyp")
    assert k2[2] == pytest.approx(math.exp(-12 * alpha))
    # delta (eq. 4-5): |0 - 10| + |3 - 2| = 11 gap-difference units between R0 and K2
    k2d = common_skip_ngram_mass(exact_match_matrix(R0, K2), 0.0, 0.2, 3)
    assert k2d[2] == pytest.approx(math.exp(-11 * 0.2))


sentences = st.lists(st.sampled_from("a b c d".split()), min_size=0, max_size=7)


@settings(max_examples=60, deadline=None)
@given(sentences, sentences)
def test_unweighted_counts_equal_brute_force_common_subsequences(X, Y):
    counts = common_skip_ngram_mass(exact_match_matrix(X, Y), 0.0, 0.0, max_k=min(len(X), len(Y)))
    for k in range(1, min(len(X), len(Y)) + 1):
        assert counts[k - 1] == brute_force(X, Y, k)
    nonzero = [k for k in range(1, len(counts) + 1) if counts[k - 1] > 0]
    assert (max(nonzero) if nonzero else 0) == lcs_length(X, Y)


@settings(max_examples=60, deadline=None)
@given(sentences, sentences, st.floats(0, 2), st.floats(0, 2), st.sampled_from(GAP_SIDES))
def test_weighted_counts_equal_brute_force(X, Y, alpha, beta, gap_side):
    k = min(len(X), len(Y), 4)
    counts = common_skip_ngram_mass(exact_match_matrix(X, Y), alpha, beta, max_k=k, gap_side=gap_side)
    for size in range(1, k + 1):
        assert counts[size - 1] == pytest.approx(brute_force(X, Y, size, alpha, beta, gap_side), rel=1e-9, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.floats(0, 3), st.floats(0, 3), st.sampled_from(GAP_SIDES),
       st.integers(0, 10_000))
def test_grid_recurrence_equals_dense_dag(m, n, alpha, beta, gap_side, seed):
    rng = np.random.default_rng(seed)
    M = np.where(rng.random((m, n)) < 0.4, rng.uniform(0.2, 1.0, (m, n)), 0.0)    # node weights (eq. 6)
    grid = common_skip_ngram_mass(M, alpha, beta, gap_side=gap_side, method="grid")
    dense = common_skip_ngram_mass(M, alpha, beta, gap_side=gap_side, method="dense")
    np.testing.assert_allclose(grid, dense, rtol=1e-9, atol=1e-12)


def test_worst_case_of_repeated_words_agrees_between_methods():
    M = np.ones((50, 50))            # 2,500 matches: the paper's worst case (2.3.4)
    grid = common_skip_ngram_mass(M, 0.1, 0.2, method="grid")
    dense = common_skip_ngram_mass(M, 0.1, 0.2, method="dense")
    np.testing.assert_allclose(grid, dense, rtol=1e-9)
    assert common_skip_ngram_mass(M)[1] == math.comb(50, 2) ** 2      # alpha = beta = 0: C(50,2)^2 pairs


@settings(max_examples=40, deadline=None)
@given(sentences, sentences)
def test_large_alpha_leaves_contiguous_ngram_overlap(X, Y):
    # section 3: alpha -> infinity counts the n-grams contiguous in both sentences (sacrebleu's extraction)
    k = min(len(X), len(Y), 4)
    counts = common_skip_ngram_mass(exact_match_matrix(X, Y), 60.0, 0.0, max_k=k)
    cx, _ = extract_all_word_ngrams(" ".join(X), 1, 4)
    cy, _ = extract_all_word_ngrams(" ".join(Y), 1, 4)
    for size in range(1, k + 1):
        expected = sum(c * cy[g] for g, c in cx.items() if len(g) == size)
        assert counts[size - 1] == pytest.approx(expected, abs=1e-12)


def rouge_s(X, Y):
    """ROUGE-S (Lin 2004) from its definition: clipped common skip-bigram count, C(n, 2) denominators."""
    sx = Counter(itertools.combinations(X, 2))
    sy = Counter(itertools.combinations(Y, 2))
    common = sum(min(c, sy[g]) for g, c in sx.items())
    return common, common / math.comb(len(Y), 2), common / math.comb(len(X), 2)


@settings(max_examples=40, deadline=None)
@given(st.permutations(list("abcdefgh")), st.integers(2, 8), st.integers(2, 8))
def test_rouge_s_special_case(words, m, n):
    # without repeated words, k = 2 with alpha = beta = 0 is ROUGE-S: same count, same P and R
    X, Y = words[:m], list(reversed(words))[:n]
    common2 = common_skip_ngram_mass(exact_match_matrix(X, Y), 0.0, 0.0, max_k=2)[1]
    ref_common, ref_p, ref_r = rouge_s(X, Y)
    assert common2 == ref_common
    assert common2 / own_skip_ngram_mass(n, 0.0, 2)[1] == pytest.approx(ref_p)
    assert common2 / own_skip_ngram_mass(m, 0.0, 2)[1] == pytest.approx(ref_r)
    from textqa.models.blanc.metric import rouge_s as acs_rouge_s
    r = acs_rouge_s(Y, X)
    assert (r["skip2"], r["precision"], r["recall"]) == pytest.approx((ref_common, ref_p, ref_r))


def test_empty_sentences_and_bad_options():
    assert common_skip_ngram_mass(np.zeros((0, 3)), max_k=2).tolist() == [0.0, 0.0]
    assert own_skip_ngram_mass(0, 0.0, 3).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="gap_side"):
        common_skip_ngram_mass(np.ones((2, 2)), gap_side="left", method="grid")
    with pytest.raises(ValueError, match="method"):
        common_skip_ngram_mass(np.ones((2, 2)), method="fast")
