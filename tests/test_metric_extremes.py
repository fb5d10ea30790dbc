"""Reconstruction errors and subspace distances at the ends of the floating-point range,
with non-finite input, and for bases that are orthonormal only up to rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import linalg as sla

from robustpca.metrics import (
    mean_reconstruction_error,
    projector_distance,
    rmse,
    subspace_angles,
    total_reconstruction_error,
    weighted_reconstruction_error,
)

R0 = np.array([[3.0, 4.0], [0.0, 1.0]])
C0 = np.zeros((2, 2))


def test_huge_weights_are_normalised_without_overflow():
    """w.sum() overflowed for weights near 1e308 and the score came out 0."""
    assert weighted_reconstruction_error(R0, C0, weights=[1e308, 1e308]) == 13.0
    assert weighted_reconstruction_error(R0, C0, weights=[1.7e308, 0.0]) == 25.0
    assert weighted_reconstruction_error(R0, C0, weights=[1e-320, 1e-320]) == 13.0
    assert weighted_reconstruction_error(R0, C0, weights=[5e-324, 0.0]) == 25.0


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 8),
    exponent=st.integers(-1000, 1023),
)
@example(seed=0, n=8, exponent=1023)  # the sum of the weights overflows
def test_weighted_error_ignores_the_scale_of_the_weights(seed, n, exponent):
    rng = np.random.default_rng(seed)
    R, C = rng.normal(size=(2, n, 3))
    w = rng.uniform(0.5, 1.0, n)
    expected = weighted_reconstruction_error(R, C, weights=w)
    got = weighted_reconstruction_error(R, C, weights=w * np.ldexp(1.0, exponent))
    assert got == pytest.approx(expected, rel=1e-13)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 6), st.integers(1, 5)),
    exponent=st.integers(-900, 900),
)
def test_errors_are_scale_equivariant(seed, shape, exponent):
    """error(s R, s C) = s error(R, C) (s^2 for the squared score) for a power of two
    ``s``: the squares overflowed to inf for data near 1e200 and underflowed to 0 for data
    near 1e-200."""
    rng = np.random.default_rng(seed)
    R, C = rng.normal(size=(2, *shape))
    s = math.ldexp(1.0, exponent)
    pairs = [
        (total_reconstruction_error, 1),
        (mean_reconstruction_error, 1),
        (rmse, 1),
        (weighted_reconstruction_error, 2),
    ]
    for metric, power in pairs:
        if power == 2 and abs(exponent) > 480:
            continue  # the squared score itself is outside the floats
        expected = metric(R, C)
        got = metric(R * s, C * s)
        assert got == pytest.approx(expected * s**power, rel=1e-13)


def test_errors_of_opposite_extreme_values():
    R, C = np.array([[1e308, -1e308]]), np.array([[-1e308, 1e308]])
    assert total_reconstruction_error(R / 4, C / 4) == pytest.approx(np.sqrt(2) * 5e307)
    assert rmse(R / 2, C / 2) == pytest.approx(1e308)
    assert rmse(R, C) == np.inf  # 2e308: beyond the floats
    assert total_reconstruction_error([[1e-200, 0.0]], [[0.0, 1e-200]]) == pytest.approx(
        np.sqrt(2) * 1e-200
    )


@pytest.mark.parametrize("metric", [total_reconstruction_error, mean_reconstruction_error])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_total_and_mean_errors_refuse_non_finite_input(metric, bad):
    """They returned NaN or inf where rmse and the weighted error raise."""
    broken = R0.copy()
    broken[1, 0] = bad
    with pytest.raises(ValueError, match="reconstructed must be finite"):
        metric(broken, C0)
    with pytest.raises(ValueError, match="clean must be finite"):
        metric(C0, broken)
    with pytest.raises(ValueError, match="same shape"):
        metric(R0, np.zeros((2, 3)))


@pytest.mark.parametrize("delta", [0.0, 1e-14, 1e-12, 4e-11, 1e-10, 1e-9, 1e-6])
def test_projector_distance_of_a_rescaled_orthonormal_basis_is_rounding(delta):
    """Rows scaled by 1 + 4e-11 passed the old orthonormality test (atol 1e-10) and the
    distance of a subspace to itself came out 1.4e-10."""
    rng = np.random.default_rng(0)
    Q = np.linalg.qr(rng.normal(size=(50, 3)))[0].T
    assert projector_distance(Q * (1 + delta), Q) < 1e-14
    mixed = (np.eye(3) + delta * rng.normal(size=(3, 3))) @ Q  # another near basis
    assert projector_distance(mixed, Q) < 1e-14


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(1, 5),
    log_delta=st.floats(-15.0, -2.0),
    exponent=st.integers(-600, 600),
)
def test_projector_distance_ignores_the_basis_of_a_span(seed, k, log_delta, exponent):
    """Any well-conditioned basis of a span, at any scale, is at rounding distance from an
    orthonormal one; a rotated span is at the distance of the exact formula."""
    rng = np.random.default_rng(seed)
    d = 12
    Q = np.linalg.qr(rng.normal(size=(d, k)))[0].T
    M = np.eye(k) + 10.0**log_delta * rng.uniform(-1.0, 1.0, (k, k))
    A = np.ldexp(M @ Q, exponent)
    assert projector_distance(A, Q) < 1e-13
    theta = 1e-7
    G = np.eye(d)
    G[[0, 0, d - 1, d - 1], [0, d - 1, 0, d - 1]] = [
        np.cos(theta),
        -np.sin(theta),
        np.sin(theta),
        np.cos(theta),
    ]
    B = Q @ G
    P_A, P_B = Q.T @ Q, B.T @ B
    exact = np.sqrt(np.sum(np.sin(sla.subspace_angles(Q.T, B.T)) ** 2) * 2)
    assert projector_distance(A, B) == pytest.approx(exact, rel=1e-6, abs=1e-15)
    assert np.linalg.norm(P_A - P_B) == pytest.approx(exact, rel=1e-6, abs=1e-8)


def test_subspace_angles_of_rank_deficient_bases_are_those_of_the_spans():
    """SciPy's behaviour, now documented: dependent rows add no angle."""
    A = np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]])  # rank 1
    B = np.eye(3)[:2]
    angles = subspace_angles(A, B)
    np.testing.assert_array_equal(angles, sla.subspace_angles(A.T, B.T))
    assert angles.shape == (1,)
    np.testing.assert_allclose(angles, subspace_angles(A[:1], B))
    assert subspace_angles(np.zeros((2, 3)), B).shape == (0,)
    assert projector_distance(A, A[:1]) < 1e-15
    assert projector_distance(np.zeros((2, 3)), B) == pytest.approx(np.sqrt(2))
