"""mteval-v13a NIST/BLEU against the official output shipped with the data, and the MT baselines."""
import pytest
import sacrebleu

from textqa.errors import InputError
from textqa.evaluation.mt import per_pair_correlation, read_mt_tsv, sentence_rouge_l, sentence_scores_and_statistics
from textqa.evaluation.mteval import ascii_lowercase, nist_bleu, read_sgml, score_sgml
from textqa.runtime.paths import DATA_DIR

D = DATA_DIR / "eval" / "bleu_nist" / "newstest2015-100sents-enru-"


def test_official_mteval_numbers_reproduce():
    r = score_sgml(f"{D}src.en.sgm", f"{D}ref.ru.sgm", f"{D}google.ru.sgm")
    # mteval-13a.output: NIST = 5.0564  BLEU = 0.2318, length ratio 1998/1862, individual n-gram scores
    assert round(r["nist"], 4) == 5.0564 and round(r["bleu"], 4) == 0.2318
    assert [round(x, 4) for x in r["nist_individual"]] == [4.4488, 0.5554, 0.0477, 0.0045, 0.0]
    assert [round(x, 4) for x in r["bleu_individual"]] == [0.5415, 0.2972, 0.1752, 0.1025]
    assert (r["hyp_words"], r["ref_words"]) == (1998, 1862)


def test_bleu_equals_sacrebleu_on_the_same_input():
    test, ref = read_sgml(f"{D}google.ru.sgm"), read_sgml(f"{D}ref.ru.sgm")
    keys = list(ref)
    hyps, refs = [test[k] for k in keys], [ref[k] for k in keys]
    ours = nist_bleu(hyps, [[r] for r in refs])["bleu"]
    theirs = sacrebleu.corpus_bleu([ascii_lowercase(h) for h in hyps], [[ascii_lowercase(r) for r in refs]],
                                   tokenize="13a").score / 100
    assert ours == pytest.approx(theirs, abs=1e-4)


def test_nist_hand_computed():
    # ref "a b a": counts a 2, b 1, ab 1, ba 1 over 3 words -> info(a) = log2(3/2), info(b) = log2 3,
    # info(ab) = log2(2/1) = 1, info(ba) = log2(1/1) = 0.  hyp "a b": 1-grams log2(1.5) + log2(3) over 2;
    # 2-grams (1 + 0 matched ab only) over 1 -> 1; length 2/3 -> penalty exactly 0.5
    import math
    r = nist_bleu(["a b"], [["a b a"]], max_n_nist=2)
    expected = ((math.log2(1.5) + math.log2(3)) / 2 + 1.0) * 0.5
    assert r["nist"] == pytest.approx(expected)


def test_sgml_errors(tmp_path):
    bad = tmp_path / "x.sgm"
    bad.write_text('<refset>\n<seg id="1">x</seg>\n', encoding="utf-8")
    with pytest.raises(InputError, match="x.sgm:2: <seg> outside a <doc>"):
        read_sgml(bad)


def test_baselines_equal_their_libraries_and_correlate():
    rows = read_mt_tsv(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz")[:140]
    hyps, refs = [r.hypothesis for r in rows], [r.reference for r in rows]
    sentence = {m: sentence_scores_and_statistics(m, hyps[:3], refs[:3])[0].tolist() for m in ("sentbleu", "chrf")}
    assert sentence["sentbleu"] == [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps[:3], refs[:3])]
    assert sentence["chrf"] == [sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hyps[:3], refs[:3])]
    corr = per_pair_correlation(rows, sentence_rouge_l(hyps, refs))
    assert set(corr) == {"cs-en", "de-en", "average"}
    assert corr["average"] == pytest.approx((corr["cs-en"] + corr["de-en"]) / 2)
