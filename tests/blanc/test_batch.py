"""PairBatch (numba, used for training and bulk scoring) gives exactly BLANC.sentence_score's statistics.

Training learns BLANC's parameters on these batched statistics and the reports correlate them, so
they must equal the per-pair path (``BLANC.pair_stats``) for every setting of alpha, beta, the
partial-match weight, the gap side and the matching policy.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from textqa.models.blanc.batch import PairBatch
from textqa.models.blanc.metric import BLANC, BLANCParams

# words with exact repeats, shared 4-letter prefixes (translation/translated), Porter-stem matches
# (evaluate/evaluating) and character look-alikes (colour/color), so every kind of match occurs
WORDS = "the a cat cats sat mat on , . translation translated translations evaluate evaluating colour color".split()
sentences = st.lists(st.sampled_from(WORDS), min_size=0, max_size=10)
GRID = st.sampled_from([0.0, 0.05, 0.2, 0.8, 1.6])


@settings(max_examples=120, deadline=None)
@given(pairs=st.lists(st.tuples(sentences, sentences), min_size=1, max_size=5), alpha=GRID, beta=GRID,
       partial_weight=st.sampled_from([0.0, 0.35, 1.0]), gap_side=st.sampled_from(["max", "hyp", "ref"]),
       matching=st.sampled_from(["one-to-one", "all"]), max_k=st.integers(1, 4))
def test_batch_stats_equal_sentence_stats(pairs, alpha, beta, partial_weight, gap_side, matching, max_k):
    params = BLANCParams(alpha=alpha, beta=beta, partial_weight=partial_weight, gap_side=gap_side,
                         matching=matching, size_weights=[1.0] * max_k, tokenize="none")
    metric = BLANC(params)
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    batch = PairBatch(hyps, refs, matching, params.prefix_len, partial=partial_weight > 0)
    got = batch.stats(alpha, beta, partial_weight, max_k, gap_side)
    expected = np.stack([metric.pair_stats(h, r) for h, r in pairs])
    assert got.shape == (len(pairs), 3, max_k)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_batch_f_equals_sentence_score_on_real_segments():
    """On real WMT-style text through the 13a tokenizer: F from batched statistics = sentence_score."""
    import gzip

    from textqa.runtime.paths import DATA_DIR
    rows = [l.split("\t") for l in gzip.open(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz", "rt",
                                             encoding="utf-8").read().splitlines()[1:61]]
    params = BLANCParams(alpha=0.1, beta=0.3, partial_weight=0.5, size_weights=(0.4, 0.3, 0.2, 0.1), beta_f=2.0)
    metric = BLANC(params)
    hyps, refs = [r[5] for r in rows], [r[4] for r in rows]
    batch = PairBatch([metric.tokens(h) for h in hyps], [metric.tokens(r) for r in refs])
    f = metric.scores_from_stats(batch.stats(params.alpha, params.beta, params.partial_weight, params.max_k))
    expected = [metric.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    assert f == pytest.approx(expected, abs=1e-12)
    assert len(set(np.round(f, 6))) > 50                      # real, varied scores, not a degenerate case
