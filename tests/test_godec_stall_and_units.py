"""Mutation-audit additions for robustpca.solvers.godec."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers.godec import AUTO_ALS_LIMIT, solve_godec
from robustpca.solvers.known_rank import STALLED


def test_auto_step_counts_the_share_kept_where_it_is_the_smaller():
    """missing_step='auto': ALS where r times min(share left out, share kept) is at most
    AUTO_ALS_LIMIT (docstring). With 80% of the entries missing and r = 4 that is
    4 * 0.2 = 0.8: ALS (4 * 0.8 = 3.2 would exceed the limit)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 4)) @ rng.standard_normal((4, 40))
    observed = rng.random(X.shape) < 0.2
    share_out = 1 - observed.mean()
    assert 4 * share_out > AUTO_ALS_LIMIT >= 4 * (1 - share_out)
    res = solve_godec(X, 4, 0, observed=observed, max_iter=2, rng=np.random.default_rng(0))
    assert res.info["missing_step"] == "als"


@pytest.mark.parametrize("seed", range(4))
def test_stalled_stop_is_the_first_relative_decrease_below_tol(seed):
    """The loop stops when the objective decreases by less than tol relative
    (docstring), not before: every earlier decrease is above tol."""
    rng = np.random.default_rng(seed)
    m, n, r = 60, 40, 2
    X = rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
    X += np.where(rng.random((m, n)) < 0.05, 10.0, 0.0) + 0.3 * rng.standard_normal((m, n))
    tol = 1e-4
    res = solve_godec(X, r, int(0.05 * m * n), tol=tol, max_iter=500, rng=np.random.default_rng(0))
    obj = np.asarray(res.objective)
    assert res.stop_reason == STALLED
    dec = (obj[:-1] - obj[1:]) / obj[:-1]
    assert dec[-1] <= tol
    assert np.all(dec[:-1] > tol)


@pytest.mark.parametrize("unit", [2.0**-600, 2.0**-400])
def test_fit_of_data_in_extreme_units_is_the_scaled_fit(unit):
    """Every step is scale-equivariant and the loop runs on X divided by a power of two
    (docstring: the power steps overflow from about 1e103, underflow from 1e-103); so
    the fit of X * 2^-600 or 2^-400 (squares below the normal range) is the fit of X
    times that, bit for bit. (Large units are not tested: above about 1e154 the
    objective history, a sum of squares, overflows; the original raises
    OverflowError in ``unit**2`` there, see REPORT.md.)"""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2)) @ rng.standard_normal((2, 30))
    X += np.where(rng.random(X.shape) < 0.05, 8.0, 0.0)
    a = solve_godec(X, 2, 60, rng=np.random.default_rng(0))
    b = solve_godec(X * unit, 2, 60, rng=np.random.default_rng(0))
    assert np.all(np.isfinite(b.info["low_rank"]))
    np.testing.assert_array_equal(b.info["low_rank"], a.info["low_rank"] * unit)
    np.testing.assert_array_equal(b.info["sparse"], a.info["sparse"] * unit)


def test_data_beyond_the_squares_range_give_an_infinite_history_not_an_error():
    """The solver is unvalidated (the estimator refuses such data first): at 2^600 its
    objective history, a sum of squares, is beyond float64's range and reads inf; the
    decomposition itself is the scaled one."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2)) @ rng.standard_normal((2, 30))
    X += np.where(rng.random(X.shape) < 0.05, 8.0, 0.0)
    a = solve_godec(X, 2, 60, rng=np.random.default_rng(0))
    b = solve_godec(X * 2.0**600, 2, 60, rng=np.random.default_rng(0))
    assert np.all(np.isinf(b.objective))
    np.testing.assert_array_equal(b.info["low_rank"], a.info["low_rank"] * 2.0**600)
