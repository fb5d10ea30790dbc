"""Two documented returns of :func:`robustpca.diagnostics.observed_counts`, from the
mutation audit of ``robustpca._observed``.

Its docstring: None when the model rejects missing entries (input tag ``allow_nan``): a
scikit-learn PCA rejects NaN, so rows with gaps get no count from it, as from a robustpca
estimator without NaN support. And None when ``X`` other than a Dask array has no gap: a
Dask array's counts stay lazy (nothing is computed to find out whether it has gaps).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import PCA as SkPCA

from robustpca import PCA
from robustpca.diagnostics import observed_counts


def test_an_estimator_without_nan_support_gets_no_count():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    model = SkPCA(n_components=2).fit(X)
    assert not model.__sklearn_tags__().input_tags.allow_nan
    gappy = X.copy()
    gappy[0, 1] = np.nan
    assert observed_counts(model, gappy) is None
    ours = PCA(n_components=2).fit(X)
    assert ours.__sklearn_tags__().input_tags.allow_nan
    np.testing.assert_array_equal(observed_counts(ours, gappy)[:2], [3, 4])


def test_a_dask_array_without_gaps_gets_lazy_counts():
    """No early compute on a Dask array: its counts are a lazy array even where it has
    no gap, and they are every column."""
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(1).normal(size=(20, 3))
    model = PCA(n_components=2).fit(X)
    lazy = observed_counts(model, da.from_array(X, chunks=(10, 3)))
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(), np.full(20, 3))
