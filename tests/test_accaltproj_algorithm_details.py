"""Mutation-audit additions for AccAltProj (robustpca.solvers.known_rank)."""

from __future__ import annotations

import numpy as np

from robustpca.solvers.known_rank import solve_accaltproj


def _planted(seed=0, m=80, n=60, r=2, noise=0.0, coherent=False):
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((m, r))
    if coherent:
        U[0] *= 40.0  # a spiky row: U far from incoherent
    L = U @ rng.standard_normal((r, n))
    S = np.where(rng.random((m, n)) < 0.05, 10.0 * rng.choice([-1.0, 1.0], (m, n)), 0.0)
    return L + S + noise * rng.standard_normal((m, n)), L


def test_first_iteration_threshold_is_beta_times_sigma_r1_plus_gamma_sigma_1():
    """zeta_1 = beta (sigma_{r+1} + gamma sigma_1) of P_{T_0}(X - S_0) (Cai, Cai & Wei
    2019, Algorithm 1, line 9), T_0 the tangent space at L_0 = H_r(X - S_{-1}),
    recomputed here from the definitions (60 x 80: the LAPACK SVD route, no
    randomness). With noise sigma_{r+1} is a material part of it."""
    X, _ = _planted(noise=0.1)
    X = X[:60, :80] if X.shape[1] >= 80 else X
    r, gamma = 2, 0.5
    res = solve_accaltproj(X, r, gamma=gamma, max_iter=1, rng=np.random.default_rng(0))
    thr = np.asarray(res.info["thresholds"])
    beta = res.info["beta"]
    S_init = np.where(np.abs(X) > thr[0], X, 0.0)
    U, s, Vt = np.linalg.svd(X - S_init, full_matrices=False)
    U, V = U[:, :r], Vt[:r].T
    L0 = (U * s[:r]) @ V.T
    S0 = np.where(np.abs(X - L0) > thr[1], X - L0, 0.0)
    Z = X - S0
    PT = U @ (U.T @ Z) + (Z @ V) @ V.T - U @ (U.T @ Z @ V) @ V.T
    sig = np.linalg.svd(PT, compute_uv=False)
    assert sig[r] > 0.01 * gamma * sig[0]
    assert abs(thr[2] - beta * (sig[r] + gamma * sig[0])) <= 1e-8 * thr[2]


def test_trim_changes_the_iterates_on_coherent_factors():
    """trim=True trims the factors before each projection (Algorithm 2): on a
    low-rank part with a spiky row and a small incoherence the iterates differ from
    trim=False; with an incoherence too large to bind they are the same."""
    X, _ = _planted(coherent=True)
    kw = dict(max_iter=5, rng=np.random.default_rng(0))
    plain = solve_accaltproj(X, 2, **kw)
    kw["rng"] = np.random.default_rng(0)
    loose = solve_accaltproj(X, 2, trim=True, incoherence=1e6, **kw)
    kw["rng"] = np.random.default_rng(0)
    tight = solve_accaltproj(X, 2, trim=True, incoherence=1.0, **kw)
    np.testing.assert_allclose(loose.info["low_rank"], plain.info["low_rank"], atol=1e-8)
    assert np.abs(tight.info["low_rank"] - plain.info["low_rank"]).max() > 1e-6


def test_first_threshold_after_the_initial_one_uses_beta_not_beta_init():
    """Algorithm 3: zeta_{-1} = beta_init sigma_1(X), zeta_0 = beta sigma_1(L_0) with
    L_0 = H_r(X - T_{zeta_{-1}}(X)). With the defaults beta_init = beta, so only an
    explicit beta_init tells the two apart."""
    X, _ = _planted(seed=2)
    beta = 0.02
    res = solve_accaltproj(
        X, 2, beta=beta, beta_init=4 * beta, max_iter=1, rng=np.random.default_rng(0)
    )
    thr = np.asarray(res.info["thresholds"])
    s1_x = np.linalg.svd(X, compute_uv=False)[0]
    assert thr[0] == np.float64(4 * beta * s1_x) or abs(thr[0] - 4 * beta * s1_x) < 1e-10 * thr[0]
    S = np.where(np.abs(X) > thr[0], X, 0.0)
    s1_l0 = np.linalg.svd(X - S, compute_uv=False)[0]
    assert abs(thr[1] - beta * s1_l0) <= 1e-10 * thr[1]
