r"""The state runner of the chunked L + S solvers, and the first pass of the convex ones.

A *state runner* applies ``kernel(x_block, state, **params) -> (state, dict)`` to every
row chunk with that chunk's state (``None`` before the first pass), keeps the states and
adds the dictionaries key by key (:func:`~.chunked.combine_parts`; :class:`Max` adds by
the maximum); ``map_states`` maps a function over the states (the fitted arrays).
:class:`NumpyStateRunner` runs over slices of an in-memory array; the dask one is
:class:`robustpca._dask.low_rank_sparse.DaskStateRunner`.

A kernel may overwrite the state it is given only where its runner says
``reuse_states = True``: every kernel call then runs once and nothing reads a state after
the call that received it (the NumPy runner; dask's local schedulers). Elsewhere, and
for a runner without the attribute, kernels are pure: they write a new state and leave
their input as it was (:func:`writable`). A ``distributed`` cluster that loses a worker
runs the tasks that made the lost states again from their inputs, and an input a kernel
overwrote may still be held (by the client, or as a copy on another worker: with
in-process workers the very same object), so an overwriting kernel would be applied
twice to it and change the iterates (``docs/design-notes/dask-faults.md``).

The first pass of the convex
solvers (:func:`first_pass`) and the spectral norms of their start
(:func:`gamma_max_chunked`, ``_norm_from_gram``) are here too; the solvers are in
:mod:`robustpca.solvers.chunked_alm` and :mod:`robustpca.solvers.chunked_known_rank`.
Nothing here imports dask, validates or warns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import linalg as sla
from scipy.sparse.linalg import ArpackNoConvergence, eigsh

from ..linalg.blocked import row_sq_distances
from .alm_blocks import _row_norms
from .chunked import block_moments, combine_parts

__all__ = [
    "AUTO_GAMMA_FRACTION",
    "Max",
    "NumpyStateRunner",
    "first_pass",
    "gamma_max_chunked",
    "largest_distance_pass",
    "reuses_states",
    "writable",
]

#: ``gamma='auto'`` of outlier pursuit and CRPCA-OM: this fraction of
#: :func:`gamma_max_chunked` (the value of ``robustpca.estimators._convex``, which a
#: test checks; ``_dask`` may not import the estimators).
AUTO_GAMMA_FRACTION = 0.3


# ------------------------------------------------------------------- the runner
class NumpyStateRunner:
    """The in-memory state runner: a pass is a loop over row slices of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    chunk_rows : int
        Rows per chunk.
    """

    #: Each kernel call runs once and the state it returns replaces its input: kernels
    #: may overwrite the state they are given.
    reuse_states = True

    def __init__(self, X: np.ndarray, chunk_rows: int):
        self.X = X
        n = X.shape[0]
        self.bounds = [(i, min(i + chunk_rows, n)) for i in range(0, n, chunk_rows)]
        self.states: list = [None] * len(self.bounds)
        self.n_samples = n
        self.n_passes = 0

    def __call__(self, kernel: Callable, **params) -> dict:
        self.n_passes += 1
        parts = []
        for i, (a, b) in enumerate(self.bounds):
            self.states[i], part = kernel(self.X[a:b], self.states[i], **params)
            parts.append(part)
        return combine_parts(*parts)

    def state_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The two arrays of the states, stacked in row order."""
        first, second = (np.concatenate([s[i] for s in self.states]) for i in (0, 1))
        return first, second

    def map_states(self, func: Callable, n_columns: int, **params) -> np.ndarray:
        """``func(state, **params)`` of every chunk, stacked in row order.

        Parameters
        ----------
        func : callable
            Maps a chunk's state (and ``params``) to an array with one row per row of the
            chunk.
        n_columns : int
            The number of columns ``func`` returns; unused here (the dask runner needs it).
        **params : dict
            Passed to ``func``.

        Returns
        -------
        ndarray of shape (n_samples, n_columns)
        """
        return np.concatenate([func(state, **params) for state in self.states])


def reuses_states(run) -> bool:
    """Whether the kernels of ``run`` may overwrite their input state (module docstring).

    Parameters
    ----------
    run : callable
        A state runner; one without a ``reuse_states`` attribute counts as ``False``.

    Returns
    -------
    bool
    """
    return getattr(run, "reuse_states", False) is True


def writable(state: tuple, reuse: bool, count: int | None = None) -> tuple:
    """What a kernel may overwrite: ``state`` itself or a copy of some of its arrays.

    Parameters
    ----------
    state : tuple of ndarray
        A chunk's state.
    reuse : bool
        Whether the runner reuses states (:func:`reuses_states`): then ``state`` itself is
        returned.
    count : int or None, default=None
        Otherwise the first ``count`` arrays (all for ``None``) are copied and the others
        shared.

    Returns
    -------
    tuple of ndarray
    """
    if reuse:
        return state
    count = len(state) if count is None else count
    return tuple(a.copy() if i < count else a for i, a in enumerate(state))


@dataclass(frozen=True)
class Max:
    """A number whose ``+`` is the maximum (for entry norms summed by a runner).

    Parameters
    ----------
    value : float
        The number.
    """

    value: float

    def __add__(self, other: Max) -> Max:
        return Max(max(self.value, other.value))


def largest_distance_pass(x, rows=None, *, center: np.ndarray) -> dict:
    """``largest``: the chunk's largest row distance to ``center`` (a pass of the
    runners of :mod:`~.chunked`; the exact-fit threshold of PCA-GM's loop).

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A chunk of rows.
    rows : ndarray or None, default=None
        Unused (the runners' per-row array).
    center : ndarray of shape (n_features,)
        The point the distances are taken to.
    """
    largest = float(np.sqrt(np.max(row_sq_distances(x, center), initial=0.0)))
    return {"largest": Max(largest)}


# --------------------------------------------------------------- spectral norms
def _norm_from_gram(G: np.ndarray, rng: np.random.Generator, rtol: float) -> float:
    """:func:`~.alm.spectral_norm` of a tall matrix from its ``d x d`` Gram matrix ``G``:
    exact (LAPACK) up to ``4 * OVERSAMPLES`` columns, else ARPACK's Lanczos on ``G`` from
    the same random start (so the same draws from ``rng`` and the same Ritz value to
    rounding), LAPACK where it does not converge."""
    from ..prox import OVERSAMPLES

    d = len(G)
    if d == 0:
        return 0.0

    def exact() -> float:
        return float(np.sqrt(max(sla.eigvalsh(G, check_finite=False)[-1], 0.0)))

    if d <= 4 * OVERSAMPLES:
        return exact()
    try:
        top = eigsh(
            G, k=1, which="LA", tol=rtol, v0=rng.standard_normal(d), return_eigenvectors=False
        )
    except ArpackNoConvergence:
        return exact()
    return float(np.sqrt(max(top[0], 0.0)))


def first_pass(x, state, *, check_finite=True, row_gram=False):
    """The first pass, a state kernel: the column extremes, moments and optional row Gram.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    state : object
        The chunk's state, returned unchanged (``None`` before the first pass).
    check_finite : bool, default=True
        Raise a ``ValueError`` when the chunk holds NaN or infinity.
    row_gram : bool, default=False
        Also gather the Gram matrix of the rows scaled to unit norm (``gamma='auto'`` of
        uncentred outlier pursuit).

    Returns
    -------
    state : object
        ``state``.
    part : dict
        ``moments`` (mean and centred ``d x d`` scatter), ``hi`` and ``lo`` (the column
        maxima and the negated minima, summed by the maximum) and ``row_gram`` if asked.
    """
    if check_finite and not np.isfinite(x).all():
        raise ValueError(
            "Input X contains NaN or infinity; a dask fit of the convex estimators needs "
            "finite data (fit X.compute() for missing entries)."
        )
    d = x.shape[1]
    empty = np.full(d, -np.inf)
    part = {
        "moments": block_moments(x, np.ones(x.shape[0])),
        "hi": _VecMax(x.max(axis=0) if len(x) else empty),
        "lo": _VecMax(-x.min(axis=0) if len(x) else empty),
    }
    if row_gram:
        part["row_gram"] = _unit_rows_gram(x, None)
    return state, part


@dataclass(frozen=True)
class _VecMax:
    """Entrywise maximum of vectors under ``+``."""

    value: np.ndarray

    def __add__(self, other: _VecMax) -> _VecMax:
        return _VecMax(np.maximum(self.value, other.value))


def _unit_rows_gram(x: np.ndarray, center) -> np.ndarray:
    """``G^T G`` of the rows of ``x - c`` scaled to unit norm (zero rows stay zero)."""
    G = np.array(x, dtype=np.float64) if center is None else np.subtract(x, center)
    norms = _row_norms(G)
    np.divide(G, norms[:, None], out=G, where=norms[:, None] > 0)
    G[norms == 0] = 0.0
    return G.T @ G


def _unit_rows_pass(x, state, *, center):
    return state, {"row_gram": _unit_rows_gram(x, center)}


def gamma_max_chunked(run, center=None, row_gram=None) -> float:
    """:func:`~.alm.gamma_max` over the chunks: the spectral norm of the rows of
    ``X - c`` scaled to unit norm, from their ``d x d`` Gram matrix, by the Lanczos
    iteration of ``gamma_max`` (seed 0, ``rtol=1e-10``).

    Parameters
    ----------
    run : callable
        A state runner; used for one pass only when ``row_gram`` is ``None``.
    center : ndarray of shape (n_features,) or None, default=None
        The centre ``c`` subtracted from the rows (``None``: none).
    row_gram : ndarray of shape (n_features, n_features) or None, default=None
        The Gram matrix already gathered (:func:`first_pass` with ``row_gram=True``).

    Returns
    -------
    float
    """
    if row_gram is None:
        row_gram = run(_unit_rows_pass, center=center)["row_gram"]
    return _norm_from_gram(row_gram, np.random.default_rng(0), rtol=1e-10)
