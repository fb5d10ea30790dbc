"""Rows with no observed entry in the lazy methods of a model that fits missing
entries: the error names them by their row in the whole dask array (0-based), as the
NumPy methods name them in the whole input, whichever block holds them, for
``score_samples`` (by whole-row blocks) as for ``transform``."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("method", ["score_samples", "transform", "reconstruction_error"])
def test_an_empty_row_in_a_later_block_is_named_by_its_global_index(method):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 5))
    X[rng.random(X.shape) < 0.05] = np.nan
    model = PCA(2).fit(X)
    Q = X.copy()
    Q[57] = np.nan
    with pytest.raises(ValueError, match=r"row\(s\) 57 \(0-based\)") as numpy_error:
        getattr(model, method)(Q)
    lazy = getattr(model, method)(da.from_array(Q, chunks=(30, 5)))
    with pytest.raises(ValueError, match=r"row\(s\) 57 \(0-based\)") as dask_error:
        lazy.compute()
    assert str(dask_error.value) == str(numpy_error.value)
