"""textqa.evaluation.mt: corpus BLEU/chrF by hand, system-level grouping, the bootstrap interval."""
import numpy as np
import pytest
from scipy.stats import pearsonr

from textqa.evaluation.mt import MTRow, average_pearson_ci, corpus_bleu, corpus_chrf, per_pair_correlation, read_mt_tsv, \
    system_level
from textqa.paths import DATA_DIR


def test_corpus_bleu_pools_ngram_counts_by_hand():
    # "a b c d e" vs "a b c d f": p1..p4 = 4/5, 3/4, 2/3, 1/2, equal lengths (BP 1)
    assert corpus_bleu(["a b c d e"], ["a b c d f"]) == pytest.approx(100 * (4 / 5 * 3 / 4 * 2 / 3 * 1 / 2) ** 0.25)
    # adding "x y" vs "x z" pools the counts: 5/7, 3/5, 2/3, 1/2 (not the mean of two sentence scores)
    assert corpus_bleu(["a b c d e", "x y"], ["a b c d f", "x z"]) == pytest.approx(
        100 * (5 / 7 * 3 / 5 * 2 / 3 * 1 / 2) ** 0.25)
    # brevity penalty: hypothesis of 4 words against 5, exp(1 - 5/4)
    assert corpus_bleu(["a b c d"], ["a b c d e"]) == pytest.approx(100 * np.exp(1 - 5 / 4))


def test_corpus_chrf_by_hand():
    # chrF (beta 2, character 1-6-grams, spaces removed): per-order F averaged over the orders both sides have.
    # "abc" vs "abd": unigrams 2/3, bigrams 1/2, trigrams 0 (P = R at each order)
    assert corpus_chrf(["abc"], ["abd"]) == pytest.approx(100 * (2 / 3 + 1 / 2 + 0) / 3)
    # pooled with "xy" vs "xz": unigrams 3/5, bigrams 1/3, trigrams 0/1
    assert corpus_chrf(["abc", "xy"], ["abd", "xz"]) == pytest.approx(100 * (3 / 5 + 1 / 3 + 0) / 3)
    assert corpus_chrf(["same words"], ["same words"]) == pytest.approx(100.0)


def _row(lp, system, human, hyp="h", ref="r", i=0):
    return MTRow(lp, str(i), system, "s", ref, hyp, human, i + 2)


def test_system_level_groups_by_pair_and_system():
    rows = [_row("de-en", "B", 0.5, "x y", i=0), _row("de-en", "A", 1.0, "x", i=1), _row("de-en", "B", -0.5, "z", i=2),
            _row("cs-en", "A", None, "q", i=3), _row("de-en", "A", 0.0, "w", i=4)]
    seen = []

    def metric(hyps, refs):
        seen.append(list(hyps))
        return float(len(" ".join(hyps)))

    keys, scores = system_level(rows, {"len": metric})
    # sorted by (pair, system); human = mean of the system's rows; cs-en/A has no human score: left out
    assert keys == [("de-en", "A", 0.5), ("de-en", "B", 0.0)]
    assert scores == {"len": [3.0, 5.0]}               # "x w" and "x y z": each system's own segments, in order
    assert ["x", "w"] in seen and ["x y", "z"] in seen


def test_average_pearson_ci_on_real_judgments():
    rows = read_mt_tsv(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz")
    rng = np.random.default_rng(1)
    scores = [r.human_score + rng.normal(0, 1.0) for r in rows]       # a noisy "metric"
    point = per_pair_correlation(rows, scores)["average"]
    pairs = sorted({r.lang_pair for r in rows})
    assert point == pytest.approx(np.mean([pearsonr([s for s, r in zip(scores, rows) if r.lang_pair == lp],
                                                    [r.human_score for r in rows if r.lang_pair == lp]).statistic
                                           for lp in pairs]))
    lo, hi = average_pearson_ci(rows, scores, n_resamples=300, seed=0)
    assert lo < point < hi and 0.02 < hi - lo < 0.5
    assert average_pearson_ci(rows, scores, n_resamples=300, seed=0) == (lo, hi)     # seeded: reproducible
    assert average_pearson_ci(rows, scores, n_resamples=300, seed=1) != (lo, hi)
    exact = [r.human_score for r in rows]
    assert average_pearson_ci(rows, exact, n_resamples=50) == pytest.approx((1.0, 1.0))
