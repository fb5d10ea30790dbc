"""Errors of a Dask ``PCA`` fit for a lazy (dask) ``sample_weight`` and a refit of a
named-feature model: the dask branch checks a dask weight vector itself (shape, dtype)
before any pass, and must refuse what a NumPy weight vector of the same values is
refused for, on both routes; a refit on a dask array (which has no column names)
forgets the names of an earlier DataFrame fit, as scikit-learn's ``fit`` does."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA

da = pytest.importorskip("dask.array")
pd = pytest.importorskip("pandas")


def _error(X, weights):
    with pytest.raises((TypeError, ValueError)) as info:
        PCA(2).fit(X, sample_weight=weights)
    return type(info.value)


@pytest.mark.parametrize("shape", [(60, 5), (12, 40)], ids=["tall", "wide"])
@pytest.mark.parametrize("kind", ["short", "long", "complex"])
def test_a_bad_dask_weight_vector_is_refused_as_a_numpy_one(shape, kind):
    """One weight too few or too many (ValueError naming the shape), or complex weights
    (TypeError): the same exception for the dask vector as for the NumPy one."""
    n = shape[0]
    X = np.random.default_rng(0).normal(size=shape)
    w = {"short": np.ones(n - 1), "long": np.ones(n + 1), "complex": np.ones(n) + 0j}[kind]
    dX = da.from_array(X, chunks=(20, 10))
    assert _error(dX, da.from_array(w, chunks=7)) is _error(dX, w)
    if kind != "complex":
        with pytest.raises(ValueError, match=rf"sample_weight must have shape \({n},\)"):
            PCA(2).fit(dX, sample_weight=da.from_array(w, chunks=7))


def test_a_dask_refit_forgets_the_feature_names():
    """``feature_names_in_`` describes the last fit's input: a dask array has none."""
    X = np.random.default_rng(1).normal(size=(40, 4))
    model = PCA(2).fit(pd.DataFrame(X, columns=list("abcd")))
    assert list(model.feature_names_in_) == list("abcd")
    model.fit(da.from_array(X, chunks=10))
    assert not hasattr(model, "feature_names_in_")
    np.testing.assert_allclose(model.transform(X), PCA(2).fit(X).transform(X), atol=1e-10)
