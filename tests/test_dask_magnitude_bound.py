"""The magnitude bound of a Dask fit is that of the whole array, as in memory
(``magnitude_limit(dtype, n_samples * n_features)``): an entry just above the bound
for all ``n d`` values but below the bound for ``n`` values is refused by both routes,
and one just below the bound is fitted by both; the bound is not that of a block, a
row or a column, and a large negative entry counts as a large positive one."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA
from robustpca._validation import magnitude_limit

da = pytest.importorskip("dask.array")


@pytest.mark.filterwarnings("ignore:PCA. the features. variances span:UserWarning")
@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_bound_is_that_of_all_entries(dtype, sign):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 6)).astype(dtype)
    limit = magnitude_limit(dtype, X.size)
    assert magnitude_limit(dtype, X.shape[0]) > 2.0 * limit
    above, below = X.copy(), X.copy()
    above[50, 2], below[50, 2] = sign * 1.5 * limit, sign * 0.5 * limit
    for data in (above, da.from_array(above, chunks=(25, 6))):
        with pytest.raises(ValueError, match="whose squares"):
            PCA(2).fit(data)
    for data in (below, da.from_array(below, chunks=(25, 6))):
        assert np.isfinite(PCA(2).fit(data).components_).all()


@pytest.mark.parametrize("value", [np.inf, 1e200])
def test_a_block_with_gaps_is_checked_too(value):
    """A missing entry (NaN, which PCA fits on the tall route) in the same block as an
    infinity or an overflowing entry does not hide it: the fit raises as in memory."""
    X = np.random.default_rng(1).normal(size=(120, 6))
    X[10, 1], X[12, 3] = np.nan, value
    match = "infinity" if np.isinf(value) else "whose squares"
    for data in (X, da.from_array(X, chunks=(25, 6))):
        with pytest.raises(ValueError, match=match):
            PCA(2).fit(data)
