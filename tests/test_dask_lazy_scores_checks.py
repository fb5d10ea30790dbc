"""Lazy per-row methods of a fitted model on dask arrays: ``score_samples`` refuses an
input with the wrong number of features when it is called (as the lazy ``transform``
does and the NumPy method does), not only once the graph is computed; and ``score``
after a wide weighted Dask fit is the in-memory one (the likelihood's variances are
the weighted ones on the wide route too)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("method", ["score_samples", "transform"])
def test_the_wrong_number_of_features_is_refused_at_the_call(method):
    X = np.random.default_rng(0).normal(size=(60, 5))
    model = PCA(2).fit(X)
    with pytest.raises(ValueError, match="X has 4 features, but PCA is expecting 5"):
        getattr(model, method)(da.from_array(X[:, :4], chunks=20))


def test_score_after_a_wide_weighted_fit_is_the_in_memory_score():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 80)) * np.linspace(3.0, 0.5, 80)
    w = rng.random(30) + 0.1
    ours = PCA(2).fit(da.from_array(X, chunks=(30, 20)), sample_weight=w)
    theirs = PCA(2).fit(X, sample_weight=w)
    assert ours.score(X) == pytest.approx(theirs.score(X), rel=1e-9)
