"""Lin et al.'s stopping rule and penalty cap of the observed-entries ALM
(:func:`robustpca.solvers.alm_observed.solve_observed`, ``gap_tol=None``).

Documented: stop once the relative primal residual on :math:`\\Omega`,
:math:`\\lVert P_\\Omega(X - L - S)\\rVert_F / \\lVert P_\\Omega(X - \\text{offset})
\\rVert_F`, is below ``tol``; the penalty grows by ``rho`` up to ``mu_max``, whose
default is :math:`10^7 \\mu_0`. These tests read the residual off the returned
``low_rank`` and ``sparse`` (the iterate the rule stopped at) and compare the default
cap with the same cap given explicitly.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers._result import StopReason
from robustpca.solvers.alm_observed import solve_observed


def _problem(seed=0, n=60, d=40, rank=3):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    S = np.where(rng.random((n, d)) < 0.05, 10.0 * rng.normal(size=(n, d)), 0.0)
    observed = rng.random((n, d)) >= 0.2
    return np.where(observed, L + S, np.nan), observed


def _relative_primal(X, observed, result, offset):
    P = np.where(observed, X - result.info["low_rank"] - result.info["sparse"], 0.0)
    return np.linalg.norm(P) / np.linalg.norm(np.where(observed, X - offset, 0.0))


@pytest.mark.parametrize("kwargs", [{}, {"center": True}, {"row_sparse": True, "with_mean": True}])
def test_it_stops_at_the_first_iterate_below_tol(kwargs):
    """The returned iterate meets ``tol``; the one before it did not."""
    X, observed = _problem()
    lam = 1.0 / np.sqrt(60) if not kwargs.get("row_sparse") else 0.5
    tol = 1e-6

    def fit(max_iter):
        return solve_observed(
            X,
            observed,
            lam=lam,
            tol=tol,
            max_iter=max_iter,
            rng=np.random.default_rng(0),
            **kwargs,
        )

    result = fit(1000)
    assert result.stop_reason == StopReason.PRIMAL_RESIDUAL
    offset = np.zeros(X.shape[1])
    if kwargs.get("center"):
        offset = np.nanmean(X, axis=0)
    assert _relative_primal(X, observed, result, offset) <= tol
    before = fit(result.n_iter - 1)
    assert before.stop_reason == StopReason.MAX_ITER
    assert _relative_primal(X, observed, before, offset) > tol


def test_the_default_penalty_cap_is_ten_million_times_the_first_penalty():
    """``mu_max=None`` runs the iterates of ``mu_max = 1e7 * mu_0`` (``info['mu']``),
    reaching the cap (a tiny ``tol``)."""
    X, observed = _problem(1)
    lam = 1.0 / np.sqrt(60)
    common = {"lam": lam, "tol": 1e-14, "max_iter": 60}
    default = solve_observed(X, observed, rng=np.random.default_rng(0), **common)
    mu0 = default.info["mu"]
    explicit = solve_observed(X, observed, mu_max=1e7 * mu0, rng=np.random.default_rng(0), **common)
    np.testing.assert_array_equal(default.objective, explicit.objective)
    lower = solve_observed(X, observed, mu_max=1e3 * mu0, rng=np.random.default_rng(0), **common)
    assert not np.array_equal(default.objective, lower.objective)  # the cap was reached
