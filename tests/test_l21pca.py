"""PCA-L21 (Nie & Huang): Theorem 1, inequality (12), routes and recovery."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning

from robustpca import L21PCA, PCA
from robustpca.solvers import solve_l21_pca

from .conftest import planted_outlier_data


def l21(M):
    return np.linalg.norm(M, axis=1).sum()


shapes = st.tuples(st.integers(3, 40), st.integers(2, 40), st.integers(0, 10_000))


@settings(max_examples=40, deadline=None)
@given(shape=shapes, k=st.integers(1, 5), init=st.sampled_from(["pca", "random"]))
def test_objective_never_decreases_theorem1(shape, k, init):
    n, d, seed = shape
    k = min(k, n, d)
    rng = np.random.default_rng(seed)
    X = rng.standard_t(2, size=(n, d))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = L21PCA(k, init=init, max_iter=30, tol=0, random_state=seed).fit(X)
    h = model.objective_history_
    assert np.all(np.isfinite(h))
    assert np.all(np.diff(h) >= -1e-10 * np.abs(h[1:]))
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(h[-1], model.l21_objective(X), rtol=1e-9)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, k=st.integers(1, 6))
def test_inequality_12(shape, k):
    """||X||_21 <= ||X - XWW^T||_21 + ||XW||_21 <= sqrt(2) ||X||_21 for any W^T W = I."""
    n, d, seed = shape
    k = min(k, d)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.exponential(size=(n, 1))
    W = np.linalg.qr(rng.normal(size=(d, k)))[0]
    middle = l21(X - X @ W @ W.T) + l21(X @ W)
    assert l21(X) <= middle * (1 + 1e-12)
    assert middle <= np.sqrt(2) * l21(X) * (1 + 1e-12)


def test_inequality_12_at_the_fitted_subspace():
    X, _, _ = planted_outlier_data(0)
    model = L21PCA(3).fit(X)
    Xc = X - model.mean_
    W = model.components_.T
    middle = l21(Xc - Xc @ W @ W.T) + l21(Xc @ W)
    assert l21(Xc) <= middle <= np.sqrt(2) * l21(Xc)


def test_pca_init_is_never_worse_than_pca():
    X, _, _ = planted_outlier_data(1)
    model = L21PCA(3).fit(X)
    pca = PCA(3).fit(X)
    assert model.l21_objective(X) >= l21((X - pca.mean_) @ pca.components_.T) - 1e-9


def test_gram_and_scatter_routes_agree():
    rng = np.random.default_rng(2)
    X = rng.standard_t(3, size=(20, 50))
    res = [
        solve_l21_pca(X, 4, rng=np.random.default_rng(0), route=r, max_iter=25, tol=0)
        for r in ("gram", "scatter")
    ]
    np.testing.assert_allclose(res[0].objective, res[1].objective, rtol=1e-10)
    P = [r.components.T @ r.components for r in res]
    np.testing.assert_allclose(P[0], P[1], atol=1e-8)


def test_rotation_to_principal_axes_keeps_objective_and_orders_variance():
    X = np.random.default_rng(3).normal(size=(80, 10)) * np.arange(1, 11)
    model = L21PCA(4).fit(X)
    var = model.transform(X).var(axis=0)
    assert np.all(np.diff(var) <= 1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_recovers_planted_subspace_better_than_pca(seed):
    # PCA-L21 centres by the arithmetic mean, so its outliers here are unbiased (no common
    # offset); with an offset the biased mean costs it much of its advantage over PCA.
    X, basis, _ = planted_outlier_data(
        seed, outlier_fraction=0.1, outlier_offset=0.0, outlier_scale=10.0
    )
    model = L21PCA(3).fit(X)
    pca = PCA(3).fit(X)
    angle = subspace_angles(model.components_.T, basis).max()
    assert angle < 0.5 * subspace_angles(pca.components_.T, basis).max()


def test_zero_rows_and_duplicates():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(10, 5))
    X = np.vstack([X, X, np.tile(X.mean(0), (3, 1))])  # duplicates and samples at the mean
    model = L21PCA(2).fit(X)
    assert np.isfinite(model.components_).all()
    assert np.isfinite(model.objective_history_).all()


def test_callback_and_warning():
    X = np.random.default_rng(5).normal(size=(30, 6))
    seen = []

    def callback(iteration, state):
        seen.append((state.objective, state.components.shape, state.mean.shape))
        return iteration >= 2

    model = L21PCA(2, callback=callback, tol=0).fit(X)
    assert model.n_iter_ == 2 and model.stop_reason_ == "stopped by callback"
    assert seen[-1] == (model.objective_history_[-1], (2, 6), (6,))
    with pytest.warns(ConvergenceWarning):
        L21PCA(2, max_iter=1, tol=0).fit(X)


def test_bad_init():
    with pytest.raises(ValueError, match="init"):
        L21PCA(2, init="svd").fit(np.random.default_rng(0).normal(size=(10, 3)))
