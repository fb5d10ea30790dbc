"""Dask fits with gaps that leave no row with ``k`` observed informative coordinates:
two informative columns, three constant ones, and every row misses one informative
entry, so at ``k = 2`` no row qualifies for the score statistics. The in-memory
diagnostics then take every row's scores (``diagnostic_reference``); the Dask
reference must do the same (a finite score centre and scale) and flag the same rows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca import PCA, OptimalMeanPCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA])
def test_no_row_with_k_coordinates_takes_every_rows_scores(cls):
    rng = np.random.default_rng(7)
    X = np.c_[1.0 + rng.normal(size=(200, 2)) * [3.0, 1.0], np.full((200, 3), 5.0)]
    X[0::2, 0] = np.nan
    X[1::2, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = cls(2).fit(X)
        ours = cls(2).fit(da.from_array(X, chunks=((60, 1, 100, 39), (5,))))
        labels, want = np.asarray(ours.predict(X)), theirs.predict(X)
    reference = ours._outlier_reference
    assert np.isfinite(reference.score_center).all()
    assert np.isfinite(reference.score_scale).all()
    np.testing.assert_array_equal(labels, want)
