"""dtypes across the array-API boundary: promotion, conversion without dispatch, bfloat16.

* A model fitted on float32 arrays of another namespace computes with float64 (or
  integer) input as a NumPy model does: NumPy's promotion, with every product's two
  operands of one dtype (PyTorch's ``matmul`` does not promote; array-api-strict does,
  so a spy on its products checks the operands).
* Without ``array_api_dispatch`` every method converts a non-NumPy input with the
  library's own :func:`~robustpca._array_api.to_numpy`, as ``fit`` does: float32 stays
  float32, and an array that ``np.asarray`` refuses (array-api-strict's second device,
  like a GPU tensor or one that requires grad) is read. A model fitted under dispatch on
  another namespace is refused there with a ``ValueError`` that says what to do.
* PyTorch dtypes that NumPy lacks (bfloat16) are converted to float64 on the way to the
  host.
* The default ``PCA()`` on wide data (rank ``n - 1``, so a zero eigenvalue) checks the
  features' scales on the device: ``X`` is not copied to the host.
"""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest
from sklearn import config_context

import robustpca
import robustpca._array_api as host_conversion
import robustpca.array_api_linalg as device_linalg
from robustpca import GRASTA, PCA, OnlineRobustPCA
from robustpca._array_api import _convert_to_numpy, host_copy

from .test_array_api import data, make

xps = pytest.importorskip("array_api_strict")

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning", "ignore::UserWarning"
)
NAMES = robustpca.ESTIMATOR_NAMES
#: The methods compared, with the input they take ("Z": coordinates).
METHODS = (
    "transform",
    "inverse_transform",
    "reconstruct",
    "reconstruction_error",
    "score_samples",
    "decision_function",
    "predict",
    "mahalanobis",
    "score",
    "decompose",
)


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def host(a):
    if isinstance(a, tuple):
        return tuple(host(b) for b in a)
    if isinstance(a, (float, np.ndarray)):
        return a
    return np.asarray(xps.asarray(a, device=xps.Device("CPU_DEVICE"))._array)


def call(est, method, X, Z):
    if not hasattr(est, method):
        return None
    return getattr(est, method)(Z if method == "inverse_transform" else X)


def assert_same(out, expected, method):
    if isinstance(expected, tuple):
        for a, b in zip(out, expected, strict=True):
            assert_same(a, b, method)
        return
    if isinstance(expected, float):
        assert out == pytest.approx(expected, rel=1e-10), method
        return
    assert host(out).dtype == expected.dtype, method
    np.testing.assert_allclose(host(out), expected, rtol=1e-9, atol=1e-9, err_msg=method)


@pytest.fixture
def matmul_dtypes(monkeypatch):
    """The operand dtypes of every array-api-strict product (``@``, ``matmul``,
    ``linalg.matmul``, ``vecdot``, ``tensordot``) while the fixture is armed."""
    seen: list[tuple] = []
    armed = [False]
    Array = type(xps.asarray(0.0))

    def wrap(real):
        def spy(a, b, *args, **kwargs):
            if armed[0]:
                seen.append((getattr(a, "dtype", type(a)), getattr(b, "dtype", type(b))))
            return real(a, b, *args, **kwargs)

        return spy

    for name in ("__matmul__", "__rmatmul__"):
        monkeypatch.setattr(Array, name, wrap(getattr(Array, name)))
    for module, name in ((xps, "matmul"), (xps, "vecdot"), (xps, "tensordot")):
        monkeypatch.setattr(module, name, wrap(getattr(module, name)))
    monkeypatch.setattr(xps.linalg, "matmul", wrap(xps.linalg.matmul))
    return seen, armed


# -- 1. a float32 model on float64 and integer input ---------------------------------
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["float64", "int64"])
def test_float32_model_promotes_like_numpy_with_one_dtype_per_product(name, kind, matmul_dtypes):
    """Every method of a float32 array-api-strict model, given float64 (or integer)
    input, equals what the same fitted arrays give as a NumPy model (float64 results),
    and no product in the namespace mixes dtypes."""
    seen, armed = matmul_dtypes
    X = data(n=40).astype(np.float32)
    with config_context(array_api_dispatch=True):
        model = make(name).fit(xps.asarray(X))
    assert model.components_.dtype == xps.float32
    reference = host_copy(model)  # the same fitted arrays, as a NumPy model
    X_in = data(seed=1, n=40).astype(kind if kind == "float64" else np.int64)
    Z_in = (np.arange(10 * model.n_components_).reshape(10, -1) / 7).astype(X_in.dtype)
    Xs, Zs = xps.asarray(X_in), xps.asarray(Z_in)
    linear = model._linear_model and not hasattr(model, "image_shape_")
    for method in METHODS:
        expected = call(reference, method, X_in, Z_in)
        if expected is None:
            continue
        seen.clear()
        armed[0] = True
        with config_context(array_api_dispatch=True):
            out = call(model, method, Xs, Zs)
        armed[0] = False
        assert_same(out, host(expected), method)
        mixed = [pair for pair in seen if pair[0] != pair[1]]
        assert not mixed, f"{method} mixed dtypes in a product: {mixed}"
        if linear and method in ("transform", "inverse_transform", "reconstruct"):
            assert seen, f"the spy saw no product in {method}: the test would be vacuous"


# -- 2. without dispatch: the library's own conversion -------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_without_dispatch_methods_read_arrays_as_fit_does(name):
    """Dispatch off: a float32 array-api-strict input gives what the same data as a
    float32 NumPy array give (float32 results where NumPy's are), also on the second
    device, which ``np.asarray`` refuses (as it refuses a GPU tensor)."""
    X = data(n=40).astype(np.float32)
    model = make(name).fit(X)
    X_new = data(seed=1, n=40).astype(np.float32)
    Z = (np.arange(10 * model.n_components_).reshape(10, -1) / 7).astype(np.float32)
    for device in ("CPU_DEVICE", "device1"):
        Xs = xps.asarray(X_new, device=xps.Device(device))
        Zs = xps.asarray(Z, device=xps.Device(device))
        for method in METHODS:
            expected = call(model, method, X_new, Z)
            if expected is None:
                continue
            out = call(model, method, Xs, Zs)
            assert type(out) is type(expected), method
            assert_same(out, expected, method)


@pytest.mark.parametrize("estimator", [OnlineRobustPCA, GRASTA])
def test_without_dispatch_online_batches_keep_float32(estimator):
    """partial_fit on float32 array-api-strict batches with dispatch off builds the model
    that the same NumPy batches build: float32, the same components."""
    X = data(n=60).astype(np.float32)
    streams = []
    for convert in (np.asarray, xps.asarray):
        est = estimator(n_components=2, burn_in=20, random_state=0)
        for start in range(0, 60, 15):
            est.partial_fit(convert(X[start : start + 15]))
        streams.append(est)
    ours, reference = streams
    assert reference.components_.dtype == np.float32
    assert type(ours.components_) is np.ndarray and ours.components_.dtype == np.float32
    np.testing.assert_array_equal(ours.components_, reference.components_)
    low, sparse = ours.decompose(xps.asarray(X[:5]))
    assert low.dtype == sparse.dtype == np.float32


# -- 6. a model fitted under dispatch, used without it -------------------------------
@pytest.mark.parametrize("name", ["PCA", "OptimalMeanPCA", "ROBPCA", "TwoDPCA", "KernelL21PCA"])
def test_model_fitted_under_dispatch_is_refused_without_it(name):
    """A model whose fitted arrays are array-api-strict arrays, used with dispatch off,
    raises a ValueError naming array_api_dispatch in every method, whatever the route
    (in-namespace products, or the host round trip of the 2-D and kernel estimators)."""
    X = data(n=40).astype(np.float32)
    with config_context(array_api_dispatch=True):
        model = make(name).fit(xps.asarray(X))
    Z = np.zeros((3, model.n_components_), dtype=np.float32)
    for method in ("transform", "inverse_transform", "score_samples", "predict"):
        for convert in (np.asarray, xps.asarray):
            if not hasattr(model, method):
                continue
            with pytest.raises(ValueError, match="array_api_dispatch=True"):
                call(model, method, convert(X), convert(Z))


def test_online_model_fitted_under_dispatch_refuses_decompose_without_it():
    X = data(n=60).astype(np.float32)
    with config_context(array_api_dispatch=True):
        model = OnlineRobustPCA(n_components=2, random_state=0).fit(xps.asarray(X))
    with pytest.raises(ValueError, match="array_api_dispatch"):
        model.decompose(X[:5])


# -- 3. dtypes NumPy lacks -----------------------------------------------------------
class FakeTensor:
    """The part of a PyTorch tensor that the conversion uses, with a dtype NumPy lacks
    (``numpy()`` raises TypeError for it, as PyTorch does for bfloat16)."""

    def __init__(self, values: np.ndarray, dtype: str):
        self.values, self.dtype = values, dtype

    def detach(self):
        return self

    def cpu(self):
        return self

    def is_floating_point(self) -> bool:
        return self.dtype in ("bfloat16", "float16", "float32", "float64")

    def to(self, dtype):
        return FakeTensor(self.values.astype(dtype), dtype)

    def numpy(self) -> np.ndarray:
        if self.dtype == "bfloat16":
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self.values.astype(self.dtype)


FAKE_TORCH = types.SimpleNamespace(
    __name__="array_api_compat.torch", float16="float16", float32="float32", float64="float64"
)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [("bfloat16", "float64"), ("float32", "float32"), ("float16", "float16"), ("int64", "int64")],
)
def test_torch_dtypes_numpy_lacks_become_float64(dtype, expected):
    """bfloat16 (and the float8 types) become float64 before ``numpy()``: the dtype the
    estimators fit every input other than float32 in; NumPy's own dtypes are kept."""
    values = np.arange(6.0).reshape(2, 3)
    out = _convert_to_numpy(FakeTensor(values, dtype), FAKE_TORCH)
    assert out.dtype == np.dtype(expected)
    np.testing.assert_array_equal(out, values)


# -- 4. the default PCA on wide data -------------------------------------------------
@pytest.fixture
def host_copies(monkeypatch):
    """Every array converted to NumPy by the library (its values)."""
    seen: list[np.ndarray] = []
    for module in (host_conversion, device_linalg):
        real = module._convert_to_numpy

        def spy(a, xp, _real=real):
            out = _real(a, xp)
            seen.append(np.array(out))
            return out

        monkeypatch.setattr(module, "_convert_to_numpy", spy)
    return seen


def test_default_pca_on_wide_data_keeps_x_on_the_device(host_copies):
    """PCA() on wide data has a zero eigenvalue (rank n - 1): the check of the features'
    scales runs on the device, and X itself is never converted."""
    X = data(n=30, d=120)
    with config_context(array_api_dispatch=True):
        model = PCA().fit(xps.asarray(X))
    assert model.n_components_ == 30 and float(model.explained_variance_[-1]) == 0.0
    assert host_copies, "the spy saw nothing: the test would pass vacuously"
    assert not any(a.shape == X.shape and np.array_equal(a, X) for a in host_copies)


def _warned(fit) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return any("variances span" in str(w.message) for w in caught)


@pytest.mark.parametrize("tiny", [1e-9, 1.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_wide_pca_warns_on_the_device_as_on_the_host(tiny, dtype):
    """The scale warning of the in-namespace fit on wide data is the NumPy fit's: given
    where a feature's variance is about 1e-18 of the others', not otherwise."""
    X = data(n=20, d=60)
    X[:, 1] *= tiny
    X = X.astype(dtype)
    on_host = _warned(lambda: PCA().fit(X))
    with config_context(array_api_dispatch=True):
        on_device = _warned(lambda: PCA().fit(xps.asarray(X)))
    assert on_host == on_device == (tiny < 1)


def test_magnitude_check_reads_no_autograd_graph(monkeypatch):
    """check_magnitude detaches an array that has ``detach`` (a PyTorch tensor that
    requires grad) before reading its largest entry as a Python float, which PyTorch
    warns about; array-api-strict stands in for the tensor."""
    from robustpca._validation import check_magnitude

    Array = type(xps.asarray(0.0))
    detached: list[bool] = []

    def detach(self):
        detached.append(True)
        return self

    monkeypatch.setattr(Array, "detach", detach, raising=False)
    check_magnitude(xps.asarray(data(n=40)))
    assert detached
