"""The namespace helpers of robustpca._array_api, which replace scikit-learn's private ones.

robustpca uses no private scikit-learn API: ``sklearn.utils._array_api`` changed between
releases (``move_to`` and ``check_same_namespace`` are missing from 1.6, which robpy users
get). These tests pin our helpers' behaviour and, where scikit-learn still has the
private counterpart, check that both agree.
"""

from __future__ import annotations

import array_api_compat
import numpy as np
import pytest
from sklearn import config_context

from robustpca import PCA
from robustpca._array_api import (
    check_same_namespace,
    default_integer_dtype,
    finish_fit,
    float_dtypes,
    get_namespace,
    get_namespace_and_device,
    is_numpy_namespace,
    max_precision_float_dtype,
    move_to,
    to_numpy,
)

from .test_array_api_devices import device_without, float32_only_device

xps = pytest.importorskip("array_api_strict")


def sklearn_private(name):
    """scikit-learn's private helper ``name``, or skip when this release lacks it."""
    module = pytest.importorskip("sklearn.utils._array_api")
    if not hasattr(module, name):
        pytest.skip(f"sklearn.utils._array_api.{name} is absent from this release")
    return getattr(module, name)


def test_dispatch_off_is_numpy_whatever_the_input():
    X = xps.asarray([[1.0, 2.0]])
    xp, is_array_api, device = get_namespace_and_device(X)
    assert is_numpy_namespace(xp) and not is_array_api and device == "cpu"
    assert is_numpy_namespace(get_namespace(np.ones(3))[0])


def test_dispatch_on_finds_namespace_and_device():
    X = xps.asarray([[1.0, 2.0]], device=xps.Device("device1"))
    with config_context(array_api_dispatch=True):
        xp, is_array_api, device = get_namespace_and_device(X, None, [1, 2])
        assert xp is xps and is_array_api and device == X.device
        # lists, None and scalars carry no namespace: NumPy
        xp, is_array_api, _ = get_namespace_and_device([[1.0]], None, 3.0)
        assert is_numpy_namespace(xp) and not is_array_api
        with pytest.raises(TypeError):
            get_namespace(X, np.ones(2))


def test_namespace_agrees_with_sklearn():
    reference = sklearn_private("get_namespace_and_device")
    X = xps.asarray([[1.0, 2.0]], device=xps.Device("device1"))
    with config_context(array_api_dispatch=True):
        ours, theirs = get_namespace_and_device(X), reference(X)
    assert ours[0] is theirs[0] and ours[1:] == theirs[1:]


def test_is_numpy_namespace():
    import array_api_compat.numpy as np_compat

    assert is_numpy_namespace(np) and is_numpy_namespace(np_compat)
    assert not is_numpy_namespace(xps)


def test_max_precision_float_dtype():
    assert max_precision_float_dtype(np, "cpu") == np.float64
    assert max_precision_float_dtype(xps, xps.Device("device1")) == xps.float64

    class Float32OnlyInfo:  # a device without float64, as Apple's MPS
        def dtypes(self, *, device=None, kind=None):
            return {"float32": xps.float32}

    class Float32Only:
        __name__ = "float32_only"
        float32, float64 = xps.float32, xps.float64

        @staticmethod
        def __array_namespace_info__():
            return Float32OnlyInfo()

    assert max_precision_float_dtype(Float32Only, None) == xps.float32


def test_max_precision_agrees_with_sklearn():
    reference = sklearn_private("_max_precision_float_dtype")
    for xp, device in [(np, "cpu"), (xps, xps.Device("device1"))]:
        assert max_precision_float_dtype(xp, device) == reference(xp, device)


@pytest.mark.parametrize("device", ["CPU_DEVICE", "device1"])
def test_to_numpy_and_move_to_round_trip(device):
    A = np.arange(12.0).reshape(3, 4)[:, ::-1]  # negative strides
    dev = xps.Device(device)
    moved = move_to(A, xp=xps, device=dev)
    assert array_api_compat.array_namespace(moved) is xps and moved.device == dev
    back = to_numpy(moved)
    assert isinstance(back, np.ndarray)
    np.testing.assert_array_equal(back, A)
    assert move_to(moved, xp=xps, device=dev) is moved  # already there: unchanged
    np.testing.assert_array_equal(move_to(moved, xp=np, device="cpu"), A)
    assert move_to(None, xp=xps, device=dev) is None
    assert to_numpy(A) is A and to_numpy(None) is None


def test_move_to_lowers_float64_where_the_device_lacks_it(monkeypatch):
    import robustpca._array_api as module

    dev = xps.Device("device1")
    monkeypatch.setattr(module, "max_precision_float_dtype", lambda xp, device: xp.float32)
    moved = move_to(np.ones(3), xp=xps, device=dev)
    assert moved.dtype == xps.float32


def test_float_and_integer_dtypes_of_a_device():
    """What validate_data keeps (the device's floats) and the integer dtype for counts and
    labels (int64, else the device's default integer), by the inspection API."""
    assert float_dtypes(np, "cpu") == [np.float64, np.float32]
    assert float_dtypes(xps, xps.Device("device1")) == [xps.float64, xps.float32]
    assert default_integer_dtype(np, "cpu") == np.int64
    assert default_integer_dtype(xps, xps.Device("device1")) == xps.int64
    assert float_dtypes(xps, float32_only_device()) == [xps.float32]
    no_x64 = device_without("float64", "int64")
    assert default_integer_dtype(xps, no_x64) == xps.int32


def test_move_to_lowers_to_what_a_real_device_holds():
    """On a device without float64 (and one without int64 either), float64 arrives as
    float32 and int64 as the device's default integer; what fits is unchanged."""
    device = float32_only_device()
    assert move_to(np.ones(3), xp=xps, device=device).dtype == xps.float32
    assert move_to(np.arange(3), xp=xps, device=device).dtype == xps.int64
    no_x64 = device_without("float64", "int64")
    labels = np.array([-1, 1, 1])
    moved = move_to(labels, xp=xps, device=no_x64)
    assert moved.dtype == xps.int32 and moved.device == no_x64
    np.testing.assert_array_equal(to_numpy(moved), labels)
    strict_int64 = xps.asarray(labels)  # from another device of the same namespace
    assert move_to(strict_int64, xp=xps, device=no_x64).dtype == xps.int32
    assert move_to(np.ones(3, dtype=np.float32), xp=xps, device=no_x64).dtype == xps.float32


def test_finish_fit_moves_the_arrays_of_dict_attributes():
    """A dict of arrays (the convex solvers' residuals_ trace; nested dicts too) is moved
    and cast like the array attributes; other dicts and the parameters are left alone."""

    class Fitted(PCA):
        pass

    est = Fitted(n_components=2)
    est.components_ = np.ones((2, 3))
    est.residuals_ = {"primal": np.ones(4), "nested": {"mu": np.arange(3.0)}}
    est.info_ = {"primal": np.ones(4), "note": "kept"}
    device = xps.Device("device1")
    finish_fit(est, np.float32, xps, device)
    assert est.components_.device == device and est.components_.dtype == xps.float32
    for value in (est.residuals_["primal"], est.residuals_["nested"]["mu"]):
        assert array_api_compat.array_namespace(value) is xps
        assert value.device == device and value.dtype == xps.float32
    assert isinstance(est.info_["primal"], np.ndarray) and est.info_["note"] == "kept"


def test_move_to_agrees_with_sklearn():
    reference = sklearn_private("move_to")
    A = np.linspace(0, 1, 6).reshape(2, 3)
    dev = xps.Device("device1")
    with config_context(array_api_dispatch=True):
        ours, theirs = move_to(A, xp=xps, device=dev), reference(A, xp=xps, device=dev)
    assert ours.device == theirs.device and ours.dtype == theirs.dtype
    np.testing.assert_array_equal(to_numpy(ours), to_numpy(theirs))


def test_check_same_namespace():
    X = np.random.default_rng(0).normal(size=(20, 4))
    model = PCA(n_components=2).fit(X)
    check_same_namespace(xps.asarray(X), model, attribute="components_", method="transform")
    with config_context(array_api_dispatch=True):
        check_same_namespace(X, model, attribute="components_", method="transform")
        check_same_namespace(X.tolist(), model, attribute="components_", method="transform")
        with pytest.raises(ValueError, match=r"PCA\.transform\(\) must use the same"):
            check_same_namespace(xps.asarray(X), model, attribute="components_", method="transform")
        fitted = PCA(n_components=2).fit(xps.asarray(X))
        check_same_namespace(xps.asarray(X), fitted, attribute="components_", method="m")
        with pytest.raises(ValueError, match="device1"):
            check_same_namespace(
                xps.asarray(X, device=xps.Device("device1")),
                fitted,
                attribute="components_",
                method="m",
            )


def test_no_private_sklearn_imports():
    """No module of robustpca imports scikit-learn's private modules or its vendored copies."""
    import re
    from pathlib import Path

    import robustpca

    private = re.compile(r"^\s*(from|import)\s+sklearn\.(utils\._|externals)", re.M)
    offenders = [
        path.name
        for path in Path(robustpca.__file__).parent.rglob("*.py")
        if private.search(path.read_text())
    ]
    assert not offenders, (
        f"{offenders} import private scikit-learn API: use robustpca._array_api "
        "(get_namespace, move_to, to_numpy, ...) or `import array_api_compat`"
    )
