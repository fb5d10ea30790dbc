"""Unfitted models refuse array-API input with NotFittedError.

The methods that round-trip to NumPy (``robustpca._array_api.host_method``: the 2-D
estimators' and ``KernelL21PCA``'s transforms) first check that the model is fitted, then
that ``X`` shares the fitted arrays' namespace and device. Under ``array_api_dispatch`` an
unfitted model must still raise scikit-learn's ``NotFittedError`` (as it does without
dispatch, which scikit-learn's ``check_estimators_unfitted`` covers), not an
``AttributeError`` from looking up a fitted array that does not exist.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import config_context
from sklearn.exceptions import NotFittedError

import robustpca

xps = pytest.importorskip("array_api_strict")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


@pytest.mark.parametrize("name", ["TwoDPCA", "GLRAM", "KernelL21PCA"])
def test_unfitted_host_method_raises_not_fitted_under_dispatch(name):
    X = xps.asarray(np.random.default_rng(0).normal(size=(10, 16)))
    with config_context(array_api_dispatch=True), pytest.raises(NotFittedError):
        getattr(robustpca, name)(n_components=2).transform(X)
