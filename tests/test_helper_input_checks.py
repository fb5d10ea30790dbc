"""Input validation of the medcouple (non-finite values), of the diagnostics' quantile,
and of the corruption helpers' image shapes and salt value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca import PCA
from robustpca.datasets import add_salt_noise, append_outliers, occlude_blocks
from robustpca.diagnostics import outlier_diagnostics
from robustpca.qn_scale import qn
from robustpca.robust_scale import mad, medcouple, medcouple_columns, skewed_cutoff


# ------------------------------------------------------------------------ medcouple
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([1, 4, 9, 600]),  # 600: the one-column-at-a-time route
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
)
def test_medcouple_refuses_non_finite_values(seed, n, bad):
    """A NaN gave a valid-looking medcouple of 0.0 (robustbase's mc errors on NA)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_t(3, n)
    x[rng.integers(n)] = bad
    before = x.copy()
    with pytest.raises(ValueError, match="x must be finite"):
        medcouple(x)
    Y = np.column_stack([rng.standard_t(3, n), x])
    with pytest.raises(ValueError, match="Y must be finite"):
        medcouple_columns(Y)
    np.testing.assert_array_equal(x, before)


def test_medcouple_of_finite_values_and_the_2d_check():
    assert medcouple([1.0, 2.0, 10.0]) == pytest.approx(0.38888888888888884)
    np.testing.assert_allclose(medcouple_columns(np.array([[1.0], [2.0], [10.0]])), [7 / 18])
    with pytest.raises(ValueError, match="2-D"):
        medcouple_columns(np.ones(3))


def test_medcouple_and_skewed_cutoff_take_one_dimension():
    """A matrix had been flattened into one medcouple; a sample mask of the wrong length
    gave a bare IndexError, and an empty one an error about the medcouple."""
    X = np.abs(np.random.default_rng(0).standard_normal((8, 3)))
    with pytest.raises(ValueError, match="x must be a 1-D array"):
        medcouple(X)
    with pytest.raises(ValueError, match="values must be a 1-D array"):
        skewed_cutoff(X)
    for sample, match in [
        (np.ones(3, bool), "sample must be a bool mask"),
        (np.zeros(8, bool), "sample selects no value"),
        (np.array([9]), "sample holds indices beyond"),
    ]:
        with pytest.raises(ValueError, match=match):
            skewed_cutoff(X[:, 0], sample)
    every = skewed_cutoff(X[:, 0])
    assert skewed_cutoff(X[:, 0], np.ones(8, bool)) == every
    assert skewed_cutoff(X[:, 0], np.arange(8)) == every


@pytest.mark.parametrize("scale", [mad, qn])
def test_robust_scales_name_a_bad_axis(scale):
    X = np.random.default_rng(0).standard_normal((8, 3))
    with pytest.raises(ValueError, match="axis=2 is out of bounds"):
        scale(X, axis=2)
    with pytest.raises(TypeError, match="axis must be an int"):
        scale(X, axis=1.5)
    np.testing.assert_array_equal(scale(X, axis=-1), scale(X, axis=1))
    assert scale(3.0) == 0.0  # one value: no spread


# -------------------------------------------------------------------------- quantile
@pytest.fixture(scope="module")
def fitted():
    X = np.random.default_rng(0).normal(size=(40, 5))
    return PCA(n_components=2).fit(X), X


@pytest.mark.parametrize(
    ("quantile", "error"),
    [
        ("0.5", TypeError),
        ("abc", TypeError),
        (None, TypeError),
        ([0.9], TypeError),
        (np.array([0.9]), TypeError),
        (True, TypeError),
        (np.True_, TypeError),
        (0.5 + 0j, TypeError),
        (0, ValueError),
        (1.0, ValueError),
        (np.nan, ValueError),
        (-0.1, ValueError),
    ],
)
def test_bad_quantiles_name_the_parameter(fitted, quantile, error):
    """'0.5' passed the check and crashed in scipy; others raised errors without the name."""
    model, X = fitted
    with pytest.raises(error, match="quantile"):
        outlier_diagnostics(model, X, quantile=quantile)


@pytest.mark.parametrize("quantile", [0.9, np.float32(0.9), np.float64(0.9), np.array(0.9)])
def test_real_quantiles_of_any_numeric_type_are_accepted(fitted, quantile):
    model, X = fitted
    diag = outlier_diagnostics(model, X, quantile=quantile)
    expected = outlier_diagnostics(model, X, quantile=float(quantile))
    assert diag.score_cutoff == expected.score_cutoff
    np.testing.assert_array_equal(diag.outliers, expected.outliers)


# ------------------------------------------------------------------------ corruption
def _images(n=5, shape=(3, 4)):
    return np.random.default_rng(0).uniform(size=(n, shape[0] * shape[1]))


@pytest.mark.parametrize("shape", [(2.5, 6.4), (3.0, 4.0), (True, 12), ("3", "4"), (3, 4, 1)])
def test_image_shapes_must_be_pairs_of_ints(shape):
    """(2.5, 6.4) was truncated to (2, 6) without a word."""
    with pytest.raises(ValueError, match="image_shape"):
        occlude_blocks(_images(shape=(2, 6)), shape, random_state=0)


def test_a_bad_outlier_shape_names_itself():
    """It had been reported as a bad image_shape of the images."""
    with pytest.raises(ValueError, match=r"outlier_shape=\(3, 3\) .* columns of outliers"):
        append_outliers(
            np.ones((4, 6)), np.ones((3, 8)), 2, outlier_shape=(3, 3), image_shape=(2, 3)
        )


def test_image_shapes_of_numpy_ints_are_accepted():
    X = _images()
    a, mask_a = occlude_blocks(X, (np.int64(3), np.int32(4)), random_state=0)
    b, mask_b = occlude_blocks(X, (3, 4), random_state=0)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(mask_a, mask_b)
    with pytest.raises(ValueError, match="outlier_shape"):
        append_outliers(X, _images(), 2, image_shape=(3, 4), outlier_shape=(2.0, 6.0))


@pytest.mark.parametrize(
    ("value", "error"),
    [("abc", TypeError), ("1.0", TypeError), (True, TypeError), (np.nan, ValueError)],
)
def test_salt_value_errors_name_the_parameter(value, error):
    """value='abc' raised NumPy's conversion error, which does not name the parameter."""
    with pytest.raises(error, match="value"):
        add_salt_noise(np.zeros((4, 4)), 0.25, value=value, random_state=0)
    noisy, mask = add_salt_noise(np.zeros((4, 4)), 0.25, value=np.float32(2.0), random_state=0)
    assert np.all(noisy[mask] == 2.0) and mask.sum() == 4
