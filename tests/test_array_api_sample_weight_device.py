"""PCA.fit(X, sample_weight=w) with X and w on a device whose arrays NumPy cannot read.

docs/array_api.md: with ``array_api_dispatch`` on, the ``fit`` of ``PCA`` with
``sample_weight`` copies ``X`` and ``sample_weight`` once to a host NumPy array "(DLPack,
or the library's own conversion)", and the fitted arrays come back to the namespace and
device of ``X``. array-api-strict's ``"device1"`` stands in for a GPU: NumPy's
``np.asarray`` refuses its arrays (as it refuses a CUDA tensor), so only the library's
conversion (``robustpca._array_api.to_numpy``) reads them.

A fixed bug: ``BaseSubspaceEstimator._fit`` called ``weighted_rows(sample_weight, n_samples)``
(``_validation.check_sample_weight``: ``np.array(sample_weight, ...)``) on the weights as
given, before any conversion, so the fit raised ``RuntimeError: Can't convert array on
the 'array_api_strict.Device('device1')' device to a NumPy array`` (with PyTorch on CUDA
it would be the TypeError of ``np.array`` on a CUDA tensor). The same weights on
array-api-strict's default CPU device, which NumPy reads, fit fine
(tests/test_array_api.py::test_sample_weight_and_source_follow_x).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import config_context

from robustpca import PCA
from robustpca._array_api import to_numpy

xps = pytest.importorskip("array_api_strict")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def test_weighted_pca_fit_on_a_device_numpy_cannot_read():
    """X and sample_weight on "device1": the fit succeeds, its arrays live on that device
    and equal the NumPy weighted fit."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 6)) + 0.1 * rng.normal(size=(30, 6))
    w = np.linspace(0.5, 2.0, 30)
    reference = PCA(n_components=2).fit(X, sample_weight=w)
    device = xps.Device("device1")
    with config_context(array_api_dispatch=True):
        model = PCA(n_components=2).fit(
            xps.asarray(X, device=device), sample_weight=xps.asarray(w, device=device)
        )
    assert model.components_.device == device
    np.testing.assert_allclose(to_numpy(model.mean_), reference.mean_, atol=1e-12)
    np.testing.assert_allclose(
        to_numpy(model.explained_variance_), reference.explained_variance_, rtol=1e-10
    )
    C = to_numpy(model.components_)
    P, P_ref = C.T @ C, reference.components_.T @ reference.components_
    assert np.abs(P - P_ref).max() < 1e-10
