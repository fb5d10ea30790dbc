"""``mahalanobis`` of an array-API ``X`` comes back in ``X``'s namespace and on its
device, as ``score_samples`` and ``decision_function`` do (docs/array_api.md), with the
values of the NumPy call; it had returned a host NumPy array."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import config_context

from robustpca import PCA, ROBPCA, OptimalMeanPCA
from robustpca._array_api import to_numpy

xps = pytest.importorskip("array_api_strict")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA, ROBPCA])
def test_mahalanobis_follows_the_input(cls):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 5)) + 0.1 * rng.normal(size=(40, 5))
    reference = cls(n_components=2, random_state=0).fit(X).mahalanobis(X)
    device = xps.Device("device1")
    Xd = xps.asarray(X, device=device)
    with config_context(array_api_dispatch=True):
        model = cls(n_components=2, random_state=0).fit(Xd)
        got = model.mahalanobis(Xd)
        assert got.device == device and got.shape == (40,)
        assert got.device == model.score_samples(Xd).device
    np.testing.assert_allclose(to_numpy(got), reference, rtol=1e-8)
