"""Array API support: the estimators convert at their boundary, in one place.

The solvers are NumPy/SciPy code (LAPACK eigensolvers, BLAS passes over blocks), with one
exception: :class:`~robustpca.OptimalMeanPCA`, :class:`~robustpca.HQPCA` and
:class:`~robustpca.PCA` solve in the input's namespace
(``_fit_solver_namespace``, :mod:`robustpca.array_api_linalg`). Any other estimator
given an array of another array-API namespace (``array_api_strict``, PyTorch,
CuPy, ...) under ``sklearn.config_context(array_api_dispatch=True)`` therefore

1. brings ``X`` (and ``sample_weight``) to a host NumPy array once, for the solve
   (:func:`to_numpy`, with the library's own conversion);
2. fits as usual in NumPy;
3. moves every fitted array back to the namespace and device of ``X``
   (:func:`finish_fit`, which also casts floating attributes to float32 for float32
   input).

``transform``, ``inverse_transform``, ``reconstruct`` and ``reconstruction_error`` of
the linear estimators then run *in* the input's namespace (a few matrix products: the
data never leave the device); ``score_samples`` computes the distances there and applies
the training cutoffs on the host (``n`` numbers each way). Methods that need NumPy-only code
(the image products of the 2-D estimators, the kernels of :class:`KernelL21PCA`) are
wrapped by :func:`host_method`: input and fitted arrays round-trip to NumPy and the
result goes back to the input's namespace and device. ``docs/array_api.md`` lists which
method does what.

Without ``array_api_dispatch`` scikit-learn's convention applies: inputs are converted
to NumPy (by :func:`to_numpy` in every method, as in ``fit``: a float32 tensor stays
float32) and results are NumPy arrays; a model fitted under dispatch on arrays of
another namespace is refused there (:func:`check_same_namespace`).
"""

from __future__ import annotations

import copy
import functools
import numbers
from typing import Any

import array_api_compat
import numpy as np
from array_api_compat import numpy as np_compat
from sklearn import get_config
from sklearn.utils.validation import check_is_fitted

from .linalg.work_space import cast_kept

__all__ = [
    "FLOAT_DTYPES",
    "check_same_namespace",
    "default_integer_dtype",
    "finish_fit",
    "fitted_arrays",
    "float_dtypes",
    "get_namespace",
    "get_namespace_and_device",
    "host_copy",
    "host_method",
    "input_namespace",
    "is_numpy_namespace",
    "max_precision_float_dtype",
    "move_to",
    "to_numpy",
]

#: dtypes the estimators keep; anything else (ints, bools, float16) becomes float64.
FLOAT_DTYPES = (np.float64, np.float32)

# Namespace helpers of our own, on the public ``array_api_compat`` and ``sklearn.get_config``:
# scikit-learn's equivalents live in the private ``sklearn.utils._array_api``, whose names
# and signatures changed between releases (``move_to`` and ``check_same_namespace`` do not
# exist in scikit-learn 1.6). tests/test_array_api_helpers.py checks them against
# scikit-learn's where those exist.

#: Names under which NumPy's namespace appears (plain, array_api_compat's wrapper, and the
#: copy of array_api_compat vendored by scikit-learn).
_NUMPY_NAMESPACE_NAMES = frozenset(
    {"numpy", "array_api_compat.numpy", "sklearn.externals.array_api_compat.numpy"}
)


def is_numpy_namespace(xp: Any) -> bool:
    """Whether the namespace ``xp`` is NumPy (plain or wrapped by array_api_compat).

    Parameters
    ----------
    xp : module
        An array namespace.

    Returns
    -------
    bool
    """
    return getattr(xp, "__name__", None) in _NUMPY_NAMESPACE_NAMES


def _namespace_name(xp: Any) -> str:
    """``"torch"`` for ``array_api_compat.torch`` and ``torch`` alike."""
    return getattr(xp, "__name__", "").rsplit("array_api_compat.", 1)[-1]


#: Libraries whose tables (and series) are host input, as scikit-learn reads them.
_DATAFRAME_MODULES = frozenset({"pandas", "polars", "pyarrow", "modin"})


def _is_dataframe(a) -> bool:
    """Whether ``a`` is a dataframe or series: pandas, polars, pyarrow, or any other with
    the dataframe interchange protocol (``__dataframe__``) or an Arrow stream
    (``__arrow_c_stream__``). scikit-learn's validation reads them as NumPy data, also
    under ``array_api_dispatch``, so they carry no array namespace."""
    return (
        type(a).__module__.split(".")[0] in _DATAFRAME_MODULES
        or hasattr(a, "__dataframe__")
        or hasattr(a, "__arrow_c_stream__")
    )


def _array_inputs(arrays) -> list:
    """The arguments that carry a namespace: no None, lists, strings, scalars, sparse
    matrices or dataframes (:func:`_is_dataframe`)."""
    kept = []
    for a in arrays:
        if a is None or isinstance(a, (str, list, tuple, numbers.Number)):
            continue
        module = type(a).__module__.split(".")[0]
        if _is_dataframe(a) or (module == "scipy" and hasattr(a, "tocsr")):
            continue
        kept.append(a)
    return kept


def get_namespace_and_device(*arrays) -> tuple[Any, bool, Any]:
    """``(xp, is_array_api, device)`` of ``arrays`` under scikit-learn's dispatch setting.

    Without ``array_api_dispatch`` (or without array arguments) this is array_api_compat's
    NumPy namespace, ``False`` and ``"cpu"``, as for scikit-learn's estimators. Otherwise the
    common namespace of the arrays (``TypeError`` when they differ) and their device.
    """
    arrays_ = _array_inputs(arrays)
    if not get_config()["array_api_dispatch"] or not arrays_:
        return np_compat, False, "cpu"
    xp = array_api_compat.array_namespace(*arrays_)
    devices = [array_api_compat.device(a) for a in arrays_]
    if any(d != devices[0] for d in devices[1:]):
        raise ValueError(f"Input arrays use different devices: {devices}.")
    return xp, True, devices[0]


def get_namespace(*arrays) -> tuple[Any, bool]:
    """``(xp, is_array_api)``: :func:`get_namespace_and_device` without the device."""
    xp, is_array_api, _ = get_namespace_and_device(*arrays)
    return xp, is_array_api


def _device_dtypes(xp: Any, device: Any) -> Any:
    """The dtype names of namespace ``xp`` on ``device`` (array API inspection), or None
    where the namespace cannot tell."""
    info = getattr(xp, "__array_namespace_info__", None)
    if info is None:
        return None
    try:
        return info().dtypes(device=device)
    except (TypeError, ValueError, NotImplementedError):  # pragma: no cover
        return None


def max_precision_float_dtype(xp: Any, device: Any) -> Any:
    """The widest float dtype of namespace ``xp`` on ``device`` (float64, or float32 on
    devices without float64 such as Apple MPS).

    Parameters
    ----------
    xp : module
        An array namespace.
    device : object
        A device of that namespace.

    Returns
    -------
    dtype
        ``xp.float64`` or ``xp.float32``.
    """
    if is_numpy_namespace(xp):
        return xp.float64
    dtypes = _device_dtypes(xp, device)
    if dtypes is not None:
        return xp.float64 if "float64" in dtypes else xp.float32
    if _namespace_name(xp) == "torch" and getattr(device, "type", device) == "mps":
        return xp.float32  # pragma: no cover (PyTorch without __array_namespace_info__)
    return xp.float64


def float_dtypes(xp: Any, device: Any) -> list:
    """The float dtypes that input of namespace ``xp`` on ``device`` keeps
    (``validate_data``'s ``dtype``): float64 and float32, or float32 alone on devices
    without float64, so that other dtypes (integers, booleans) become the device's
    widest float.

    Parameters
    ----------
    xp : module
        An array namespace.
    device : object
        A device of that namespace.

    Returns
    -------
    list of dtype
        ``[xp.float64, xp.float32]`` or ``[xp.float32]``.
    """
    widest = max_precision_float_dtype(xp, device)
    return [xp.float32] if widest == xp.float32 else [xp.float64, xp.float32]


def default_integer_dtype(xp: Any, device: Any) -> Any:
    """The integer dtype for counts and labels of namespace ``xp`` on ``device``: int64,
    or the device's default integer dtype on devices without int64 (JAX without x64).

    Parameters
    ----------
    xp : module
        An array namespace.
    device : object
        A device of that namespace.

    Returns
    -------
    dtype
        ``xp.int64``, or the ``"integral"`` default dtype of the device.
    """
    if is_numpy_namespace(xp):
        return xp.int64
    dtypes = _device_dtypes(xp, device)
    if dtypes is None or "int64" in dtypes:
        return xp.int64
    try:
        return xp.__array_namespace_info__().default_dtypes(device=device)["integral"]
    except (TypeError, ValueError, NotImplementedError, KeyError):  # pragma: no cover
        return xp.int32


def _convert_to_numpy(a, xp: Any) -> np.ndarray:
    """A host NumPy array for ``a`` of namespace ``xp``, with each library's own copy."""
    name = _namespace_name(xp)
    if name == "torch":
        a = a.detach().cpu()  # no autograd graph; on the host, in the input's dtype
        if a.is_floating_point() and a.dtype not in (xp.float16, xp.float32, xp.float64):
            # bfloat16 and the float8 types have no NumPy dtype: float64, the dtype
            # every other non-float32 input is fitted in (FLOAT_DTYPES)
            a = a.to(xp.float64)
        return a.numpy()
    if name == "cupy":  # pragma: no cover (no GPU in CI)
        return a.get()
    if name == "array_api_strict":
        return np.asarray(xp.asarray(a, device=xp.Device("CPU_DEVICE")))
    try:
        return np.from_dlpack(a)
    except (AttributeError, TypeError, BufferError, RuntimeError, ValueError):
        return np.asarray(a)


def move_to(a, *, xp: Any, device: Any):
    """``a`` as an array of namespace ``xp`` on ``device`` (``None`` stays ``None``).

    float64 becomes float32 where the device lacks float64, and int64 the device's
    default integer dtype where it lacks int64 (:func:`default_integer_dtype`). Arrays
    already there are
    returned as they are; others go through a host NumPy array (``to_numpy``, then
    ``xp.asarray(..., device=device)``), which every namespace accepts.

    Parameters
    ----------
    a : array, array-like or None
        The array to move (an array-like is read with ``np.asarray``).
    xp : module
        The target namespace.
    device : object
        The target device of that namespace.

    Returns
    -------
    array or None
    """
    if a is None:
        return None
    if not array_api_compat.is_array_api_obj(a):
        a = np.asarray(a)
    src_xp, src_device = array_api_compat.array_namespace(a), array_api_compat.device(a)
    if max_precision_float_dtype(xp, device) == xp.float32 and a.dtype == src_xp.float64:
        a = src_xp.astype(a, src_xp.float32)
    elif a.dtype == src_xp.int64 and (narrow := default_integer_dtype(xp, device)) != xp.int64:
        name = next(k for k, v in _device_dtypes(xp, device).items() if v == narrow)
        a = src_xp.astype(a, getattr(src_xp, name))  # the same dtype in a's namespace
    if is_numpy_namespace(xp):
        return to_numpy(a) if _is_foreign(a) else a
    if _namespace_name(src_xp) == _namespace_name(xp) and src_device == device:
        return a
    host = np.ascontiguousarray(to_numpy(a))  # PyTorch refuses negative strides
    return xp.asarray(host, device=device)


def check_same_namespace(X, estimator, *, attribute: str, method: str) -> None:
    """Raise ``ValueError`` when ``X`` and ``estimator.<attribute>`` differ in namespace
    or device, or when the fitted arrays are not NumPy while ``array_api_dispatch`` is off.

    Without dispatch every input is read as NumPy, so a model fitted under dispatch on
    arrays of another namespace (then unpickled, or used after the ``config_context``
    block) cannot compute with it: every method refuses it alike, with a message that
    says what to do, instead of failing on the first mixed product.

    Parameters
    ----------
    X : array
        The input of ``method``.
    estimator : estimator instance
        The fitted estimator.
    attribute : str
        Name of a fitted array attribute of ``estimator`` whose namespace and device
        ``X`` must share.
    method : str
        Name of the method called, for the error message.

    Raises
    ------
    ValueError
        When the namespaces or devices differ, or the fitted arrays are not NumPy
        without ``array_api_dispatch``.
    """
    fitted = getattr(estimator, attribute)
    if not get_config()["array_api_dispatch"]:
        if _is_foreign(fitted):
            name = type(estimator).__name__
            fitted_xp = array_api_compat.array_namespace(fitted)
            raise ValueError(
                f"This {name} was fitted on {_namespace_name(fitted_xp)} arrays (on "
                f"{array_api_compat.device(fitted)}) with array_api_dispatch on, and "
                f"{method}() was called with it off: call {method}() inside "
                "sklearn.config_context(array_api_dispatch=True) with arrays of that "
                "namespace and device, or fit the model again on NumPy data."
            )
        return
    a_xp, _, a_device = get_namespace_and_device(fitted)
    X_xp, _, X_device = get_namespace_and_device(X)
    if is_numpy_namespace(a_xp) and is_numpy_namespace(X_xp):
        return
    if _namespace_name(a_xp) == _namespace_name(X_xp) and a_device == X_device:
        return
    raise ValueError(
        f"Inputs passed to {type(estimator).__name__}.{method}() must use the same "
        f"namespace and device as those passed to fit(): fit used "
        f"{_namespace_name(a_xp)} on {a_device}, {method} got {_namespace_name(X_xp)} "
        f"on {X_device}."
    )


def input_namespace(X):
    """``(xp, device)`` of ``X`` when it must be returned to a non-NumPy namespace.

    Parameters
    ----------
    X : array or array-like
        An input.

    Returns
    -------
    tuple of (module, object) or (None, None)
        ``(None, None)`` for NumPy arrays, array-likes (lists, dataframes) and whenever
        scikit-learn's ``array_api_dispatch`` is off.
    """
    xp, is_array_api, device = get_namespace_and_device(X)
    if not is_array_api or is_numpy_namespace(xp):
        return None, None
    return xp, device


def _is_foreign(a) -> bool:
    """Whether ``a`` is an array of a namespace other than NumPy."""
    return (
        a is not None
        and not isinstance(a, np.ndarray)
        and not np.isscalar(a)
        and array_api_compat.is_array_api_obj(a)
    )


def to_numpy(a):
    """A host NumPy array for an array-API array of any namespace and device.

    Parameters
    ----------
    a : array, array-like or None
        The array to convert. NumPy arrays, array-likes and ``None`` are returned
        unchanged (``validate_data`` handles them, feature names included).

    Returns
    -------
    ndarray, array-like or None
    """
    if not _is_foreign(a):
        return a
    return _convert_to_numpy(a, array_api_compat.array_namespace(a))


def fitted_arrays(estimator) -> dict:
    """The array attributes of ``estimator`` set by ``fit`` (constructor parameters excluded).

    Parameters
    ----------
    estimator : estimator instance
        A fitted estimator.

    Returns
    -------
    dict
        ``{name: array}`` of its NumPy and array-API attributes.
    """
    params = estimator.get_params(deep=False)
    return {
        name: value
        for name, value in vars(estimator).items()
        if name not in params and (isinstance(value, np.ndarray) or _is_foreign(value))
    }


def _is_array_dict(value) -> bool:
    """Whether ``value`` is a non-empty dict of arrays (or of such dicts), such as the
    convex solvers' ``residuals_`` trace."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(
            isinstance(v, np.ndarray) or _is_foreign(v) or _is_array_dict(v) for v in value.values()
        )
    )


def finish_fit(estimator, dtype, xp=None, device=None) -> None:
    """Give the fitted arrays the input's float dtype, namespace and device.

    Parameters
    ----------
    estimator : estimator instance
        The estimator just fitted; its array attributes (:func:`fitted_arrays`) and the
        arrays of its attributes that are dicts of arrays (``residuals_`` of the convex
        estimators; nested dicts of arrays too) are replaced.
    dtype : data-type
        The input's dtype: with float32, the float64 attributes become float32 (float64
        data keep every attribute in float64; the solvers accumulate in float64 either way).
    xp : module or None, default=None
        A non-NumPy namespace to move every array attribute to (:func:`move_to`, which
        also lowers float64 to float32 on devices without float64); None keeps NumPy.
    device : object, default=None
        The device of ``xp``.
    """
    low_precision = np.dtype(dtype) == np.float32

    def finish(value):
        if isinstance(value, dict):
            return {key: finish(item) for key, item in value.items()}
        if low_precision and isinstance(value, np.ndarray) and value.dtype == np.float64:
            value = cast_kept(value, np.float32)
        return value if xp is None else move_to(value, xp=xp, device=device)

    params = estimator.get_params(deep=False)
    dicts = {k: v for k, v in vars(estimator).items() if k not in params and _is_array_dict(v)}
    for name, value in {**fitted_arrays(estimator), **dicts}.items():
        setattr(estimator, name, finish(value))


def host_copy(estimator):
    """A shallow copy of ``estimator`` whose fitted arrays are host NumPy arrays.

    Parameters
    ----------
    estimator : estimator instance
        A fitted estimator (not modified).

    Returns
    -------
    estimator instance
        ``estimator`` itself when all its fitted arrays are NumPy already.
    """
    foreign = {k: v for k, v in fitted_arrays(estimator).items() if _is_foreign(v)}
    if not foreign:
        return estimator
    host = copy.copy(estimator)
    for name, value in foreign.items():
        setattr(host, name, to_numpy(value))
    return host


def host_method(attribute: str = "components_"):
    """Decorate a NumPy-only method ``method(self, X, ...)`` for array-API inputs.

    The method runs on host NumPy copies of ``X`` and of the fitted arrays; its array
    output goes back to the namespace and device of ``X`` (a number stays a number).
    Like scikit-learn's estimators, it raises ``ValueError`` when ``X`` is not in the
    namespace (and on the device) of the fitted ``attribute`` (with
    ``array_api_dispatch`` on).

    Parameters
    ----------
    attribute : str, optional
        The fitted array attribute whose namespace and device ``X`` must share
        (``"components_"`` by default).

    Returns
    -------
    callable
        The decorator.
    """

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X, *args, **kwargs):
            check_is_fitted(self)
            check_same_namespace(X, self, attribute=attribute, method=method.__name__)
            xp, device = input_namespace(X)
            out = method(host_copy(self), to_numpy(X), *args, **kwargs)
            if xp is None or isinstance(out, numbers.Number):
                return out
            return move_to(out, xp=xp, device=device)

        return wrapper

    return decorate
