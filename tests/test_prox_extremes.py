"""Proximal operators: 0-d array thresholds, thresholds that would enlarge ``X``, and the
l2,1 shrinkage of rows whose sum of squares under- or overflows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.prox import l21_shrinkage, singular_value_thresholding, soft_threshold

OPERATORS = [
    (soft_threshold, np.array([[-3.0, -0.5], [0.0, 2.0]])),
    (l21_shrinkage, np.array([[3.0, 4.0], [0.3, 0.4]])),
    (singular_value_thresholding, np.diag([3.0, 1.0])),
]


@settings(max_examples=30, deadline=None)
@given(tau=st.floats(0.0, 5.0), index=st.integers(0, len(OPERATORS) - 1))
def test_a_0d_array_threshold_is_the_scalar_threshold(tau, index):
    """A 0-d array is a scalar (it raised a TypeError although documented as allowed)."""
    op, X = OPERATORS[index]
    np.testing.assert_array_equal(op(X, np.array(tau)), op(X, tau))
    np.testing.assert_array_equal(op(X, np.float32(tau)), op(X, float(np.float32(tau))))


@pytest.mark.parametrize("op, X", OPERATORS)
@pytest.mark.parametrize("bad", [np.array(True), np.array(-1.0), np.array(np.nan), "0.1"])
def test_bad_scalar_thresholds_name_the_parameter(op, X, bad):
    with pytest.raises((TypeError, ValueError), match="threshold"):
        op(X, bad)


def test_a_threshold_that_would_enlarge_x_is_refused():
    """A (2, 1) threshold broadcast a (2,) X to (2, 2): the result had not X's shape."""
    with pytest.raises(ValueError, match="threshold"):
        soft_threshold(np.array([1.0, 2.0]), np.array([[0.5], [1.0]]))
    with pytest.raises(ValueError, match="threshold"):
        soft_threshold(np.ones((2, 3)), np.ones(2))  # does not broadcast at all
    with pytest.raises(TypeError, match="threshold"):
        soft_threshold(np.ones(2), np.array(["0.1", "0.2"]))
    X = np.arange(6.0).reshape(2, 3)
    for t in (np.ones(3), np.ones((2, 1)), np.ones((1, 3)), np.full((2, 3), 1.0)):
        out = soft_threshold(X, t)
        assert out.shape == X.shape
        np.testing.assert_array_equal(out, np.maximum(X - 1.0, 0.0))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    exponent=st.integers(-1000, 1000),
    ratio=st.floats(0.0, 1.5),
    shape=st.tuples(st.integers(1, 5), st.integers(1, 6)),
)
def test_l21_shrinkage_is_scale_equivariant(seed, exponent, ratio, shape):
    """prox(s X, s t) = s prox(X, t) for a power of two ``s``: rows of entries near 1e-200
    gave 0 instead of 0.8 X (their sum of squares underflowed), rows near 1e200 with a
    threshold of their size were not shrunk (it overflowed)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    X[rng.random(shape[0]) < 0.2] = 0.0  # zero rows stay zero
    norms = np.linalg.norm(X, axis=1)
    t = ratio * float(np.median(norms))
    scale = np.ldexp(1.0, exponent)
    expected = l21_shrinkage(X, t)
    got = l21_shrinkage(X * scale, t * scale)
    # a row whose norm equals the threshold is shrunk to 0 or to rounding of its size
    np.testing.assert_allclose(got / scale, expected, rtol=1e-13, atol=1e-13 * np.abs(X).max())


def test_l21_shrinkage_of_tiny_and_huge_rows():
    for s in (1e-100, 1e-160, 1e-200, 1e-300, 1e160, 1e300):
        X = np.array([[3.0, 4.0], [0.0, 0.0]]) * s
        out = l21_shrinkage(X, s)
        np.testing.assert_allclose(out[0], 0.8 * X[0], rtol=1e-14)
        assert np.all(out[1] == 0)
    X = np.array([3e-200, 4e-200])  # one sample as a 1-D array
    before = X.copy()
    np.testing.assert_allclose(l21_shrinkage(X, 1e-200), 0.8 * X, rtol=1e-14)
    np.testing.assert_array_equal(X, before)
