"""Correlation helpers: hand-computed cases."""
import math

import numpy as np
import pytest

from textqa.evaluation.stats import bootstrap_ci, kendall_tau_b, pearson, rmse, spearman


def test_hand_computed():
    x, y = [1, 2, 3, 4], [2, 4, 6, 8]
    assert pearson(x, y) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(1 - 6 * 2 / (4 * 15))
    assert rmse([0, 0], [3, 4]) == pytest.approx(math.sqrt(12.5))


def test_kendall_tau_b_with_ties():
    # 6 pairs: (2,3) tied in x, (2,4) tied in y, the other 4 concordant, none discordant:
    # tau_b = (4 - 0) / sqrt((6 - 1) * (6 - 1)) = 0.8
    assert kendall_tau_b([1, 2, 2, 3], [1, 3, 2, 3]) == pytest.approx(0.8)


def test_bootstrap_contains_estimate_and_is_reproducible():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = x + rng.normal(scale=0.5, size=200)
    lo, hi = bootstrap_ci(pearson, x, y, n_resamples=300)
    assert lo < pearson(x, y) < hi and hi - lo < 0.2
    assert bootstrap_ci(pearson, x, y, n_resamples=300) == (lo, hi)


def test_bad_input():
    with pytest.raises(ValueError):
        pearson([1, 2], [1])
    with pytest.raises(ValueError):
        rmse([1], [1])
