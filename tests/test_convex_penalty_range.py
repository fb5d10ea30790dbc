"""Extreme penalties of the convex estimators: the trivial solutions past the bounds of
:mod:`robustpca.solvers.penalty_range`, and ``mu`` out of the range floats carry."""

import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca import ConvexOptimalMeanPCA, OutlierPursuit, PrincipalComponentPursuit
from robustpca.solvers.alm import gamma_max, solve_crpca_om, solve_outlier_pursuit, solve_pcp
from robustpca.solvers.penalty_range import solver_gamma, solver_lam

from .conftest import load_table

ROW_SPARSE = (OutlierPursuit, ConvexOptimalMeanPCA)


def _data(seed=0, n=40, d=6):
    return np.random.default_rng(seed).normal(size=(n, d)) * 3.0 + 1.0


# The bounds themselves, solved without clipping: the trivial solution holds just past them.
@pytest.mark.parametrize("seed", range(3))
def test_gamma_max_is_at_most_sqrt_n(seed):
    X = _data(seed)
    assert gamma_max(X) <= np.sqrt(len(X)) * (1 + 1e-12)
    assert gamma_max(X, X.mean(axis=0)) <= np.sqrt(len(X)) * (1 + 1e-12)


@pytest.mark.parametrize("solve", [solve_outlier_pursuit, solve_crpca_om])
def test_row_sparse_bounds_hold(solve):
    X = _data(1)
    above = solve(X, gamma=1.01 * np.sqrt(len(X)), tol=1e-9, rng=np.random.default_rng(0))
    assert above.info["rank"] == 0  # Z = 0: every row is an outlier
    below = solve(X, gamma=0.99, tol=1e-9, rng=np.random.default_rng(0))
    # Z = X (CRPCA-OM: up to the mean it takes out): no row is an outlier
    assert not below.info["outliers"].any()
    np.testing.assert_allclose(below.info["sparse"], 0.0, atol=1e-6)


def test_pcp_bounds_hold():
    X = _data(2)
    above = solve_pcp(X, lam=1.01, tol=1e-9, rng=np.random.default_rng(0))
    np.testing.assert_allclose(above.info["sparse"], 0.0, atol=1e-6)  # S = 0, L = X
    below = solve_pcp(X, lam=0.99 / np.sqrt(X.size), tol=1e-9, rng=np.random.default_rng(0))
    assert below.info["rank"] == 0  # L = 0


# The estimators: any value past a bound gives the fit of the clipped one, in finite arithmetic.
@settings(max_examples=15, deadline=None)
@given(exponent=st.floats(min_value=0.5, max_value=300.0), side=st.sampled_from([-1, 1]))
def test_row_sparse_fit_is_the_clipped_fit(exponent, side):
    X = _data(3)
    gamma = float(10.0**exponent) if side > 0 else float(10.0**-exponent)
    if side > 0:
        gamma *= np.sqrt(len(X))
    for estimator in ROW_SPARSE:
        fit = estimator(gamma=gamma).fit(X)
        clipped = estimator(gamma=solver_gamma(gamma, len(X))).fit(X)
        assert fit.gamma_ == gamma  # the user's value is kept
        np.testing.assert_array_equal(fit.low_rank_, clipped.low_rank_)
        assert np.isfinite(fit.components_).all()
        assert fit.rank_ == (0 if side > 0 else X.shape[1])


@settings(max_examples=15, deadline=None)
@given(exponent=st.floats(min_value=0.5, max_value=300.0), side=st.sampled_from([-1, 1]))
def test_pcp_fit_is_the_clipped_fit(exponent, side):
    X = _data(4)
    lam = float(10.0**exponent) if side > 0 else float(10.0**-exponent) / np.sqrt(X.size)
    fit = PrincipalComponentPursuit(lam=lam).fit(X)
    clipped = PrincipalComponentPursuit(lam=solver_lam(lam, X.shape)).fit(X)
    assert fit.lam_ == lam
    np.testing.assert_array_equal(fit.low_rank_, clipped.low_rank_)
    assert fit.rank_ == (X.shape[1] if side > 0 else 0)


def test_values_in_use_are_not_clipped():
    X = _data(5)
    for gamma in (1e-3, 0.3 * gamma_max(X), np.sqrt(len(X))):
        assert solver_gamma(gamma, len(X)) == gamma
    for lam in (1e-3 / np.sqrt(X.size), 1 / np.sqrt(max(X.shape)), 2.0):
        assert solver_lam(lam, X.shape) == lam


@pytest.mark.parametrize("route", ["memory", "missing", "dask"])
def test_extreme_penalties_on_every_route(route):
    X = _data(6, n=60)
    if route == "missing":
        X[0, 0] = np.nan
    data = da.from_array(X, chunks=20) if route == "dask" else X
    for estimator in ROW_SPARSE:
        assert estimator(gamma=1e200).fit(data).rank_ == 0
        assert estimator(gamma=1e-300).fit(data).rank_ == X.shape[1]
    assert PrincipalComponentPursuit(lam=1e200).fit(data).rank_ == X.shape[1]
    assert PrincipalComponentPursuit(lam=1e-300).fit(data).rank_ == 0


@pytest.mark.parametrize("route", ["memory", "missing", "dask"])
@pytest.mark.parametrize(("name", "value"), [("mu", 1e300), ("mu", 1e-300), ("mu_max", 1e300)])
def test_mu_out_of_range_names_it(route, name, value):
    X = _data(7, n=60)
    if route == "missing":
        X[0, 0] = np.nan
    data = da.from_array(X, chunks=20) if route == "dask" else X
    for estimator in (*ROW_SPARSE, PrincipalComponentPursuit):
        with pytest.raises(ValueError, match=rf"^{name}=.* must lie in \[1e-100, 1e100\]"):
            estimator(**{name: value}).fit(data)


def test_mu_in_range_is_accepted_on_zero_data():
    fit = PrincipalComponentPursuit(mu=1e-300).fit(np.zeros((10, 3)))
    assert fit.rank_ == 0


def test_extreme_gamma_on_a_real_table(shared_data):
    X = load_table(shared_data, "hbk")
    X = (X - np.median(X, axis=0)) / np.median(np.abs(X - np.median(X, axis=0)), axis=0)
    every = OutlierPursuit(gamma=1e200).fit(X)
    assert every.rank_ == 0 and every.outliers_.all()
    none = OutlierPursuit(gamma=1e-300).fit(X)
    assert none.rank_ == X.shape[1] and not none.outliers_.any()
