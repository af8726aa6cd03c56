"""chrF and chrF++ are points of BLANC's parameter space: with no ACS sizes, six
character orders weighted 1 (and two chrF++ word orders), beta_F = 2, BLANC's sentence and corpus
scores are sacrebleu 2.6.0's CHRF() and CHRF(word_order=2) scores / 100, on real WMT22 segments."""
import gzip

import pytest
from sacrebleu.metrics import CHRF

from textqa.models.blanc.metric import BLANC, BLANCParams
from textqa.models.blanc.store import load_blanc, save_blanc
from textqa.runtime.paths import DATA_DIR

CHRF_POINT = dict(size_weights=(), char_weights=(1.0,) * 6, beta_f=2.0)
CHRF_PP_POINT = dict(CHRF_POINT, word_ngram_weights=(1.0, 1.0))


@pytest.fixture(scope="module")
def pairs():
    """Every 20th row of the WMT22 DA set (3,033 pairs of four language pairs, real MT output)."""
    with gzip.open(DATA_DIR / "mt" / "wmt22_toen_da_seg.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        rows = [line.rstrip("\n").split("\t") for line in f]
    return [(r[5], r[4]) for r in rows[::20]]


@pytest.mark.parametrize("point, peer", [(CHRF_POINT, CHRF()), (CHRF_PP_POINT, CHRF(word_order=2))],
                         ids=["chrF", "chrF++"])
def test_a_point_of_blanc_is_sacrebleu_s_metric(pairs, point, peer):
    metric = BLANC(BLANCParams(**point))
    worst = max(abs(metric.sentence_score(h, [r]).score - peer.sentence_score(h, [r]).score / 100) for h, r in pairs)
    assert worst < 1e-6
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    assert metric.corpus_score(hyps, [[r] for r in refs]).score == pytest.approx(
        peer.corpus_score(hyps, [refs]).score / 100, abs=1e-6)


def test_case_and_whitespace_are_handled_as_chrf_does():
    metric = BLANC(BLANCParams(**CHRF_POINT))
    assert metric.sentence_score("The  cat\tsat", ["thecat sat"]).score == pytest.approx(
        CHRF().sentence_score("The  cat\tsat", ["thecat sat"]).score / 100, abs=1e-12)
    lower = BLANC(BLANCParams(**CHRF_POINT, char_lowercase=True))
    assert lower.sentence_score("The Cat", ["the cat"]).score == 1.0


def test_the_signature_names_the_character_level_and_params_round_trip(tmp_path):
    params = BLANCParams(**CHRF_PP_POINT, char_alpha=0.7, char_max_gap=2)
    sig = BLANC(params).signature
    assert "|c:1,1,1,1,1,1|ca:0.7|cg:2|wn:1,1|clc:no|" in sig and "|w:none|" in sig
    save_blanc(params, tmp_path / "blanc")
    assert load_blanc(tmp_path / "blanc").params == params


def test_bad_character_parameters_are_refused():
    for bad in (dict(size_weights=(), char_weights=()), dict(char_weights=(1.0,), char_max_gap=7),
                dict(char_weights=(-1.0,)), dict(char_alpha=-0.1)):
        with pytest.raises(ValueError):
            BLANCParams(**bad)
