"""A dask array with unknown chunk sizes along its columns (the transpose of a boolean
row selection) is refused up front with the advice to compute the chunk sizes, as one
with unknown row chunks is (``_dask.arrays.as_float_array``), by the fit and by the
lazy transforms: no pass can place a block's columns without them."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA, OptimalMeanPCA

da = pytest.importorskip("dask.array")


def _unknown_columns():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 12))
    keep = np.ones(12, dtype=bool)
    keep[3] = False
    dT = da.from_array(X.T, chunks=(4, 40))
    selected = dT[da.from_array(keep, chunks=4)].T  # shape (80, nan)
    assert any(np.isnan(c) for c in selected.chunks[1])
    return X[:, keep], selected


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA])
def test_unknown_column_chunks_are_refused_with_advice(cls):
    X, selected = _unknown_columns()
    with pytest.raises(ValueError, match=r"unknown chunk sizes.*compute_chunk_sizes"):
        cls(2).fit(selected)
    model = cls(2).fit(X)
    with pytest.raises(ValueError, match=r"unknown chunk sizes.*compute_chunk_sizes"):
        model.transform(selected)
