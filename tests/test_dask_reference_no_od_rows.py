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


def _gapped_fits(cls, X):
    """The in-memory and Dask fits of ``cls(2)`` on the gapped table ``X``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(2).fit(X), cls(2).fit(da.from_array(X, chunks=((60, 1, 100, 39), (5,))))


def _table():
    rng = np.random.default_rng(7)
    return np.c_[1.0 + rng.normal(size=(200, 2)) * [3.0, 1.0], np.full((200, 3), 5.0)]


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA])
def test_score_without_od_rows_is_finite_and_the_in_memory_one(cls):
    """``score`` with no row for the OD statistics (a gap in every third row): the
    likelihood's variances have no row to come from, as in memory, and the
    log-likelihood stays finite and that of the in-memory fit."""
    X = _table()
    X[60::3, 0] = np.nan
    theirs, ours = _gapped_fits(cls, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        score, want = ours.score(X), theirs.score(X)
    assert np.isfinite(score)
    assert score == pytest.approx(want, rel=1e-4)


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA])
def test_no_row_with_k_coordinates_takes_every_rows_scores(cls):
    """Every row misses one informative entry, so at ``k = 2`` no row qualifies for the
    score statistics: the in-memory diagnostics then take every row's scores
    (``diagnostic_reference``); the Dask reference does the same (a finite score centre
    and scale) and flags the same rows."""
    X = _table()
    X[0::2, 0] = np.nan
    X[1::2, 1] = np.nan
    theirs, ours = _gapped_fits(cls, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels, want = np.asarray(ours.predict(X)), theirs.predict(X)
    reference = ours._outlier_reference
    assert np.isfinite(reference.score_center).all()
    assert np.isfinite(reference.score_scale).all()
    np.testing.assert_array_equal(labels, want)
