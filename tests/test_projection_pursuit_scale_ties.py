"""The grid search on columns of equal robust scale (e.g. each scaled by its MAD): the
order of the axes takes scales equal up to rounding as equal, so the fit does not
depend on the last bits of the centring. Before, a perturbation of the data of 1e-15
moved the fitted plane by a sine of 0.6 to 1 on such tables."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import subspace_angles

from robustpca import ProjectionPursuitPCA
from robustpca.solvers.projection_pursuit import (
    SCALE_TIE_RTOL,
    _axis_order,
    _rsort_order_rev,
    solve_projection_pursuit,
)


def mad_scaled(seed: int, n: int = 300, p: int = 8) -> np.ndarray:
    """Heavy-tailed correlated columns on a grid of 0.1, each scaled by its median and
    MAD: every column's MAD is 1 up to rounding."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_t(3, size=(n, p)) @ rng.normal(size=(p, p)), 1)
    median = np.median(X, axis=0)
    return (X - median) / np.median(np.abs(X - median), axis=0)


def sine(A: np.ndarray, B: np.ndarray) -> float:
    """The largest principal-angle sine between the row spaces of A and B."""
    return float(np.sin(subspace_angles(A.T, B.T).max()))


@pytest.mark.parametrize("seed", range(6))
def test_a_rounding_perturbation_does_not_move_the_grid_fit(seed):
    X = mad_scaled(seed)
    noise = 1e-15 * np.random.default_rng(99).standard_normal(X.shape)
    a = solve_projection_pursuit(X, 2)
    b = solve_projection_pursuit(X * (1.0 + noise), 2)
    assert sine(a.components, b.components) < 1e-6
    np.testing.assert_allclose(a.scales, b.scales, rtol=1e-9)


def test_the_estimator_gives_the_same_flags_on_the_perturbed_table():
    X = mad_scaled(3)
    Xp = X * (1.0 + 1e-15 * np.random.default_rng(7).standard_normal(X.shape))
    a, b = ProjectionPursuitPCA(2).fit(X), ProjectionPursuitPCA(2).fit(Xp)
    np.testing.assert_array_equal(a.predict(X), b.predict(Xp))


def test_scales_equal_up_to_rounding_are_ordered_as_exact_ties():
    exact = np.array([1.0, 3.0, 1.0, 2.0, 1.0, 3.0])
    last_bits = exact * (1.0 + np.array([1, -2, 3, 0, -1, 2]) * 1e-16)
    np.testing.assert_array_equal(_axis_order(last_bits), _rsort_order_rev(exact))
    np.testing.assert_array_equal(_axis_order(exact), _rsort_order_rev(exact))


def test_scales_apart_by_more_than_the_tolerance_keep_their_order():
    gap = 10 * SCALE_TIE_RTOL
    scales = np.array([1.0, 1.0 - gap, 1.0 - 2 * gap, 0.5])
    np.testing.assert_array_equal(_axis_order(scales), [0, 1, 2, 3])
    np.testing.assert_array_equal(_axis_order(scales[::-1]), [3, 2, 1, 0])


def test_zero_and_empty_scales_fall_back_to_pcapps_order():
    np.testing.assert_array_equal(_axis_order(np.zeros(3)), _rsort_order_rev(np.zeros(3)))
    assert _axis_order(np.zeros(0)).size == 0
