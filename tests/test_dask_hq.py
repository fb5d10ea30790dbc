"""HQ-PCA on dask arrays (issue 41, item 2): the chunked route of the reweighting family.

The Dask fit must reproduce the NumPy fit (subspace, mean, iterations, objective history,
weights, kernel width) on the threaded scheduler: He et al.'s adaptive width is a global
weight rule (two passes per iteration), a fixed width a local one (one pass per
iteration), and wide data take the Gram route (two computes in all).
"""

from __future__ import annotations

import warnings

import dask
import dask.array as da
import numpy as np
import pytest

from robustpca.estimators._hq import HQPCA
from robustpca.solvers import StopReason

from .conftest import fit_passes, load_table
from .test_dask import CountComputes, assert_same_fit


def planted(seed=0, n=600, d=10, k=3, share=0.1):
    rng = np.random.default_rng(seed)
    X = 4.0 + rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) + 0.1 * rng.normal(size=(n, d))
    X[: int(share * n)] += 20 * rng.normal(size=(int(share * n), d))
    return X


@pytest.fixture
def threads():
    with dask.config.set(scheduler="threads"):
        yield


@pytest.mark.parametrize(
    ("kwargs", "passes"),
    [({}, lambda m: 1 + 2 * m.n_iter_), ({"kernel_width": 1.0}, lambda m: m.n_iter_ + 2)],
    ids=["adaptive", "fixed"],
)
def test_tall_parity_and_passes(threads, kwargs, passes):
    X = planted()
    before = X.copy()
    a = HQPCA(3, **kwargs).fit(X)
    dX = da.from_array(X, chunks=(150, -1))
    with CountComputes() as counter:
        b = HQPCA(3, **kwargs).fit(dX)
    assert_same_fit(a, b, dX.chunks[0])
    assert b.kernel_width_ == pytest.approx(a.kernel_width_, rel=1e-12)
    assert b.n_passes_ == counter.count
    assert fit_passes(b) <= passes(b)
    np.testing.assert_array_equal(X, before)
    # the outliers weigh least, as in memory
    w = b.weights_.compute()
    assert w[:60].max() < w[60:].min()
    assert isinstance(b.transform(dX), da.Array)


def test_wide_gram_route(threads):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3)) @ rng.normal(size=(3, 200)) + 0.05 * rng.normal(size=(30, 200))
    X[:3] += 5 * rng.normal(size=(3, 200))
    a = HQPCA(3).fit(X)
    b = HQPCA(3).fit(da.from_array(X, chunks=(30, 50)))
    assert_same_fit(a, b, (30,))
    assert fit_passes(b) == 2


def test_exact_fit_stops_as_exact(threads):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 2)) @ rng.normal(size=(2, 6)) + 1.0
    a = HQPCA(2).fit(X)
    b = HQPCA(2).fit(da.from_array(X, chunks=(100, -1)))
    assert a.stop_reason_ == b.stop_reason_ == StopReason.EXACT
    assert b.n_iter_ == a.n_iter_


def test_bad_kernel_width_raises_before_any_pass():
    dX = da.from_array(planted(n=100), chunks=(50, -1))
    with pytest.raises(ValueError, match="kernel_width"):
        HQPCA(2, kernel_width=-1.0).fit(dX)
    with pytest.raises(TypeError, match="kernel_width"):
        HQPCA(2, kernel_width="wide").fit(dX)


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["hbk", "bushfire", "starsCYG", "wood"])
def test_parity_on_rrcov_tables(threads, shared_data, table):
    X = load_table(shared_data, table)
    k = min(2, X.shape[1] - 1)
    a = HQPCA(k).fit(X)
    dX = da.from_array(X, chunks=(-(-X.shape[0] // 4), -1))
    assert_same_fit(a, HQPCA(k).fit(dX), dX.chunks[0])


@pytest.mark.parametrize("chunks", [(20, -1), (60, 4)])
def test_a_fit_carried_by_a_few_samples_warns_as_in_memory(threads, chunks):
    """A small fixed width leaves one sample a weight above rounding: the in-memory fit
    warns (``test_hqpca``), and so does the tall Dask fit, whose weights are lazy, from
    their largest ``k + 2`` in one more pass; the passes are still all counted."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 8)) * np.linspace(3, 0.5, 8)
    with pytest.warns(UserWarning, match="Only 1 of 60 samples keep"):
        a = HQPCA(2, kernel_width=0.05).fit(X)
    dX = da.from_array(X, chunks=chunks)
    with CountComputes() as counter, pytest.warns(UserWarning, match="Only 1 of 60 samples keep"):
        b = HQPCA(2, kernel_width=0.05).fit(dX)
    assert b.n_passes_ == counter.count
    np.testing.assert_allclose(b.weights_.compute(), a.weights_, rtol=1e-10, atol=1e-300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        HQPCA(2, kernel_width=3.0).fit(dX)
