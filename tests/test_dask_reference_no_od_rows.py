"""Dask fits with gaps that leave the training diagnostics no OD row, or too few
observed entries (mutation audit of the chunked passes).

Two informative columns, three constant ones and a gap in every third row: at ``k = 2``
every row is fitted exactly (its observed constant entries are no evidence), so no row
enters the OD statistics. The in-memory fit stores an empty OD reference
(``od_location_ == 0``); the counting passes of ``_dask.reference.chunked_reference``
used to raise ``RuntimeError: the order statistics of columns [1] were not found`` on
the empty set of rows.
"""

from __future__ import annotations

import copy
import warnings

import dask
import dask.array as da
import numpy as np
import pytest

from robustpca import PCA, OptimalMeanPCA


@pytest.mark.parametrize("make", [lambda: PCA(2), lambda: OptimalMeanPCA(2)])
def test_no_row_in_the_od_statistics(make):
    rng = np.random.default_rng(7)
    X = np.c_[1.0 + rng.normal(size=(200, 2)) * [3.0, 1.0], np.full((200, 3), 5.0)]
    X[60::3, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        memory = make().fit(X)
        with dask.config.set(scheduler="synchronous"):
            model = make().fit(da.from_array(X, chunks=((60, 1, 100, 39), (5,))))
    twin = copy.copy(model)
    twin._set_outlier_reference(X)
    assert model._outlier_reference.od_location == twin._outlier_reference.od_location
    np.testing.assert_array_equal(np.asarray(model.predict(X)), memory.predict(X))


@pytest.mark.parametrize("make", [lambda: PCA(2), lambda: OptimalMeanPCA(2)])
def test_too_few_observed_entries_refused_as_in_memory(make):
    """Every row of a 120 x 3 table misses one entry: 240 observed entries, fewer than
    the 245 parameters of a rank-2 affine model. The Dask fit refuses it in its first
    pass with the in-memory message (it used to fit, then fail in the diagnostics)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    X[np.arange(120), np.arange(120) % 3] = np.nan
    with pytest.raises(ValueError) as memory:
        make().fit(X)
    with pytest.raises(ValueError) as chunked, dask.config.set(scheduler="synchronous"):
        make().fit(da.from_array(X, chunks=((50, 1, 69), (3,))))
    assert "fewer than the 245 parameters" in str(memory.value)
    assert str(chunked.value) == str(memory.value)
