"""The online estimators follow a stream that changes namespace or device.

docs/array_api.md: ``partial_fit`` and ``partial_fit_decompose`` of ``OnlineRobustPCA``
and ``GRASTA`` "take a batch of another namespace or device than the model's and move the
model there" (``decompose``, which does not update the model, refuses it). The existing
tests keep the stream on one device; here the second batch comes on array-api-strict's
other device, and then as NumPy: the model's arrays follow it, with the values of a
NumPy stream.
"""

from __future__ import annotations

import warnings

import array_api_compat
import numpy as np
import pytest
from sklearn import config_context

from robustpca import GRASTA, OnlineRobustPCA
from robustpca._array_api import fitted_arrays, to_numpy

xps = pytest.importorskip("array_api_strict")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def _stream(seed=0, n=45, d=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3 + 1.0
    X += 0.1 * rng.normal(size=(n, d))
    return X[:15], X[15:30], X[30:]


@pytest.mark.parametrize("make", [OnlineRobustPCA, GRASTA])
def test_model_moves_to_the_batch_device_then_to_numpy(make):
    """Batches on CPU_DEVICE, then device1, then NumPy: after each partial_fit every
    fitted array lives where the batch lives and equals the NumPy stream's."""
    first, second, third = _stream()
    reference = make(n_components=2, random_state=0)
    model = make(n_components=2, random_state=0)
    device1 = xps.Device("device1")
    with warnings.catch_warnings(), config_context(array_api_dispatch=True):
        warnings.simplefilter("ignore")
        for batch in (xps.asarray(first), xps.asarray(second, device=device1), third):
            host_batch = to_numpy(batch) if not isinstance(batch, np.ndarray) else batch
            reference.partial_fit(host_batch)
            model.partial_fit(batch)
            for key, value in fitted_arrays(model).items():
                if isinstance(batch, np.ndarray):
                    assert isinstance(value, np.ndarray), key
                else:
                    assert array_api_compat.array_namespace(value) is xps, key
                    assert value.device == batch.device, key
                np.testing.assert_allclose(
                    to_numpy(value), getattr(reference, key), rtol=1e-9, atol=1e-9, err_msg=key
                )
