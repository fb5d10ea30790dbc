"""The paper-literal codes of benchmarks/ agree with robustpca's estimators.

The benchmarks compare our estimators with code written from the papers' algorithm boxes
(``benchmarks/paper_literal*.py``). A speed-up is only meaningful if both run the same
iteration, so each literal code must reproduce our subspace (and, where both record it,
our objective history) on a small problem after the same number of iterations. The
literal codes are imported from ``benchmarks/`` via ``sys.path``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import robustpca as rp
from robustpca.solvers.two_d import kron_components

from .conftest import planted_outlier_data

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from paper_literal import rpca_om_paper_literal
from paper_literal_convex import pcp_ialm_paper_literal
from paper_literal_crpca import crpca_om_paper_literal
from paper_literal_gm import generalized_mean_paper_literal, pca_gm_paper_literal
from paper_literal_hq import hq_pca_paper_literal
from paper_literal_l1 import l1_pca_paper_literal
from paper_literal_l21 import l21_pca_paper_literal
from paper_literal_pca import pca_paper_literal
from paper_literal_r1 import r1_pca_paper_literal
from paper_literal_reweighting import rwl_an_literal
from paper_literal_two_d import (
    glram_paper_literal,
    r2dpca_paper_literal,
    two_d_pca_paper_literal,
)

K, N_ITER = 3, 8
SHAPES = [(120, 15), (30, 60)]  # scatter route and Gram route of ours


def sin_angle(U, V):
    """Sine of the largest principal angle between the column spans."""
    s = np.linalg.svd(np.linalg.qr(U)[0].T @ np.linalg.qr(V)[0], compute_uv=False)
    return float(np.sqrt(max(0.0, 1.0 - s.min() ** 2)))


def fit(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)


@pytest.fixture(params=SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def X(request):
    n, d = request.param
    return planted_outlier_data(0, n_samples=n, n_features=d)[0]


def test_pca_literal_matches_pca(X):
    model = rp.PCA(K).fit(X)
    lit = pca_paper_literal(X, K)
    assert sin_angle(model.components_.T, lit["basis"]) < 1e-6
    np.testing.assert_allclose(lit["eigenvalues"], model.explained_variance_, rtol=1e-9)


def test_rpca_om_literal_matches_optimal_mean_pca(X):
    model = fit(rp.OptimalMeanPCA(K, max_iter=N_ITER, tol=0.0), X)
    U, b, hist = rpca_om_paper_literal(X, K, model.n_iter_, model.epsilon_)
    np.testing.assert_allclose(hist, model.objective_history_, rtol=1e-10)
    assert sin_angle(model.components_.T, U) < 1e-6
    np.testing.assert_allclose(b, model.mean_, rtol=1e-10, atol=1e-10)


def test_l21_literal_matches_l21pca(X):
    """From the PCA subspace (ours' ``init='pca'``), Algorithm 2 gives the same iterates;
    objective (8) never decreases (Nie & Huang, Theorem 1)."""
    model = fit(rp.L21PCA(K, max_iter=N_ITER, tol=0.0), X)
    lit = l21_pca_paper_literal(X, K, model.n_iter_, pca_paper_literal(X, K)["basis"])
    np.testing.assert_allclose(lit["objective"], model.objective_history_, rtol=1e-10)
    assert np.all(np.diff(lit["objective"]) >= -1e-10 * lit["objective"][-1])
    assert sin_angle(model.components_.T, lit["basis"]) < 1e-6


def test_l1_literal_matches_l1pca(X):
    """Kwak's printed stopping test (``w(t) == w(t-1)``) takes one more iteration per
    direction than ours (polarities repeated); the directions are the same."""
    model = rp.L1PCA(K).fit(X)
    lit = l1_pca_paper_literal(X, K, 1000, np.random.default_rng(0))
    assert sin_angle(model.components_.T, lit["basis"]) < 1e-6
    np.testing.assert_array_equal(
        np.asarray(lit["n_iter_per_component"]), model.n_iter_per_component_ + 1
    )


def test_r1_literal_matches_r1pca(X):
    """Ding's Huber objective (r^2 inside the cutoff) is twice ours (r^2 / 2)."""
    model = fit(rp.R1PCA(K, max_iter=N_ITER, tol=0.0), X)
    lit = r1_pca_paper_literal(X, K, model.n_iter_)
    np.testing.assert_allclose(lit["objective"], 2.0 * model.objective_history_, rtol=1e-10)
    assert sin_angle(model.components_.T, lit["basis"]) < 1e-6


def test_gm_literal_matches_generalized_mean_pca(X):
    model = fit(rp.GeneralizedMeanPCA(K, max_iter=N_ITER, tol=0.0), X)
    lit = pca_gm_paper_literal(X, K, model.p, model.delta_, model.n_iter_, model.center_n_iter_ - 1)
    np.testing.assert_allclose(lit["mean"], model.mean_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(lit["objective"], model.objective_history_, rtol=1e-9)
    assert sin_angle(model.components_.T, lit["basis"]) < 1e-6


def test_generalized_mean_literal_with_p_one_is_the_mean(X):
    np.testing.assert_allclose(
        generalized_mean_paper_literal(X, 1.0, 0.0, 5), X.mean(axis=0), rtol=1e-12, atol=1e-12
    )


def test_hq_literal_matches_hqpca(X):
    model = fit(rp.HQPCA(K, max_iter=N_ITER, tol=0.0), X)
    lit = hq_pca_paper_literal(X, K, model.n_iter_)
    np.testing.assert_allclose(lit["objective"], model.objective_history_, rtol=1e-9)
    np.testing.assert_allclose(lit["mean"], model.mean_, rtol=1e-10, atol=1e-10)
    assert sin_angle(model.components_.T, lit["basis"]) < 1e-6


def test_rwl_an_literal_matches_adaptive_neighbors_pca(X):
    model = fit(rp.AdaptiveNeighborsPCA(K, max_iter=N_ITER, tol=0.0), X)
    W = rwl_an_literal(X, K, model.n_neighbors_, model.n_iter_)
    assert sin_angle(model.components_.T, W) < 1e-6


@pytest.mark.parametrize("with_mean", [True, False], ids=["crpca-om", "outlier-pursuit"])
def test_crpca_literal_matches_alm(X, with_mean):
    """Same ALM, full SVD instead of ours' partial one: same iterations, same solution
    (with Lin et al.'s primal stopping rule, ``gap_tol=None``, which the literal code has;
    the default also drives the certified duality gap below 1e-3: test_convex_stopping)."""
    cls = rp.ConvexOptimalMeanPCA if with_mean else rp.OutlierPursuit
    model = cls(gap_tol=None, random_state=0).fit(X)
    lit = crpca_om_paper_literal(
        X, model.gamma_, mu=model.mu_, mu_max=1e9 * model.mu_, max_iter=1000, with_mean=with_mean
    )
    assert len(lit["objective"]) == model.n_iter_
    assert abs(lit["objective"][-1] / model.objective_history_[-1] - 1) < 1e-8
    scale = np.linalg.norm(model.low_rank_)
    assert np.linalg.norm(lit["low_rank"] - model.low_rank_) < 1e-6 * scale


def test_pcp_literal_matches_pcp(X):
    model = rp.PrincipalComponentPursuit(gap_tol=None, random_state=0).fit(X)  # Lin's rule
    _, _, hist = pcp_ialm_paper_literal(X, model.lam_, max_iter=1000)
    assert len(hist) == model.n_iter_
    assert abs(hist[-1] / model.objective_history_[-1] - 1) < 1e-8


@pytest.fixture
def images():
    rng = np.random.default_rng(1)
    base = np.outer(np.arange(12), np.arange(10)) / 10
    return base + rng.normal(size=(40, 12, 10))


def test_two_d_pca_literal_matches(images):
    model = rp.TwoDPCA(3, image_shape=(12, 10)).fit(images.reshape(40, -1))
    assert sin_angle(model.right_components_, two_d_pca_paper_literal(images, 3)["right"]) < 1e-6


def test_glram_literal_matches(images):
    model = fit(
        rp.GLRAM((3, 4), image_shape=(12, 10), max_iter=N_ITER, tol=0.0), images.reshape(40, -1)
    )
    lit = glram_paper_literal(images, 3, 4, model.n_iter_)
    np.testing.assert_allclose(lit["objective"], model.objective_history_, rtol=1e-10)
    ours = kron_components(model.left_components_, model.right_components_, 12).T
    assert sin_angle(ours, kron_components(lit["left"], lit["right"], 12).T) < 1e-6


def test_r2dpca_literal_matches(images):
    X = images.reshape(40, -1)
    model = fit(rp.Robust2DPCA((3, 4), image_shape=(12, 10), max_iter=N_ITER, tol=0.0), X)
    lit = r2dpca_paper_literal(images, 3, 4, model.n_iter_, model.epsilon_)
    np.testing.assert_allclose(lit["objective"], model.objective_history_, rtol=1e-10)
    np.testing.assert_allclose(lit["mean"].ravel(), model.mean_, rtol=1e-10, atol=1e-10)
    ours = kron_components(model.left_components_, model.right_components_, 12).T
    assert sin_angle(ours, kron_components(lit["left"], lit["right"], 12).T) < 1e-6
