"""GeneralizedMeanPCA's exact-fit stop on a wide Dask array (a parity bug found by a
mutation audit).

In memory, Algorithm 2 stops once every weighted row is reconstructed to within
``EXACT_RESIDUAL_RTOL`` times the largest distance of a row to the fixed centre
(``solvers.generalized_mean.solve_generalized_mean_pca``). The Dask fit's wide route
(``chunked_gram_pca.solve_generalized_mean_pca_gram``) did not test at all and
re-weighted the rounding of an exact fit; it now takes that distance from the Gram
matrix. The tall route tested against the rows' RMS distance (RPCA-OM's rule); it now
takes the largest distance in one pass.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest

from robustpca.estimators._generalized_mean import GeneralizedMeanPCA


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def test_wide_route_stops_on_an_exact_fit_as_in_memory():
    """12 rows on an affine plane in 40 dimensions (the Gram route): in memory the
    first subspace fits every row to rounding and the loop stops (EXACT, one
    iteration); the Dask fit must stop there too, not re-weight the rounding."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 2)) @ rng.normal(size=(2, 40)) + 3.0
    a = GeneralizedMeanPCA(2, p=0.5, center="mean").fit(X)
    b = GeneralizedMeanPCA(2, p=0.5, center="mean").fit(
        da.from_array(X, chunks=((12,), (1, 20, 19)))
    )
    assert (a.stop_reason_, a.n_iter_) == ("every row the fit weighs is reconstructed "
                                           "exactly (its residual is rounding)", 1)  # fmt: skip
    assert (b.stop_reason_, b.n_iter_) == (a.stop_reason_, a.n_iter_)


@pytest.mark.parametrize("center", ["mean", "generalized"])
def test_tall_route_tests_exactness_against_the_largest_distance(center):
    """300 rows on an affine plane in 6 dimensions, three of them 1e6 out along it, with
    noise of 1e-2 off it: the residuals are below ``EXACT_RESIDUAL_RTOL`` times the
    largest distance to the centre (6e-2) but not times the RMS distance (6e-3). In
    memory the loop stops as exact after one iteration; the tall Dask route must too."""
    rng = np.random.default_rng(0)
    basis = np.linalg.qr(rng.normal(size=(6, 2)))[0].T
    Z = rng.normal(size=(300, 2))
    Z[:3] *= 1e6
    X = Z @ basis + 3.0 + 1e-2 * rng.normal(size=(300, 6))
    a = GeneralizedMeanPCA(2, p=0.5, center=center).fit(X)
    b = GeneralizedMeanPCA(2, p=0.5, center=center).fit(
        da.from_array(X, chunks=((100, 1, 199), (6,)))
    )
    assert a.stop_reason_.startswith("every row the fit weighs is reconstructed exactly")
    assert (b.stop_reason_, b.n_iter_) == (a.stop_reason_, a.n_iter_) == (a.stop_reason_, 1)
