"""HQ-PCA (He, Hu, Zheng & Kong 2011) and the Welsch/correntropy loss."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score

from robustpca import PCA
from robustpca.estimators._hq import HQPCA
from robustpca.losses import WelschLoss
from robustpca.solvers import StopReason

from . import conftest


def spread(X):
    """Root mean squared distance to the arithmetic mean."""
    return float(np.sqrt(np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))))


def welsch_objective(X, model):
    """sum_i sigma^2 (1 - exp(-r_i^2 / (2 sigma^2))) at the fitted model."""
    r = model.reconstruction_error(X)
    s2 = model.kernel_width_**2
    return float(np.sum(s2 * (1.0 - np.exp(-(r**2) / (2.0 * s2)))))


# --------------------------------------------------------------------------------------
# The Welsch (correntropy) loss
# --------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(r=st.floats(0.01, 50.0), width=st.floats(0.1, 20.0))
def test_welsch_weight_is_derivative_of_rho_in_r_squared(r, width):
    loss = WelschLoss(width)
    s, h = r * r, 1e-6 * r * r
    numeric = loss.rho(np.array([np.sqrt(s + h)]))[0] - loss.rho(np.array([np.sqrt(s - h)]))[0]
    rounding = 1e-14 * width**2 / h  # the difference of two values of size <= sigma^2
    np.testing.assert_allclose(
        loss.weights(np.array([r]))[0], numeric / (2 * h), rtol=1e-5, atol=rounding
    )


@settings(max_examples=60, deadline=None)
@given(r=st.floats(0.0, 100.0), width=st.floats(0.1, 20.0))
def test_welsch_is_concave_in_r_squared(r, width):
    """h(t^2) <= h(r^2) + h'(r^2)(t^2 - r^2): the half-quadratic majorisation."""
    loss = WelschLoss(width)
    rho_r, w_r = loss.rho(np.array([r]))[0], loss.weights(np.array([r]))[0]
    for t in (0.0, 0.5 * r, 2 * r + 1, r + width):
        bound = rho_r + w_r * (t * t - r * r)
        # relative rounding, and a few units in the last place where values are subnormal
        tol = 1e-12 * (abs(rho_r) + w_r * (t * t + r * r)) + 4 * np.nextafter(0.0, 1.0)
        assert loss.rho(np.array([t]))[0] <= bound + tol


def test_welsch_shape_and_kernel_width_rule():
    r = np.array([0.0, 1e-4, 1.0, 3.0, 100.0])
    loss = WelschLoss(2.0)
    rho = loss.rho(r)
    np.testing.assert_allclose(rho, -4.0 * np.expm1(-(r**2) / 8.0), rtol=1e-12)
    np.testing.assert_allclose(rho[1], 0.5e-8, rtol=1e-6)  # r^2 / 2 near zero (like Huber)
    assert np.all(rho <= 4.0) and np.all(np.diff(rho) > 0)  # bounded by sigma^2, increasing
    np.testing.assert_allclose(loss.weights(r), 0.5 * np.exp(-(r**2) / 8.0))
    # He et al. (2011): sigma^2 = sum_i r_i^2 / (2n)
    resolved = WelschLoss().resolve(r)
    np.testing.assert_allclose(resolved.kernel_width**2, np.sum(r**2) / (2 * r.size))
    np.testing.assert_allclose(WelschLoss().rho(r), resolved.rho(r))
    assert WelschLoss().resolve(np.zeros(4)).kernel_width == 1.0
    for width in (1e-300, 1e300):  # no overflow of sigma^2, no NaN
        assert np.all(np.isfinite(WelschLoss(width).rho(r)))
        assert np.all(np.isfinite(WelschLoss(width).weights(r)))
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="kernel_width"):
            WelschLoss(bad)


# --------------------------------------------------------------------------------------
# HQ-PCA
# --------------------------------------------------------------------------------------

shapes = st.tuples(st.integers(5, 40), st.integers(2, 40), st.integers(0, 10_000))


@settings(max_examples=30, deadline=None)
@given(shape=shapes, k=st.integers(1, 4), factor=st.floats(0.05, 10.0))
def test_objective_never_increases_for_a_fixed_kernel_width(shape, k, factor):
    """Half-quadratic optimisation is a majorise-minimise loop: for a fixed sigma the
    Welsch objective (eq. 3 of Oh & Kwak, times sigma^2) never increases."""
    n, d, seed = shape
    k = min(k, n, d)
    X = conftest.random_data(seed, n, d)
    width = factor * spread(X) + 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # all weights underflowed
        model = conftest.quiet_fit(HQPCA(k, kernel_width=width, max_iter=25, tol=0.0), X)
    h = model.objective_history_
    assert np.all(np.isfinite(h))
    assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1]) + 1e-300)
    assert model.kernel_width_ == width


def test_objective_history_kernel_width_and_weights_at_the_solution():
    X = conftest.random_data(0, 60, 12)
    model = HQPCA(3).fit(X)
    r = model.reconstruction_error(X)
    np.testing.assert_allclose(model.residuals_, r, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(model.kernel_width_**2, np.sum(r**2) / (2 * r.size), rtol=1e-8)
    np.testing.assert_allclose(model.objective_history_[-1], welsch_objective(X, model), rtol=1e-8)
    g = np.exp(-(r**2) / (2 * model.kernel_width_**2))
    np.testing.assert_allclose(model.weights_, g, rtol=1e-8)  # the auxiliary variables
    assert np.all((model.weights_ > 0) & (model.weights_ <= 1))


@pytest.mark.parametrize(("n", "d"), [(80, 12), (25, 60)])
@pytest.mark.parametrize("kernel_width", [None, 3.0])
def test_limit_is_the_half_quadratic_fixed_point(n, d, kernel_width):
    """At convergence the mean is the p-weighted mean and the subspace the top
    eigenvectors of the p-weighted scatter, with p_i = g(r_i) from the solution itself
    (the two half-quadratic steps of He et al. leave it unchanged)."""
    X = conftest.random_data(1, n, d)
    model = HQPCA(3, kernel_width=kernel_width, tol=1e-14, max_iter=5000).fit(X)
    assert model.converged_
    w = model.weights_
    np.testing.assert_allclose(model.mean_, w @ X / w.sum(), atol=1e-6 * np.abs(X).max())
    Xc = X - model.mean_
    S = Xc.T @ (w[:, None] * Xc)
    top = np.linalg.eigh(S)[1][:, -3:]
    np.testing.assert_allclose(
        conftest.projector(top.T), conftest.projector(model.components_), atol=1e-6
    )


@pytest.mark.parametrize(("n", "d"), [(70, 10), (20, 60)])
def test_wide_kernel_gives_pca(n, d):
    """As sigma grows, correntropy tends to the mean squared error (He et al. 2011):
    with sigma a million times the data spread HQ-PCA is PCA."""
    X = conftest.random_data(2, n, d)
    model = HQPCA(3, kernel_width=1e6 * spread(X)).fit(X)
    pca = PCA(3).fit(X)
    np.testing.assert_allclose(model.mean_, pca.mean_, atol=1e-9 * np.abs(X).max())
    np.testing.assert_allclose(model.components_, pca.components_, atol=1e-8)
    np.testing.assert_allclose(model.weights_, 1.0, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_planted_recovery_beats_pca(seed):
    """10% gross outliers: within 5 degrees of the planted subspace (1.4-1.8; PCA 83-88)
    and the mean within 0.05 of the inlier mean. 20%: still far better than PCA (5.9-28.7
    degrees against 83-90) but no longer within 5 degrees in every seed."""
    X, basis, inliers = conftest.planted_outlier_data(seed, outlier_fraction=0.1)
    model = HQPCA(3).fit(X)
    assert np.degrees(subspace_angles(model.components_.T, basis).max()) < 5.0
    assert np.linalg.norm(model.mean_ - X[inliers].mean(axis=0)) < 0.05
    assert model.weights_[~inliers].max() < 0.01 < 0.99 < model.weights_[inliers].min()
    X, basis, inliers = conftest.planted_outlier_data(seed, outlier_fraction=0.2)
    angle = subspace_angles(HQPCA(3).fit(X).components_.T, basis).max()
    assert angle < 0.5 * subspace_angles(PCA(3).fit(X).components_.T, basis).max()


@pytest.mark.parametrize("seed", range(4))
def test_data_driven_kernel_width_breaks_down_at_30_percent(seed):
    """Where the default rule fails: He et al.'s sigma^2 = sum_i r_i^2 / (2N) is
    dominated by the outliers' residuals. With 30% outliers sigma ends at about 39, 25
    times the inliers' residual at the planted subspace (about 1.5). Most outliers are
    down-weighted (median weight 0.035) but those nearest the fitted subspace keep weights
    of 0.91-0.95 and, with norms about 20 times the inliers', pull the subspace 70-89
    degrees away from the planted one (PCA: 79-87). A fixed kernel width at the inliers'
    scale (sigma = 2) recovers it within 2.1 degrees, every outlier weight below 1e-6."""
    X, basis, inliers = conftest.planted_outlier_data(seed, outlier_fraction=0.3)
    fixed = HQPCA(3, kernel_width=2.0).fit(X)
    assert np.degrees(subspace_angles(fixed.components_.T, basis).max()) < 5.0
    assert fixed.weights_[~inliers].max() < 1e-6
    adaptive = HQPCA(3).fit(X)
    assert adaptive.kernel_width_ > 10 * np.median(fixed.residuals_[inliers])
    assert np.median(adaptive.weights_[~inliers]) < 0.1 < 0.5 < adaptive.weights_[~inliers].max()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(-1e3, 1e3), wide=st.booleans())
def test_translation_equivariance(seed, shift, wide):
    model = HQPCA(2, max_iter=20, tol=0.0)
    a, b = conftest.assert_translation_equivariant(model, seed, shift, wide, components_atol=1e-6)
    np.testing.assert_allclose(b.kernel_width_, a.kernel_width_, rtol=1e-6)


def test_degenerate_data_give_no_nan():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 6))  # exactly rank 2
    X = np.vstack([X, X[:5], X[:5]])  # duplicated rows
    model = HQPCA(2).fit(X)
    assert model.converged_ and model.stop_reason_ == StopReason.EXACT
    for attr in ("components_", "mean_", "weights_", "objective_history_"):
        assert np.all(np.isfinite(getattr(model, attr))), attr
    assert np.allclose(model.reconstruction_error(X), 0, atol=1e-8)
    model = HQPCA(4, random_state=0).fit(X)  # k above the rank
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(4), atol=1e-10)
    for const in (np.ones((10, 4)), np.zeros((10, 4))):
        model = HQPCA(2, random_state=0).fit(const)
        assert np.isfinite(model.components_).all() and np.isfinite(model.kernel_width_)
        np.testing.assert_array_equal(model.mean_, const[0])


@pytest.mark.parametrize("width", [1e-8, 1e-14, 1e-150])
def test_tiny_kernel_width_warns_and_stays_finite(width):
    """Every weight underflows: a warning, not a NaN, and not a claim of an exact fit."""
    X = conftest.random_data(3, 30, 6)
    with pytest.warns(UserWarning, match="kernel_width"):
        model = HQPCA(2, kernel_width=width).fit(X)
    assert np.all(model.weights_ == 0) and np.isfinite(model.components_).all()
    assert model.stop_reason_ != StopReason.EXACT


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_fit_carried_by_a_few_samples_warns(dtype):
    """A small fixed width leaves one sample with a weight above rounding (the others'
    underflow): the fit converges, to a subspace through that sample alone, and says so;
    the same data at a width of their scale, or He et al.'s rule, give no warning."""
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(60, 8)) * np.linspace(3, 0.5, 8)).astype(dtype)
    with pytest.warns(UserWarning, match="Only 1 of 60 samples keep"):
        model = HQPCA(2, kernel_width=0.05).fit(X)
    assert model.converged_ and (model.residuals_ > 1).sum() == 59
    for width in (None, 3.0):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            HQPCA(2, kernel_width=width).fit(X)


def test_input_not_modified_reproducible_and_callback():
    X = conftest.random_data(6, 15, 40)
    X.setflags(write=False)
    copy = X.copy()
    a = HQPCA(15, random_state=3).fit(X)
    a.transform(X)
    np.testing.assert_array_equal(X, copy)
    np.testing.assert_array_equal(a.components_, HQPCA(15, random_state=3).fit(X).components_)
    seen = []

    def callback(iteration, state):
        seen.append((iteration, state.weights.shape, state.components.shape, state.mean.shape))
        return iteration == 2

    model = HQPCA(2, callback=callback, tol=0.0).fit(conftest.random_data(4, 40, 10))
    assert model.n_iter_ == 2 and model.stop_reason_ == "stopped by callback"
    assert seen == [(1, (40,), (2, 10), (10,)), (2, (40,), (2, 10), (10,))]
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        HQPCA(2, max_iter=2, tol=0.0).fit(conftest.random_data(4, 40, 10))


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"kernel_width": 0.0}, ValueError, "kernel_width"),
        ({"kernel_width": -2.0}, ValueError, "kernel_width"),
        ({"kernel_width": float("nan")}, ValueError, "kernel_width"),
        ({"kernel_width": float("inf")}, ValueError, "kernel_width"),
        ({"kernel_width": 1e-200}, ValueError, "kernel_width"),
        ({"kernel_width": "wide"}, TypeError, "kernel_width"),
        ({"kernel_width": True}, TypeError, "kernel_width"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": -1.0}, ValueError, "tol"),
        ({"n_components": 11}, ValueError, "n_components"),
        ({"callback": "print"}, TypeError, "callback"),
    ],
)
def test_bad_parameters(params, error, match):
    conftest.assert_fit_rejects(HQPCA, params, error, match)


# --------------------------------------------------------------------------------------
# Real data: occluded AT&T faces
# --------------------------------------------------------------------------------------


@pytest.mark.realdata
@pytest.mark.parametrize(("seed", "fill"), [(0, "max"), (1, "min")])
def test_faces_hq_pca_reconstructs_better_than_pca(orl, seed, fill):
    """20% of the faces occluded by a quarter-size block: HQ-PCA's total error to the clean
    faces is 2.7-6.3% (white blocks, seed 0) and 5.0-7.4% (black blocks, seed 1) below
    PCA's at k = 10, 30, 50 (2.5-7.4% at k = 10-50 in all four settings of
    test_realdata), and the occluded faces get the smallest weights (area under the ROC
    curve 0.93 and 0.96)."""
    X, mask = conftest.occluded_faces(orl, seed, fill)
    fits = conftest.fits_below_pca(HQPCA, X, orl.data, margin=0.98)
    assert roc_auc_score(mask.any(axis=1), -fits[30].weights_) > 0.9
