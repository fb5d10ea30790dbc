"""Dask fits with missing entries (issue 12): the tall route of PCA and RPCA-OM fits the
observed entries chunk by chunk; other routes refuse NaN with a message naming them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import subspace_angles
from sklearn.exceptions import ConvergenceWarning

from robustpca import L21PCA, PCA, OptimalMeanPCA

from .conftest import fit_passes

da = pytest.importorskip("dask.array")


def data(n=600, d=12, k=2, seed=0, rate=0.1):
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, k)))[0]
    X = 1.0 + 3.0 * rng.normal(size=(n, k)) @ basis.T + 0.05 * rng.normal(size=(n, d))
    X[: n // 10] = 10.0 * rng.normal(size=(n // 10, d))
    Xm = X.copy()
    Xm[rng.random(X.shape) < rate] = np.nan
    return Xm, basis


@pytest.mark.parametrize("cls", [OptimalMeanPCA, PCA])
def test_tall_route_fits_the_observed_entries_like_numpy(cls):
    Xm, basis = data()
    dX = da.from_array(Xm, chunks=(150, 12))
    chunked = cls(2).fit(dX)
    memory = cls(2).fit(Xm)
    assert chunked.n_missing_ == memory.n_missing_ == int(np.isnan(Xm).sum())
    # the same loop but for the start (column means instead of medians)
    assert np.sin(subspace_angles(chunked.components_.T, memory.components_.T)).max() < 1e-3
    assert fit_passes(chunked) == chunked.n_iter_ + 2
    # the observed objective never increases, pass after pass
    h = chunked.objective_history_
    assert np.all(np.diff(h) <= 1e-10 * np.abs(h[:-1]))
    # lazy transforms take rows with NaN, as the NumPy ones
    for name in ("transform", "reconstruct", "reconstruction_error"):
        lazy = getattr(chunked, name)(dX).compute()
        np.testing.assert_allclose(lazy, getattr(chunked, name)(Xm), rtol=1e-10, atol=1e-12)
        assert np.isfinite(lazy).all()
    if cls is OptimalMeanPCA:
        assert np.sin(subspace_angles(chunked.components_.T, basis)).max() < 0.05
        np.testing.assert_allclose(chunked.weights_.compute(), memory.weights_, rtol=0.05)


def test_other_routes_refuse_nan_naming_the_route():
    Xm, _ = data()
    with pytest.raises(ValueError, match="tall route of PCA and OptimalMeanPCA only"):
        L21PCA(2).fit(da.from_array(Xm, chunks=(150, 12)))
    wide = np.random.default_rng(1).normal(size=(20, 60))
    wide[3, 7] = np.nan
    with pytest.raises(ValueError, match="wide route of a dask fit"):
        OptimalMeanPCA(2).fit(da.from_array(wide, chunks=(20, 20)))
    bad = Xm.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match="no observed entry"):
        PCA(2).fit(da.from_array(bad, chunks=(150, 12)))
    bad = Xm.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        PCA(2).fit(da.from_array(bad, chunks=(150, 12)))


def test_complete_dask_data_take_the_complete_route():
    Xm, _ = data(rate=0.0)
    dX = da.from_array(Xm, chunks=(150, 12))
    chunked, memory = OptimalMeanPCA(2).fit(dX), OptimalMeanPCA(2).fit(Xm)
    assert chunked.n_missing_ == 0 and fit_passes(chunked) == chunked.n_iter_ + 1
    np.testing.assert_allclose(chunked.components_, memory.components_, atol=1e-10)


def test_every_sample_capped_warns_with_gaps_too():
    """The chunked fit with gaps returned before the all-capped warning the other three
    routes (memory or Dask, with or without gaps) give."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    X[rng.random(X.shape) < 0.1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(UserWarning, match="Every sample's residual reached threshold"):
            OptimalMeanPCA(2, loss="capped", threshold=0.01).fit(da.from_array(X, chunks=(7, 6)))
