"""Gaps in solvers/optimal_mean.py found by mutation testing.

* ``_weighted_pca_result``'s ``objective`` (the PCA estimator's ``objective_history_``)
  must be the weighted squared reconstruction error  sum_i w_i ||(I-UU^T)(x_i-b)||^2
  (dropping the eigenvalue term or the k-th eigenvalue went unnoticed).
* ``solve_optimal_mean_pca(initial_weights=...)`` must start Algorithm 1 from those
  weights (ignoring them went unnoticed).
"""

import numpy as np
import pytest

from robustpca import PCA
from robustpca.losses import L21Loss
from robustpca.solvers import solve_optimal_mean_pca, solve_weighted_pca


def _planted(seed=0, n=40, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3 + 0.3 * rng.normal(size=(n, d))
    return X + 5.0, rng.uniform(0.2, 3.0, size=n)


def _wsse(X, w, mean, components):
    C = X - mean
    R = C - (C @ components.T) @ components
    return float(np.sum(w * np.sum(R * R, axis=1)))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_weighted_pca_objective_is_weighted_reconstruction_error(k):
    X, w = _planted()
    res = solve_weighted_pca(X, k, w, rng=np.random.default_rng(0))
    expected = _wsse(X, w, res.mean, res.components)
    np.testing.assert_allclose(res.objective[-1], expected, rtol=1e-9)


def test_pca_estimator_objective_history_is_weighted_reconstruction_error():
    X, w = _planted(1)
    est = PCA(n_components=2).fit(X, sample_weight=w)
    expected = _wsse(X, w, est.mean_, est.components_)
    np.testing.assert_allclose(est.objective_history_[-1], expected, rtol=1e-9)


def test_initial_weights_start_algorithm_1():
    # one weighted solve from a 0/1 start must be weighted PCA on the rows kept
    X, _ = _planted(2)
    w0 = np.ones(len(X))
    w0[:10] = 0.0
    res = solve_optimal_mean_pca(
        X, 2, L21Loss(epsilon=1e-8), rng=np.random.default_rng(0), max_iter=1, initial_weights=w0
    )
    ref = solve_weighted_pca(X, 2, w0, rng=np.random.default_rng(0))
    np.testing.assert_allclose(res.mean, ref.mean, atol=1e-10)
    P, Q = res.components.T @ res.components, ref.components.T @ ref.components
    np.testing.assert_allclose(P, Q, atol=1e-8)
