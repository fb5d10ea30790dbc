"""Inputs under ``array_api_dispatch`` that carry no array namespace, or several devices.

docs/array_api.md: with dispatch on, scikit-learn's convention still applies to what is
not an array-API array: a pandas DataFrame is read as NumPy data (feature names kept) and
the results are NumPy arrays; sparse input gets scikit-learn's "dense data is required"
error, not a namespace error; arrays on two devices are refused with scikit-learn's
``ValueError``; ``move_to`` moves an array to another device of its namespace, and to
NumPy from any device; a namespace without the inspection API (older PyTorch and CuPy
releases) is taken to have float64 and int64. Also: float32 input keeps the boolean and
integer fitted arrays (masks, subset indices, counts) boolean and integer: only float64
attributes become float32.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import config_context
from sklearn.decomposition import PCA as SklearnPCA

from robustpca import PCA, ROBPCA, OutlierPursuit
from robustpca._array_api import (
    default_integer_dtype,
    float_dtypes,
    get_namespace_and_device,
    max_precision_float_dtype,
    move_to,
)

xps = pytest.importorskip("array_api_strict")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def _data(n=30, d=4, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def test_pandas_input_under_dispatch_is_numpy_with_feature_names():
    """A DataFrame fitted with dispatch on: NumPy results equal to the plain fit, feature
    names recorded; where scikit-learn's own PCA refuses it (1.6), the same error."""
    pd = pytest.importorskip("pandas")
    X = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    reference = PCA(n_components=2).fit(X)
    with config_context(array_api_dispatch=True):
        try:
            SklearnPCA(n_components=2).fit(frame)
        except TypeError:  # scikit-learn 1.6's check_array refuses a DataFrame here
            with pytest.raises(TypeError, match="DataFrame"):
                PCA(n_components=2).fit(frame)  # as scikit-learn's own estimators do
            return
        model = PCA(n_components=2).fit(frame)
        Z = model.transform(frame)
    assert isinstance(model.components_, np.ndarray) and isinstance(Z, np.ndarray)
    assert list(model.feature_names_in_) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(Z, reference.transform(X), atol=1e-12)


def test_sparse_input_under_dispatch_gets_the_dense_data_error():
    """Sparse input is refused as without dispatch (scikit-learn's validation), not by the
    namespace lookup."""
    sparse = pytest.importorskip("scipy.sparse")
    X = sparse.csr_matrix(_data())
    with pytest.raises(TypeError, match="dense data is required") as plain:
        PCA(n_components=2).fit(X)
    with config_context(array_api_dispatch=True):
        with pytest.raises(TypeError, match="dense data is required") as dispatched:
            PCA(n_components=2).fit(X)
    assert str(dispatched.value) == str(plain.value)


def test_arrays_on_two_devices_are_refused_as_by_sklearn():
    """Arrays of one namespace on two devices: ValueError, as scikit-learn's own
    get_namespace_and_device (where this release has it) raises."""
    A = xps.asarray(_data())
    B = xps.asarray(_data(), device=xps.Device("device1"))
    with config_context(array_api_dispatch=True):
        with pytest.raises(ValueError, match="different devices"):
            get_namespace_and_device(A, B)
        assert get_namespace_and_device(B, B)[2] == B.device
        try:
            from sklearn.utils._array_api import get_namespace_and_device as theirs
        except ImportError:  # pragma: no cover
            return
        with pytest.raises(ValueError):
            theirs(A, B)


def test_move_to_another_device_and_to_numpy():
    """An array of array-api-strict's CPU device moved to "device1" arrives there (its
    values unchanged); one on "device1" moved to NumPy is a NumPy array."""
    A = np.arange(6.0).reshape(2, 3)
    device1 = xps.Device("device1")
    moved = move_to(xps.asarray(A), xp=xps, device=device1)
    assert moved.device == device1
    back = move_to(moved, xp=np, device="cpu")
    assert isinstance(back, np.ndarray)
    np.testing.assert_array_equal(back, A)


def test_a_namespace_without_the_inspection_api_has_float64_and_int64():
    """Without ``__array_namespace_info__`` nothing says a dtype is missing: the widest
    float is float64 (float32 data stay float32, integers become float64) and counts are
    int64, as on NumPy."""

    class NoInspection:
        __name__ = "no_inspection"
        float32, float64, int32, int64 = xps.float32, xps.float64, xps.int32, xps.int64

    assert max_precision_float_dtype(NoInspection, None) == xps.float64
    assert float_dtypes(NoInspection, None) == [xps.float64, xps.float32]
    assert default_integer_dtype(NoInspection, None) == xps.int64


@pytest.mark.parametrize(
    ("make", "attributes"),
    [
        (lambda: ROBPCA(n_components=2, random_state=0), {"support_": "b", "h_subset_": "i"}),
        (lambda: OutlierPursuit(n_components=2), {"outliers_": "b"}),
    ],
    ids=["ROBPCA", "OutlierPursuit"],
)
def test_float32_input_keeps_boolean_and_integer_attributes(make, attributes):
    """float32 data: the masks and indices keep their kind (boolean, integer) and their
    values, NumPy and array-api alike; only the float attributes become float32."""
    X = _data(40, 5)
    X[:3] += 8.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = make().fit(X.astype(np.float32).astype(np.float64))
        numpy32 = make().fit(X.astype(np.float32))
        with config_context(array_api_dispatch=True):
            strict32 = make().fit(xps.asarray(X.astype(np.float32)))
    for name, kind in attributes.items():
        expected = getattr(reference, name)
        for value in (getattr(numpy32, name), np.asarray(getattr(strict32, name))):
            assert value.dtype.kind == kind, name
            np.testing.assert_array_equal(value, expected, err_msg=name)
    assert numpy32.components_.dtype == np.float32
