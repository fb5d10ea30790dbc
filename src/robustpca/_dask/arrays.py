"""Validation and blocking of dask arrays for the chunked fits (the lowest Dask layer).

Imports dask only when called, so that the rest of the package never needs it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_float_array", "column_blocks", "row_blocks"]

#: When the wide route merges row chunks, a block of whole columns holds at most this
#: many values (32 MB of float64) or the largest chunk of ``X``, whichever is larger.
WIDE_BLOCK_VALUES = 1 << 22


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - only reached with a dask collection
        raise ImportError("dask support needs dask[array]: pip install 'robustpca[dask]'") from exc
    return dask, da


def _is_dask(x) -> bool:
    return type(x).__module__.split(".")[0] == "dask"


def as_float_array(X, name: str = "X", keep_float32: bool = False):
    """Validate a dask array lazily: 2-D, real, known chunk sizes; chunks are kept.

    The result is float64 (cast chunk by chunk), or float32 for float32 input with
    ``keep_float32`` (the transforms, which keep float32 like the NumPy ones).
    """
    _, da = _dask()
    if not isinstance(X, da.Array):
        raise TypeError(
            f"{name} is a {type(X).__module__}.{type(X).__name__}; robustpca fits dask arrays "
            f"only: pass {name}.to_dask_array(lengths=True)."
        )
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features), got a {X.ndim}-D dask array."
        )
    if any(np.isnan(c) for c in X.chunks[0]) or any(np.isnan(c) for c in X.chunks[1]):
        raise ValueError(
            f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first."
        )
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} has dtype {X.dtype}; robustpca needs real numbers.")
    if X.dtype != np.float64 and not (keep_float32 and X.dtype == np.float32):
        X = X.astype(np.float64)
    return X


def row_blocks(X):
    """``X`` with one chunk of columns (the tall route): column chunks are merged."""
    return X.rechunk({1: -1}) if X.numblocks[1] > 1 else X


def column_blocks(X):
    """``X`` with one chunk of rows (the wide route), rechunked only when necessary.

    A block of the wide route must hold every sample of its columns. ``X`` chunked by
    columns only is used as it is; otherwise the row chunks are merged, keeping the
    column chunks when the merged blocks hold at most ``max(WIDE_BLOCK_VALUES, largest
    chunk)`` values and splitting the columns into blocks of that size if not.
    """
    if X.numblocks[0] == 1:
        return X
    n = X.shape[0]
    target = max(WIDE_BLOCK_VALUES, max(X.chunks[0]) * max(X.chunks[1]))
    if n * max(X.chunks[1]) <= target:
        return X.rechunk({0: -1})
    return X.rechunk({0: -1, 1: max(1, target // n)})
