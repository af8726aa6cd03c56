"""Clipped skip-n-gram statistics (textqa.models.blanc.clipped): the compiled version against the
dictionary oracle, and chrF's / chrF++'s own statistics (sacrebleu 2.6.0) on real WMT22 segments."""
import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF

from textqa.models.blanc.clipped import (chrf_chars, chrf_words, clipped_stats, clipped_stats_reference)
from textqa.runtime.paths import DATA_DIR


@pytest.fixture(scope="module")
def wmt22_pairs():
    """2,000 real (hypothesis, reference) pairs of the WMT22 DA set, all four language pairs' first rows."""
    with gzip.open(DATA_DIR / "mt" / "wmt22_toen_da_seg.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        rows = [line.rstrip("\n").split("\t") for line in f]
    by_pair: dict = {}
    for r in rows:
        by_pair.setdefault(r[0], []).append((r[5], r[4]))
    return [p for pairs in by_pair.values() for p in pairs[:500]]


UNITS = st.lists(st.sampled_from("aabcé€"), max_size=14)


@settings(max_examples=300, deadline=None)
@given(h=UNITS, r=UNITS, max_n=st.integers(1, 5), max_gap=st.integers(0, 3),
       alpha=st.floats(0, 3, allow_nan=False), as_text=st.booleans())
def test_compiled_equals_the_dictionary_oracle(h, r, max_n, max_gap, alpha, as_text):
    hyp, ref = ("".join(h), "".join(r)) if as_text else (h, r)
    got = clipped_stats(hyp, ref, max_n, alpha, max_gap)
    assert np.allclose(got, clipped_stats_reference(hyp, ref, max_n, alpha, max_gap), rtol=1e-12, atol=1e-12)
    assert (got[0] <= np.minimum(got[1], got[2]) + 1e-9).all()         # clipped: never above either side


def test_gaps_count_skip_ngrams_discounted():
    """'abc' vs 'ac': with one skipped unit allowed, 'ac' occurs in 'abc' with gap 1 (mass e^-alpha)."""
    s = clipped_stats("abc", "ac", 2, alpha=1.0, max_gap=1)
    assert s[0, 1] == pytest.approx(np.exp(-1.0)) and s[1, 1] == pytest.approx(2 + np.exp(-1.0))
    assert clipped_stats("abc", "ac", 2)[0, 1] == 0.0               # contiguous only: no common bigram


def _sacrebleu_stats(metric, hyp, ref):
    """sacrebleu's [order, (hyp, ref, match)] statistics of one pair."""
    return np.array(metric._extract_corpus_statistics([hyp], [[ref]])[0], dtype=float).reshape(-1, 3)


def test_character_statistics_are_chrf_s(wmt22_pairs):
    chrf = CHRF()
    for hyp, ref in wmt22_pairs:
        ours = clipped_stats(chrf_chars(hyp), chrf_chars(ref), 6)
        theirs = _sacrebleu_stats(chrf, hyp, ref)
        ours[1, ours[2] == 0] = 0.0          # sacrebleu's convention: no hypothesis count for an order
        assert np.array_equal(ours, theirs[:, [2, 0, 1]].T), (hyp, ref)   # the reference lacks


def test_word_statistics_are_chrf_plus_plus_s(wmt22_pairs):
    chrfpp = CHRF(word_order=2)
    for hyp, ref in wmt22_pairs:
        ours = clipped_stats(chrf_words(hyp), chrf_words(ref), 2)
        theirs = _sacrebleu_stats(chrfpp, hyp, ref)[6:]
        ours[1, ours[2] == 0] = 0.0
        assert np.array_equal(ours, theirs[:, [2, 0, 1]].T), (hyp, ref)


def test_an_alphabet_too_large_to_pack_gives_the_same_numbers():
    """1,500 distinct characters need 11 bits, 66 for a 6-gram: the dictionary path takes over."""
    text = "".join(chr(0x4E00 + i) for i in range(1500))
    s = clipped_stats(text, text[:700] + text[800:], 6)
    assert s[0, 0] == 1400 and s[0, 5] == 700 - 5 + 700 - 5 and s[1, 0] == 1500


def test_a_strided_block_is_counted_as_a_contiguous_one_by_one_compiled_version():
    """``clipped_into`` a column view of a wider block (as BLANC fills its statistics) adds what
    ``clipped_stats`` returns, without numba compiling a second, strided version of its functions."""
    from textqa.models.blanc import clipped
    hyp, ref = "the cat sat on the mat", "a cat sat on a mat"
    wide = np.full((3, 9), 7.0)
    wide[:, 2:6] = 0.0
    clipped.clipped_into(wide[:, 2:6], hyp, ref, 4, 0.5, 2, chrf=True)
    expected = clipped_stats(hyp, ref, 4, 0.5, 2)
    clipped._chrf_convention(expected)
    assert np.array_equal(wide[:, 2:6], expected) and (wide[:, :2] == 7).all() and (wide[:, 6:] == 7).all()
    clipped.clipped_into(wide[:, 6:8], hyp.split(), ref.split(), 2)
    assert np.array_equal(wide[:, 6:8], 7 + clipped_stats(hyp.split(), ref.split(), 2))
    for f in (clipped._code_stats, clipped._clipped, clipped._contiguous_clipped, clipped._chrf_convention):
        assert all(sig[-1].layout == "C" for sig in f.signatures if len(sig)), (f, f.signatures)
