"""``score`` after a Dask fit whose gaps leave no row for the OD statistics (every row
fitted exactly at ``k = 2``: two informative columns, three constant ones, a gap in
every third row; see ``test_dask_reference_no_od_rows``): the likelihood's variances
have no row to come from, as in memory, and the log-likelihood stays finite and that
of the in-memory fit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustpca import PCA, OptimalMeanPCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA])
def test_score_without_od_rows_is_finite_and_the_in_memory_one(cls):
    rng = np.random.default_rng(7)
    X = np.c_[1.0 + rng.normal(size=(200, 2)) * [3.0, 1.0], np.full((200, 3), 5.0)]
    X[60::3, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = cls(2).fit(X)
        ours = cls(2).fit(da.from_array(X, chunks=((60, 1, 100, 39), (5,))))
        score, want = ours.score(X), theirs.score(X)
    assert np.isfinite(score)
    assert score == pytest.approx(want, rel=1e-4)
