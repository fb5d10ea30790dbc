"""Tests of R1-PCA (Ding et al. 2006): robustness, the two routes, the API, real faces."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_estimator

from robustpca import PCA, R1PCA
from robustpca.losses import CauchyLoss, HuberLoss
from robustpca.solvers import StopReason
from robustpca.solvers.r1_pca import solve_r1_pca

from .conftest import SEEDS, load_table, planted_outlier_data, projector


def max_angle(components, basis):
    return float(np.degrees(subspace_angles(components.T, basis)).max())


def assert_orthonormal(components):
    k = components.shape[0]
    assert np.all(np.isfinite(components))
    np.testing.assert_allclose(components @ components.T, np.eye(k), atol=1e-10)


def test_sklearn_check_estimator():
    check_estimator(R1PCA(contamination=0.1))  # the outlier checks need a share


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("loss", ["huber", "cauchy"])
def test_recovers_planted_subspace_better_than_pca(seed, loss):
    # 15% gross outliers centred on the inliers' mean (so the arithmetic mean that
    # R1-PCA uses is not biased): PCA is near-orthogonal to the truth, R1-PCA close.
    X, basis, inliers = planted_outlier_data(seed, outlier_offset=0.0)
    pca = PCA(n_components=3).fit(X)
    r1 = R1PCA(n_components=3, loss=loss, max_iter=300).fit(X)
    assert max_angle(pca.components_, basis) > 75
    assert max_angle(r1.components_, basis) < 30
    assert r1.converged_
    # the outliers carry much smaller weights than the inliers
    assert np.median(r1.weights_[~inliers]) < 0.2 * np.median(r1.weights_[inliers])


def test_weights_and_threshold_follow_the_loss():
    X, _, _ = planted_outlier_data(2, outlier_offset=0.0)
    huber = R1PCA(n_components=3).fit(X)
    c = huber.threshold_
    np.testing.assert_allclose(c, np.median(huber.residuals_))
    np.testing.assert_allclose(huber.weights_, 0.5 * np.minimum(1.0, c / huber.residuals_))
    np.testing.assert_allclose(huber.residuals_, huber.reconstruction_error(X), atol=1e-8)
    cauchy = R1PCA(n_components=3, loss="cauchy").fit(X)
    c = cauchy.threshold_
    np.testing.assert_allclose(c, np.median(cauchy.residuals_))
    np.testing.assert_allclose(cauchy.weights_, 0.5 / (1 + (cauchy.residuals_ / c) ** 2))
    np.testing.assert_allclose(
        cauchy.objective_history_[-1], CauchyLoss(c).rho(cauchy.residuals_).sum()
    )
    fixed = R1PCA(n_components=3, threshold=2.5).fit(X)
    assert fixed.threshold_ == 2.5
    np.testing.assert_allclose(
        fixed.objective_history_[-1], HuberLoss(2.5).rho(fixed.residuals_).sum()
    )


def test_first_iteration_is_one_reweighted_step_from_pca():
    X, _, _ = planted_outlier_data(3, outlier_offset=0.0, n_features=12)
    Xc = X - X.mean(axis=0)
    U0 = PCA(n_components=2).fit(X).components_.T
    r0 = np.linalg.norm(Xc - Xc @ U0 @ U0.T, axis=1)
    w = HuberLoss().resolve(r0).weights(r0)
    U1 = np.linalg.qr((Xc.T * w) @ Xc @ U0)[0]
    one = R1PCA(n_components=2, max_iter=1, tol=0.0)
    with pytest.warns(ConvergenceWarning):
        one.fit(X)
    np.testing.assert_allclose(projector(one.components_), U1 @ U1.T, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(
    n_samples=st.integers(6, 30),
    extra_features=st.integers(1, 30),
    n_components=st.integers(1, 4),
    seed=SEEDS,
    loss=st.sampled_from([HuberLoss(), CauchyLoss(), HuberLoss(threshold=1.0)]),
)
def test_gram_and_scatter_routes_agree(n_samples, extra_features, n_components, seed, loss):
    rng = np.random.default_rng(seed)
    n_features = n_samples + extra_features  # wide data: 'auto' takes the Gram route
    # with k >= n/2 a subspace can fit half the samples exactly: the median cutoff then
    # collapses to ~0 and the iteration becomes chaotic (route differences are amplified)
    k = min(n_components, n_samples // 3)
    X = rng.standard_normal((n_samples, k)) @ rng.standard_normal((k, n_features)) * 3
    X += 0.1 * rng.standard_normal((n_samples, n_features)) + 5.0
    X[0] += 10 * rng.standard_normal(n_features)  # a gross outlier
    kwargs = {"rng": np.random.default_rng(0), "max_iter": 20, "tol": 0.0}
    gram = solve_r1_pca(X, k, loss, route="gram", **kwargs)
    scatter = solve_r1_pca(X, k, loss, route="scatter", **kwargs)
    auto = solve_r1_pca(X, k, loss, route="auto", **kwargs)
    np.testing.assert_allclose(projector(gram.components), projector(scatter.components), atol=1e-7)
    # with tol=0 rounding may stop one route a few iterations before the other
    n_iter = min(gram.n_iter, scatter.n_iter)
    np.testing.assert_allclose(gram.objective[:n_iter], scatter.objective[:n_iter], rtol=1e-8)
    np.testing.assert_allclose(gram.weights, scatter.weights, rtol=1e-6)
    np.testing.assert_array_equal(auto.components, gram.components)
    assert_orthonormal(gram.components)


def test_routes_agree_on_tall_and_rank_deficient_data():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((50, 2)) @ rng.standard_normal((2, 8))  # rank 2 < k = 4
    for Xi in (X, X[:6].copy()):  # tall, then wide
        gram = solve_r1_pca(Xi, 4, HuberLoss(), rng=np.random.default_rng(0), route="gram")
        scatter = solve_r1_pca(Xi, 4, HuberLoss(), rng=np.random.default_rng(0), route="scatter")
        for res in (gram, scatter):
            assert_orthonormal(res.components)
        # the two directions of variance agree; the completion is arbitrary
        top_g = projector(gram.components) @ Xi.T
        top_s = projector(scatter.components) @ Xi.T
        np.testing.assert_allclose(top_g, top_s, atol=1e-8)
        np.testing.assert_array_equal(gram.info["residuals"], 0.0)  # not rounding


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["starsCYG", "wood", "bushfire"])
@pytest.mark.parametrize("route", ["scatter", "gram"])
def test_a_subspace_holding_every_direction_is_pcas(shared_data, table, route):
    """At ``k = p`` every residual is 0, so every Huber weight is 1/2 and R1-PCA is PCA:
    it stops at its first iteration with PCA's eigenvectors (up to sign), and reversing
    the columns changes no flag. The residuals used to come out as rounding (``1e-8
    |x|``, :data:`~robustpca.solvers.r1_pca._CANCELLATION`): the weights were ratios of
    rounding errors, the basis turned within the space (24 iterations on starsCYG against
    5 with its columns swapped), and 3 of its 47 flags changed with the column order."""
    X = load_table(shared_data, table)
    p = X.shape[1]
    res = solve_r1_pca(X, p, HuberLoss(), rng=np.random.default_rng(0), route=route)
    assert res.stop_reason == StopReason.EXACT and res.n_iter == 1
    np.testing.assert_array_equal(res.info["residuals"], 0.0)
    eigenvectors = PCA(n_components=p).fit(X).components_
    np.testing.assert_allclose(np.abs(res.components @ eigenvectors.T), np.eye(p), atol=1e-8)
    model = R1PCA(n_components=p).fit(X)
    np.testing.assert_array_equal(
        R1PCA(n_components=p).fit(X[:, ::-1]).predict(X[:, ::-1]), model.predict(X)
    )


def test_translation_shifts_the_mean_only():
    X, _, _ = planted_outlier_data(5, outlier_offset=0.0)
    shift = np.random.default_rng(5).uniform(-50, 50, size=X.shape[1])
    base = R1PCA(n_components=3).fit(X)
    moved = R1PCA(n_components=3).fit(X + shift)
    np.testing.assert_allclose(moved.mean_, base.mean_ + shift)
    np.testing.assert_allclose(projector(moved.components_), projector(base.components_), atol=1e-6)


def test_constant_data_stop_exactly():
    model = R1PCA(n_components=2, random_state=0).fit(np.full((6, 4), 3.0))
    assert model.stop_reason_ == StopReason.EXACT
    assert_orthonormal(model.components_)
    np.testing.assert_allclose(model.residuals_, 0.0)


@pytest.mark.parametrize("loss", ["huber", "cauchy"])
@pytest.mark.parametrize("shape", [(16, 44), (10, 30)])
def test_a_majority_fitted_exactly_converges(shape, loss):
    """At ``k`` above half the samples the subspace can hold a majority exactly: the
    median cutoff goes to 0 with their residuals. The fit must stay there. Falling back to
    the smallest positive residual when the median reached 0 pulled the subspace off
    again, and R1-PCA cycled until ``max_iter`` (16 x 44 at ``k = 9``: the objective fell
    to 1e-4, jumped to 84 and repeated)."""
    n_samples = shape[0]
    k = n_samples // 2 + 1
    X = np.random.default_rng(0).normal(size=shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = R1PCA(n_components=k, loss=loss).fit(X)
    assert model.converged_
    assert_orthonormal(model.components_)
    history = model.objective_history_
    assert history[-1] <= 1e-6 * history[0]
    assert np.all(np.diff(history[len(history) // 2 :]) <= 1e-12 * history[0])
    assert np.count_nonzero(model.residuals_ == 0) >= k


def test_callback_stops_the_fit():
    X, _, _ = planted_outlier_data(6, outlier_offset=0.0)
    seen = []

    def callback(iteration, state):
        seen.append(iteration)
        assert state.weights.shape == (X.shape[0],)
        assert state.components.shape == (3, X.shape[1])
        assert_orthonormal(state.components)
        np.testing.assert_allclose(state.mean, X.mean(axis=0))
        return iteration == 2

    model = R1PCA(n_components=3, callback=callback).fit(X)
    assert seen == [1, 2]
    assert model.n_iter_ == 2
    assert model.stop_reason_ == StopReason.CALLBACK
    assert not model.converged_


def test_convergence_warning_at_max_iter():
    X, _, _ = planted_outlier_data(7, outlier_offset=0.0)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = R1PCA(n_components=3, max_iter=2, tol=0.0).fit(X)
    assert model.stop_reason_ == StopReason.MAX_ITER
    assert not model.converged_


def test_input_is_not_modified():
    X, _, _ = planted_outlier_data(8, n_samples=40, n_features=60)
    X_copy = X.copy()
    R1PCA(n_components=3).fit(X)
    np.testing.assert_array_equal(X, X_copy)


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"loss": "l21"}, ValueError, "loss"),
        ({"loss": HuberLoss()}, ValueError, "loss"),
        ({"threshold": 0.0}, ValueError, "threshold"),
        ({"threshold": -1.0}, ValueError, "threshold"),
        ({"threshold": np.inf}, ValueError, "threshold"),
        ({"threshold": "median"}, TypeError, "threshold"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": -1e-3}, ValueError, "tol"),
        ({"n_components": 6}, ValueError, "n_components"),
    ],
)
def test_bad_parameters(params, error, match):
    X = np.random.default_rng(0).standard_normal((10, 5))
    with pytest.raises(error, match=match):
        R1PCA(**params).fit(X)


def test_bad_input_and_route():
    X = np.random.default_rng(0).standard_normal((10, 3))
    with pytest.raises(ValueError, match="route"):
        solve_r1_pca(X, 2, HuberLoss(), rng=np.random.default_rng(0), route="svd")
    X[0, 0] = np.inf
    with pytest.raises(ValueError):
        R1PCA().fit(X)
