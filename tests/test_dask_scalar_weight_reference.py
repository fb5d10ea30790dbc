"""A scalar ``sample_weight`` (every row the same weight, as scikit-learn takes it)
with a Dask fit that stores the outlier reference and a float ``contamination``: the
reference's passes broadcast it to the rows, and the fit flags the same rows and
stores the same ``offset_`` as the in-memory fit, on both routes."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("shape", [(200, 6), (30, 80)], ids=["tall", "wide"])
def test_a_scalar_weight_gives_the_in_memory_detector(shape):
    rng = np.random.default_rng(0)
    X = rng.normal(size=shape) * np.linspace(3.0, 0.5, shape[1])
    X[:5] += 6.0
    dX = da.from_array(X, chunks=(50, 40))
    ours = PCA(2, contamination=0.1).fit(dX, sample_weight=2.0)
    theirs = PCA(2, contamination=0.1).fit(X, sample_weight=2.0)
    assert ours.offset_ == pytest.approx(theirs.offset_, rel=1e-9)
    np.testing.assert_array_equal(np.asarray(ours.predict(dX)), theirs.predict(X))
