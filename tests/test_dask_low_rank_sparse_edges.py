"""Boundaries of the chunked L + S fits on Dask arrays (mutation audit of
``_dask/low_rank_sparse.py``): the shapes and parameter values at the edge of what
they take, the ``mu`` range check on data whose largest entry is negative, and
whether the state runner lets kernels overwrite their states.

Uneven row chunks with a chunk of a single row, synchronous scheduler unless a test
needs a ``distributed`` client.
"""

from __future__ import annotations

import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster

from robustpca._dask.fit import DaskPassRunner
from robustpca._dask.low_rank_sparse import DaskStateRunner
from robustpca.estimators._convex import PrincipalComponentPursuit
from robustpca.estimators._known_rank import AccAltProj


@pytest.fixture
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _planted(seed=0, n=60, d=4, rank=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    X[rng.random(X.shape) < 0.05] += 10.0
    return X


def test_accaltproj_takes_twice_the_rank_equal_to_the_features(synchronous):
    """``2 * n_components <= n_features`` is what the chunked AccAltProj needs: with
    ``2 r = d`` it fits, as in memory (``incoherence=1``, the least allowed)."""
    X = _planted()
    dX = da.from_array(X, chunks=((20, 1, 39), (4,)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = AccAltProj(2, incoherence=1.0, random_state=0).fit(X)
        b = AccAltProj(2, incoherence=1.0, random_state=0).fit(dX)
    assert b.n_iter_ == a.n_iter_
    np.testing.assert_allclose(b.low_rank_.compute(), a.low_rank_, atol=1e-10)


def test_accaltproj_refuses_gamma_one(synchronous):
    """``gamma`` must lie in the open interval (0, 1), as in memory."""
    dX = da.from_array(_planted(), chunks=((20, 1, 39), (4,)))
    with pytest.raises(ValueError, match="must lie in"):
        AccAltProj(2, gamma=1.0).fit(dX)


def test_square_data_are_tall_enough(synchronous):
    """PCP fits a Dask array chunk by chunk when ``n_samples >= n_features``: a square
    one included, with the in-memory fit."""
    S = _planted(1, n=6, d=6, rank=1)
    a = PrincipalComponentPursuit(random_state=0).fit(S)
    b = PrincipalComponentPursuit(random_state=0).fit(da.from_array(S, chunks=((2, 1, 3), (6,))))
    np.testing.assert_allclose(b.low_rank_.compute(), a.low_rank_, atol=1e-10)


def test_mu_range_check_reads_the_negative_entries(synchronous):
    """``check_mu_scale`` takes the largest ``|x|``: an entry of -1e60 (all the others
    small) puts ``mu=1e50`` out of range in memory, and so it must in the chunked fit,
    whose first pass brings the column maxima and the negated minima."""
    Y = np.random.default_rng(2).normal(size=(40, 5))
    Y[20, 2] = -1e60  # the chunk of one row
    for data in (Y, da.from_array(Y, chunks=((20, 1, 19), (5,)))):
        with pytest.raises(ValueError, match="mu=1e\\+50 is out of range"):
            PrincipalComponentPursuit(mu=1e50).fit(data)


def test_state_runner_reuses_states_only_on_a_local_scheduler():
    """Kernels may overwrite their states on the local schedulers (each task runs once)
    but not on a ``distributed`` cluster, which runs a lost state's task again from
    its inputs (``docs/design-notes/dask-faults.md``)."""
    X = da.from_array(np.ones((10, 3)), chunks=((4, 1, 5), (3,)))
    runner = DaskStateRunner(DaskPassRunner(X), 3)
    with dask.config.set(scheduler="synchronous"):
        assert runner.reuse_states is True
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        assert client is not None
        assert runner.reuse_states is False
