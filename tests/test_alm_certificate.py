"""PCP's certified duality gap by rounds of alternating projections (alm_gap._refined_gap).

Each round clips the singular values of the last dual point to 1, then its entries to
[-lam, lam], and scales the result by its exact spectral norm: a dual feasible point, so
by weak duality every round's gap is a certificate. Rounds go on while the unscaled
point's gap is below the target (the scaling's loss is what the next round can recover).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers import alm_gap
from robustpca.solvers.alm import DUALITY_GAP, solve_pcp


def noisy_planted(n, d, seed):
    """Rank 3, 5% gross errors and a little dense noise: no exact recovery, so the loop
    balances its penalty and stops on its certificate."""
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, 3)) @ rng.normal(size=(3, d))
    S = np.where(rng.random((n, d)) < 0.05, rng.uniform(-20, 20, (n, d)), 0.0)
    return L + S + 0.05 * rng.normal(size=(n, d))


def dense_rounds(Xc, Y, objective, lam, target, rounds):
    """The certificate formed densely with LAPACK's SVD: the plain gap, then the rounds
    under the rule of ``_refined_gap``; returns the smallest gap and the rounds taken."""
    value = np.vdot(Xc, Y)
    best = (objective - value / max(1.0, np.linalg.norm(Y, 2), np.abs(Y).max() / lam)) / objective
    taken, Z = 0, Y
    while best > target and taken < rounds:
        U, s, Vt = np.linalg.svd(Z, full_matrices=False)
        if s[0] <= 1.0:
            break
        Z = np.clip((U * np.minimum(s, 1.0)) @ Vt, -lam, lam)
        taken += 1
        value = np.vdot(Xc, Z)
        best = min(best, (objective - value / max(1.0, np.linalg.norm(Z, 2))) / objective)
        if not (target > 0 and (objective - value) / objective <= target):
            break
    return best, taken


@pytest.mark.parametrize("shape", [(60, 240), (240, 60)])
def test_loop_certificate_equals_the_dense_rounds(shape):
    """The loop's last certificate (from blocks of a multiplier never formed) equals the
    rounds formed densely from the multiplier that return_dual gives, and is met."""
    X = noisy_planted(*shape, seed=3)
    lam = 1 / np.sqrt(max(shape))
    fit = solve_pcp(X, lam=lam, rng=np.random.default_rng(0), gap_tol=1e-3)
    assert fit.stop_reason == DUALITY_GAP and fit.info["duality_gap"] <= 1e-3
    expected, _ = dense_rounds(
        X, fit.info["dual"], fit.objective[-1], lam, 1e-3, alm_gap.REFINE_ROUNDS
    )
    assert fit.info["duality_gap"] == pytest.approx(expected, rel=1e-8, abs=1e-12)


def test_more_rounds_certify_sooner(monkeypatch):
    """A second round recovers most of what the scaling of the first loses: with one round
    only, the same fit needs more iterations to certify the same target."""
    X = noisy_planted(80, 400, seed=4)
    lam = 1 / np.sqrt(400)
    fit = solve_pcp(X, lam=lam, rng=np.random.default_rng(0), gap_tol=1e-3)
    monkeypatch.setattr(alm_gap, "REFINE_ROUNDS", 1)
    one = solve_pcp(X, lam=lam, rng=np.random.default_rng(0), gap_tol=1e-3)
    assert fit.info["duality_gap"] <= 1e-3 and one.info["duality_gap"] <= 1e-3
    assert fit.n_iter < one.n_iter
    _, taken = dense_rounds(X, fit.info["dual"], fit.objective[-1], lam, 1e-3, 4)
    assert taken >= 2


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_every_round_is_a_certificate(seed):
    """Weak duality: no round's gap is below the true relative suboptimality (the optimum
    from a fit run on to a gap of 1e-8)."""
    X = noisy_planted(50, 150, seed)
    lam = 1 / np.sqrt(150)
    best = solve_pcp(X, lam=lam, rng=np.random.default_rng(0), gap_tol=1e-8, max_iter=5000)
    optimum = best.objective[-1] * (1 - best.info["duality_gap"])
    for k in (10, 20, 40):
        fit = solve_pcp(X, lam=lam, rng=np.random.default_rng(0), gap_tol=None, max_iter=k)
        objective = fit.objective[-1]
        gap, _ = dense_rounds(X, fit.info["dual"], objective, lam, 1.0, alm_gap.REFINE_ROUNDS)
        assert gap >= (objective - optimum) / objective - 1e-9


@pytest.mark.parametrize("panel_bytes", [alm_gap.PANEL_BYTES, 8 * 400 * 250])
def test_gram_sum_by_panels_equals_the_gram_matrix(monkeypatch, panel_bytes):
    """Column blocks far narrower than the side are gathered into panels (flushed when
    full) before each syrk; the upper triangle is that of the Gram matrix."""
    from robustpca.solvers.alm_blocks import _Data

    monkeypatch.setattr(alm_gap, "PANEL_BYTES", panel_bytes)
    X = np.random.default_rng(0).normal(size=(400, 3200))
    data = _Data(X, None)
    grams = alm_gap._GramSum(data, numpy_products=False)
    assert grams.panel is not None and data.columns[0].stop < len(grams.panel) < 400 + 1
    for cols in data.columns:
        grams.add(np.ascontiguousarray(X[:, cols]))
    G = grams.result()
    np.testing.assert_allclose(np.triu(G), np.triu(X @ X.T), rtol=1e-12, atol=1e-9)
