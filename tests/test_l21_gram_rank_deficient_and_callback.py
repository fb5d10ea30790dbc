"""PCA-L21 (Nie & Huang, Algorithm 2): the Gram route with more components than the
centred data's rank, and the state the callback sees.

Mutation audit: taking :math:`(A^\\top G A)^{-1/2}` on the whole spectrum (also on its
zero eigenvalues) and reporting a wrong ``state.mean`` to the callback, on complete data
or with missing entries, left every test passing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca import L21PCA
from robustpca.solvers import solve_l21_pca


@pytest.mark.parametrize(("n", "d"), [(4, 30), (6, 25)])
def test_gram_route_with_as_many_components_as_samples(n, d):
    """Wide data, ``k = n``: the centred data have rank ``n - 1``, so ``A^T G A`` of the
    Gram step is singular and its inverse root must be taken on the positive part of the
    spectrum only. The Gram route then gives finite orthonormal components and the
    objective (8) of the scatter route."""
    X = np.random.default_rng(n).normal(size=(n, d))
    results = {}
    for route in ("gram", "scatter"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            results[route] = solve_l21_pca(
                X, n, rng=np.random.default_rng(0), route=route, max_iter=10, tol=0.0
            )
    W = results["gram"].components
    assert np.all(np.isfinite(W))
    np.testing.assert_allclose(W @ W.T, np.eye(n), atol=1e-10)
    np.testing.assert_allclose(
        results["gram"].objective[-1], results["scatter"].objective[-1], rtol=1e-10
    )


@pytest.mark.parametrize("gaps", [False, True])
def test_callback_state_mean_is_the_fit_mean(gaps):
    """``state.mean`` is the centre of the current iterate: the arithmetic mean on complete
    data, the mean of the current completion with missing entries; at the last iteration
    it is the fitted ``mean_`` (as ``state.components`` is ``components_`` up to the
    final rotation within the span)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 6)) @ np.diag([5.0, 4.0, 1.0, 0.5, 0.2, 0.1]) + 3.0
    if gaps:
        X[rng.random(X.shape) < 0.1] = np.nan
    means = []

    def callback(iteration, state):
        means.append(np.array(state.mean, copy=True))

    model = L21PCA(2, callback=callback, tol=1e-8, max_iter=200).fit(X)
    assert len(means) == model.n_iter_
    np.testing.assert_allclose(means[-1], model.mean_, rtol=1e-12, atol=1e-12)
    if not gaps:
        np.testing.assert_allclose(means[0], X.mean(axis=0), rtol=1e-12)
