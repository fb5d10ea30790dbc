"""float16 (and other non-float32 floats) given as a dask array are cast to float64 as
in memory (``_dask.arrays.as_float_array``: "other input is cast to float64"): the
fit is that of the float64 values, with float64 attributes, and the magnitude check
is that of float64 data (squares of a few hundred overflow float16, not float64)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA, OptimalMeanPCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA])
def test_float16_dask_input_fits_as_float64(cls):
    rng = np.random.default_rng(0)
    X16 = (300.0 * rng.normal(size=(90, 5))).astype(np.float16)
    ours = cls(2).fit(da.from_array(X16, chunks=30))
    theirs = cls(2).fit(X16)
    assert ours.components_.dtype == theirs.components_.dtype == np.float64
    np.testing.assert_allclose(np.abs(ours.components_), np.abs(theirs.components_), atol=1e-8)
    np.testing.assert_allclose(ours.mean_, theirs.mean_, rtol=1e-10)
    lazy = ours.transform(da.from_array(X16, chunks=30))
    assert lazy.dtype == np.float64
    np.testing.assert_allclose(lazy.compute(), ours.transform(X16), rtol=1e-10, atol=1e-8)
