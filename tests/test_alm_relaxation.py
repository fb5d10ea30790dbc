"""The blocked ALM passes against a dense reference: over-relaxed ADMM and the residuals.

The passes of :mod:`robustpca.solvers.alm_blocks` keep two ``n x d`` arrays and update
them in place, with the relaxed multiplier standing in for the multiplier; here the same
iteration is written out densely, one line per equation of Eckstein & Bertsekas (1992)
(Boyd et al. 2011, sec. 3.4.3), and the iterates, the final multiplier and the relative
primal and dual residuals of the trace must agree to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

import robustpca.solvers.alm_blocks as blocks
from robustpca.solvers import alm_schedule
from robustpca.solvers.alm import gamma_max, solve_crpca_om, solve_outlier_pursuit, solve_pcp

from .conftest import corrupted_low_rank


def svt(M, tau):
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    return (U * np.maximum(s - tau, 0.0)) @ Vt


def fixed_schedule(monkeypatch, alpha):
    """The loop at its first penalty throughout, relaxed by ``alpha`` from the first
    iteration, measuring the residuals, never certifying."""
    monkeypatch.setattr(alm_schedule._Schedule, "relaxation", lambda self: alpha)
    monkeypatch.setattr(alm_schedule._Schedule, "measures", lambda self: True)
    monkeypatch.setattr(alm_schedule._Schedule, "next_mu", lambda self, mu, p, d: mu)
    monkeypatch.setattr(alm_schedule._Schedule, "wants_certificate", lambda self, *a: False)


def dense_relaxed_admm(kind, X, weight, mu, Y, n_iter, alpha):
    """Relaxed ADMM for ``X = L + S`` at a fixed penalty: ``(L, S, Y)`` and the relative
    residuals, primal ``||X - L - S|| / ||X||`` and dual ``||Y_next - Y hat|| /
    sqrt(||Y hat||^2 + ||Y_next||^2)`` with ``Y hat = mu (M - L)``."""
    free = kind == "om"
    Xc = X - X.mean(axis=0) if free else X
    S = np.zeros_like(X)
    if kind == "pcp":

        def prox(T):
            return np.sign(T) * np.maximum(np.abs(T) - weight / mu, 0.0)

        tau = 1.0 / mu
    else:

        def prox(T):
            norms = np.linalg.norm(T, axis=1, keepdims=True)
            return T * np.maximum(1.0 - (1.0 / mu) / np.maximum(norms, 1e-300), 0.0)

        tau = weight / mu
    primal, dual = [], []
    for _ in range(n_iter):
        M = Xc - S + Y / mu
        b = M.mean(axis=0) if free else 0.0
        L = svt(M - b, tau) + b
        Y_hat = mu * (M - L)
        relaxed = alpha * L + (1.0 - alpha) * (Xc - S)
        S = prox(Xc - relaxed + Y / mu)
        Y = Y + mu * (Xc - relaxed - S)
        primal.append(np.linalg.norm(Xc - L - S) / np.linalg.norm(Xc))
        dual.append(np.linalg.norm(Y - Y_hat) / np.hypot(np.linalg.norm(Y_hat), np.linalg.norm(Y)))
    return L + (X.mean(axis=0) if free else 0.0), S, Y, np.array(primal), np.array(dual)


def fit(kind, X, n_iter):
    rng = np.random.default_rng(0)
    if kind == "pcp":
        lam = 1.0 / np.sqrt(max(X.shape))
        return lam, solve_pcp(X, lam=lam, rng=rng, max_iter=n_iter)
    if kind == "op":
        gamma = 0.3 * gamma_max(X)
        return gamma, solve_outlier_pursuit(X, gamma=gamma, rng=rng, max_iter=n_iter)
    gamma = 0.3 * gamma_max(X - X.mean(axis=0))
    return gamma, solve_crpca_om(X, gamma=gamma, rng=rng, max_iter=n_iter)


@pytest.mark.parametrize("kind", ["pcp", "op", "om"])
@pytest.mark.parametrize("alpha", [1.0, 1.8])
@pytest.mark.parametrize("shape", [(30, 20), (12, 40)])
def test_blocked_passes_are_relaxed_admm(monkeypatch, kind, alpha, shape):
    """Tall data take the row passes, wide data at a rank above a quarter of the side
    the column pass (with the l2,1 row sums); small blocks make every pass blocked."""
    fixed_schedule(monkeypatch, alpha)
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 8 * 4 * max(shape))
    monkeypatch.setattr(blocks, "MIN_BLOCK_BYTES", 8)
    X = corrupted_low_rank(3, *shape, rank=3, offset=1.5, entry_scale=8, row_scale=3)
    weight, res = fit(kind, X, 25)
    if kind == "pcp":  # Lin et al.'s Y_0 = X / J(X)
        Y0 = X / max(np.linalg.norm(X, 2), np.abs(X).max() / weight)
    else:
        Y0 = np.zeros_like(X)
    L, S, Y, primal, dual = dense_relaxed_admm(kind, X, weight, res.info["mu"], Y0, 25, alpha)
    scale = np.abs(X).max()
    assert np.abs(res.info["low_rank"] - L).max() <= 1e-9 * scale
    assert np.abs(res.info["sparse"] - S).max() <= 1e-9 * scale
    assert np.abs(res.info["dual"] - Y).max() <= 1e-9 * np.abs(Y).max()
    trace = res.info["residuals"]
    np.testing.assert_allclose(trace["primal"], primal, rtol=1e-6, atol=1e-12)
    # the column pass expands the l2,1 dual residual by rows: a cancellation error of
    # about 1e-8 (alm_blocks._column_pass), seen where the residual is zero
    np.testing.assert_allclose(trace["dual"], dual, rtol=1e-6, atol=5e-8)


@pytest.mark.slow
def test_relaxation_takes_fewer_iterations_on_noisy_pcp(monkeypatch):
    """PCP on a noisy 300 x 300 problem (no exact recovery: the balancing phase runs):
    47 iterations to the default gap target without relaxation, 33 with 1.8."""
    X = corrupted_low_rank(2, 300, 300, rank=10, offset=1.5, entry_scale=8, row_scale=3)
    X += 0.3 * np.random.default_rng(2).normal(size=X.shape)
    lam = 1.0 / np.sqrt(300)
    relaxed = solve_pcp(X, lam=lam, rng=np.random.default_rng(0))
    monkeypatch.setattr("robustpca.solvers.alm.RELAX_PCP", 1.0)
    plain = solve_pcp(X, lam=lam, rng=np.random.default_rng(0))
    for res in (relaxed, plain):
        assert 0 <= res.info["duality_gap"] <= 1e-3
    assert relaxed.n_iter < 0.8 * plain.n_iter
    # the same problem: objectives within the two certified gaps
    f, g = relaxed.objective[-1], plain.objective[-1]
    assert abs(f - g) <= 1e-3 * max(f, g)


@pytest.mark.parametrize("sparse", [blocks._L1(0.3), blocks._L21(1.0)], ids=["l1", "l21"])
@pytest.mark.parametrize("shape", [(30, 20), (12, 40)], ids=["rows", "columns"])
@pytest.mark.parametrize("alpha", [1.0, 1.8])
def test_pass_measures_only_what_it_is_asked_for(monkeypatch, sparse, shape, alpha):
    """Pass (3) at the three measuring levels from one state: the same ``D`` and primal
    residual bit for bit; with the dual residual ('residual') the same dual residual and
    its scale as the full measure; the cheap gap's sums (value, entry norm, the next
    value) only with ``measure=True``. The wide case takes the column pass (a rank above
    a quarter of the side), the tall one the row pass; small blocks make both blocked."""
    from robustpca.solvers.alm_svt import _gram_step

    monkeypatch.setattr(blocks, "BLOCK_BYTES", 8 * 4 * max(shape))
    monkeypatch.setattr(blocks, "MIN_BLOCK_BYTES", 8)
    rng = np.random.default_rng(4)
    X = corrupted_low_rank(5, *shape, rank=6, offset=1.5, entry_scale=8, row_scale=3)
    Y0, M0 = rng.normal(size=shape), X + rng.normal(size=shape)
    data, mu = blocks._Data(X, None), 0.7
    low = _gram_step(M0, 0.5)
    assert low.kind == ("columns" if shape[0] < shape[1] else "rows")
    runs = {}
    for measure in (True, "residual", False):
        work, Y = M0.copy(), Y0.copy()
        a = alpha if measure else 1.0
        stats = blocks._low_rank_pass(data, sparse, work, Y, low, None, mu, measure, False, a)
        runs[measure] = (stats, work)
        np.testing.assert_array_equal(Y, Y0)  # the multiplier is not written here
    full, residual = runs[True][0], runs["residual"][0]
    assert full.value != 0 and full.entry > 0
    assert residual.value == 0 and residual.entry == 0 and residual.value_next is None
    assert residual.dual == pytest.approx(full.dual, rel=1e-12)
    assert residual.size == pytest.approx(full.size, rel=1e-12)
    assert residual.size_next == pytest.approx(full.size_next, rel=1e-12, abs=1e-12)
    if alpha == 1.0:  # the plain pass (never relaxed) against the others
        plain, work = runs[False]
        np.testing.assert_array_equal(work, runs[True][1])
        assert plain.primal == full.primal and plain.loss == full.loss
        assert plain.dual == plain.size == plain.value == 0 and plain.value_next is None
    np.testing.assert_array_equal(runs["residual"][1], runs[True][1])
    assert residual.primal == full.primal and residual.loss == full.loss
