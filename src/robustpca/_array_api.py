"""Array API support: the estimators convert at their boundary, in one place.

The solvers are NumPy/SciPy code (LAPACK eigensolvers, BLAS passes over blocks), with one
exception: :class:`~robustpca.OptimalMeanPCA`, :class:`~robustpca.HQPCA` and
:class:`~robustpca.PCA` solve in the input's namespace
(``_fit_solver_namespace``, :mod:`robustpca.array_api_linalg`). Any other estimator
given an array of another array-API namespace (``array_api_strict``, PyTorch,
CuPy, ...) under ``sklearn.config_context(array_api_dispatch=True)`` therefore

1. brings ``X`` (and ``sample_weight``) to a host NumPy array once, for the solve
   (:func:`to_numpy`; DLPack or the library's own conversion, via scikit-learn);
2. fits as usual in NumPy;
3. moves every fitted array back to the namespace and device of ``X``
   (:func:`finish_fit`, which also casts floating attributes to float32 for float32
   input).

``transform``, ``inverse_transform``, ``reconstruct``, ``reconstruction_error`` and
``score_samples`` of the linear estimators then run *in* the input's namespace (a few
matrix products: the data never leave the device). Methods that need NumPy-only code
(the image products of the 2-D estimators, the kernels of :class:`KernelL21PCA`) are
wrapped by :func:`host_method`: input and fitted arrays round-trip to NumPy and the
result goes back to the input's namespace and device. ``docs/array_api.md`` lists which
method does what.

Without ``array_api_dispatch`` scikit-learn's convention applies: inputs are converted
to NumPy (``np.asarray``) and results are NumPy arrays.
"""

from __future__ import annotations

import copy
import functools

import numpy as np
from sklearn.externals import array_api_compat
from sklearn.utils._array_api import (
    _convert_to_numpy,
    _is_numpy_namespace,
    check_same_namespace,
    get_namespace_and_device,
    move_to,
)
from sklearn.utils.validation import check_is_fitted

__all__ = [
    "FLOAT_DTYPES",
    "finish_fit",
    "fitted_arrays",
    "host_method",
    "input_namespace",
    "to_numpy",
]

#: dtypes the estimators keep; anything else (ints, bools, float16) becomes float64.
FLOAT_DTYPES = (np.float64, np.float32)


def input_namespace(X):
    """``(xp, device)`` of ``X`` when it must be returned to a non-NumPy namespace.

    ``(None, None)`` for NumPy arrays, array-likes (lists, pandas) and whenever
    scikit-learn's ``array_api_dispatch`` is off.
    """
    xp, is_array_api, device = get_namespace_and_device(X)
    if not is_array_api or _is_numpy_namespace(xp):
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

    NumPy arrays, array-likes and ``None`` are returned unchanged (``validate_data``
    handles them, feature names included).
    """
    if not _is_foreign(a):
        return a
    return _convert_to_numpy(a, array_api_compat.array_namespace(a))


def fitted_arrays(estimator) -> dict:
    """The array attributes of ``estimator`` set by ``fit`` (constructor parameters excluded)."""
    params = estimator.get_params(deep=False)
    return {
        name: value
        for name, value in vars(estimator).items()
        if name not in params and (isinstance(value, np.ndarray) or _is_foreign(value))
    }


def finish_fit(estimator, dtype, xp=None, device=None) -> None:
    """Give the fitted arrays the input's float dtype, namespace and device.

    Floating attributes become ``dtype`` when it is float32 (float64 data keep every
    attribute in float64; the solvers accumulate in float64 either way). With ``xp``
    (a non-NumPy namespace), every array attribute is moved to ``xp`` on ``device``
    (scikit-learn's ``move_to``, which also lowers float64 to float32 on devices without
    float64).
    """
    low_precision = np.dtype(dtype) == np.float32
    for name, value in fitted_arrays(estimator).items():
        if low_precision and isinstance(value, np.ndarray) and value.dtype == np.float64:
            value = value.astype(np.float32)
        if xp is not None:
            value = move_to(value, xp=xp, device=device)
        setattr(estimator, name, value)


def _host_copy(estimator):
    """A shallow copy of ``estimator`` whose fitted arrays are host NumPy arrays."""
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
    output goes back to the namespace and device of ``X``. Like scikit-learn's
    estimators, it raises ``ValueError`` when ``X`` is not in the namespace (and on the
    device) of the fitted ``attribute`` (with ``array_api_dispatch`` on).
    """

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X, *args, **kwargs):
            check_is_fitted(self)
            check_same_namespace(X, self, attribute=attribute, method=method.__name__)
            xp, device = input_namespace(X)
            out = method(_host_copy(self), to_numpy(X), *args, **kwargs)
            return out if xp is None else move_to(out, xp=xp, device=device)

        return wrapper

    return decorate
