"""pcaPP details of the projection-pursuit solvers (mutation audit).

The L1 median solved to rounding where Weiszfeld's iteration alone is slow or ends at a
data point; the grid search with an even number of angles (the current direction is
then not on the grid, so the best refinement is not always the last) against pcaPP
2.0-3's ``PCAgrid``; and the scales as the robust scales of the scores, for every
search and candidate set (R calls quoted next to the values; script:
tests/reference/inline_values/make_values.R).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers.projection_pursuit import (
    l1_median,
    scale_function,
    solve_projection_pursuit,
)

#: 30 rows of t(3) data scaled by (4, 2, 1, 0.5), rounded to 3 decimals
T3 = np.array(
    [
        [0.607, 0.312, 1.007, -0.988],
        [-11.711, -2.188, 0.307, 1.094],
        [3.926, -2.627, -1.265, 0.279],
        [-3.153, 7.084, 1.104, -0.102],
        [4.902, -2.746, -1.229, 0.781],
        [-3.875, -0.973, 1.075, -1.22],
        [6.254, 1.833, 0.027, -0.432],
        [-4.439, 4.369, -0.479, 0.544],
        [-14.23, 2.427, 2.104, 2.084],
        [-2.51, 0.343, 1.19, 0.477],
        [0.819, -4.154, -1.144, 0.13],
        [-0.042, 2.246, 0.356, -0.766],
        [-2.368, 0.299, -0.033, -0.119],
        [2.689, -0.275, 0.068, 0.019],
        [2.989, 9.125, -0.415, -0.141],
        [-1.266, -0.697, -0.174, -0.421],
        [-4.123, 1.185, 4.024, -0.928],
        [0.275, 1.445, -0.011, 1.802],
        [-2.212, 2.059, -0.934, -0.52],
        [-11.251, -1.319, 1.238, 0.136],
        [-2.992, -0.057, 0.643, 0.144],
        [-4.003, -0.787, -0.756, -0.71],
        [-4.47, -3.605, 0.616, -0.548],
        [-2.139, -2.482, -0.855, 0.358],
        [4.169, -7.617, -0.231, 0.265],
        [10.429, 0.615, -0.785, -0.589],
        [4.582, -0.827, 0.854, -0.111],
        [2.655, -6.9, 1.466, -0.885],
        [0.934, -1.673, -0.568, -0.189],
        [10.317, 2.588, -1.039, -0.31],
    ]
)  # fmt: skip


def _gradient_norm(X, m):
    u = (m - X) / np.linalg.norm(m - X, axis=1, keepdims=True)
    return float(np.linalg.norm(u.sum(axis=0)))


@pytest.mark.parametrize("seed", range(4))
def test_l1_median_near_a_data_point_is_solved_to_rounding(seed):
    """Half the rows in a tiny cluster and one row at the origin: Weiszfeld's steps
    shrink slowly there; the Newton steps that follow solve the median to rounding (the
    gradient, a sum of 41 unit vectors, at its rounding level)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(41, 3))
    X[:20] *= 1e-3
    X[40] = 0.0
    assert _gradient_norm(X, l1_median(X)) < 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_l1_median_at_a_repeated_data_point_is_that_point(seed):
    """Seven copies of one point among twelve rows: the median is that point (Vardi &
    Zhang's step stops there), to rounding, not 1e-8 away."""
    rng = np.random.default_rng(seed)
    X = np.vstack([np.tile([1.0, 2.0, 3.0], (7, 1)), 3.0 * rng.normal(size=(5, 3))])
    np.testing.assert_allclose(l1_median(X), [1.0, 2.0, 3.0], rtol=0, atol=1e-12)


def test_grid_with_an_even_number_of_angles_equals_pcapp():
    """``splitcircle = 10``: no grid angle is the current direction, a refinement can
    lower the objective, and pcaPP keeps the best refinement, not the last.

    R> r <- pcaPP::PCAgrid(T3, k = 3, splitcircle = 10, scores = FALSE)
    R> r$sdev          # 5.5291441097328402 3.5785826048491427 2.0044743347737608
    R> r$loadings[, 1] # 0.75928322510296209 -0.52401835172325295 -0.34165362598158788
    R>                 # 0.17935035820461340
    """
    result = solve_projection_pursuit(T3, 3, n_angles=10)
    expected = [5.5291441097328402, 3.5785826048491427, 2.0044743347737608]
    np.testing.assert_allclose(result.scales, expected, rtol=1e-6)
    first = [0.75928322510296209, -0.52401835172325295, -0.34165362598158788, 0.1793503582046134]
    np.testing.assert_allclose(np.abs(result.components[0]), np.abs(first), atol=1e-6)


@pytest.mark.parametrize(
    ("method", "candidates"),
    [("grid", "data"), ("proj", "data"), ("proj", "lincomb"), ("proj", "sphere")],
)
@pytest.mark.parametrize("k", [2, 4])
def test_scales_are_the_robust_scales_of_the_scores(method, candidates, k):
    """``scales`` is the MAD (pcaPP's constant) of the scores of the n data rows along
    each component, including the last one of a full-rank fit (k = p) with extra
    candidate directions, which pcaPP would count in that scale (the docstring's
    deviation, on purpose)."""
    rng = np.random.default_rng(2)
    X = rng.standard_t(3, size=(40, 4)) * [3.0, 2.0, 1.0, 0.5]
    result = solve_projection_pursuit(
        X, k, method=method, candidates=candidates, n_candidates=200, rng=rng
    )
    scores = (X - result.mean) @ result.components.T
    np.testing.assert_allclose(scale_function("mad")(scores.T), result.scales, rtol=1e-12)


@pytest.mark.parametrize("method", ["grid", "proj"])
def test_a_given_centre_of_wide_data_is_kept(method):
    """Wide data (p > n) are searched in the coordinates of their row space (pcaPP's
    reduction): a centre passed in is mapped into them, and returned as it was given.
    Passing the default fit's L1 median reproduces the default fit."""
    rng = np.random.default_rng(3)
    X = rng.standard_t(3, size=(12, 30))
    default = solve_projection_pursuit(X, 2, method=method)
    again = solve_projection_pursuit(X, 2, method=method, center=default.mean)
    np.testing.assert_allclose(again.scales, default.scales, rtol=1e-12)
    np.testing.assert_allclose(again.components, default.components, atol=1e-12)
    centre = rng.normal(size=30)  # not in the row space of X
    np.testing.assert_array_equal(
        solve_projection_pursuit(X, 2, method=method, center=centre).mean, centre
    )
