"""Official nugget F (Marton & Radul 2006 figure 3): hand-computed cases on the figure-1 key."""
import pytest

from evaluation.nugget import f_beta, non_whitespace_length, official_f, pyramid_f


def test_figure_1_key_hand_computed():
    # Fermi key (figure 1): 3 vital, 4 okay. A 250-character answer with vital #1 and okay #3:
    # recall 1/3, allowance 200, precision 1 - 50/250 = 0.8, F(3) = 10 * 0.8 / 3 / (9 * 0.8 + 1/3)
    r = official_f(vital_returned=1, okay_returned=1, vital_total=3, length=250)
    assert r["recall"] == pytest.approx(1 / 3) and r["precision"] == pytest.approx(0.8)
    assert r["f"] == pytest.approx((10 * 0.8 / 3) / (9 * 0.8 + 1 / 3))


def test_short_answer_full_precision_and_edges():
    assert official_f(3, 0, 3, 299)["f"] == 1.0                 # under the allowance: P = 1, R = 1
    assert official_f(0, 2, 3, 150)["f"] == 0.0                 # okay nuggets add allowance, not recall
    assert official_f(0, 0, 3, 0)["precision"] == 0.0
    assert official_f(0, 1, 0, 10)["recall"] == 0.0            # a key without vital nuggets
    with pytest.raises(ValueError):
        official_f(4, 0, 3, 10)


def test_beta_one_is_harmonic_mean():
    assert f_beta(0.5, 1.0, beta=1) == pytest.approx(2 / 3)


def test_pyramid():
    # weights 1, 0.5, 0.25; returned the 0.5 and 0.25 nuggets in 100 characters
    r = pyramid_f([0.5, 0.25], [1.0, 0.5, 0.25], length=100)
    assert r["recall"] == pytest.approx(0.75 / 1.75) and r["precision"] == 1.0


def test_length_ignores_whitespace():
    assert non_whitespace_length(" a b\tc\n ") == 3
