"""textqa.evaluation.mt: corpus BLEU/chrF (from summed segment statistics) by hand, system-level
grouping, the bootstrap interval."""
import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr

from textqa.evaluation.mt import MTRow, SystemLevel, bootstrap_average_pearsons, per_pair_correlation, read_mt_tsv, \
    score_from_statistics, segment_statistics, sentence_rouge_l, sentence_scores_and_statistics
from textqa.runtime.paths import DATA_DIR


def _corpus(name, hyps, refs):
    """A system's corpus score as the system level computes it: its segments' statistics summed."""
    return score_from_statistics(name)(segment_statistics(name, hyps, refs).sum(axis=0, keepdims=True))[0]


def corpus_bleu(hyps, refs):
    return _corpus("sentbleu", hyps, refs)


def corpus_chrf(hyps, refs):
    return _corpus("chrf", hyps, refs)


def average_pearson_ci(rows, scores, n_resamples, seed=0):
    lo, hi = np.percentile(bootstrap_average_pearsons(rows, [scores], n_resamples, seed)[:, 0], [2.5, 97.5])
    return float(lo), float(hi)


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
    # synthetic rows: the "metric" is the total hypothesis length of a system's segments
    rows = [_row("de-en", "B", 0.5, "x y", i=0), _row("de-en", "A", 1.0, "x", i=1), _row("de-en", "B", -0.5, "z", i=2),
            _row("cs-en", "A", None, "q", i=3), _row("de-en", "A", 0.0, "w", i=4), _row("de-en", "C", 2.0, "long", i=0),
            _row("cs-en", "A", 1.0, "abc", i=5), _row("cs-en", "B", 2.0, "a", i=5)]
    stats = np.array([[len(r.hypothesis)] for r in rows], dtype=float)
    t = SystemLevel(rows, {"len": (stats, lambda total: total[:, 0])}).table()
    # cs-en has 2 systems with human scores (fewer than 3): left out; its NA row is ignored
    # human = mean of the system's rows; the score sums its own segments
    assert t.systems == [("de-en", "A", 0.5), ("de-en", "B", 0.0), ("de-en", "C", 2.0)]
    assert t.scores == {"len": [2.0, 4.0, 4.0]}
    assert t.pearson["de-en"]["len"] == pytest.approx(pearsonr([2, 4, 4], [0.5, 0.0, 2.0]).statistic)
    assert t.kendall["de-en"]["len"] == pytest.approx(kendalltau([2, 4, 4], [0.5, 0.0, 2.0]).statistic)
    assert set(t.pearson) == {"de-en", "average"}


@pytest.mark.parametrize("name", ["sentbleu", "chrf", "chrf++", "rougeL"])
def test_segment_statistics_sum_to_the_corpus_score(name):
    rows = read_mt_tsv(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz")[:150]
    hyps, refs = [r.hypothesis for r in rows], [r.reference for r in rows]
    stats = segment_statistics(name, hyps, refs)
    f = score_from_statistics(name)
    for part in (slice(0, 150), slice(10, 57), slice(100, 101)):
        total = stats[part].sum(axis=0, keepdims=True)
        assert f(total)[0] == pytest.approx(_library_corpus_score(name, hyps[part], refs[part]), abs=1e-9)


@pytest.mark.parametrize("name", ["sentbleu", "chrf", "chrf++", "rougeL"])
def test_sentence_scores_from_the_statistics_are_sacrebleus_sentence_scores(name):
    """One pass gives both: each sentence score is, to the last bit, what the library's own
    ``sentence_score`` gives (BLEU with its effective order, not the corpus BLEU's settings), and
    the statistics are ``segment_statistics``'; an empty hypothesis scores 0."""
    rows = read_mt_tsv(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz")[:300]
    hyps, refs = [r.hypothesis for r in rows] + ["", "a b"], [r.reference for r in rows] + ["x y z", "a b c d"]
    scores, stats = sentence_scores_and_statistics(name, hyps, refs)
    assert scores.tolist() == _library_sentence_scores(name, hyps, refs)
    assert np.array_equal(stats, segment_statistics(name, hyps, refs))
    assert scores[-2] == 0.0 and len(set(scores.tolist())) > 100


def _library_sentence_scores(name, hyps, refs):
    """sacrebleu's own ``sentence_score`` per segment (sentence BLEU with its effective order);
    ROUGE-L's by ``sentence_rouge_l``; an empty hypothesis 0."""
    from sacrebleu.metrics import BLEU, CHRF
    if name == "rougeL":
        return [f if h.strip() else 0.0 for f, h in zip(sentence_rouge_l(hyps, refs), hyps)]
    metric = {"sentbleu": BLEU(effective_order=True), "chrf": CHRF(), "chrf++": CHRF(word_order=2)}[name]
    return [metric.sentence_score(h, [r]).score if h.strip() else 0.0 for h, r in zip(hyps, refs)]


def _library_corpus_score(name, hyps, refs):
    """sacrebleu's own corpus score; ROUGE-L's corpus score is the mean of its sentence scores."""
    from sacrebleu.metrics import BLEU, CHRF
    if name == "rougeL":
        return sum(sentence_rouge_l(hyps, refs)) / len(hyps)
    metric = {"sentbleu": BLEU(), "chrf": CHRF(), "chrf++": CHRF(word_order=2)}[name]
    return metric.corpus_score(hyps, [refs]).score


def test_system_bootstrap_resamples_segments_for_every_system_alike():
    rows = read_mt_tsv(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz")
    hyps, refs = [r.hypothesis for r in rows], [r.reference for r in rows]
    stats = {m: (segment_statistics(m, hyps, refs), score_from_statistics(m)) for m in ("chrf", "rougeL")}
    system = SystemLevel(rows, stats)
    t = system.table()
    boot = system.bootstrap(n_resamples=60, seed=3)
    assert boot.shape == (60, 2)
    for k, m in enumerate(("chrf", "rougeL")):
        lo, hi = np.percentile(boot[:, k], [2.5, 97.5])
        assert lo < t.pearson["average"][m] < hi and hi - lo > 0.01
    assert np.array_equal(boot, system.bootstrap(n_resamples=60, seed=3))
    # all-ones counts are the full test set: the bootstrap's scoring path gives the table's scores
    lp = next(iter(system.pairs))
    n_seg = next(iter(system.pairs[lp][2].values())).shape[1]
    full = system._scores(lp, np.ones(n_seg))
    assert list(full["chrf"]) == pytest.approx([s for (p, _, _), s in zip(t.systems, t.scores["chrf"]) if p == lp])


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
