"""AccAltProj (Cai, Cai & Wei 2019): default constants, the objective it records, and the
helpers' documented contracts.

Mutation audit: each of these changes left the suite passing -- the documented
``beta_init = beta`` default of ``accaltproj_defaults`` changed to the authors'
``4 beta``; a user's ``beta`` not carried over to ``beta_init``; the objective recorded
as the absolute instead of the relative residual (its stopping test then compares an
absolute residual with ``tol``); ``top_singular_triplets`` returning the Lanczos
triplets smallest first; ``keep_largest_entries`` returning its input itself when it
keeps every entry; with missing entries, the first threshold taken from the data with
zeros (not the columns' medians) in the gaps and the objective's reference taken with the
medians (not over the observed entries only); the numerical rank ``rank_`` counted at a
relative ``1e-6`` instead of ``max(m, n) eps``; the estimator's ``incoherence`` not
passed to the solver (the solver-level test is in ``test_accaltproj_algorithm_details.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.estimators._known_rank import AccAltProj, GoDec
from robustpca.solvers.known_rank import (
    accaltproj_defaults,
    keep_largest_entries,
    solve_accaltproj,
    top_singular_triplets,
)
from robustpca.solvers.missing import initial_fill


def planted(seed=0, n=120, d=90, r=3, noise=0.0):
    rng = np.random.default_rng(seed)
    L = rng.standard_normal((n, r)) @ rng.standard_normal((r, d))
    S = np.where(rng.random((n, d)) < 0.05, 20.0 * rng.uniform(-1, 1, (n, d)), 0.0)
    return L + S + noise * rng.standard_normal((n, d))


@pytest.mark.parametrize(("m", "n"), [(100, 100), (300, 40)])
def test_defaults_are_beta_for_both_constants(m, n):
    """``beta = 1/(2 (mn)^{1/4})`` (the authors' code) and ``beta_init = beta`` (ours; the
    authors' ``4 beta`` fails when the errors dominate ``sigma_1(X)``)."""
    beta, beta_init = accaltproj_defaults(m, n)
    assert beta == pytest.approx(0.5 / (m * n) ** 0.25, rel=1e-15)
    assert beta_init == beta


def test_beta_init_follows_a_given_beta():
    """With ``beta`` given and ``beta_init=None``, ``beta_init`` is that ``beta`` (the
    defaults' rule), not the default ``beta``: the first threshold is
    ``beta * sigma_1(X)``."""
    X = planted()
    result = solve_accaltproj(X, 3, beta=0.05, max_iter=2, rng=np.random.default_rng(0))
    assert result.info["beta"] == result.info["beta_init"] == 0.05
    sigma1 = np.linalg.svd(X, compute_uv=False)[0]
    assert result.info["thresholds"][0] == pytest.approx(0.05 * sigma1, rel=1e-10)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("scale", [1.0, 1e4])
def test_objective_is_the_relative_residual(scale):
    """``objective`` holds ``||X - L_k - S_k||_F / ||X||_F`` after each iteration (the
    paper's stopping measure), so it does not depend on the data's scale, and the
    ``tol`` stop compares that ratio."""
    X = scale * planted(noise=0.1)
    result = solve_accaltproj(X, 3, max_iter=4, tol=0.0, rng=np.random.default_rng(0))
    L, S = result.info["low_rank"], result.info["sparse"]
    expected = np.linalg.norm(X - L - S) / np.linalg.norm(X)
    np.testing.assert_allclose(result.objective[-1], expected, rtol=1e-10)
    assert np.all(result.objective < 1.0)
    stopped = solve_accaltproj(X, 3, max_iter=100, tol=1e-3, rng=np.random.default_rng(0))
    assert stopped.objective[-1] <= 1e-3 and stopped.objective[-2] > 1e-3


def test_lanczos_triplets_are_largest_first():
    """Above ``LANCZOS_MIN_SIDE`` the triplets come from ARPACK; they are returned largest
    first, as LAPACK's, with ``U s V^T`` the best rank-``k`` approximation."""
    A = np.random.default_rng(0).standard_normal((150, 100)) * np.linspace(3.0, 1.0, 100)
    U, s, V = top_singular_triplets(A, 4, np.random.default_rng(1))
    exact = np.linalg.svd(A, compute_uv=False)[:4]
    np.testing.assert_allclose(s, exact, rtol=1e-10)
    np.testing.assert_allclose(np.abs(U.T @ A @ V), np.diag(exact), atol=1e-8)


def test_keep_largest_entries_returns_a_new_array():
    """Keeping every entry (``k >= A.size``) still returns a new array, as for every
    other ``k``: changing the result must not change the input."""
    A = np.arange(6.0).reshape(2, 3)
    for k in (6, 10):
        S = keep_largest_entries(A, k)
        np.testing.assert_array_equal(S, A)
        assert not np.shares_memory(S, A)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_missing_entries_first_threshold_and_objective_reference():
    """With gaps, ``zeta_{-1} = beta_init sigma_1`` of the data with the columns' observed
    medians in the gaps (module docstring), and the objective is relative to the observed
    entries, ``||P_O(X - L - S)||_F / ||P_O(X)||_F``. Large column offsets make the
    medians matter for both."""
    rng = np.random.default_rng(3)
    X = planted(noise=0.1) + 25.0 * rng.standard_normal(90)
    observed = rng.random(X.shape) > 0.2
    gappy = np.where(observed, X, np.nan)
    result = solve_accaltproj(
        gappy, 4, observed=observed, max_iter=3, tol=0.0, rng=np.random.default_rng(0)
    )
    beta_init = result.info["beta_init"]
    sigma1 = np.linalg.svd(initial_fill(gappy, ~observed), compute_uv=False)[0]
    assert result.info["thresholds"][0] == pytest.approx(beta_init * sigma1, rel=1e-10)
    L, S = result.info["low_rank"], result.info["sparse"]
    data = np.where(observed, X, 0.0)
    expected = np.linalg.norm(np.where(observed, X - L - S, 0.0)) / np.linalg.norm(data)
    np.testing.assert_allclose(result.objective[-1], expected, rtol=1e-10)


def test_numerical_rank_counts_small_but_exact_singular_values():
    """``rank_`` counts the singular values of ``low_rank_`` above ``max(m, n) eps`` times
    the largest: an exactly rank-3 ``X`` whose third singular value is ``1e-10`` of the
    first, fitted exactly by GoDec (``card=0``), has rank 3."""
    rng = np.random.default_rng(0)
    U = np.linalg.qr(rng.standard_normal((80, 3)))[0]
    V = np.linalg.qr(rng.standard_normal((60, 3)))[0]
    X = (U * [10.0, 5.0, 1e-9]) @ V.T
    model = GoDec(3, card=0, random_state=0).fit(X)
    np.testing.assert_allclose(model.low_rank_singular_values_, [10.0, 5.0, 1e-9], rtol=1e-6)
    assert model.rank_ == 3


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter=5
def test_estimator_passes_its_incoherence_to_the_trimming():
    """``AccAltProj(trim=True, incoherence=mu)`` trims with that ``mu``: on factors with a
    spiky row, ``mu = 1`` changes the iterates, while a ``mu`` too large to bind gives
    those of ``trim=False``."""
    rng = np.random.default_rng(0)
    U = rng.standard_normal((80, 2))
    U[0] *= 40.0
    X = U @ rng.standard_normal((2, 60))
    X += np.where(rng.random(X.shape) < 0.05, 10.0 * rng.choice([-1.0, 1.0], X.shape), 0.0)

    def low_rank(**params):
        model = AccAltProj(2, max_iter=5, random_state=0, **params)
        return model.fit(X).low_rank_

    plain = low_rank()
    np.testing.assert_allclose(low_rank(trim=True, incoherence=1e6), plain, atol=1e-8)
    assert np.abs(low_rank(trim=True, incoherence=1.0) - plain).max() > 1e-6
