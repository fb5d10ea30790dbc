"""The generalized sample mean on the observed entries
(:func:`robustpca.solvers.generalized_mean_missing.solve_generalized_mean_missing`).

Its module documents the location :math:`\\min_m \\sum_i \\rho(\\lVert P_{O_i}(x_i -
m)\\rVert)`: the generalized sample mean of Oh & Kwak (2016, Algorithm 1) for ``loss =
L2pLoss(2p, delta)``, with each row's distance on its observed coordinates and an
objective that never increases. These tests pin those claims on the solver itself:
parity with the complete-data Algorithm 1 where nothing is missing, the objective being
the observed-entries one, and the stationarity of the returned mean.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.losses import L2pLoss
from robustpca.solvers.generalized_mean import solve_generalized_mean
from robustpca.solvers.generalized_mean_missing import solve_generalized_mean_missing


def _data(seed=0, n=60, d=5, rate=0.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:6] += 15.0  # outlying rows the generalized mean resists
    missing = rng.random((n, d)) < rate
    missing[np.arange(n), rng.integers(0, d, n)] = False  # every row keeps an entry
    return np.where(missing, np.nan, X), missing


def _observed_distances(X, missing, m):
    diff = np.where(missing, 0.0, X - m)
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


@pytest.mark.parametrize(("p", "delta"), [(0.5, 0.1), (0.8, 1.0)])
def test_without_gaps_it_is_algorithm_1(p, delta):
    """No missing entry: the same mean as the complete-data Algorithm 1 (route parity)."""
    X, _ = _data()
    X = np.nan_to_num(X, nan=0.5)
    nothing = np.zeros(X.shape, dtype=bool)
    loss = L2pLoss(p=2.0 * p, epsilon=delta)
    located = solve_generalized_mean_missing(X, nothing, loss, max_iter=500, tol=1e-13)
    reference = solve_generalized_mean(X, p, delta, max_iter=500, tol=1e-13)
    np.testing.assert_allclose(located.solution, reference.mean, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_objective_is_the_observed_entries_one_and_never_increases(seed):
    """``objective[-1]`` is :math:`\\sum_i \\rho(\\lVert P_{O_i}(x_i - m)\\rVert)` at the
    returned mean (the gaps, whatever their values, do not count), and the history
    never increases (majorize-minimize)."""
    X, missing = _data(seed)
    loss = L2pLoss(p=1.0, epsilon=0.1)
    located = solve_generalized_mean_missing(X, missing, loss, max_iter=300, tol=1e-12)
    m = located.solution
    expected = loss.rho(_observed_distances(X, missing, m)).sum()
    np.testing.assert_allclose(located.objective[-1], expected, rtol=1e-12)
    history = np.asarray(located.objective)
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    garbage = np.where(missing, 1e6, X)  # any value at the gaps: the same location
    again = solve_generalized_mean_missing(garbage, missing, loss, max_iter=300, tol=1e-12)
    np.testing.assert_allclose(again.solution, m, rtol=0, atol=1e-10)


@pytest.mark.parametrize(("p", "delta"), [(0.5, 0.1), (0.9, 0.5)])
def test_the_mean_is_stationary_on_the_observed_entries(p, delta):
    """At the returned mean the gradient of the observed-entries objective vanishes:
    each coordinate is the weighted mean of the rows that observe it, with the loss's
    weights at the observed distances. The default ``max_iter`` and ``tol`` reach it."""
    X, missing = _data(2)
    loss = L2pLoss(p=2.0 * p, epsilon=delta)
    m = solve_generalized_mean_missing(X, missing, loss).solution
    w = loss.weights(_observed_distances(X, missing, m))[:, None] * ~missing
    gradient = (w * np.where(missing, 0.0, X - m)).sum(axis=0) / w.sum(axis=0)
    spread = np.nanstd(X, axis=0)
    assert np.all(np.abs(gradient) <= 1e-3 * spread)
