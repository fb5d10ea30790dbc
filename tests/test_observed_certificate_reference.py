"""The certified gap of the ALM on observed entries (alm_observed) against a
dense reference of its dual point, and Lin et al.'s schedule/start on observed entries.

Dual of  min ||L||_* + lam g(P_Omega(Z - L - 1 b^T))  (b free with with_mean):
W supported on Omega, ||W||_2 <= 1, g*(W) <= lam entrywise (rows for l2,1), and the
column sums of W over Omega zero with a free mean. Any Y is made feasible by masking,
centring each column over its observed entries, re-masking, and dividing by
max(1, ||W||_2, entry(W) / lam); weak duality then certifies (primal - <Z, W>) / primal.
A gap that is too small but still above the true suboptimality passes any check against
the optimum, so only this reference tells a broken certificate from a valid one."""

import numpy as np
import pytest

from robustpca.prox import singular_value_thresholding
from robustpca.solvers import alm_observed
from robustpca.solvers.alm_observed import _certified_gap, solve_observed


def reference_gap(Z, Y, observed, lam, primal, row_sparse, with_mean):
    W = np.where(observed, Y, 0.0)
    if with_mean:
        for j in range(W.shape[1]):
            rows = observed[:, j]
            if rows.any():
                W[rows, j] -= W[rows, j].mean()
    assert np.all(W[~observed] == 0)
    if with_mean:
        np.testing.assert_allclose(W.sum(axis=0), 0.0, atol=1e-12)
    entry = np.linalg.norm(W, axis=1).max() if row_sparse else np.abs(W).max()
    scale = max(1.0, np.linalg.norm(W, 2), entry / lam)
    return max(0.0, (primal - np.sum(Z * W) / scale) / primal)


@pytest.mark.parametrize("row_sparse", [False, True])
@pytest.mark.parametrize("with_mean", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_certified_gap_is_the_dense_weak_duality_gap(row_sparse, with_mean, seed):
    rng = np.random.default_rng(seed)
    n, d = 12, 7
    observed = rng.random((n, d)) > 0.3
    Z = np.where(observed, rng.normal(size=(n, d)), 0.0)
    lam = 0.3
    Y = np.where(observed, Z + 0.8 * rng.normal(size=(n, d)) + 0.5, 0.0)  # large entries
    primal = 25.0
    got = _certified_gap(Z, Y, observed, lam, primal, row_sparse, with_mean)
    assert got == pytest.approx(
        reference_gap(Z, Y, observed, lam, primal, row_sparse, with_mean), rel=1e-12
    )


def test_penalty_growth_stops_at_its_cap(monkeypatch):
    """gap_tol=None: mu_{k+1} = min(rho mu_k, mu_max), mu_max = 1e7 mu_0 by default, so the
    SVT thresholds 1/mu never drop below 1/(1e7 mu_0)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3)) @ rng.normal(size=(3, 10))
    X += np.where(rng.random(X.shape) < 0.1, 5.0, 0.0)
    observed = rng.random(X.shape) > 0.2
    thresholds = []
    real = alm_observed.svt_factors

    def spy(M, tau, **kw):
        thresholds.append(tau)
        return real(M, tau, **kw)

    monkeypatch.setattr(alm_observed, "svt_factors", spy)
    fit = solve_observed(
        X, observed, lam=0.2, rng=np.random.default_rng(0), max_iter=60, tol=1e-300, gap_tol=None
    )
    mu0 = fit.info["mu"]
    assert len(thresholds) == 60
    assert min(thresholds) >= 1.0 / (1e7 * mu0) * (1 - 1e-12)


def test_first_iteration_starts_from_lin_et_als_multiplier():
    """Y_0 = Z / J(Z), J = max(||Z||_2, ||Z||_inf / lam) (Lin et al. 2010, Alg. 5), S_0 = 0,
    mu_0 = 1.25 / ||Z||_2: the first objective is that of L_1 = SVT(Z + Y_0/mu_0, 1/mu_0)."""
    rng = np.random.default_rng(1)
    n, d = 15, 8
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d))
    X[0, 0] += 40.0  # ||Z||_inf / lam above ||Z||_2
    observed = np.ones((n, d), bool)
    observed[rng.random((n, d)) < 0.15] = False
    lam = 0.1
    Z = np.where(observed, X, 0.0)
    two = np.linalg.norm(Z, 2)
    J = max(two, np.abs(Z).max() / lam)
    assert J > two
    mu0 = 1.25 / two
    L1 = singular_value_thresholding(Z + (Z / J) / mu0, 1.0 / mu0)
    expected = (
        np.linalg.svd(L1, compute_uv=False).sum()
        + lam * np.abs(np.where(observed, Z - L1, 0.0)).sum()
    )
    fit = solve_observed(X, observed, lam=lam, rng=np.random.default_rng(0), max_iter=1)
    assert fit.objective[0] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("row_sparse", [False, True])
def test_the_reported_gap_certifies_the_reported_objective(row_sparse, monkeypatch):
    """The final certificate is computed for the objective of the returned fit,
    ||L||_* + lam g(P_Omega(Z - L - b)) (a feasible point), not for the shrunk iterate S:
    the primal value handed to the certificate is the last objective."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(25, 3)) @ rng.normal(size=(3, 12))
    X += np.where(rng.random(X.shape) < 0.1, 6.0, 0.0)
    observed = rng.random(X.shape) > 0.2
    seen = []
    real = alm_observed._certified_gap

    def spy(Z, Y, observed, lam, primal, *args, **kw):
        seen.append(primal)
        return real(Z, Y, observed, lam, primal, *args, **kw)

    monkeypatch.setattr(alm_observed, "_certified_gap", spy)
    for max_iter in (2, 5, 12):
        seen.clear()
        fit = solve_observed(
            X,
            observed,
            lam=0.3,
            row_sparse=row_sparse,
            rng=np.random.default_rng(0),
            max_iter=max_iter,
        )
        objective = fit.objective[-1] * (0.3 if row_sparse else 1.0)  # nuclear + lam g
        assert seen[-1] == pytest.approx(objective, rel=1e-9)
