"""The Dask route of the online estimators (OR-PCA, GRASTA): a stream of row blocks.

An online fit reads its rows once per pass, in order, in batches of ``batch_size``, so a
dask array needs no chunked algorithm: its row blocks are computed one at a time, in
order, and cut into the batches that the in-memory fit would take (rows left over at
the end of a block open the next batch), so the fit is the in-memory fit's. Memory is
one block, the burn-in and the estimator's O(p r) state, whatever the number of rows.
Each batch is checked as ``partial_fit`` checks it: NaN (a missing entry) is counted
and taken, an infinity or an overflowing magnitude raises ``ValueError``. Unlike the
in-memory ``fit``, rows or columns with no observed entry are not refused, as in
``partial_fit``: such a row carries no evidence, and is counted in ``n_samples_seen_``
and passed over; such a column gets a zero fit. The last rows of the fit seed the
window of a later ``partial_fit``: as many as one batch of a stream adds
(:mod:`robustpca.estimators._stream_reference`). ``decompose`` of a dask array is lazy,
by blocks of whole rows. Each block is split as one batch, as the in-memory
``decompose`` splits its whole input: the split's stopping rule is the batch's (every
row within ``tol``), so the parts depend on the chunking within that tolerance.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterator

import numpy as np

from ..solvers import SolverResult
from .arrays import as_float_array, check_underflow, largest_of, row_blocks

__all__ = ["fit_online", "lazy_decompose"]


def row_batches(X, size: int, computed: list[int] | None = None) -> Iterator[np.ndarray]:
    """Consecutive batches of ``size`` rows of the dask array ``X`` (the last one
    shorter), computing one row block at a time (counted in ``computed[0]``)."""
    carry = None
    for i in range(X.numblocks[0]):
        block = np.asarray(X.blocks[i].compute())
        if computed is not None:
            computed[0] += 1
        if carry is not None:
            block = np.concatenate([carry, block])
        full = block.shape[0] - block.shape[0] % size
        for start in range(0, full, size):
            yield block[start : start + size]
        carry = block[full:] if full < block.shape[0] else None
    if carry is not None:
        yield carry


def fit_online(est, X, rng) -> SolverResult:
    """Fit the online estimator ``est`` on the dask array ``X`` (module docstring); sets
    ``n_missing_`` and ``n_passes_`` (the ``compute`` calls: one per row block and
    pass)."""
    X = row_blocks(X)
    size = int(est.batch_size)
    # the rows one batch of a stream adds to the window, within its span of 1,000 rows
    keep = min(1000, max(8, (1 << 18) // max(X.shape[1], 1)))
    tail: deque[np.ndarray] = deque()
    passes, computed = [0], [0]
    largest = largest_of(np.zeros(0))  # of X, for the in-memory fit's underflow check
    est.n_missing_ = 0
    est._gaps = False

    def one_pass() -> Iterator[np.ndarray]:
        passes[0] += 1
        first, last = passes[0] == 1, passes[0] == int(est.n_passes)
        for batch in row_batches(X, size, computed):
            if first:  # partial_fit's checks; NaN counted where the estimator takes it
                batch = est._validate_batch(batch, first=False)
                nonlocal largest
                largest = largest + largest_of(batch)
                if est._batch_gaps:
                    est.n_missing_ += int(np.isnan(batch).sum())
                est._gaps = est._gaps or est._batch_gaps  # sticky: the burn-in may hold it
            if last:
                tail.append(batch)
                while sum(len(b) for b in tail) - len(tail[0]) >= keep:
                    tail.popleft()
            yield batch

    result = est._fit_stream(one_pass, X.shape[1], rng)
    # squares that underflow are known only once every row is read: the same error as
    # the in-memory fit, after the pass (a fit on zeros is no fit)
    check_underflow(largest.value, X.dtype)
    est.n_passes_ = computed[0]
    rows = np.concatenate(list(tail)) if tail else np.zeros((0, X.shape[1]))
    est._dask_stream_tail = rows[-keep:]
    return result


def lazy_decompose(est, X):
    """``est.decompose`` of the dask array ``X``, lazily: the low-rank and sparse parts,
    chunked like ``X``'s rows (its column chunks merged)."""
    X = as_float_array(X, keep_float32=True, unknown_rows=True)
    if X.shape[1] != est.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(est).__name__} is expecting "
            f"{est.n_features_in_} features as input."
        )
    X = row_blocks(X)
    both = X.map_blocks(
        _decompose_block,
        new_axis=0,
        chunks=((2,), *X.chunks),
        dtype=X.dtype,
        meta=np.empty((0, 0, 0), dtype=X.dtype),
        # the model of the call, whatever the stream does next: partial_fit updates the
        # state that decompose reads in place (O(d r), and the burn-in's rows if any)
        est=copy.deepcopy(est),
    )
    return both[0], both[1]


def _decompose_block(x: np.ndarray, est) -> np.ndarray:
    return np.stack(est.decompose(x))
