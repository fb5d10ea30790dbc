"""The column passes of the wide (Gram) route against brute force (mutation audit).

:class:`~robustpca.solvers.chunked_gram.GramPasses` over blocks of whole columns of
uneven widths (one block of a single column): the Gram pass, and the explicit residuals
that the Gram route forms in an iteration whose Gram residuals it does not trust, for
an implicit basis :math:`X_0^\\top M` (orthonormalised from its Gram matrix, by
Cholesky, or by ``eigh`` where ``M`` has dependent columns) and for an explicit one.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from robustpca.linalg import WeightedPCAProblem
from robustpca.solvers.chunked_gram import GramPasses, GramWeightedPCA, NumpyColumnRunner

#: Uneven blocks of the 120 columns below, one of a single column.
WIDTHS = [1, 37, 5, 60, 17]


def _passes(X):
    runner = NumpyColumnRunner(X, chunk_cols=X.shape[1])
    runner.bounds = list(pairwise(np.cumsum([0, *WIDTHS]).tolist()))
    passes = GramPasses(runner)
    passes.first_pass()
    return passes


def _wide(seed=0, n=9, d=120):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) @ np.diag(rng.uniform(0.5, 2.0, d)) + 5.0


def _brute_residuals(X, point, basis):
    """``||(I - QQ^T)(x_i - b)||^2`` and ``||x_i - b||^2`` with ``Q`` an orthonormal
    basis of the span of ``basis`` (its rank taken from its singular values)."""
    u, s, _ = np.linalg.svd(basis, full_matrices=False)
    Q = u[:, s > 1e-10 * s.max()]
    centred = X - point
    residual = centred - (centred @ Q) @ Q.T
    return np.einsum("ij,ij->i", residual, residual), np.einsum("ij,ij->i", centred, centred)


def test_gram_pass_over_uneven_column_blocks():
    """The Gram pass adds the upper triangles of the blocks' centred Gram matrices and
    mirrors the sum once: the centred ``n x n`` Gram matrix and the column means."""
    X = _wide()
    passes = _passes(X)
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(passes.gram, Xc @ Xc.T, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(passes.center, X.mean(axis=0), rtol=1e-14)


@pytest.mark.parametrize("dependent", [False, True])
@pytest.mark.parametrize("centred", [False, True])
def test_sq_residuals_of_an_implicit_basis(dependent, centred):
    """``sq_residuals(point, M=M)``: the squared distances of the rows to the affine
    subspace through :math:`b = c_0 + X_0^\\top a` spanned by :math:`X_0^\\top M`, formed
    explicitly. ``M`` with a repeated column has a singular Gram matrix: the basis is
    then orthonormalised through ``eigh`` on its positive part."""
    X = _wide(1)
    n = X.shape[0]
    passes = _passes(X)
    rng = np.random.default_rng(2)
    M = rng.normal(size=(n, 3))
    if dependent:
        M = np.column_stack([M, M[:, 0]])
    a = rng.dirichlet(np.ones(n)) - 1.0 / n if centred else None
    X0 = X - X.mean(axis=0)
    point = X.mean(axis=0) + (0.0 if a is None else X0.T @ a)
    r2, sq = passes.sq_residuals(a, M=M)
    expected_r2, expected_sq = _brute_residuals(X, point, X0.T @ M)
    np.testing.assert_allclose(sq, expected_sq, rtol=1e-10)
    np.testing.assert_allclose(r2, expected_r2, rtol=1e-8, atol=1e-9 * expected_sq.max())


def test_sq_residuals_of_an_explicit_basis():
    """``sq_residuals(point, U=U)`` ships an orthonormal ``d x k`` basis split like the
    columns (a projection pass, then a residual pass)."""
    X = _wide(3)
    n, d = X.shape
    passes = _passes(X)
    rng = np.random.default_rng(4)
    U = np.linalg.qr(rng.normal(size=(d, 2)))[0]
    a = rng.dirichlet(np.ones(n)) - 1.0 / n
    point = X.mean(axis=0) + (X - X.mean(axis=0)).T @ a
    r2, sq = passes.sq_residuals(a, U=U)
    expected_r2, expected_sq = _brute_residuals(X, point, U)
    np.testing.assert_allclose(sq, expected_sq, rtol=1e-10)
    np.testing.assert_allclose(r2, expected_r2, rtol=1e-10)


def test_mean_sq_distance_is_the_in_memory_problems():
    """The Gram problem's ``mean_sq_distance`` (the scale of the exact-fit test and of
    the losses' default epsilon) is the in-memory problem's: the mean squared distance
    of the rows to their mean, over ``n`` (not ``n - 1``)."""
    X = _wide(5)
    rng = np.random.default_rng(0)
    gram = GramWeightedPCA(_passes(X), 2, rng)
    memory = WeightedPCAProblem(X, 2, np.random.default_rng(0))
    expected = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    assert gram.mean_sq_distance() == pytest.approx(expected, rel=1e-12)
    assert memory.mean_sq_distance() == pytest.approx(expected, rel=1e-12)


def test_final_residuals_take_one_pass_for_a_full_basis():
    """RWL-AN's final residuals (:meth:`GramWeightedPCA.final_residuals`) to a basis of
    ``n_components`` usable directions take one pass with the implicit basis
    :math:`X_0^\\top M`; only a completed basis (fewer usable directions) is shipped as
    an explicit ``d x k`` matrix, which takes two. Both give the distances to the
    affine subspace of the solution."""
    X = _wide(6)
    passes = _passes(X)
    problem = GramWeightedPCA(passes, 3, np.random.default_rng(0))
    w = np.random.default_rng(1).uniform(0.2, 1.0, X.shape[0])
    sub = problem.solve(w)
    basis, mean = sub.basis(), sub.mean()
    before = passes.run.n_passes
    got = problem.final_residuals(sub, basis)
    assert passes.run.n_passes - before == 1
    expected, _ = _brute_residuals(X, mean, basis)
    np.testing.assert_allclose(got, np.sqrt(expected), rtol=1e-8)
