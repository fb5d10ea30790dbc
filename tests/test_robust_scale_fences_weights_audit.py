"""Gaps in robust_scale.py found by mutation testing (second audit).

* skewed_cutoff is rrcov's .crit.od(method="skewed"): the factor exp(3 MC) applies only
  to a non-negative medcouple (1 otherwise). References from R (rrcov 1.7-2,
  robustbase 0.99; script: tests/reference/inline_values/make_values.R):
      x <- c(1, 2, 3, 4, 5, 6, 8, 11, 15, 22, 100)
      rrcov:::.crit.od(x, method = "skewed")    # 22   (mc(x) = 0.5119)
      y <- c(-40, -22, -15, -11, -8, -6, -5, -4, -3, -2, -1, 5)
      rrcov:::.crit.od(y, method = "skewed")    # 5    (mc(y) = -0.4183)
  exp(3 MC) for a negative medcouple gave -1 for y, exp(4 MC) gave 100 for x, and
  neither was noticed;
* with ``sample``, the medcouple is that of the sampled values and the quartiles are
  those of all of them (ignoring ``sample`` went unnoticed). From R:
      x <- c(1, 2, 3, 4, 5, 6, 8, 11, 15, 22, 60); m <- mc(x[1:8])    # 0.08333
      f <- quantile(x, .75) + 1.5 * exp(3 * m) * IQR(x); max(x[x < f])  # 22
      rrcov:::.crit.od(x, method = "skewed")                            # 60
* weighted_median's margin around half the total weight is capped below half a unit,
  so whole weights of any size give the median of the repeated rows (a cap of 0.75
  instead of 0.25 went unnoticed: it gives 2.5 below);
* scores_scale's fallback (MAD zero) is the *weighted* mean absolute deviation, so that
  frequency weights equal repeated rows there too;
* is_whole: NaN and infinity are not whole numbers (its docstring).
"""

import numpy as np
import pytest

from robustpca.robust_scale import (
    is_whole,
    scores_scale,
    skewed_cutoff,
    weighted_median,
)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1, 2, 3, 4, 5, 6, 8, 11, 15, 22, 100], 22.0),  # MC > 0: fence 79.19
        ([-40, -22, -15, -11, -8, -6, -5, -4, -3, -2, -1, 5], 5.0),  # MC < 0: fence 11.125
    ],
)
def test_skewed_cutoff_equals_rrcov_for_either_sign_of_the_medcouple(values, expected):
    """The adjusted-boxplot cutoff equals rrcov's .crit.od(method="skewed") on a
    right-skewed sample (exp(3 MC) sets the fence) and a left-skewed one (factor 1)."""
    assert skewed_cutoff(np.asarray(values, dtype=float)) == expected


def test_skewed_cutoff_takes_the_medcouple_of_the_sample_only():
    """With ``sample`` (mask or indices) the medcouple is that of the sampled values, the
    quartiles those of all the values: the fence falls from 79 to 31.3 (R, above)."""
    x = np.array([1, 2, 3, 4, 5, 6, 8, 11, 15, 22, 60], dtype=float)
    mask = np.arange(x.size) < 8
    assert skewed_cutoff(x) == 60.0
    assert skewed_cutoff(x, mask) == 22.0
    assert skewed_cutoff(x, np.flatnonzero(mask)) == 22.0


def test_weighted_median_of_huge_whole_weights_is_that_of_the_repeated_rows():
    """2e10 + 1 rows: 0 and 5 repeated 1e10 times each, 1 once. The median is the middle
    row, 1; the rounding margin around half the total must stay below half a unit."""
    x = np.array([0.0, 1.0, 5.0])
    w = np.array([1e10, 1.0, 1e10])
    assert float(weighted_median(x, w)) == 1.0
    assert float(weighted_median(x[::-1], w[::-1])) == 1.0


def test_scores_scale_fallback_with_weights_equals_repeated_rows():
    """Where the weighted MAD is zero, the scale is sqrt(pi/2) times the *weighted* mean
    absolute deviation: the scale of the rows repeated w_i times (0.7 here, not the
    unweighted 0.8)."""
    scores = np.array([[0.0], [0.0], [0.0], [1.0], [-3.0]])
    w = np.array([5, 1, 1, 1, 2])
    centre = np.zeros(1)
    repeated = scores_scale(np.repeat(scores, w, axis=0), centre, None)
    np.testing.assert_allclose(repeated, [np.sqrt(np.pi / 2.0) * 0.7], rtol=1e-12)
    np.testing.assert_allclose(scores_scale(scores, centre, w.astype(float)), repeated, rtol=1e-12)


def test_is_whole_refuses_nan_and_infinity():
    """Whole numbers are frequencies; NaN and +-inf are not (is_whole's docstring)."""
    w = np.array([0.0, 1.0, -3.0, 2.5, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(is_whole(w), [True, True, True, False, False, False, False])
