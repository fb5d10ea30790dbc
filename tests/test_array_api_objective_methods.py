"""The estimators' float-valued objective methods (``l21_objective`` of ``L21PCA`` and
``L21TwoDPCA``, ``GeneralizedMeanPCA.generalized_mean_error``) on a model fitted with
``array_api_dispatch`` on an array-API device: they take ``X`` of that namespace and
device and give the float of the NumPy fit (docs/array_api.md), and refuse a NumPy ``X``
with scikit-learn's ValueError. They had failed with an obscure TypeError or a
RuntimeError of the conversion to NumPy, whatever ``X`` was."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import config_context

from robustpca import L21PCA, GeneralizedMeanPCA, L21TwoDPCA

xps = pytest.importorskip("array_api_strict")

CASES = [
    (L21PCA, "l21_objective", {}),
    (GeneralizedMeanPCA, "generalized_mean_error", {}),
    (L21TwoDPCA, "l21_objective", {"image_shape": (2, 3)}),
]


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


@pytest.mark.parametrize("device", [None, "device1"])
@pytest.mark.parametrize(("cls", "method", "params"), CASES)
def test_objective_methods_take_the_fits_namespace(cls, method, params, device):
    X = np.random.default_rng(2).normal(size=(40, 6))
    expected = getattr(cls(n_components=2, **params).fit(X), method)(X)
    on = {} if device is None else {"device": xps.Device(device)}
    Xd = xps.asarray(X, **on)
    with config_context(array_api_dispatch=True):
        model = cls(n_components=2, **params).fit(Xd)
        value = getattr(model, method)(Xd)
        assert isinstance(value, float)
        assert value == pytest.approx(expected, rel=1e-10)
        with pytest.raises(ValueError, match="same namespace and device"):
            getattr(model, method)(X)
