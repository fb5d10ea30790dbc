"""Array-API devices that lack a dtype: float32-only devices (Apple MPS; array-api-strict's
``"no_float64"``) and devices without int64 either (JAX without x64; ``"no_x64"``).

The devices are found by array API inspection (``__array_namespace_info__().devices()``
and the dtypes of each), not by name: array-api-strict's ``"device1"`` has float64, and
its devices without float64 came with 2.6. With an older array-api-strict (the declared
minimum is 2.2) there is none, and the tests that need one skip, saying so.

Also here: methods of a fitted model refuse arrays of another namespace or device (the
online estimators' ``decompose`` included), and the convex estimators' ``residuals_``
(a dict of arrays) follows the input like every other fitted array.
"""

from __future__ import annotations

import warnings

import array_api_compat
import numpy as np
import pytest
from sklearn import config_context

import robustpca
from robustpca import GRASTA, OnlineRobustPCA
from robustpca._array_api import fitted_arrays

from .test_array_api import data, make

xps = pytest.importorskip("array_api_strict")
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
NAMES = robustpca.ESTIMATOR_NAMES
#: The estimators that solve in the input's namespace (robustpca.array_api_linalg).
IN_NAMESPACE = ("PCA", "OptimalMeanPCA", "HQPCA")
CONVEX = ("PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def device_without(*dtypes: str):
    """The first device of array_api_strict whose dtypes lack all of ``dtypes`` (by the
    namespace's inspection API), or skip when this release has none."""
    info = xps.__array_namespace_info__()
    for device in info.devices():
        supported = info.dtypes(device=device)
        if "float32" in supported and not any(name in supported for name in dtypes):
            return device
    pytest.skip(f"array_api_strict {xps.__version__} has no device without {dtypes}")


def float32_only_device():
    """A device with float32 but not float64 (array_api_strict's ``"no_float64"``)."""
    return device_without("float64")


def host(a) -> np.ndarray:
    return np.asarray(xps.asarray(a, device=xps.Device("CPU_DEVICE")))


def quiet_fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X)


def test_the_device_finder_reads_the_inspection_api():
    """What the tests below rely on: the device found lacks float64 (and int64), and
    array_api_strict refuses to create such an array there."""
    device = float32_only_device()
    info = xps.__array_namespace_info__()
    assert "float64" not in info.dtypes(device=device)
    with pytest.raises(ValueError, match="float64"):
        xps.asarray(np.zeros(2), device=device)
    no_x64 = device_without("float64", "int64")
    assert "int64" not in info.dtypes(device=no_x64)


@pytest.mark.parametrize("kind", ["int32", "bool"])
@pytest.mark.parametrize("name", NAMES)
def test_integer_and_bool_data_on_a_float32_only_device(name, kind):
    """Integers and booleans are fitted in the device's widest float (float32 there, not
    the float64 it lacks), and the model answers them as it answers the same values in
    float32: fit, the transforms and the outlier API (to float32 rounding: the host
    methods of the 2-D and kernel estimators compute integers in float64, float32 data in
    float32)."""
    device = float32_only_device()
    X = data()
    X = np.round(X).astype(np.int32) if kind == "int32" else X > 1.0
    X_dev = xps.asarray(X, device=device)
    X_f32 = xps.asarray(X.astype(np.float32), device=device)
    with config_context(array_api_dispatch=True):
        est = quiet_fit(make(name), X_dev)
        for key, value in fitted_arrays(est).items():
            assert value.device == device, key
            if xps.isdtype(value.dtype, "real floating"):
                assert value.dtype == xps.float32, key
        for method in ("transform", "score_samples", "predict", "reconstruction_error"):
            out = getattr(est, method)(X_dev)
            assert out.device == device, method
            expected = host(getattr(est, method)(X_f32))
            np.testing.assert_allclose(host(out), expected, rtol=1e-5, atol=1e-6, err_msg=method)
        assert est.transform(X_dev).dtype == xps.float32


@pytest.mark.parametrize("name", NAMES)
def test_a_device_without_int64(name):
    """float32 data on a device without float64 and int64: the fit, the observed counts
    of score_samples and the labels of predict use the device's default integer dtype
    (int32) where they used int64."""
    device = device_without("float64", "int64")
    info = xps.__array_namespace_info__()
    X = data().astype(np.float32)
    reference = quiet_fit(make(name), X)
    X_dev = xps.asarray(X, device=device)
    with config_context(array_api_dispatch=True):
        est = quiet_fit(make(name), X_dev)
        for key, value in fitted_arrays(est).items():
            assert value.device == device, key
        scores = est.score_samples(X_dev)
        labels = est.predict(X_dev)
    assert scores.device == device and labels.device == device
    assert labels.dtype == info.default_dtypes(device=device)["integral"]
    np.testing.assert_array_equal(host(labels), reference.predict(X))


@pytest.mark.parametrize("make_online", [OnlineRobustPCA, GRASTA])
def test_decompose_from_another_namespace_or_device_raises(make_online):
    """decompose does not update the model: like transform, it refuses NumPy input and
    another device than the fit's, naming the method."""
    X = data()
    with config_context(array_api_dispatch=True):
        est = make_online(n_components=2, random_state=0).fit(xps.asarray(X))
        low, _ = est.decompose(xps.asarray(X))  # the fit's namespace and device
        assert array_api_compat.array_namespace(low) is xps
        name = make_online.__name__
        with pytest.raises(ValueError, match=rf"{name}\.decompose\(\)"):
            est.decompose(X)
        with pytest.raises(ValueError, match=rf"{name}\.decompose\(\)"):
            est.decompose(xps.asarray(X, device=xps.Device("device1")))


@pytest.mark.parametrize("name", CONVEX)
def test_residuals_trace_follows_the_input(name):
    """residuals_ (a dict of arrays) is moved to the input's namespace and device and is
    float32 for float32 input, as every other fitted array."""
    X = data().astype(np.float32)
    device = xps.Device("device1")
    reference = quiet_fit(make(name), X.astype(np.float64))
    with config_context(array_api_dispatch=True):
        est = quiet_fit(make(name), xps.asarray(X, device=device))
    assert set(est.residuals_) == set(reference.residuals_)
    for key, value in est.residuals_.items():
        assert array_api_compat.array_namespace(value) is xps, key
        assert value.device == device, key
        assert value.dtype == xps.float32, key
        np.testing.assert_allclose(
            host(value), reference.residuals_[key], rtol=1e-3, atol=1e-6, err_msg=key
        )
    numpy_fit = quiet_fit(make(name), X)  # NumPy float32: float32 too
    assert all(v.dtype == np.float32 for v in numpy_fit.residuals_.values())
