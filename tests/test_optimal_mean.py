"""RPCA-OM (Nie, Yuan & Huang 2014): theorems, recovery and input handling."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning

from robustpca import PCA, GeneralizedMeanPCA, OptimalMeanPCA
from robustpca.diagnostics import outlier_diagnostics
from robustpca.losses import L21Loss
from robustpca.solvers import StopReason, solve_optimal_mean_pca

from .conftest import (
    assert_fit_rejects,
    assert_translation_equivariant,
    planted_outlier_data,
    projector,
    quiet_fit,
    random_data,
)

shapes = st.tuples(st.integers(5, 40), st.integers(2, 40), st.integers(0, 10_000))


@settings(max_examples=40, deadline=None)
@given(shape=shapes, loss=st.sampled_from(["l21", "l2p", "capped"]), k=st.integers(1, 4))
def test_objective_never_increases_theorem1(shape, loss, k):
    """Theorem 1: Algorithm 1 (and its Algorithm-2 variants) decrease objective (13)."""
    n, d, seed = shape
    k = min(k, n, d)
    X = random_data(seed, n, d)
    kwargs = {"p": 0.5} if loss == "l2p" else {}
    if loss == "capped":
        kwargs["threshold"] = float(np.median(np.linalg.norm(X - X.mean(0), axis=1)))
    model = quiet_fit(OptimalMeanPCA(k, loss=loss, max_iter=30, tol=0, **kwargs), X)
    h = model.objective_history_
    assert np.all(np.isfinite(h))
    assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1]) + 1e-12)


def objective13(X, components, mean, eps):
    R = (X - mean) - ((X - mean) @ components.T) @ components
    return np.sqrt(np.einsum("ij,ij->i", R, R) + eps).sum()


def test_objective_history_is_objective13():
    X = random_data(0, 60, 12)
    model = OptimalMeanPCA(3).fit(X)
    expected = objective13(X, model.components_, model.mean_, model.epsilon_)
    np.testing.assert_allclose(model.objective_history_[-1], expected, rtol=1e-10)


@pytest.mark.parametrize(("n", "d"), [(80, 15), (30, 120)])
@pytest.mark.parametrize("seed", range(3))
def test_kkt_condition_23_at_convergence(n, d, seed):
    """Theorem 2: at convergence eq. (23) holds for b and for U."""
    X = random_data(seed, n, d)
    model = OptimalMeanPCA(3, tol=1e-13, max_iter=5000).fit(X)
    assert model.converged_
    U, b, eps = model.components_.T, model.mean_, model.epsilon_
    R = (X - b) - ((X - b) @ U) @ U.T
    norms = np.sqrt(np.einsum("ij,ij->i", R, R) + eps)
    grad_b = (R / norms[:, None]).sum(axis=0)  # sum_i (I-UU^T)(x_i - b) / ||.||
    scale = (np.linalg.norm(R, axis=1) / norms).sum()
    assert np.linalg.norm(grad_b) <= 1e-5 * scale
    # U-part: sum_i (I-UU^T)(x_i-b)(x_i-b)^T U / ||.|| must vanish (it equals U Lambda,
    # which lies in span(U), while the left side lies in the complement).
    grad_U = (R / norms[:, None]).T @ ((X - b) @ U)
    assert np.linalg.norm(grad_U) <= 1e-5 * np.linalg.norm((X - b) @ U).sum() + 1e-8


def test_kkt_fails_for_arithmetic_mean():
    """The check above can fail: the arithmetic mean is not a KKT point with outliers."""
    X, _, _ = planted_outlier_data(0)
    model = OptimalMeanPCA(3).fit(X)
    U, b = model.components_.T, X.mean(axis=0)
    R = (X - b) - ((X - b) @ U) @ U.T
    norms = np.linalg.norm(R, axis=1)
    assert np.linalg.norm((R / norms[:, None]).sum(axis=0)) > 1e-2 * len(X)


@pytest.mark.parametrize(("n", "d"), [(70, 10), (20, 60)])
def test_first_pass_equals_pca(n, d):
    X = random_data(1, n, d, outliers=False)
    with pytest.warns(ConvergenceWarning):
        model = OptimalMeanPCA(3, max_iter=1).fit(X)
    pca = PCA(3).fit(X)
    np.testing.assert_allclose(projector(model.components_), projector(pca.components_), atol=1e-10)
    np.testing.assert_allclose(model.mean_, X.mean(axis=0), atol=1e-10)
    np.testing.assert_allclose(np.abs(model.components_), np.abs(pca.components_), atol=1e-8)


def test_l2p_with_p2_equals_pca():
    X = random_data(2, 50, 9)
    model = OptimalMeanPCA(3, loss="l2p", p=2.0).fit(X)
    pca = PCA(3).fit(X)
    assert model.converged_
    np.testing.assert_allclose(model.components_, pca.components_, atol=1e-10)
    np.testing.assert_allclose(model.mean_, pca.mean_, atol=1e-10)
    np.testing.assert_allclose(model.weights_, 1.0)


@pytest.mark.parametrize("fraction", [0.1, 0.2])
@pytest.mark.parametrize("seed", range(4))
def test_optimal_mean_and_subspace_beat_pca(fraction, seed):
    X, basis, inliers = planted_outlier_data(seed, outlier_fraction=fraction)
    model = OptimalMeanPCA(3).fit(X)
    pca = PCA(3).fit(X)
    inlier_mean = X[inliers].mean(axis=0)
    assert np.linalg.norm(model.mean_ - inlier_mean) < 0.25 * np.linalg.norm(
        X.mean(axis=0) - inlier_mean
    )
    angle = subspace_angles(model.components_.T, basis).max()
    pca_angle = subspace_angles(pca.components_.T, basis).max()
    assert np.rad2deg(angle) < 15
    assert angle < 0.25 * pca_angle
    # the outliers are the samples with the smallest weights
    assert np.all(model.weights_[~inliers].max() < np.median(model.weights_[inliers]))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(-1e3, 1e3), wide=st.booleans())
def test_translation_equivariance(seed, shift, wide):
    model = OptimalMeanPCA(2, max_iter=20, tol=0)
    assert_translation_equivariant(model, seed, shift, wide, components_atol=1e-7)


@pytest.mark.parametrize("loss", ["l21", "l2p", "capped"])
def test_gram_and_scatter_routes_agree(loss):
    X = random_data(3, 25, 40)
    kw = {"l21": L21Loss(1e-6)}
    from robustpca.losses import make_loss

    lo = kw.get(loss) or make_loss(loss, p=0.7, threshold=30.0, epsilon=1e-6)
    res = [
        solve_optimal_mean_pca(
            X, 3, lo, rng=np.random.default_rng(0), max_iter=15, tol=0, route=route
        )
        for route in ("gram", "scatter")
    ]
    np.testing.assert_allclose(res[0].objective, res[1].objective, rtol=1e-9)
    np.testing.assert_allclose(res[0].mean, res[1].mean, atol=1e-8)
    np.testing.assert_allclose(
        projector(res[0].components), projector(res[1].components), atol=1e-8
    )


def test_capped_loss_gives_outliers_zero_weight():
    X, basis, inliers = planted_outlier_data(5, outlier_fraction=0.2)
    model = OptimalMeanPCA(3, loss="capped", threshold=20.0).fit(X)
    assert np.all(model.weights_[~inliers] == 0)
    assert np.all(model.weights_[inliers] > 0)
    assert np.rad2deg(subspace_angles(model.components_.T, basis).max()) < 5


def test_capped_threshold_below_every_residual_warns():
    X = random_data(11, 40, 6)
    with pytest.warns(UserWarning, match="threshold"):
        model = OptimalMeanPCA(2, loss="capped", threshold=1e-9).fit(X)
    assert np.all(model.weights_ == 0) and np.isfinite(model.components_).all()


def test_callback_can_stop_and_sees_state():
    X = random_data(4, 40, 10)
    seen = []

    def cb(iteration, state):
        seen.append((iteration, state.objective, state.components.shape, state.mean.shape))
        return iteration == 3

    model = OptimalMeanPCA(2, callback=cb, tol=0).fit(X)
    assert model.n_iter_ == 3 and not model.converged_
    assert model.stop_reason_ == "stopped by callback"
    assert [s[0] for s in seen] == [1, 2, 3]
    assert seen[0][2:] == ((2, 10), (10,))


def test_convergence_warning_at_max_iter():
    X = random_data(5, 40, 10)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = OptimalMeanPCA(2, max_iter=2, tol=0).fit(X)
    assert model.n_iter_ == 2 and not model.converged_


@pytest.mark.parametrize("epsilon", ["auto", 0.0])
def test_zero_residuals_and_duplicates_give_no_nan(epsilon):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 6))  # exactly rank 2
    X = np.vstack([X, X[:5], X[:5]])  # duplicated rows
    # with epsilon=0 the weights of exact fits are floored, not smoothed: convergence in
    # objective is slow there, and only finiteness is asserted
    model = quiet_fit(OptimalMeanPCA(2, epsilon=epsilon, max_iter=50), X)
    for attr in ("components_", "mean_", "weights_", "objective_history_"):
        assert np.all(np.isfinite(getattr(model, attr))), attr
    assert np.allclose(model.reconstruction_error(X), 0, atol=1e-8)
    # k larger than the rank: the basis is completed, still orthonormal
    model = quiet_fit(OptimalMeanPCA(4, epsilon=epsilon, random_state=0), X)
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(4), atol=1e-10)


def test_constant_feature_and_constant_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 5))
    X[:, 2] = 7.0
    model = OptimalMeanPCA(2).fit(X)
    assert np.isfinite(model.components_).all()
    assert abs(model.mean_[2] - 7.0) < 1e-12
    const = np.ones((10, 4))
    model = OptimalMeanPCA(2, random_state=0).fit(const)
    assert np.isfinite(model.components_).all() and np.allclose(model.mean_, 1.0)


def test_input_not_modified():
    X = random_data(6, 30, 8)
    X.setflags(write=False)
    copy = X.copy()
    OptimalMeanPCA(2).fit(X).transform(X)
    np.testing.assert_array_equal(X, copy)


def test_reproducible_with_random_state():
    X = random_data(7, 15, 40)
    a = OptimalMeanPCA(15, random_state=3).fit(X)
    b = OptimalMeanPCA(15, random_state=3).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)


def test_transform_inverse_and_errors_consistent():
    X = random_data(8, 40, 10)
    model = OptimalMeanPCA(3).fit(X)
    Z = model.transform(X)
    rec = model.inverse_transform(Z)
    np.testing.assert_allclose(
        np.linalg.norm(X - rec, axis=1), model.reconstruction_error(X), atol=1e-10
    )
    np.testing.assert_allclose(model.reconstruction_error(X), model.residuals_, atol=1e-6)
    diag = outlier_diagnostics(model, X)  # score_samples: the detector's outlyingness
    np.testing.assert_allclose(diag.orthogonal_distances, model.reconstruction_error(X))
    np.testing.assert_array_equal(model.score_samples(X), -diag.outlyingness)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"loss": "l2p", "p": 0.0}, "p="),
        ({"loss": "l2p", "p": 2.5}, "p="),
        ({"loss": "l2p", "p": float("nan")}, "p="),
        ({"loss": "capped"}, "threshold"),
        ({"loss": "capped", "threshold": -1.0}, "threshold"),
        ({"loss": "nope"}, "loss="),
        ({"loss": "huber"}, "loss="),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": "big"}, "epsilon"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": -1.0}, "tol"),
        ({"n_components": 0}, "n_components"),
        ({"n_components": 11}, "n_components"),
    ],
)
def test_bad_parameters(params, match):
    assert_fit_rejects(OptimalMeanPCA, params, ValueError, match)


def test_bad_types():
    X = random_data(9, 30, 10)
    with pytest.raises(TypeError, match="n_components"):
        OptimalMeanPCA(n_components=2.5).fit(X)
    with pytest.raises(TypeError, match="callback"):
        OptimalMeanPCA(2, callback=3).fit(X)


@pytest.mark.parametrize(
    ("X", "match"),
    [
        (np.array([[1.0, np.nan], [2.0, 3.0], [0.0, 1.0]]), "NaN"),
        (np.array([[1.0, np.inf], [2.0, 3.0], [0.0, 1.0]]), "infinity"),
        (np.arange(5.0), "2D"),
        (np.empty((0, 3)), "0 sample"),
        (np.ones((1, 3)), "1 sample"),
    ],
)
def test_bad_input(X, match):
    with pytest.raises(ValueError, match=match):
        OptimalMeanPCA(1).fit(X)


def test_transform_checks_feature_count():
    model = OptimalMeanPCA(2).fit(random_data(10, 20, 6))
    with pytest.raises(ValueError, match="features"):
        model.transform(np.ones((3, 5)))
    with pytest.raises(ValueError, match="inverse_transform"):
        model.inverse_transform(np.ones((3, 5)))


@pytest.mark.parametrize("p", [1e-6, 1e-4, 1e-2])
def test_l2p_small_powers_converge_before_stopping(p):
    """For loss='l2p', tol is on the power mean (sum_i rho(r_i) / n)^(1/p): the relative
    change of the sum itself, which tends to n as p tends to 0, stopped the loop after
    3 iterations at p = 1e-6 with a mean 0.21 off on data of spread 15. The Dask fit
    takes the same stop."""
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2)) @ rng.normal(size=(2, 10)) * 3 + 5
    X += 0.1 * rng.normal(size=X.shape)
    X[:20] += 20 * rng.normal(size=(20, 10))
    fit = quiet_fit(OptimalMeanPCA(2, loss="l2p", p=p), X)
    converged = quiet_fit(OptimalMeanPCA(2, loss="l2p", p=p, tol=1e-15, max_iter=2000), X)
    assert np.linalg.norm(fit.mean_ - converged.mean_) < 0.02
    assert np.linalg.norm(projector(fit.components_) - projector(converged.components_)) < 1e-3
    chunked = quiet_fit(OptimalMeanPCA(2, loss="l2p", p=p), da.from_array(X, chunks=(50, 10)))
    assert chunked.n_iter_ == fit.n_iter_
    np.testing.assert_allclose(chunked.mean_, fit.mean_, atol=1e-8)


@pytest.mark.parametrize(
    "make",
    [
        lambda rs: OptimalMeanPCA(4, loss="l2p", p=0.5, epsilon=0.0, random_state=rs),
        lambda rs: GeneralizedMeanPCA(4, p=0.3, delta=0.0, random_state=rs),
    ],
)
def test_no_smoothing_keeps_the_objective_from_rising(make):
    """Without smoothing, a residual reaching zero weighs its row 1e12 times or more:
    the weighted scatter's other directions fell below the rank tolerance and were
    drawn from random_state, and the objective rose (Theorem 1 of Nie et al. 2014, the
    monotone decrease of Oh & Kwak). The loop stops at the iterate before the rise."""
    import warnings

    X = np.random.default_rng(0).normal(size=(13, 12))  # full rank, no outlier
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = make(0).fit(X), make(1).fit(X)
    assert np.abs(a.components_.T @ a.components_ - b.components_.T @ b.components_).max() < 1e-9
    assert np.all(np.diff(a.objective_history_) <= 1e-12 * a.objective_history_[:-1])
    if a.stop_reason_ == StopReason.OBJECTIVE_ROSE:  # and the user is told
        with pytest.warns(ConvergenceWarning, match="use the default"):
            make(0).fit(X)


@pytest.mark.parametrize("params", [{"epsilon": 0.0}, {"loss": "l2p", "p": 0.5, "epsilon": 0.0}])
def test_an_exact_fit_without_smoothing_stops_at_once(params):
    """Four points in R^10 with k = 3 are fitted exactly: without smoothing the loop went
    on re-weighting the rows by their rounding to max_iter, with a ConvergenceWarning."""
    import warnings

    X = np.random.default_rng(2).normal(size=(4, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OptimalMeanPCA(3, random_state=0, **params).fit(X)
    assert model.stop_reason_ == StopReason.EXACT and model.n_iter_ == 1


@pytest.mark.parametrize("shape", [(40, 6), (4, 10)])
def test_an_exact_fit_stops_at_once_on_dask_too(shape):
    """The chunked loop (tall data) and the Gram route (wide data) take the same exact-fit
    test as the in-memory fit: the same iterations and stop."""
    import warnings

    import dask.array as da

    rng = np.random.default_rng(3)
    n, d = shape
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 5.0  # rank 2 about its mean
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = OptimalMeanPCA(2, epsilon=0.0, random_state=0).fit(X)
        b = OptimalMeanPCA(2, epsilon=0.0, random_state=0).fit(da.from_array(X, chunks=(7, d)))
    assert (a.n_iter_, a.stop_reason_) == (b.n_iter_, b.stop_reason_) == (1, StopReason.EXACT)


def test_epsilon_is_that_of_a_loss_instance():
    """With ``loss=L21Loss(epsilon=1.0)``, ``epsilon_`` reported the default epsilon the
    estimator would have chosen (6e-12), not the 1.0 the fit used."""
    X = np.random.default_rng(0).normal(size=(40, 6))
    model = OptimalMeanPCA(2, loss=L21Loss(epsilon=1.0)).fit(X)
    assert model.epsilon_ == 1.0
    r = model.reconstruction_error(X)
    assert model.objective_history_[-1] == pytest.approx(np.sqrt(r**2 + 1.0).sum(), rel=1e-9)
