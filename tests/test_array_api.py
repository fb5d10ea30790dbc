"""Array API inputs: every estimator fits arrays of any namespace and answers in it.

With ``sklearn.config_context(array_api_dispatch=True)`` an estimator fitted on an
array of namespace ``xp`` (``array_api_strict`` here, PyTorch on the CPU when it is
installed) stores every fitted array in ``xp`` on the input's device, and its transforms
return ``xp`` arrays there, with the values of the NumPy fit (the solve itself runs in
NumPy on the host: see docs/array_api.md).

scikit-learn checks ``SCIPY_ARRAY_API=1`` whenever dispatch is on; robustpca hands SciPy
only NumPy arrays, so the variable is set for these tests if the environment lacks it.
"""

from __future__ import annotations

import importlib.util
import warnings

import array_api_compat
import numpy as np
import pytest
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning

import robustpca
from robustpca._array_api import fitted_arrays

from .conftest import make_estimator

BACKENDS = ["numpy", "array_api_strict"]
if importlib.util.find_spec("torch") is not None:
    BACKENDS.append("torch")

NAMES = robustpca.ESTIMATOR_NAMES
#: Short fits on purpose (max_iter caps): ConvergenceWarning is expected noise here.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
#: Methods whose outputs are compared (those an estimator has).
METHODS = ("transform", "score_samples", "reconstruction_error", "reconstruct", "embed")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def namespace(name):
    if name == "numpy":
        return np
    return pytest.importorskip(name)


def to_numpy(a):
    if isinstance(a, np.ndarray):
        return a
    if type(a).__module__.startswith("torch"):
        return a.cpu().numpy()
    return np.asarray(a._array) if hasattr(a, "_array") else np.asarray(a)


def data(seed=0, n=30, d=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3 + 1.0
    X += 0.1 * rng.normal(size=(n, d))
    X[:3] += 5 * rng.normal(size=(3, d))
    return X


def make(name):
    est = make_estimator(name, n_components=2)
    if "max_iter" in est.get_params():
        est.set_params(max_iter=30)
    return est


def quiet_fit(est, X, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, **kw)


def same_namespace(a, b) -> bool:
    return array_api_compat.array_namespace(a) is array_api_compat.array_namespace(b)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_fit_and_transforms_stay_in_the_input_namespace(backend, name):
    xp = namespace(backend)
    X = data()
    reference = quiet_fit(make(name), X)
    X_xp = xp.asarray(X)
    with config_context(array_api_dispatch=True):
        est = quiet_fit(make(name), X_xp)
        arrays = fitted_arrays(est)
        assert set(arrays) == set(fitted_arrays(reference))
        for key, value in arrays.items():
            assert same_namespace(value, X_xp), key
            assert array_api_compat.device(value) == array_api_compat.device(X_xp), key
            np.testing.assert_allclose(
                to_numpy(value), getattr(reference, key), rtol=1e-9, atol=1e-9, err_msg=key
            )
        for method in METHODS:
            if not hasattr(est, method):
                continue
            out = getattr(est, method)(X_xp)
            assert same_namespace(out, X_xp), method
            expected = getattr(reference, method)(X)
            np.testing.assert_allclose(to_numpy(out), expected, rtol=1e-9, atol=1e-9)
        Z = est.transform(X_xp)
        if hasattr(est, "inverse_transform"):
            back = est.inverse_transform(Z)
            assert same_namespace(back, X_xp)
            np.testing.assert_allclose(
                to_numpy(back), reference.inverse_transform(to_numpy(Z)), atol=1e-9
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            Z_fit = make(name).fit_transform(X_xp)
        assert same_namespace(Z_fit, X_xp)
        np.testing.assert_allclose(to_numpy(Z_fit), to_numpy(Z), atol=1e-9)


@pytest.mark.parametrize("where", ["float32-only", "second device"])
@pytest.mark.parametrize("name", NAMES)
def test_float32_only_device(name, where):
    """float32 data on a device without float64 (array_api_strict's "no_float64", found
    by the inspection API; skipped where this array_api_strict has none): the fit is
    moved there in float32. Also on array_api_strict's second device ("device1", which
    has float64): float32 data give float32 attributes there."""
    xp = pytest.importorskip("array_api_strict")
    if where == "second device":
        device = xp.Device("device1")
    else:
        from .test_array_api_devices import float32_only_device

        device = float32_only_device()
        assert "float64" not in xp.__array_namespace_info__().dtypes(device=device)
    X_xp = xp.asarray(data().astype(np.float32), device=device)
    with config_context(array_api_dispatch=True):
        est = quiet_fit(make(name), X_xp)
        for key, value in fitted_arrays(est).items():
            assert value.device == device, key
            if xp.isdtype(value.dtype, "real floating"):
                assert value.dtype == xp.float32, key
        out = est.transform(X_xp)
        assert out.device == device and out.dtype == xp.float32


@pytest.mark.parametrize("name", ["OptimalMeanPCA", "TwoDPCA", "KernelL21PCA"])
def test_transform_from_another_namespace_raises(name):
    """A model fitted on array_api_strict arrays refuses NumPy input (scikit-learn's rule:
    same namespace and device as in fit), naming the method."""
    xp = pytest.importorskip("array_api_strict")
    X = data()
    with config_context(array_api_dispatch=True):
        est = quiet_fit(make(name), xp.asarray(X))
        with pytest.raises(ValueError, match=rf"{name}\.transform\(\)"):
            est.transform(X)


def test_without_dispatch_inputs_become_numpy():
    """Dispatch off (the default): a CPU tensor is converted, results are NumPy arrays."""
    torch = pytest.importorskip("torch")
    X = data()
    est = quiet_fit(make("OptimalMeanPCA"), torch.asarray(X))
    assert isinstance(est.components_, np.ndarray)
    assert isinstance(est.transform(torch.asarray(X)), np.ndarray)
    np.testing.assert_allclose(
        est.components_, quiet_fit(make("OptimalMeanPCA"), X).components_, atol=1e-12
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_sample_weight_and_source_follow_x(backend):
    """Side inputs (PCA's sample_weight, R-T-PCA's source) may come in the namespace."""
    xp = namespace(backend)
    X = data()
    w = np.linspace(0.5, 2.0, X.shape[0])
    source = data(seed=5)
    pca_ref = robustpca.PCA(2).fit(X, sample_weight=w)
    rt_ref = quiet_fit(robustpca.RobustTransferPCA(n_components=2, max_iter=50), X, source=source)
    with config_context(array_api_dispatch=True):
        pca = robustpca.PCA(2).fit(xp.asarray(X), sample_weight=xp.asarray(w))
        rt = quiet_fit(
            robustpca.RobustTransferPCA(n_components=2, max_iter=50),
            xp.asarray(X),
            source=xp.asarray(source),
        )
    np.testing.assert_allclose(to_numpy(pca.components_), pca_ref.components_, atol=1e-10)
    np.testing.assert_allclose(to_numpy(rt.components_), rt_ref.components_, atol=1e-10)
