"""The mean of a Dask ``PCA`` fit on data with missing entries (the tall route's EM on
the observed entries, issue 12): ``mean_`` is that of the in-memory fit and, at the
EM fixed point, the (weighted) column mean of the data completed by the model's own
reconstruction, with and without ``sample_weight``. The existing parity test compares
only the subspaces, which do not see the mean."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("weighted", [False, True])
def test_mean_with_gaps_is_the_in_memory_and_fixed_point_mean(weighted):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6)) @ rng.normal(size=(6, 6)) + 5.0
    X[rng.random(X.shape) < 0.15] = np.nan
    w = rng.random(300) if weighted else None
    ours = PCA(2).fit(da.from_array(X, chunks=70), sample_weight=w)
    theirs = PCA(2).fit(X, sample_weight=w)
    scale = np.nanstd(X)
    np.testing.assert_allclose(ours.mean_, theirs.mean_, atol=1e-4 * scale)
    filled = np.where(np.isnan(X), ours.reconstruct(X), X)
    np.testing.assert_allclose(ours.mean_, np.average(filled, axis=0, weights=w), atol=1e-4 * scale)
