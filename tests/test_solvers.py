"""The reusable solvers on their own: Algorithm 2 of Nie 2014 and Algorithm 3 of Nie & Huang."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from robustpca.losses import CappedL2Loss, L2pLoss, L21Loss
from robustpca.solvers import (
    maximize_linearized,
    minimize_reweighted,
    power_method,
    truncated_power_method,
)


def psd(seed, n):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A @ A.T


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 30))
def test_power_method_falls_out_of_algorithm3(seed, n):
    A = psd(seed, n) + np.diag(np.arange(n, dtype=float) * 3)  # make the top gap clear
    vals, vecs = np.linalg.eigh(A)
    if vals[-1] - vals[-2] < 1e-2 * vals[-1]:
        return
    res = power_method(
        A, np.ones(n) + np.random.default_rng(seed).normal(size=n), max_iter=20_000, tol=1e-15
    )
    v = res.solution
    assert abs(abs(v @ vecs[:, -1]) - 1) < 1e-6
    np.testing.assert_allclose(res.objective[-1], vals[-1], rtol=1e-8)
    assert np.all(np.diff(res.objective) >= -1e-10 * vals[-1])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 30), k=st.integers(1, 5))
def test_truncated_power_method_falls_out_of_algorithm3(seed, n, k):
    k = min(k, n)
    A = psd(seed, n)
    res = truncated_power_method(A, np.random.default_rng(seed).normal(size=n), k)
    v = res.solution
    assert np.count_nonzero(v) <= k
    np.testing.assert_allclose(np.linalg.norm(v), 1.0)
    assert np.all(np.diff(res.objective) >= -1e-10 * np.abs(res.objective).max())
    # it is a fixed point of its own step: the support holds the k largest |Av|
    Av = A @ v
    top = np.argsort(-np.abs(Av))[:k]
    assert set(np.flatnonzero(v)) <= set(top) | set(
        np.flatnonzero(np.abs(Av) >= np.sort(np.abs(Av))[-k] - 1e-9)
    )


def test_truncated_power_with_k_equal_n_is_power_method():
    A = psd(0, 6) + np.diag([10.0, 0, 0, 0, 0, 0])
    v0 = np.ones(6)
    a = truncated_power_method(A, v0, 6, max_iter=5000, tol=1e-15).solution
    b = power_method(A, v0, max_iter=5000, tol=1e-15).solution
    np.testing.assert_allclose(a, b, atol=1e-10)


def test_generic_l21_maximisation_monotone():
    """Algorithm 1 on an L21 problem written from scratch: max sum_i ||A_i v|| on the sphere."""
    rng = np.random.default_rng(1)
    As = rng.normal(size=(15, 3, 6))

    def subgradient(v):
        g = As @ v
        return g / np.linalg.norm(g, axis=1, keepdims=True)

    def argmax(alpha):
        m = np.einsum("ijk,ij->k", As, alpha)
        return m / np.linalg.norm(m)

    res = maximize_linearized(
        rng.normal(size=6) / 3,
        subgradient=subgradient,
        linear_argmax=argmax,
        objective=lambda v: np.linalg.norm(As @ v, axis=1).sum(),
        max_iter=200,
        tol=0,
    )
    assert np.all(np.diff(res.objective) >= -1e-12)


def geometric_median_by_reweighting(X, loss, tol=1e-14, max_iter=2000):
    return minimize_reweighted(
        lambda d: d @ X / d.sum(),
        lambda b: np.linalg.norm(X - b, axis=1),
        loss,
        np.ones(len(X)),
        max_iter=max_iter,
        tol=tol,
    )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 30))
def test_reweighting_is_monotone_and_matches_direct_minimisation(seed, n):
    X = np.random.default_rng(seed).standard_t(2, size=(n, 3))
    loss = L21Loss(epsilon=1e-10)
    res = geometric_median_by_reweighting(X, loss)
    assert np.all(np.diff(res.objective) <= 1e-12 * res.objective[:-1])
    direct = minimize(
        lambda b: loss.rho(np.linalg.norm(X - b, axis=1)).sum(),
        np.median(X, axis=0),
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20_000},
    )
    assert res.objective[-1] <= direct.fun + 1e-7 * abs(direct.fun)


@pytest.mark.parametrize("loss", [L2pLoss(p=0.5, epsilon=1e-8), CappedL2Loss(2.0, 1e-8)])
def test_reweighting_monotone_for_other_concave_losses(loss):
    X = np.random.default_rng(3).standard_t(2, size=(40, 2))
    res = geometric_median_by_reweighting(X, loss, max_iter=200)
    assert np.all(np.diff(res.objective) <= 1e-12 * res.objective[:-1])


def test_reweighting_callback_and_all_capped():
    X = np.random.default_rng(4).normal(size=(10, 2)) + 100

    def reweighted_mean(loss, **options):
        return minimize_reweighted(
            lambda d: d @ X / d.sum(),
            lambda b: np.linalg.norm(X - b, axis=1),
            loss,
            np.ones(10),
            **options,
        )

    res = reweighted_mean(CappedL2Loss(1e-3), max_iter=10)
    assert res.stop_reason.startswith("every sample has zero weight")
    res = reweighted_mean(L21Loss(1e-9), max_iter=50, tol=0, callback=lambda i, s: i == 4)
    assert res.n_iter == 4 and res.stop_reason == "stopped by callback"


def test_top_eigh_caps_k_at_the_matrix_size():
    from robustpca.linalg import top_eigh

    A = psd(0, 3)
    vals, vecs = top_eigh(A, 4)
    np.testing.assert_allclose(vals, np.linalg.eigvalsh(A)[::-1])
    assert vecs.shape == (3, 3)


def test_stopping_test_of_the_reweighting_loops():
    """The stop shared by the in-memory and the chunked loops: exact at a zero objective
    (even in the first iteration), tolerance on the relative change, else go on."""
    from robustpca.solvers import StopReason
    from robustpca.solvers.reweighting import stopping_test

    assert stopping_test([0.0], tol=0.0) == StopReason.EXACT
    assert stopping_test([5.0], tol=1.0) is None  # nothing to compare with yet
    assert stopping_test([5.0, 4.0], tol=0.1) is None  # changed by 20%
    assert stopping_test([5.0, 4.9999], tol=1e-4) == StopReason.TOLERANCE
    assert stopping_test([5.0, 5.0], tol=0.0) == StopReason.TOLERANCE
