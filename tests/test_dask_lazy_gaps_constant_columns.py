"""Lazy transforms of rows with gaps for a model with an unmodelled constant column
(``_unmodelled_constants``: a training column constant where observed): the observed
coordinates of a row count its constant entries as uninformative, so the lazy dask
results equal the NumPy methods' for rows with NaN, whether or not they sit on the
constant."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("method", ["transform", "reconstruct", "reconstruction_error"])
def test_lazy_results_with_gaps_and_a_constant_column_are_numpys(method):
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=(120, 3)) * [3.0, 2.0, 1.0], np.full(120, 5.0)]
    X[rng.random(X.shape) < 0.1] = np.nan
    model = PCA(2).fit(X)
    assert model._unmodelled_constants is not None
    Q = np.c_[rng.normal(size=(40, 3)) * [3.0, 2.0, 1.0], np.full(40, 5.0)]
    Q[::4, 3] = 7.0  # off the constant
    Q[::3, 0] = np.nan
    Q[1::5, 2] = np.nan
    lazy = getattr(model, method)(da.from_array(Q, chunks=(15, 4))).compute()
    np.testing.assert_allclose(lazy, getattr(model, method)(Q), rtol=1e-10, atol=1e-12)
