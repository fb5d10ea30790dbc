"""Validation and blocking of dask arrays for the chunked fits (the lowest Dask layer).

Imports dask only when called, so that the rest of the package never needs it.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "LARGEST",
    "Largest",
    "as_float_array",
    "bounded",
    "check_underflow",
    "column_blocks",
    "largest_of",
    "row_blocks",
    "with_largest",
]

#: The key under which a fit's first pass returns the largest magnitude of ``X``.
LARGEST = "_largest_magnitude"

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


def as_float_array(X, name: str = "X", keep_float32: bool = False, unknown_rows: bool = False):
    """Validate a dask array lazily: 2-D, real, known chunk sizes; chunks are kept,
    except empty ones.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        The array; any other type raises ``TypeError``.
    name : str, default="X"
        The array's name in the error messages.
    keep_float32 : bool, default=False
        Keep float32 input as float32 (the transforms, which keep float32 like the NumPy
        ones); other input is cast to float64 chunk by chunk.
    unknown_rows : bool, default=False
        Accept unknown sizes of the row chunks (``X[mask]`` of a boolean mask): the lazy
        methods map blocks of rows, whose sizes they need not know; a fit counts rows.

    Returns
    -------
    dask.array.Array of shape (n_samples, n_features)
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
    if (not unknown_rows and any(np.isnan(c) for c in X.chunks[0])) or any(
        np.isnan(c) for c in X.chunks[1]
    ):
        raise ValueError(
            f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first."
        )
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} has dtype {X.dtype}; robustpca needs real numbers.")
    if 0 in X.chunks[0] or 0 in X.chunks[1]:
        # empty chunks (left by a boolean selection and compute_chunk_sizes) hold nothing
        # for any pass and break the kernels that read a block's first row or column
        X = X.rechunk(tuple(tuple(c for c in axis if c) or (0,) for axis in X.chunks))
    if X.dtype != np.float64 and not (keep_float32 and X.dtype == np.float32):
        X = X.astype(np.float64)
    return X


def row_blocks(X):
    """``X`` with one chunk of columns (the tall route): column chunks are merged.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        The validated array (:func:`as_float_array`).

    Returns
    -------
    dask.array.Array of shape (n_samples, n_features)
    """
    return X.rechunk({1: -1}) if X.numblocks[1] > 1 else X


def column_blocks(X):
    """``X`` with one chunk of rows (the wide route), rechunked only when necessary.

    A block of the wide route must hold every sample of its columns. ``X`` chunked by
    columns only is used as it is; otherwise the row chunks are merged, keeping the
    column chunks when the merged blocks hold at most ``max(WIDE_BLOCK_VALUES, largest
    chunk)`` values and splitting the columns into blocks of that size if not.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        The validated array (:func:`as_float_array`).

    Returns
    -------
    dask.array.Array of shape (n_samples, n_features)
    """
    if X.numblocks[0] == 1:
        return X
    n = X.shape[0]
    target = max(WIDE_BLOCK_VALUES, max(X.chunks[0]) * max(X.chunks[1]))
    if n * max(X.chunks[1]) <= target:
        return X.rechunk({0: -1})
    return X.rechunk({0: -1, 1: max(1, target // n)})


def bounded(X, dtype, name: str = "X"):
    """``X`` whose blocks raise, when computed,
    :func:`~robustpca._validation.check_magnitude`'s ``ValueError`` (or scikit-learn's for
    an infinity) where an entry's square would overflow once summed over all of ``X``: the
    in-memory check, for the input's ``dtype``, in every pass at the cost of a max and a
    min per block."""
    from .._validation import magnitude_limit

    size = int(np.prod(X.shape))
    return X.map_blocks(
        _bounded_block,
        limit=magnitude_limit(dtype, size),
        size=size,
        dtype_in=np.dtype(dtype),
        name_in=name,
        dtype=X.dtype,
        meta=np.empty((0, 0), dtype=X.dtype),
    )


def _bounded_block(x: np.ndarray, *, limit: float, size: int, dtype_in, name_in: str) -> np.ndarray:
    if not x.size:
        return x
    top, bottom = x.max(), x.min()
    if np.isnan(top) or np.isnan(bottom):  # NaN (a missing entry) is the routes' to judge
        top, bottom = np.fmax.reduce(x, axis=None), np.fmin.reduce(x, axis=None)
    magnitude = float(max(abs(top), abs(bottom)))
    if np.isinf(magnitude):
        raise ValueError(
            f"Input {name_in} contains infinity or a value too large for dtype('float64')."
        )
    if magnitude > limit:
        from .._validation import overflow_message

        raise ValueError(overflow_message(name_in, dtype_in, size, magnitude))
    return x


class Largest:
    """The largest magnitude of the blocks seen so far: "adding" two keeps the larger,
    so that it travels through :func:`~robustpca.solvers.chunked.combine_parts` with the
    sums of a pass."""

    __slots__ = ("value",)

    def __init__(self, value: float):
        self.value = value

    def __add__(self, other: Largest) -> Largest:
        return Largest(max(self.value, other.value))


def with_largest(kernel, x: np.ndarray, rows=None, **params) -> dict:
    """``kernel(x, rows, **params)`` with the block's largest magnitude (NaN ignored)
    under :data:`LARGEST`: the underflow half of
    :func:`~robustpca._validation.check_magnitude` needs the largest entry of all of
    ``X``, which a block alone cannot judge, so it rides on the first pass."""
    return {**kernel(x, rows, **params), LARGEST: largest_of(x)}


def largest_of(x: np.ndarray) -> Largest:
    """The largest magnitude of the block ``x``, NaN ignored (0 for an empty block)."""
    if not x.size:
        return Largest(0.0)
    top, bottom = np.fmax.reduce(x, axis=None), np.fmin.reduce(x, axis=None)
    return Largest(float(np.nan_to_num(max(abs(top), abs(bottom)), nan=0.0)))


def check_underflow(magnitude: float, dtype, name: str = "X") -> None:
    """Raise :func:`~robustpca._validation.check_magnitude`'s ``ValueError`` when
    ``magnitude``, the largest entry of ``X`` (input ``dtype``), is positive but its
    square underflows (every fit would see zeros: a silently arbitrary subspace).

    The in-memory check is run on that one entry, so the message is the NumPy fit's;
    the overflow half cannot fire there (the bound grows as the size shrinks, and
    :func:`bounded` has already judged every entry).
    """
    from .._validation import check_magnitude

    dtype = np.dtype(dtype)
    if 0.0 < magnitude < float(np.sqrt(np.finfo(dtype).tiny)):
        check_magnitude(np.full((1, 1), magnitude, dtype=dtype), name=name)
