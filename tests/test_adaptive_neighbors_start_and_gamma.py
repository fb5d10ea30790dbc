"""RWL-AN PCA (Zhang & Tong 2019): the starting weights of Algorithm 2, problem (6) with
an infinite ``gamma``, and which losses the re-weighting loop treats as re-fitted.

Mutation audit: replacing the random start of Algorithm 2 (step 1, ``init='random'``) or
given starting weights by the uniform ones, dropping the ``gamma = inf`` case of
``simplex_weights`` (NaN weights), and marking a fixed ``gamma`` as re-fitted (which
turns off the monotonicity guard and SQUAREM of the loop) all left the suite passing.
``test_random_init_is_reproducible`` in ``test_adaptive_neighbors.py`` checks one seed
twice only.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers.adaptive_neighbors import (
    AdaptiveNeighborLoss,
    simplex_weights,
    solve_adaptive_neighbors_pca,
)


def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 6)) + 0.1 * rng.normal(size=(30, 6))
    X[:4] += 8.0 * rng.normal(size=(4, 6))  # gross outliers
    return X


def first_iterate(X, init, seed=0):
    """The weighted PCA of Algorithm 2's first pass (``max_iter=1``)."""
    rng = np.random.default_rng(seed)
    return solve_adaptive_neighbors_pca(X, 2, 20, rng=rng, init=init, max_iter=1, tol=0.0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_first_pass_uses_the_starting_weights():
    """The first pass is the weighted PCA of the starting ``p`` (Theorem 1:
    ``m = X^T p``): for given weights, for ``init='random'`` (a uniform draw on the
    simplex, ``Dirichlet(1, ..., 1)`` of the generator) and for ``'uniform'``
    (``m`` = the arithmetic mean)."""
    X = data()
    n = X.shape[0]
    p = np.zeros(n)
    p[10:25] = np.linspace(1.0, 2.0, 15)
    p /= p.sum()
    np.testing.assert_allclose(first_iterate(X, p).mean, X.T @ p, rtol=1e-12)
    drawn = np.random.default_rng(5).dirichlet(np.ones(n))
    np.testing.assert_allclose(first_iterate(X, "random", seed=5).mean, X.T @ drawn, rtol=1e-12)
    assert not np.allclose(first_iterate(X, "random", seed=6).mean, X.T @ drawn)
    np.testing.assert_allclose(first_iterate(X, "uniform").mean, X.mean(axis=0), rtol=1e-12)


def test_simplex_weights_with_infinite_gamma_are_uniform():
    """``gamma = inf`` makes the regulariser of problem (6) dominate: its minimiser on the
    simplex is the uniform ``p`` (documented), not NaN from ``inf / inf``."""
    g = np.array([4.0, 0.0, 3.0, 9.0, 1.0])
    np.testing.assert_array_equal(simplex_weights(g, np.inf), np.full(5, 0.2))
    loss = AdaptiveNeighborLoss(n_neighbors=2, gamma=np.inf)
    np.testing.assert_array_equal(loss.weights(np.sqrt(g)), np.full(5, 0.2))


def test_only_the_gamma_of_algorithm1_is_refitted():
    """``gamma=None`` re-picks ``gamma`` from every residual vector (Algorithm 1), so
    objective (16) is not one function along the loop; a fixed ``gamma`` is, and the
    loop relies on ``refitted`` being False there for its monotonicity guard and for
    SQUAREM on missing entries."""
    assert AdaptiveNeighborLoss(n_neighbors=3).refitted
    assert not AdaptiveNeighborLoss(n_neighbors=3, gamma=0.5).refitted
    assert not AdaptiveNeighborLoss(n_neighbors=3, gamma=0.0).refitted
