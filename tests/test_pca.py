"""Weighted PCA: agreement with scikit-learn and the frequency-weight semantics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA as SkPCA

from robustpca import PCA


@pytest.mark.parametrize(("n", "d"), [(60, 8), (12, 40), (30, 30)])
def test_matches_sklearn(n, d):
    X = np.random.default_rng(0).normal(size=(n, d)) * np.linspace(1, 5, d) + 3.0
    ours = PCA(5).fit(X)
    ref = SkPCA(5, svd_solver="full").fit(X)
    np.testing.assert_allclose(ours.mean_, ref.mean_, atol=1e-12)
    np.testing.assert_allclose(np.abs(ours.components_), np.abs(ref.components_), atol=1e-8)
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_, rtol=1e-8)
    np.testing.assert_allclose(
        ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-8
    )
    np.testing.assert_allclose(np.abs(ours.transform(X)), np.abs(ref.transform(X)), atol=1e-8)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), wide=st.booleans())
def test_integer_weights_equal_repeated_rows(seed, wide):
    rng = np.random.default_rng(seed)
    n, d = (10, 25) if wide else (30, 6)
    X = rng.normal(size=(n, d))
    w = rng.integers(0, 4, size=n)
    w[:5] = np.maximum(w[:5], 1)  # rank >= 4 after centring: the 3 components are defined
    weighted = PCA(3).fit(X, sample_weight=w)
    repeated = PCA(3).fit(np.repeat(X, w, axis=0))
    np.testing.assert_allclose(weighted.mean_, repeated.mean_, atol=1e-10)
    P = weighted.components_.T @ weighted.components_
    Q = repeated.components_.T @ repeated.components_
    np.testing.assert_allclose(P, Q, atol=1e-7)


def test_zero_weight_samples_are_ignored():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 5))
    w = np.ones(40)
    w[:5] = 0
    X_bad = X.copy()
    X_bad[:5] = 1e6
    a = PCA(2).fit(X_bad, sample_weight=w)
    b = PCA(2).fit(X[5:])
    np.testing.assert_allclose(a.mean_, b.mean_, atol=1e-9)
    np.testing.assert_allclose(a.components_, b.components_, atol=1e-9)


def test_objective_is_weighted_squared_error():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(25, 6))
    w = rng.uniform(0.5, 2.0, size=25)
    model = PCA(2).fit(X, sample_weight=w)
    np.testing.assert_allclose(
        model.objective_history_[0], w @ model.reconstruction_error(X) ** 2, rtol=1e-10
    )
    assert model.n_iter_ == 1 and model.converged_


@pytest.mark.parametrize(
    ("w", "exc", "match"),
    [
        (-np.ones(10), ValueError, "negative"),
        (np.r_[np.nan, np.ones(9)], ValueError, "NaN"),
        (np.zeros(10), ValueError, "positive"),
        (np.ones(9), ValueError, "shape"),
        (np.array(["a"] * 10), TypeError, "sample_weight"),
    ],
)
def test_bad_sample_weight(w, exc, match):
    X = np.random.default_rng(3).normal(size=(10, 4))
    with pytest.raises(exc, match=match):
        PCA(2).fit(X, sample_weight=w)


def test_sample_weight_not_modified():
    X = np.random.default_rng(4).normal(size=(10, 4))
    w = np.arange(1.0, 11.0)
    copy = w.copy()
    PCA(2).fit(X, sample_weight=w)
    np.testing.assert_array_equal(w, copy)


def test_components_lost_to_the_features_scales_are_warned_of():
    """Columns at scales 1e7, 1 and 1e-3: the scatter's eigenvalues below 1e-12 of the
    largest count as zero, so the two small features' components are lost (scikit-learn's
    SVD keeps them). That was silent; the fit now says to standardize the features."""
    X = np.random.default_rng(0).normal(size=(200, 3)) * np.array([1e7, 1.0, 1e-3])
    with pytest.warns(UserWarning, match="StandardScaler"):
        model = PCA(3).fit(X)
    np.testing.assert_array_equal(model.explained_variance_[1:], 0.0)
    standardized = PCA(3).fit(X / X.std(axis=0))
    assert np.all(standardized.explained_variance_ > 0.5)


def test_no_warning_where_zero_variance_is_collinearity():
    """A column that is a combination of others (zero variance in that direction, every
    feature at a similar scale) and a constant column are not a matter of scale."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    X = np.column_stack([X, X[:, 0] - 2.0 * X[:, 1], np.full(100, 0.1)])
    assert np.mean(X[:, -1]) != 0.1  # its mean is off by an ulp: variance 8e-32, not 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = PCA(5).fit(X)
    assert np.count_nonzero(model.explained_variance_ == 0) == 2
