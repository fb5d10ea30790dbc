"""Columns with no observed entry on the tall route of a Dask fit with gaps (PCA and
OptimalMeanPCA fit missing entries): the first pass refuses them with the in-memory
``ValueError``, naming every such column (up to ten), whichever row chunks hold the
rest of the data."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA, OptimalMeanPCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA])
def test_all_nan_columns_are_refused_and_named_as_in_memory(cls):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, [1, 4]] = np.nan
    with pytest.raises(ValueError, match="no observed entry") as numpy_error:
        cls(2).fit(X)
    with pytest.raises(ValueError, match="no observed entry") as dask_error:
        cls(2).fit(da.from_array(X, chunks=(30, 6)))
    assert "column(s) 1, 4" in str(dask_error.value)
    assert "column(s) 1, 4" in str(numpy_error.value)
