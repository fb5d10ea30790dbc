"""OptimalMeanPCA, HQPCA and PCA solve in the input's array namespace, on its device.

With ``array_api_dispatch`` on, these estimators run every pass over the
data in the input's namespace (:class:`robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem`):
only vectors of length ``n_samples`` and the ``k x d`` result cross to the host. These
tests check that the data never cross (a spy on every conversion to NumPy) and that the
fit equals the NumPy fit of the same data: same iterations, projector and mean to
rounding, on both routes (Gram for wide data, scatter for tall), for data far from the
origin (the raw Gram route declines), on a float32-only device and on the ORL faces.
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning

import robustpca._array_api as host_conversion
import robustpca.array_api_linalg as device_linalg
from robustpca import HQPCA, PCA, OptimalMeanPCA
from robustpca.array_api_linalg import ArrayAPIWeightedPCAProblem

from .conftest import projector

BACKENDS = ["array_api_strict"]
if importlib.util.find_spec("torch") is not None:
    BACKENDS.append("torch")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def as_namespace(X, backend, device=None):
    if backend == "torch":
        import torch

        return torch.asarray(X)
    import array_api_strict as xps

    if device is None:
        return xps.asarray(X)
    return xps.asarray(X, device=xps.Device(device) if isinstance(device, str) else device)


def host(a) -> np.ndarray:
    if type(a).__module__.startswith("torch"):
        return a.cpu().numpy()
    return np.asarray(a._array) if hasattr(a, "_array") else np.asarray(a)


@pytest.fixture
def conversions(monkeypatch):
    """Shapes of every array converted to NumPy by the library during a fit."""
    seen: list[tuple] = []
    for module in (host_conversion, device_linalg):
        real = module._convert_to_numpy

        def spy(a, xp, _real=real):
            seen.append(tuple(a.shape))
            return _real(a, xp)

        monkeypatch.setattr(module, "_convert_to_numpy", spy)
    return seen


def planted(n, d, offset=1.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) @ rng.normal(size=(3, d)) * 3 + offset
    X += 0.1 * rng.normal(size=(n, d))
    X[: n // 10] += 10 * rng.normal(size=(n // 10, d))
    return X


#: The estimators with a namespace solver (``_fit_solver_namespace``).
IN_NAMESPACE = {"OptimalMeanPCA": OptimalMeanPCA, "HQPCA": HQPCA, "PCA": PCA}


def fit(X, name="OptimalMeanPCA", **kw):
    est = IN_NAMESPACE[name](n_components=3, random_state=0)
    if "max_iter" in est.get_params():
        est.set_params(max_iter=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.set_params(**kw).fit(X)


@pytest.mark.parametrize("name", IN_NAMESPACE)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("n", "d", "offset"), [(40, 300, 1.0), (600, 12, 1.0), (40, 300, 1e5)])
def test_fit_in_namespace_equals_the_numpy_fit(name, backend, n, d, offset, conversions):
    """Gram route (40 x 300), scatter route (600 x 12) and data 1e5 from the origin (the
    raw Gram matrix would lose 10 digits, so it is formed from centred data): same
    iterations and objective, same subspace and mean as the NumPy fit, and no
    conversion to NumPy of anything as large as the data."""
    X = planted(n, d, offset)
    ref = fit(X, name)
    with config_context(array_api_dispatch=True):
        model = fit(as_namespace(X, backend), name)
    assert model.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(host(model.objective_history_), ref.objective_history_, rtol=1e-8)
    C = host(model.components_)
    assert np.abs(projector(C.T) - projector(ref.components_.T)).max() < 1e-8
    np.testing.assert_allclose(host(model.mean_), ref.mean_, atol=1e-8 * (1 + offset))
    if hasattr(ref, "weights_"):
        np.testing.assert_allclose(host(model.weights_), ref.weights_, rtol=1e-6)
    if hasattr(ref, "explained_variance_"):
        np.testing.assert_allclose(
            host(model.explained_variance_), ref.explained_variance_, rtol=1e-8
        )
    assert conversions, "the spy saw nothing: the test would pass vacuously"
    assert max(np.prod(shape) for shape in conversions) < n * d


def test_the_host_route_converts_the_data(conversions):
    """Control for the spy: an estimator without a namespace solver converts X itself."""
    from robustpca import L21PCA

    X = planted(40, 300)
    with config_context(array_api_dispatch=True):
        L21PCA(n_components=3, random_state=0).fit(as_namespace(X, "array_api_strict"))
    assert (40, 300) in conversions


@pytest.mark.parametrize("name", IN_NAMESPACE)
@pytest.mark.parametrize("where", ["float32-only", "second device"])
def test_float32_data_on_another_device(where, name):
    """float32 data on a device without float64 (array_api_strict's "no_float64", found by
    the inspection API; skipped where this array_api_strict has none) and on its second
    device ("device1", with float64): the solve runs there in the device's widest float
    (``robustpca._array_api.max_precision_float_dtype``: float32, resp. float64), the
    fitted arrays are float32 on that device, and the fit agrees with the float64 fit of
    the same values to float32 rounding.

    The bound: solved in float32, the scatter (or Gram) entries carry a relative rounding
    of about ``eps32 = 1.2e-7`` times the number of terms summed in a block, and the
    projector moves by that over the relative gap below the 3rd eigenvalue (the planted
    rank is 3, the noise 0.1 against a signal of about 3, so a gap near 1): about 1e-6
    at most, 4e-8 measured; 1e-5 leaves room for other data seeds. (On data whose noise is
    tiny beside the signal, e.g. 0.01 at an offset of 1e4, the gap is small and the float32
    solve drifts to 2e-5.)"""
    from robustpca._array_api import max_precision_float_dtype

    if where == "second device":
        target = "device1"
    else:
        from .test_array_api_devices import float32_only_device

        target = float32_only_device()
    X = planted(50, 200).astype(np.float32)
    ref = fit(X.astype(np.float64), name)
    with config_context(array_api_dispatch=True):
        X_dev = as_namespace(X, "array_api_strict", device=target)
        model = fit(X_dev, name)
        assert model.components_.device == X_dev.device
        assert model.components_.dtype == X_dev.dtype
        xp, device = _namespace_and_device(X_dev)
        problem = ArrayAPIWeightedPCAProblem(X_dev, 3, np.random.default_rng(0), xp, device)
        widest = max_precision_float_dtype(xp, device)
        assert widest == (xp.float64 if where == "second device" else xp.float32)
        assert problem.X.dtype == widest
        assert problem.X.device == X_dev.device
    C = host(model.components_).astype(np.float64)
    assert np.abs(projector(C.T) - projector(ref.components_.T)).max() < 1e-5


def _namespace_and_device(X):
    from robustpca._array_api import get_namespace_and_device

    xp, _, device = get_namespace_and_device(X)
    return xp, device


@pytest.mark.parametrize("route", ["gram", "scatter"])
def test_problem_matches_the_numpy_problem_for_fixed_weights(route):
    """One weighted solve: residuals, mean and basis equal those of WeightedPCAProblem."""
    from robustpca.linalg import WeightedPCAProblem

    X = planted(60, 40)
    w = np.random.default_rng(1).uniform(0.1, 2.0, 60)
    ref = WeightedPCAProblem(X, 4, np.random.default_rng(0), route=route).solve(w)
    with config_context(array_api_dispatch=True):
        X_xp = as_namespace(X, "array_api_strict")
        sub = ArrayAPIWeightedPCAProblem(
            X_xp, 4, np.random.default_rng(0), *_namespace_and_device(X_xp), route=route
        ).solve(w)
    np.testing.assert_allclose(sub.residuals(), ref.residuals(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(sub.mean(), ref.mean(), atol=1e-10)
    assert np.abs(projector(sub.basis()) - projector(ref.basis())).max() < 1e-9
    first = sub.basis()
    first[:] = 0.0  # a caller's edit (a callback's state.components) is its own copy
    assert np.abs(projector(sub.basis()) - projector(ref.basis())).max() < 1e-9


@pytest.mark.realdata
def test_orl_faces_fit_in_namespace(shared_data):
    """The ORL faces (400 x 10304, 20% occluded), k = 30, in array_api_strict: the fit
    equals the NumPy fit (projector to 1e-8) without converting the faces."""
    from robustpca.datasets import load_orl, occlude_blocks

    faces = load_orl(data_home=shared_data)
    X, _ = occlude_blocks(faces.data, faces.image_shape, image_fraction=0.2, random_state=0)
    ref = fit(X, tol=1e-8)
    spy: list[tuple] = []
    real = device_linalg._convert_to_numpy
    device_linalg._convert_to_numpy = lambda a, xp: spy.append(tuple(a.shape)) or real(a, xp)
    try:
        with config_context(array_api_dispatch=True):
            model = fit(as_namespace(X, "array_api_strict"), tol=1e-8)
    finally:
        device_linalg._convert_to_numpy = real
    assert model.n_iter_ == ref.n_iter_
    C = host(model.components_)
    assert np.abs(projector(C.T) - projector(ref.components_.T)).max() < 1e-8
    assert max(np.prod(s) for s in spy) < X.size
