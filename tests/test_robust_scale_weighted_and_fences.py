"""Gaps in robust_scale.py, from mutation testing.

* weighted_mad with frequency weights must be the MAD of the rows repeated w_i times,
  about the *weighted* median (centring on the unweighted median went unnoticed);
* scores_scale falls back, where the MAD is zero, to the mean absolute deviation times
  sqrt(pi/2) (a normal's standard deviation); dropping the factor went unnoticed;
* skewed_cutoff is rrcov's .crit.od(method="skewed"): the largest value strictly below
  the fence. Reference from R (rrcov 1.7-2; script: tests/reference/inline_values/make_values.R):
      od <- c(0,1,2,6,8,8,9,9,11,12,19); rrcov:::.crit.od(od, method="skewed")  # 12
  (here the fence is exactly 19; "<=" instead of "<" gave 19 and went unnoticed).
"""

import numpy as np
import pytest

from robustpca.robust_scale import mad, scores_scale, skewed_cutoff, weighted_mad


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_mad_equals_mad_of_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_t(2, size=(15, 3))
    w = rng.integers(1, 6, 15)
    w[:3] = 9  # weights that move the median away from the unweighted one
    np.testing.assert_allclose(
        weighted_mad(x, w.astype(float)), mad(np.repeat(x, w, axis=0)), rtol=1e-12
    )


def test_scores_scale_falls_back_to_the_scaled_mean_absolute_deviation():
    scores = np.array([[0.0], [0.0], [0.0], [0.0], [0.0], [1.0], [-3.0]])
    centre = np.zeros(1)
    expected = np.sqrt(np.pi / 2.0) * (4.0 / 7.0)
    np.testing.assert_allclose(scores_scale(scores, centre, None), [expected], rtol=1e-12)


def test_skewed_cutoff_is_strictly_below_the_fence_as_rrcov():
    od = np.array([0, 1, 2, 6, 8, 8, 9, 9, 11, 12, 19], dtype=float)
    assert skewed_cutoff(od) == 12.0
