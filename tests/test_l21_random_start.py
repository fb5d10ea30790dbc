"""PCA-L21 (Nie & Huang, Algorithm 2): ``init='random'`` starts from a random orthonormal W.

Mutation audit: replacing the random start by a fixed one (the first coordinate axes)
left every test passing, although restarts from random points are what ``init='random'``
is for (Algorithm 2 finds a local solution, Theorem 2).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers import solve_l21_pca


@pytest.mark.parametrize("shape", [(40, 6), (8, 30)])
def test_random_start_is_the_q_factor_of_a_gaussian_draw(shape):
    """One iteration from ``init='random'`` equals one iteration from the explicit
    ``W0 = qr(G)[0]``, ``G`` the ``d x k`` standard normal draw of the same generator
    (both routes: tall data on the scatter, wide data on the Gram matrix); and two seeds
    give two different starts, hence two different first iterates."""
    n, d = shape
    k = 3
    X = np.random.default_rng(0).standard_t(2, size=(n, d))

    def one_step(seed, init):
        rng = np.random.default_rng(seed)
        return solve_l21_pca(X, k, rng=rng, init=init, max_iter=1, tol=0.0)

    W0 = np.linalg.qr(np.random.default_rng(7).standard_normal((d, k)))[0]
    drawn, given = one_step(7, "random"), one_step(7, W0)
    np.testing.assert_allclose(drawn.objective, given.objective, rtol=1e-12)
    np.testing.assert_allclose(
        drawn.components.T @ drawn.components, given.components.T @ given.components, atol=1e-10
    )
    other = one_step(8, "random")
    assert abs(other.objective[0] - drawn.objective[0]) > 1e-6 * drawn.objective[0]


@pytest.mark.parametrize("shape", [(80, 10), (12, 40)])
def test_components_are_principal_axes_after_a_random_start(shape):
    """Objective (8) is invariant to ``W -> W R``, so the returned basis is rotated within
    its span to the principal axes of the scores (``_principal_axes``): uncorrelated
    training scores, variances in decreasing order. From a random start the iterate
    itself is an arbitrary rotation, so this is only true after that rotation (from the
    PCA start the iterate is close to it already, which hides its absence)."""
    n, d = shape
    X = np.random.default_rng(3).normal(size=(n, d)) * np.linspace(1.0, 5.0, d)
    result = solve_l21_pca(X, 4, rng=np.random.default_rng(1), init="random", tol=1e-10)
    Y = (X - result.mean) @ result.components.T
    C = Y.T @ Y
    off_diagonal = C - np.diag(np.diag(C))
    assert np.abs(off_diagonal).max() <= 1e-8 * np.abs(C).max()
    assert np.all(np.diff(np.diag(C)) <= 0.0)
