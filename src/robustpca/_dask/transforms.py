"""The lazy dask transforms of a fitted estimator (:func:`lazy_method`).

``transform``, ``reconstruct``, ``reconstruction_error``, ``score_samples`` and
``inverse_transform`` of a dask array return dask arrays computed block by block with the
NumPy formulas; rows with NaN take the observed-coordinates fit for the estimators that
fit missing entries (:func:`robustpca._dask.missing.observed_block`).
"""

from __future__ import annotations

import copy
import itertools

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..diagnostics import DEFAULT_QUANTILE
from .arrays import _dask, _is_dask, as_float_array, row_blocks
from .missing import observed_block, refuse_empty_rows

__all__ = ["lazy_method"]


# --------------------------------------------------------------------------- transforms
def _finite(x, *, message: str = "Input X contains NaN or infinity."):
    if not np.isfinite(x).all():
        raise ValueError(message)
    return x


#: NumPy's error for a non-finite ``inverse_transform`` input (``_validation``)
_INVERSE_NOT_FINITE = "X of inverse_transform contains NaN or infinity."


def _observed_part(x, part: int, block_info, *, mean, components, allow_nan=False, **fit):
    """Part ``part`` (0 scores, 1 reconstruction, 2 OD) of the observed-coordinates fit of
    a block with NaN, or None (the complete-data formulas apply); ``fit``: the model's
    ``constants``, ``centre`` and ``scale`` (:func:`~robustpca._dask.missing.observed_block`)."""
    if allow_nan:
        refuse_empty_rows(x, block_info)
    metric = (fit.get("constants"), fit.get("centre"), fit.get("scale"))
    found = observed_block(x, mean, components, allow_nan, _finite, *metric)
    return None if found is None else found[1][part]


def _transform_block(x, *, mean, components, block_info=None, **fit):
    part = _observed_part(x, 0, block_info, mean=mean, components=components, **fit)
    return (x - mean) @ components.T if part is None else part


def _reconstruct_block(x, *, mean, components, block_info=None, **fit):
    part = _observed_part(x, 1, block_info, mean=mean, components=components, **fit)
    if part is not None:
        return part
    return ((x - mean) @ components.T) @ components + mean


def _error_block(x, *, mean, components, block_info=None, **fit):
    part = _observed_part(x, 2, block_info, mean=mean, components=components, **fit)
    if part is not None:
        return part
    xc = x - mean
    return np.linalg.norm(xc - (xc @ components.T) @ components, axis=1)


def _inverse_block(z, *, mean, components):
    return _finite(z, message=_INVERSE_NOT_FINITE) @ components + mean


def _column_chunks(n_rows: int, n_cols: int) -> tuple[int, ...]:
    """Column chunks for an output with row chunks of ``n_rows``: blocks of about
    dask's ``array.chunk-size``."""
    dask, _ = _dask()
    limit = dask.utils.parse_bytes(dask.config.get("array.chunk-size")) // 8
    width = max(1, limit // max(n_rows, 1))
    q, rem = divmod(n_cols, width)
    return (width,) * q + ((rem,) if rem else ()) if q else (n_cols,)


def _lazy_inverse(estimator, Z):
    _, da = _dask()
    C, mean = estimator.components_, estimator.mean_
    k = C.shape[0]
    if _is_dask(Z) and Z.dtype.kind in "biu":  # as NumPy: integers take the model's dtype
        Z = Z.astype(C.dtype)
    Z = as_float_array(Z, keep_float32=True, unknown_rows=True)
    if Z.shape[1] != k:
        raise ValueError(
            f"X must have shape (n_samples, {k}) for inverse_transform, got {tuple(Z.shape)}."
        )
    Z = row_blocks(Z)
    dtype = np.result_type(Z.dtype, C.dtype)
    rows = [c for c in Z.chunks[0] if not np.isnan(c)]  # unknown sizes: as one row
    cols = _column_chunks(max(rows, default=1), C.shape[1])
    if len(cols) == 1:
        return Z.map_blocks(
            _inverse_block,
            chunks=(Z.chunks[0], cols),
            dtype=dtype,
            meta=np.empty((0, 0), dtype=dtype),
            mean=mean,
            components=C,
        )
    meta = np.empty((0, 0), dtype=Z.dtype)
    Z = Z.map_blocks(_finite, dtype=Z.dtype, meta=meta, message=_INVERSE_NOT_FINITE)
    return Z @ da.from_array(C, chunks=((k,), cols)) + da.from_array(mean, chunks=(cols,))


#: The column route's error for NaN where the estimator takes missing entries
_GAPS_NEED_ROWS = (
    "X contains NaN and is chunked along its columns: the fit of a row's observed "
    "entries needs whole rows; pass X.rechunk({1: -1})."
)


def _lazy_by_columns(name, X, mean, C, allow_nan=False):
    """The transforms of ``X`` chunked by columns: blocked products, summed over the
    column chunks (no block holds a whole row, so rows with gaps are refused)."""
    _, da = _dask()
    meta = np.empty((0, 0), dtype=X.dtype)
    check = {"message": _GAPS_NEED_ROWS} if allow_nan else {}
    Xc = X.map_blocks(_finite, dtype=X.dtype, meta=meta, **check)
    Xc = Xc - da.from_array(mean, chunks=(X.chunks[1],))
    Ct = da.from_array(C.T, chunks=(X.chunks[1], (C.shape[0],)))
    if name == "reconstruct":
        return (Xc @ Ct) @ Ct.T + da.from_array(mean, chunks=(X.chunks[1],))
    # the scores and ODs of one reduction: computed together, X is read once
    scores, od = column_distances(X, mean, C, allow_nan)
    return scores if name == "transform" else od


# ------------------------------------------------ orthogonal distances by column blocks
# The OD of a row, ||xc - C^T z||, needs z = C xc, a sum over every column block: formed
# as R = Xc - Z C block by block, it keeps each block of X until Z exists (all of X for a
# single chunk of rows). Instead each block reduces its columns to a least-squares summary
# and the summaries are merged in a tree, as TSQR does (Demmel et al. 2012): the block
# columns of A = C^T factor as A_b = Q_b R_b, and for every row
#     ||xc_b - A_b y||^2 = e_b + ||c_b - R_b y||^2,  c_b = Q_b^T xc_b,
# with e_b = ||xc_b - Q_b c_b||^2 formed explicitly (no difference of squares, so no
# cancellation when a row lies near the subspace). Merging stacks the R's and factors
# them again; at the root, the OD^2 is e + ||c - R z||^2 at the row's scores z. One read
# of each block, and what is kept is (k + 1) numbers per row and block.
_SPLIT_EVERY = 8  # summaries merged per task


def _od_summary(x, mean, components):
    """A column block's summary ``(R, c, e, z)``: the triangular factor of the block's
    rows of ``C^T``, the rows' coordinates in its ``Q``, their squared residuals outside
    it and their partial scores ``xc_b C_b^T``."""
    xc = x - mean
    q, r = np.linalg.qr(components.T)
    c = xc @ q
    residual = xc - c @ q.T
    return r, c, np.einsum("ij,ij->i", residual, residual), xc @ components.T


def _od_merge(parts):
    """The summary of several column blocks' summaries (the order does not matter)."""
    r_all = np.concatenate([p[0] for p in parts], axis=0)
    c_all = np.concatenate([p[1] for p in parts], axis=1)
    q, r = np.linalg.qr(r_all)
    c = c_all @ q
    residual = c_all - c @ q.T
    e = sum(p[2] for p in parts) + np.einsum("ij,ij->i", residual, residual)
    return r, c, e, sum(p[3] for p in parts)


def _od_root(part, *, dtype):
    """The rows' scores ``z`` and ODs from the merged summary."""
    r, c, e, z = part
    residual = c - z @ r.T
    od = np.sqrt(e + np.einsum("ij,ij->i", residual, residual))
    return z.astype(dtype, copy=False), od.astype(dtype, copy=False)


def _tree(parts: list, merge):
    while len(parts) > 1:
        parts = [
            merge(parts[i : i + _SPLIT_EVERY]) if len(parts[i : i + _SPLIT_EVERY]) > 1 else parts[i]
            for i in range(0, len(parts), _SPLIT_EVERY)
        ]
    return parts[0]


def column_distances(X, mean, C, allow_nan: bool = False):
    """The scores and orthogonal distances of the rows of ``X`` (a dask array chunked by
    columns), lazily, by column blocks: each block of ``X`` is read once and reduced to
    ``k + 1`` numbers per row before the next is needed, so that memory is set by the
    blocks, not by ``X``.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        The samples, chunked along the features.
    mean : ndarray of shape (n_features,)
        The fitted centre.
    C : ndarray of shape (n_components, n_features)
        The fitted orthonormal components.
    allow_nan : bool, default=False
        Whether the estimator takes missing entries (a NaN then asks for whole rows).

    Returns
    -------
    scores : dask.array.Array of shape (n_samples, n_components)
    od : dask.array.Array of shape (n_samples,)
        Both chunked like the rows of ``X``.
    """
    dask, da = _dask()
    delayed = dask.delayed
    dtype = np.result_type(X.dtype, C.dtype)
    meta = np.empty((0, 0), dtype=X.dtype)
    check = {"message": _GAPS_NEED_ROWS} if allow_nan else {}
    Xf = X.map_blocks(_finite, dtype=X.dtype, meta=meta, **check)
    blocks = Xf.to_delayed(optimize_graph=False)
    bounds = np.cumsum((0, *X.chunks[1]))
    mean = np.asarray(mean, dtype=dtype)
    C = np.asarray(C, dtype=dtype)
    summary = delayed(_od_summary, pure=True)
    merge = delayed(_od_merge, pure=True)
    root = delayed(_od_root, pure=True)
    columns = [(mean[a:b], C[:, a:b]) for a, b in itertools.pairwise(bounds)]
    k = C.shape[0]
    scores, od = [], []
    for i, n_i in enumerate(X.chunks[0]):
        parts = [summary(blocks[i, j], *columns[j]) for j in range(len(columns))]
        value = root(_tree(parts, merge), dtype=dtype)
        meta = np.empty((0, 0), dtype)
        scores.append(da.from_delayed(value[0], shape=(n_i, k), dtype=dtype, meta=meta))
        od.append(da.from_delayed(value[1], shape=(n_i,), dtype=dtype, meta=np.empty(0, dtype)))
    return da.concatenate(scores), da.concatenate(od)


def _rows_block(x, *, estimator, method, width=None, block_info=None):
    if x.shape[0] == 0:  # an empty block: no validation of zero rows
        dtype = np.result_type(x.dtype, estimator.components_.dtype)
        return np.empty((0,) if width is None else (0, width), dtype=dtype)
    if getattr(estimator, "_supports_missing", False):  # else NumPy's NaN error
        refuse_empty_rows(x, block_info)
    return method(x)


def lazy_rows(estimator, X, method, width: int | None = None, n_inputs: int | None = None):
    """``method(x)`` (a NumPy method of the fitted ``estimator``) by blocks of whole rows
    of the dask array ``X``, lazily: one value per row (``width=None``), such as
    ``score_samples``, whose outlyingness needs the scores and the orthogonal distance of
    a row together, or a skew fit's adjusted outlyingness; or ``width`` values per row,
    such as the transforms of the models that are not one linear map (the kernel and
    2-D estimators). ``n_inputs``: the columns ``X`` must have (``n_features_in_``)."""
    X = as_float_array(X, keep_float32=True, unknown_rows=True)
    expected = estimator.n_features_in_ if n_inputs is None else n_inputs
    if X.shape[1] != expected:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{expected} features as input."
        )
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    dtype = np.result_type(X.dtype, estimator.components_.dtype)
    # the model as it is now: a later fit or partial_fit rebinds the attributes of the
    # original (it does not change them in place), so the lazy result is that of the
    # model it was asked of whenever it is computed, as transform's (which takes arrays)
    estimator = copy.copy(estimator)
    shape = {"drop_axis": 1, "chunks": (X.chunks[0],)}
    if width is not None:
        shape = {"chunks": (X.chunks[0], (width,))}
    return X.map_blocks(
        _rows_block,
        **shape,
        dtype=dtype,
        meta=np.empty((0,) if width is None else (0, 0), dtype=dtype),
        estimator=estimator,
        method=getattr(estimator, method.__name__),
        width=width,
    )


def _skew_block(y, *, outlyingness):
    return outlyingness(y)


def lazy_skew_distances(estimator, X):
    """A skew fit's adjusted outlyingness of the rows of ``X`` (its score distances),
    lazily. The coordinates it is measured in, ``(x - origin) @ rotation``, are a product
    summed over the column blocks, so ``X`` chunked by columns keeps its chunks (a NaN,
    which the fit of the row's observed entries fills, asks for whole rows); else by
    blocks of whole rows (:func:`lazy_rows`)."""
    model = getattr(estimator, "_adjusted", None)
    X = as_float_array(X, keep_float32=True, unknown_rows=True)
    if (
        model is None
        or X.ndim != 2
        or X.numblocks[1] == 1
        or X.shape[1] != estimator.n_features_in_
    ):
        return lazy_rows(estimator, X, estimator._skew_score_distances)
    _, da = _dask()
    gaps = {"message": _GAPS_NEED_ROWS} if getattr(estimator, "_supports_missing", False) else {}
    meta = np.empty((0, 0), dtype=X.dtype)
    Xf = X.map_blocks(_finite, dtype=X.dtype, meta=meta, **gaps).astype(np.float64)
    columns, k = X.chunks[1], model.rotation.shape[1]
    origin = da.from_array(np.asarray(model.origin, dtype=np.float64), chunks=(columns,))
    rotation = da.from_array(np.asarray(model.rotation, dtype=np.float64), chunks=(columns, (k,)))
    return ((Xf - origin) @ rotation).map_blocks(
        _skew_block,
        drop_axis=1,
        dtype=np.float64,
        meta=np.empty(0),
        outlyingness=model.outlyingness,
    )


def _score_block(t, od, sd=None, *, reference, dtype_out):
    """``score_samples`` of a row block from its scores and ODs (``-outlyingness``, as
    the NumPy method: float32 clipped to its range); ``sd``: a skew fit's score
    distances, else those of the scores."""
    od = od[:, 0]  # the ODs come as a column, aligned with the scores
    sd = reference.score_distances(t) if sd is None else sd[:, 0]
    values = -reference.diagnostics(sd, od, DEFAULT_QUANTILE).outlyingness
    if dtype_out == np.float32:
        big = float(np.finfo(np.float32).max)
        values = np.where(np.isfinite(values), np.clip(values, -big, big), values)
    return values.astype(dtype_out, copy=False)


def _base_distances(estimator) -> bool:
    """Whether ``estimator`` computes its scores and distances by the base class's linear
    formulas (the 2-D models' own take whole images); by name, as this layer sits below
    the estimators'."""
    method = getattr(type(estimator), "_transform_and_distances", None)
    return getattr(method, "__qualname__", "") == "BaseSubspaceEstimator._transform_and_distances"


def _lazy_score_samples(estimator, X):
    """``score_samples`` of ``X``: by blocks of whole rows, or for ``X`` chunked by
    columns (wide data) and a linear model, from the lazy scores and orthogonal
    distances by column blocks (merging the columns of a single chunk of rows would put
    all of ``X`` in one block), and a skew fit's adjusted outlyingness by the same
    blocks (:func:`lazy_skew_distances`)."""
    X = as_float_array(X, keep_float32=True, unknown_rows=True)
    reference = getattr(estimator, "_outlier_reference", None)
    skew = reference is not None and reference.sd_skew_cutoff > 0
    if (
        X.ndim != 2
        or X.numblocks[1] == 1
        or X.shape[1] != estimator.n_features_in_
        or not getattr(estimator, "_linear_model", False)
        or not _base_distances(estimator)
        or reference is None
        or (skew and not hasattr(estimator, "_skew_score_distances"))
    ):
        return lazy_rows(estimator, X, estimator.score_samples)
    _, da = _dask()
    scores, od = estimator._transform_and_distances(X)  # lazy, by column blocks
    sd = [estimator._skew_score_distances(X)[:, None]] if skew else []
    dtype = np.result_type(X.dtype, estimator.components_.dtype)
    return da.map_blocks(
        _score_block,
        scores.rechunk({1: -1}),
        od[:, None],
        *sd,
        drop_axis=1,
        dtype=dtype,
        meta=np.empty(0, dtype=dtype),
        reference=reference,
        dtype_out=dtype,
    )


def lazy_method(estimator, name: str, X):
    """Apply ``estimator.<name>`` to the dask array ``X``, lazily (nothing is computed).

    The method is computed with the NumPy formulas of
    :class:`~robustpca.estimators._base.BaseSubspaceEstimator` (float32 stays float32,
    other dtypes are cast to float64). The result is chunked like the
    rows of ``X``. With one chunk of columns each block is mapped on its own; with
    several (wide data), the scores and orthogonal distances (and ``score_samples`` of
    a linear model) come from one reduction over the column blocks
    (:func:`column_distances`), which never merges them, and ``reconstruct`` keeps the
    chunks of ``X``. ``inverse_transform`` output has blocks
    of about dask's ``array.chunk-size`` along the features.

    Parameters
    ----------
    estimator : BaseSubspaceEstimator
        A fitted estimator.
    name : str
        The method: ``"transform"``, ``"reconstruct"``, ``"reconstruction_error"``,
        ``"score_samples"`` (by whole-row blocks) or ``"inverse_transform"``; any other
        name raises ``ValueError``.
    X : dask.array.Array
        The input: samples of shape (n_samples, n_features), or scores of shape
        (n_samples, n_components) for ``"inverse_transform"``.

    Returns
    -------
    dask.array.Array
    """
    check_is_fitted(estimator)
    if name == "inverse_transform":
        return _lazy_inverse(estimator, X)
    if name == "score_samples":
        return _lazy_score_samples(estimator, X)
    if name not in ("transform", "reconstruct", "reconstruction_error"):
        raise ValueError(f"{name!r} has no lazy dask version.")
    X = as_float_array(X, keep_float32=True, unknown_rows=True)
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    mean, C = estimator.mean_, estimator.components_
    allow_nan = bool(getattr(estimator, "_supports_missing", False))
    if X.numblocks[1] > 1:
        return _lazy_by_columns(name, X, mean, C, allow_nan)
    params = {
        "mean": mean,
        "components": C,
        "allow_nan": allow_nan,
        "constants": getattr(estimator, "_unmodelled_constants", None),
    }
    metric = getattr(estimator, "_score_metric", None)
    params["centre"], params["scale"] = metric() if metric is not None else (None, None)
    dtype = np.result_type(X.dtype, C.dtype)
    meta = np.empty((0, 0), dtype=dtype)
    if name == "transform":
        k = C.shape[0]
        return X.map_blocks(
            _transform_block, chunks=(X.chunks[0], (k,)), dtype=dtype, meta=meta, **params
        )
    if name == "reconstruct":
        return X.map_blocks(_reconstruct_block, dtype=dtype, meta=meta, **params)
    return X.map_blocks(
        _error_block,
        drop_axis=1,
        chunks=(X.chunks[0],),
        dtype=dtype,
        meta=np.empty(0, dtype=dtype),
        **params,
    )
