"""Guards of robustpca.linalg's eigen-solvers and weighted-PCA subproblem (mutation audit).

Each test pins a check or a convention that the rest of the suite reaches only on its
happy path: the sign convention of ``cholesky_qr``'s Householder fallback, the
``syevr`` subset that comes back short, the two checks of the tridiagonal route, the
rank threshold of ``positive_eigen_mask``, the extreme-weight trigger of the Gram route
and ``mean_sq_distance`` for a problem that is not centred at the arithmetic mean.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg as sla

import robustpca.linalg as linalg
from robustpca import PCA
from robustpca.linalg import (
    WeightedPCAProblem,
    cholesky_qr,
    eigh_index_range,
    positive_eigen_mask,
    top_eigh,
)
from robustpca.linalg import eigen as eigen_module


def test_cholesky_qr_fallback_keeps_the_positive_diagonal():
    """A zero column makes ``U^T U`` singular, so ``cholesky_qr`` takes Householder QR;
    its ``Q`` must still be the one of a positive diagonal ``R`` (each column of ``Q``
    correlates positively with the column of ``U`` it spans), as on the Cholesky route.
    LAPACK's Householder QR gives ``R[0, 0] < 0`` where ``U[0, 0] > 0``."""
    rng = np.random.default_rng(0)
    U = np.linalg.qr(rng.normal(size=(20, 3)))[0]
    U[:, 0] *= np.sign(U[0, 0])  # U[0, 0] > 0: Householder's R[0, 0] is negative
    U[:, 2] = 0.0  # the Gram matrix is singular: the Householder fallback
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(U.T @ U)
    Q = cholesky_qr(U)
    np.testing.assert_allclose(Q.T @ Q, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(Q[:, :2], U[:, :2], atol=1e-12)


def test_eigh_index_range_falls_back_where_syevr_returns_too_few(monkeypatch):
    """On a tight cluster ``syevr``'s subset stage can return fewer eigenpairs than
    asked (module docstring) without raising: the full ``syevd`` must answer then."""
    rng = np.random.default_rng(2)
    B = rng.normal(size=(25, 25))
    A = B + B.T
    expected = np.linalg.eigvalsh(A)[18:]
    real = sla.eigh

    def short_evr(*args, **kwargs):
        found = real(*args, **kwargs)
        if kwargs.get("driver") != "evr":
            return found
        if kwargs.get("eigvals_only"):
            return found[1:]
        return found[0][1:], found[1][:, 1:]

    monkeypatch.setattr(sla, "eigh", short_evr)
    vals, vecs = eigh_index_range(A, 18, 24)
    np.testing.assert_allclose(vals, expected, rtol=1e-12)
    np.testing.assert_allclose(A @ vecs, vecs * vals, atol=1e-10)
    only = eigh_index_range(A, 18, 24, eigvals_only=True)
    np.testing.assert_allclose(only, expected, rtol=1e-12)


def _corrupted_dstemr(monkeypatch, corrupt):
    real = eigen_module.lapack.dstemr

    def dstemr(*args, **kwargs):
        m, w, z, info = real(*args, **kwargs)
        w, z = w.copy(), z.copy()
        corrupt(w, z)
        return m, w, z, info

    monkeypatch.setattr(eigen_module.lapack, "dstemr", dstemr)


def _swap_vectors(w, z):
    z[:, [0, 1]] = z[:, [1, 0]]  # orthonormal still, but not the eigenvectors of w


def _repeat_vector(w, z):
    z[:, 1], w[1] = z[:, 0], w[0]  # eigenpairs still, but not orthonormal


@pytest.mark.parametrize("corrupt", [_swap_vectors, _repeat_vector], ids=["residual", "gram"])
def test_tridiagonal_route_checks_what_mrrr_returns(monkeypatch, corrupt):
    """``dstemr`` on an index range is checked (its docstring): an orthonormal ``Z``
    that is not made of eigenvectors fails the residual check, eigenvectors that are
    not orthonormal fail the Gram check; either way the route returns None and
    ``top_eigh`` takes ``syevr``, with the right pairs."""
    rng = np.random.default_rng(4)
    B = rng.standard_normal((60, 90))
    A = B @ B.T
    expected_vals, expected_vecs = np.linalg.eigh(A)
    expected_vals, expected_vecs = expected_vals[::-1][:4], expected_vecs[:, ::-1][:, :4]
    _corrupted_dstemr(monkeypatch, corrupt)
    assert linalg.top_eigh_tridiagonal(A, 4) is None
    vals, vecs = top_eigh(A, 4)
    np.testing.assert_allclose(vals, expected_vals, rtol=1e-12)
    np.testing.assert_allclose(np.abs(vecs.T @ expected_vecs), np.eye(4), atol=1e-8)


def test_positive_eigen_mask_threshold():
    """Numerically positive means above RANK_RTOL (1e-12) of the largest and above 0: a
    variance 1e-9 of the largest is real (float64 resolves it), 1e-14 is rounding, and
    nothing is positive where the largest eigenvalue is not."""
    vals = np.array([1.0, 1e-9, 1e-14, 0.0, -1e-15])
    np.testing.assert_array_equal(positive_eigen_mask(vals), [True, True, False, False, False])
    np.testing.assert_array_equal(positive_eigen_mask(np.zeros(3)), [False] * 3)
    np.testing.assert_array_equal(positive_eigen_mask(np.array([-1.0, -2.0])), [False] * 2)


@pytest.mark.parametrize("route", ["scatter", "gram"])
def test_a_small_but_real_variance_is_a_component(route):
    """Data whose second direction has 1e-9 of the first's variance (far above float64
    rounding): the weighted-PCA subproblem keeps it as the second component instead
    of completing the basis with an arbitrary direction, on both routes."""
    rng = np.random.default_rng(7)
    n = 60 if route == "scatter" else 8
    Z = rng.standard_normal((n, 2)) * [1.0, 3e-5]
    Z -= Z.mean(axis=0)
    X = np.zeros((n, 4 if route == "scatter" else 12))
    X[:, :2] = Z
    problem = WeightedPCAProblem(X, 2, np.random.default_rng(0), route=route)
    sub = problem.solve(np.ones(n))
    assert sub.eigvals.size == 2
    assert abs(sub.basis()[1, 1]) == pytest.approx(1.0, abs=1e-6)
    if route == "scatter":
        pca = PCA(2).fit(X)
        assert abs(pca.components_[1, 1]) == pytest.approx(1.0, abs=1e-6)


def test_gram_step_flags_an_extreme_weight():
    """A weight above EXTREME_WEIGHT_RATIO times the median amplifies the rounding of
    its Gram column, so the step asks for explicit residuals (``suspicious``); the same
    data with even weights do not."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((20, 50))
    X -= X.mean(axis=0)
    G = X @ X.T

    def eigh(K, rows):
        assert rows is None
        return top_eigh(K, 3)

    even = linalg.gram_step(G, np.ones(20), eigh, True)
    assert not even.suspicious
    w = np.ones(20)
    w[3] = 2.0 * linalg.EXTREME_WEIGHT_RATIO
    assert linalg.gram_step(G, w, eigh, True).suspicious


@pytest.mark.parametrize("route", ["gram", "scatter"])
@pytest.mark.parametrize("case", ["offset", "reference_weights"])
def test_mean_sq_distance_is_about_the_arithmetic_mean(route, case):
    """The loss's scale is the mean squared distance to the arithmetic mean (docstring)
    also where the problem is centred elsewhere: a fixed ``offset`` (``center=False``)
    or a weighted reference point."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 30)) + 2.0
    if case == "offset":
        kw = {"center": False, "offset": np.full(30, 5.0)}
    else:
        kw = {"reference_weights": rng.uniform(0.0, 3.0, 40)}
    problem = WeightedPCAProblem(X, 2, np.random.default_rng(0), route=route, **kw)
    expected = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    assert problem.mean_sq_distance() == pytest.approx(expected, rel=1e-12)


def test_gram_basis_is_the_shifted_product():
    """``gram_basis`` (exported, used by no route of the package) is ``(X0 - 1 m^T)^T
    coef`` with ``m = X0^T offset_coef``, formed without the n x d copy."""
    rng = np.random.default_rng(8)
    X0, c, coef = rng.normal(size=(9, 14)), rng.uniform(size=9), rng.normal(size=(9, 3))
    c /= c.sum()
    expected = (X0 - np.outer(np.ones(9), X0.T @ c)).T @ coef
    np.testing.assert_allclose(linalg.gram_basis(X0, c, coef), expected, atol=1e-12)
