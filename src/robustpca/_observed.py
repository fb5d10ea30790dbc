"""The observed coordinates of rows with missing entries, as the outlier diagnostics
count them (:mod:`robustpca.diagnostics`): a row's OD is scaled by the degrees of
freedom its observed coordinates leave."""

from __future__ import annotations

import sys

import numpy as np
from sklearn.utils.validation import check_array

from ._validation import is_dask_collection

__all__ = ["observed_counts"]


def observed_counts(model, X):
    """:func:`~robustpca.diagnostics.diagnostic_reference`'s ``n_observed``: the
    observed coordinates of each row, less those of the constant training columns that
    the model does not use
    (:func:`~robustpca.solvers.informative_coordinates.model_constants`).

    Parameters
    ----------
    model : estimator instance
        A fitted estimator.
    X : array-like of shape (n_samples, n_features)
        Rows with NaN (or ``pd.NA``, or a polars null) at the missing entries: NumPy, a
        DataFrame, a Dask array (lazy counts) or an array-API array (counted on its
        device).

    Returns
    -------
    ndarray of shape (n_samples,), dask.array.Array or None
        None when ``model`` rejects missing entries (input tag ``allow_nan``), or when
        ``X`` (other than a Dask array) has none.
    """
    import array_api_compat

    from ._array_api import _is_foreign, default_integer_dtype, to_numpy

    if not getattr(model, "_supports_missing", False):
        return None
    constants = getattr(model, "_unmodelled_constants", None)
    if is_dask_collection(X):
        import dask.array as da

        X = da.asarray(X)
        counts = X.shape[1] - da.isnan(X).sum(axis=1)
    elif _is_foreign(X):  # counted on the array's device: only the counts cross
        xp = array_api_compat.array_namespace(X)
        if xp.isdtype(X.dtype, ("real floating", "complex floating")):
            integer = default_integer_dtype(xp, array_api_compat.device(X))  # int32 w/o int64
            observed = xp.astype(~xp.isnan(X), integer)
            counts = np.asarray(to_numpy(xp.sum(observed, axis=1, dtype=integer)))
            counts = counts.astype(np.int64, copy=False)
        else:  # booleans and integers hold no NaN
            counts = np.full(X.shape[0], X.shape[1], dtype=np.int64)
        if constants is not None and np.any(counts < X.shape[1]):  # rare: on the host
            X = np.asarray(to_numpy(X))
    else:
        X = _host_floats(X)
        counts = X.shape[1] - np.isnan(X).sum(axis=1)
    if isinstance(counts, np.ndarray) and not np.any(counts < X.shape[1]):
        return None  # no gaps
    return counts if constants is None else counts - (~np.isnan(X) & constants.mask).sum(axis=1)


def _host_floats(X) -> np.ndarray:
    """``X`` as a float NumPy array with NaN at its missing entries. A pandas DataFrame
    turns its ``pd.NA`` (nullable dtypes, object columns) into NaN; anything else (a
    list, an object array, a polars or other DataFrame, whose nulls become NaN) is
    converted by scikit-learn's ``check_array``, as ``fit`` converts it."""
    from ._array_api import FLOAT_DTYPES

    pd = sys.modules.get("pandas")  # no pandas frame unless pandas was imported
    if pd is not None and isinstance(X, pd.DataFrame):
        return X.to_numpy(dtype=np.float64, na_value=np.nan)
    return check_array(
        X, dtype=FLOAT_DTYPES, ensure_all_finite=False, ensure_min_samples=0, ensure_min_features=0
    )
