"""The documented returns of :func:`robustpca.diagnostics.observed_counts`.

Its docstring: the observed coordinates of each row, less those of the training
constants the model does not use; None when the model rejects missing entries (input
tag ``allow_nan``) or when ``X`` (other than a Dask array) has none; NumPy, a DataFrame
(``pd.NA`` missing), a Dask array (lazy counts) or an array-API array all count alike.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from robustpca import PCA, ProjectionPursuitPCA
from robustpca.diagnostics import observed_counts


def _gappy(seed=0, n=40, d=5, rate=0.15):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
    X[rng.random(X.shape) < rate] = np.nan
    X[np.isnan(X).all(axis=1), 0] = 1.0
    return X


def test_a_model_that_rejects_missing_entries_gets_none():
    """No count for a model without NaN support, even on rows with gaps."""
    X = _gappy()
    model = ProjectionPursuitPCA(n_components=2).fit(np.nan_to_num(X))
    assert not model.__sklearn_tags__().input_tags.allow_nan
    assert observed_counts(model, X) is None


def test_counts_are_the_observed_coordinates_on_every_container():
    """NumPy, an object array, a DataFrame with ``pd.NA`` and a Dask array give the same
    counts; rows without a gap give None (NumPy and DataFrame alike)."""
    X = _gappy()
    model = PCA(n_components=2).fit(X)
    expected = X.shape[1] - np.isnan(X).sum(axis=1)
    np.testing.assert_array_equal(observed_counts(model, X), expected)
    frame = pd.DataFrame(X).astype("Float64")  # NaN become pd.NA
    assert frame.isna().to_numpy().sum() == np.isnan(X).sum()
    np.testing.assert_array_equal(observed_counts(model, frame), expected)
    da = pytest.importorskip("dask.array")
    lazy = observed_counts(model, da.from_array(X, chunks=(10, 5)))
    np.testing.assert_array_equal(lazy.compute(), expected)
    complete = X[~np.isnan(X).any(axis=1)]
    assert observed_counts(model, complete) is None
    assert observed_counts(model, pd.DataFrame(complete)) is None
    assert observed_counts(model, complete.astype(int)) is None
    np.testing.assert_array_equal(observed_counts(model, X.astype(object)), expected)


def test_an_array_api_array_without_nan_has_no_gap():
    """Integers and booleans of an array-API namespace hold no NaN: None, as NumPy's."""
    xps = pytest.importorskip("array_api_strict")
    X = _gappy()
    model = PCA(n_components=2).fit(X)
    complete = np.round(np.nan_to_num(X)).astype(np.int64)
    assert observed_counts(model, xps.asarray(complete)) is None
    assert observed_counts(model, xps.asarray(complete > 0)) is None


def test_a_constant_column_the_model_does_not_use_is_not_counted():
    """Its observed entries are subtracted from each row's count, its missing ones not."""
    X = _gappy(1)
    X = np.column_stack([X, np.where(np.arange(len(X)) % 3 == 0, np.nan, 2.5)])
    model = PCA(n_components=2).fit(X)
    observed = ~np.isnan(X)
    expected = observed[:, :-1].sum(axis=1)
    np.testing.assert_array_equal(observed_counts(model, X), expected)


def test_an_array_api_array_off_the_host_counts_the_constants_too():
    """On a non-CPU device (``array_api_strict``'s ``device1``, which NumPy cannot read
    directly) the counts of a model with an unused constant column equal NumPy's."""
    xps = pytest.importorskip("array_api_strict")
    X = _gappy(2)
    X = np.column_stack([X, np.where(np.arange(len(X)) % 4 == 0, np.nan, -1.5)])
    model = PCA(n_components=2).fit(X)
    device = xps.Device("device1")
    counts = observed_counts(model, xps.asarray(X, device=device))
    np.testing.assert_array_equal(counts, (~np.isnan(X[:, :-1])).sum(axis=1))
