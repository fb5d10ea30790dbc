"""Tests of PCA-L1 (Kwak 2008): fixed points, monotonicity, termination, the API."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_estimator

from robustpca import L1PCA
from robustpca.solvers import StopReason
from robustpca.solvers.l1_pca import (
    EM_CYCLE,
    EM_UNSETTLED,
    solve_l1_pca,
    solve_l1_pca_missing,
)

from .conftest import SEEDS, load_table, random_gaps


def l1_dispersion(X, w):
    return np.abs((X - X.mean(axis=0)) @ w).sum()


def assert_orthonormal(components):
    k = components.shape[0]
    assert np.all(np.isfinite(components))
    np.testing.assert_allclose(components @ components.T, np.eye(k), atol=1e-10)


def component_segments(model):
    bounds = np.cumsum(np.r_[0, model.n_iter_per_component_])
    return [model.objective_history_[a:b] for a, b in itertools.pairwise(bounds)]


def test_sklearn_check_estimator():
    check_estimator(L1PCA(contamination=0.1))  # the outlier checks need a share


def make_data(kind, n_samples, n_features, rng):
    """Gaussian data, small integers, or sparse integers symmetric about the origin.

    The last two make exact orthogonality common, hence ties in the polarities and the
    random perturbations of Kwak's step 4(b); the symmetric ones have a mean of exactly 0.
    """
    if kind == "gaussian":
        return rng.standard_normal((n_samples, n_features)) * rng.uniform(0.1, 10, n_features)
    if kind == "integer":
        return rng.integers(-2, 3, size=(n_samples, n_features)).astype(float)
    half = rng.integers(-2, 3, size=(max(n_samples // 2, 1), n_features))
    half *= rng.random(half.shape) < 0.4
    return np.vstack([half, -half]).astype(float)


def check_monotone_fit(X, seed):
    model = L1PCA(random_state=seed).fit(X)
    assert model.n_iter_ == model.n_iter_per_component_.sum() == model.objective_history_.size
    for segment in component_segments(model):
        if segment.size:
            assert np.all(np.diff(segment) >= -1e-10 * segment.max())
    assert_orthonormal(model.components_)
    assert model.converged_
    return model


@settings(max_examples=60, deadline=None)
@given(
    n_samples=st.integers(2, 40),
    n_features=st.integers(1, 8),
    seed=SEEDS,
    kind=st.sampled_from(["gaussian", "integer", "sparse_symmetric"]),
)
def test_objective_monotone_within_each_component(n_samples, n_features, seed, kind):
    # Kwak (2008), Theorem 1, including across the random perturbations.
    X = make_data(kind, n_samples, n_features, np.random.default_rng(seed))
    check_monotone_fit(X, seed)


def test_objective_monotone_across_perturbations():
    # deterministic companion of the property test, on data where perturbations abound
    n_perturbed = 0
    for seed in range(150):
        rng = np.random.default_rng(seed)
        X = make_data("sparse_symmetric", int(rng.integers(2, 40)), int(rng.integers(2, 8)), rng)
        n_perturbed += check_monotone_fit(X, seed).n_perturbations_per_component_.sum() > 0
    assert n_perturbed > 20


def test_first_component_is_a_kwak_fixed_point():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 6)) @ rng.standard_normal((6, 6))
    model = L1PCA(n_components=3, random_state=0).fit(X)
    Xc = X - X.mean(axis=0)
    w = model.components_[0]
    s = Xc.T @ np.where(Xc @ w >= 0, 1.0, -1.0)
    np.testing.assert_allclose(s / np.linalg.norm(s), w, atol=1e-12)
    # the last value recorded for the first component is its L1 dispersion
    first = component_segments(model)[0]
    np.testing.assert_allclose(first[-1], l1_dispersion(X, w), rtol=1e-12)


def test_dominant_direction_is_recovered():
    rng = np.random.default_rng(1)
    direction = np.linalg.qr(rng.standard_normal((8, 1)))[0][:, 0]
    X = 10 * rng.standard_normal((100, 1)) * direction + 0.1 * rng.standard_normal((100, 8))
    model = L1PCA(n_components=1).fit(X)
    assert abs(model.components_[0] @ direction) > 0.999


def test_perturbation_escapes_a_non_maximal_fixed_point():
    # From w = e1, samples (0, +-1) are orthogonal: a fixed point with objective 2 that
    # is not a local maximum. Kwak's perturbation reaches the maximum 2 * sqrt(2).
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    model = L1PCA(n_components=1, random_state=0).fit(X)
    assert model.n_perturbations_per_component_[0] == 1
    np.testing.assert_allclose(model.objective_history_[-1], 2 * np.sqrt(2))
    np.testing.assert_allclose(l1_dispersion(X, model.components_[0]), 2 * np.sqrt(2))
    stuck = L1PCA(n_components=1, max_perturbations=0).fit(X)
    np.testing.assert_allclose(stuck.objective_history_[-1], 2.0)
    assert stuck.converged_


def test_sample_on_the_mean_does_not_trigger_perturbations():
    # a sample at the mean is orthogonal to every w; it must not count in step 4(b)
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.0]])
    model = L1PCA(n_components=2).fit(X)
    assert model.n_perturbations_per_component_.tolist() == [0, 0]
    assert_orthonormal(model.components_)

    rng = np.random.default_rng(2)
    Y = rng.standard_normal((30, 5))
    X = np.vstack([Y, Y.mean(axis=0)])  # the mean of X, up to rounding
    model = L1PCA(random_state=0).fit(X)
    assert model.converged_
    assert model.n_perturbations_per_component_.sum() == 0
    assert_orthonormal(model.components_)


def test_duplicated_rows_give_the_same_components():
    rng = np.random.default_rng(3)
    Y = rng.standard_normal((25, 4)) * [4.0, 2.0, 1.0, 0.5]
    once = L1PCA(random_state=0).fit(Y)
    twice = L1PCA(random_state=0).fit(np.vstack([Y, Y, Y]))
    np.testing.assert_allclose(twice.components_, once.components_, atol=1e-10)
    np.testing.assert_allclose(twice.mean_, once.mean_)


@pytest.mark.parametrize("shape", [(5, 3), (3, 6)])
def test_constant_data_terminate_without_nan(shape):
    X = np.full(shape, 7.0)
    model = L1PCA(random_state=0).fit(X)
    assert model.n_iter_ == 0
    assert model.stop_reason_ == StopReason.EXACT
    assert model.converged_
    assert_orthonormal(model.components_)
    np.testing.assert_allclose(model.mean_, 7.0)
    np.testing.assert_allclose(model.transform(X), 0.0, atol=1e-12)


def test_rank_deficient_data_complete_the_basis():
    rng = np.random.default_rng(4)
    direction = np.array([3.0, 4.0, 0.0, 0.0]) / 5
    X = rng.standard_normal((20, 1)) * direction + 1.0
    model = L1PCA(n_components=3, random_state=0).fit(X)
    assert_orthonormal(model.components_)
    assert abs(model.components_[0] @ direction) > 1 - 1e-10
    assert model.n_iter_per_component_[1:].tolist() == [0, 0]


def test_components_are_greedy_and_orthonormal():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((50, 7)) @ rng.standard_normal((7, 7))
    two = L1PCA(n_components=2, random_state=0).fit(X)
    five = L1PCA(n_components=5, random_state=0).fit(X)
    assert_orthonormal(five.components_)
    np.testing.assert_allclose(five.components_[:2], two.components_, atol=1e-12)
    wide = L1PCA(random_state=0).fit(rng.standard_normal((6, 20)))
    assert wide.components_.shape == (6, 20)
    assert_orthonormal(wide.components_)


def test_translation_shifts_the_mean_only():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((40, 5)) * [3.0, 2.0, 1.0, 1.0, 0.5]
    shift = rng.uniform(-100, 100, size=5)
    base = L1PCA(n_components=3, random_state=0).fit(X)
    moved = L1PCA(n_components=3, random_state=0).fit(X + shift)
    np.testing.assert_allclose(moved.mean_, base.mean_ + shift)
    np.testing.assert_allclose(moved.components_, base.components_, atol=1e-8)


def test_callback_stops_the_fit():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((80, 6)) @ rng.standard_normal((6, 6))
    seen = []

    def callback(iteration, state):
        seen.append((iteration, state.objective, state.components.shape))
        return iteration == 3

    model = L1PCA(n_components=4, callback=callback).fit(X)
    assert model.n_iter_ == 3
    assert model.stop_reason_ == StopReason.CALLBACK
    assert not model.converged_
    assert [s[0] for s in seen] == [1, 2, 3]
    np.testing.assert_allclose([s[1] for s in seen], model.objective_history_)
    assert_orthonormal(model.components_)


def test_convergence_warning_at_max_iter():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((200, 10))
    # the limit set, not n_iter_ (each component counts its own): it said max_iter=3
    with pytest.warns(ConvergenceWarning, match=r"max_iter=1 \(3 iterations in all\)"):
        model = L1PCA(n_components=3, max_iter=1).fit(X)
    assert not model.converged_
    assert model.stop_reason_ == StopReason.MAX_ITER
    assert model.n_iter_per_component_.max() == 1
    assert_orthonormal(model.components_)


def test_tolerance_stops_early():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((300, 10))
    exact = solve_l1_pca(X, 1, rng=np.random.default_rng(0), tol=0.0)
    loose = solve_l1_pca(X, 1, rng=np.random.default_rng(0), tol=1e-2)
    assert loose.stop_reason == StopReason.TOLERANCE
    assert loose.n_iter < exact.n_iter
    assert exact.stop_reason == StopReason.FIXED_POINT


def test_input_is_not_modified():
    rng = np.random.default_rng(10)
    X = rng.standard_normal((30, 4))
    X_copy = X.copy()
    L1PCA(n_components=2).fit(X)
    np.testing.assert_array_equal(X, X_copy)


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"max_perturbations": -1}, ValueError, "max_perturbations"),
        ({"max_perturbations": 1.5}, TypeError, "max_perturbations"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": -1.0}, ValueError, "tol"),
        ({"n_components": 0}, ValueError, "n_components"),
        ({"n_components": 6}, ValueError, "n_components"),
        ({"callback": 3}, TypeError, "callback"),
    ],
)
def test_bad_parameters(params, error, match):
    X = np.random.default_rng(0).standard_normal((10, 5))
    with pytest.raises(error, match=match):
        L1PCA(**params).fit(X)


def test_bad_input():
    X = np.random.default_rng(0).standard_normal((10, 3))
    X[2, 1] = np.inf  # (a NaN is a missing entry since issue 12: tests/test_missing.py)
    with pytest.raises(ValueError, match="infinity"):
        L1PCA().fit(X)
    with pytest.raises(ValueError):
        L1PCA().fit(np.ones((1, 3)))


@pytest.mark.realdata
def test_an_em_that_cycles_keeps_the_largest_dispersion_and_says_so(shared_data):
    """PCA-L1's greedy sign patterns can cycle from one completion to the next, even
    from warm starts: on wood with a tenth of its cells missing (mask 13) the
    dispersion repeats with period 3 (to 1e-5 from the 36th completion). The EM stops
    there, not converged, keeps the cycle's completion of largest dispersion, whatever
    ``max_em_iter`` is beyond that, and the warning names the cycle. Before, it stopped
    after ``max_em_iter`` (50) at whichever completion of the cycle that was."""
    X, _ = random_gaps(load_table(shared_data, "wood"), 13)
    with pytest.warns(ConvergenceWarning, match="cycle with period 3.*largest dispersion"):
        model = L1PCA(n_components=2, random_state=0).fit(X)
    assert not model.converged_ and model.stop_reason_ == EM_CYCLE.format(3)
    assert np.isfinite(model.transform(X)).all()

    data, missing = np.nan_to_num(X), np.isnan(X)

    def solve(max_em_iter):
        rng = np.random.default_rng(0)
        return solve_l1_pca_missing(data, missing, 2, rng=rng, max_em_iter=max_em_iter)

    cycled, longer = solve(50), solve(200)
    n_em = cycled.objective.size
    assert cycled.stop_reason == EM_CYCLE.format(3) and n_em < 50
    np.testing.assert_array_equal(longer.components, cycled.components)
    best = n_em - 3 + int(np.argmax(cycled.objective[-3:]))  # its index among completions
    assert cycled.objective[best] == cycled.objective[-3:].max()
    kept = solve(best + 1)  # stopped right at that completion, unsettled
    assert kept.stop_reason == EM_UNSETTLED.format(best + 1) and not kept.converged
    np.testing.assert_array_equal(kept.components, cycled.components)
    np.testing.assert_array_equal(kept.mean, cycled.mean)


def test_counts_with_gaps_add_up_over_the_completions():
    """With gaps n_iter_ counted every completion's iterations but
    n_iter_per_component_ only the last one's (42 against 5)."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 8)) * np.linspace(3.0, 0.5, 8)
    X[rng.random(X.shape) < 0.1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = L1PCA(3, random_state=0).fit(X)
    assert model.n_iter_ == model.n_iter_per_component_.sum()
    assert model.n_perturbations_per_component_.shape == (3,)


@pytest.mark.realdata
@pytest.mark.parametrize("mask", [1, 2, 3])
def test_em_settles_on_wood_from_warm_starts(shared_data, mask):
    """With each completion warm-started from the previous directions, the EM settles on
    wood's masks 1-3 (k = 2), where restarting from Kwak's start had cycled past 1,000
    completions; no warning, and the completion's dispersion is final."""
    X, _ = random_gaps(load_table(shared_data, "wood"), mask)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = L1PCA(n_components=2, random_state=0).fit(X)
    assert model.converged_ and np.isfinite(model.transform(X)).all()
