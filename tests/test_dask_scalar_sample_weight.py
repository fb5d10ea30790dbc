"""A fixed bug: a 0-d dask array as ``sample_weight`` of a Dask ``PCA`` fit raised a bare
``IndexError`` (the chunk check read ``sample_weight.chunks[0]`` first). One number is
now taken as the NumPy scalar is: the same weight on every row."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("shape", [(60, 5), (10, 30)], ids=["tall", "wide"])
def test_a_zero_d_dask_sample_weight_is_the_numpy_scalar(shape):
    X = np.random.default_rng(0).normal(size=shape)
    model = PCA(2).fit(da.from_array(X, chunks=(20, 10)), sample_weight=da.asarray(2.0))
    want = PCA(2).fit(X, sample_weight=2.0)
    np.testing.assert_allclose(model.components_, want.components_, atol=1e-12)
    np.testing.assert_allclose(model.explained_variance_, want.explained_variance_, rtol=1e-12)
    np.testing.assert_allclose(
        np.asarray(model.decision_function(X)), want.decision_function(X), atol=1e-10
    )
