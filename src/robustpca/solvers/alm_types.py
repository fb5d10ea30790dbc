"""Types shared by the convex ALM solvers' loop and steps, and their result's packaging.

The loop (:mod:`robustpca.solvers.alm`), its blocked passes
(:mod:`robustpca.solvers.alm_blocks`), its duality gaps
(:mod:`robustpca.solvers.alm_gap`) and its singular value thresholding
(:mod:`robustpca.solvers.alm_svt`) all speak of these three types; they live here, below
all of them, so that the imports of the ALM modules only point downward: ``alm ->
alm_svt, alm_gap -> alm_blocks -> alm_types``. :func:`convex_result` is the one
:class:`~robustpca.solvers.SolverResult` of the complete-data solvers and of the
observed-entries ones (:mod:`robustpca.solvers.alm_observed`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..linalg import complete_orthonormal
from ..robust_scale import _column_medians
from ._result import LoopSummary, SolverResult

__all__: list[str] = []  # private types of the ALM solvers


def column_offset(X: np.ndarray, center: bool | str, observed=None) -> np.ndarray | None:
    """The offset a convex solver subtracts from the columns of ``X`` (``X`` is never
    copied): ``False``: none; ``True``: the arithmetic means; ``'median'``: the
    coordinate-wise medians, which gross errors in fewer than half of a column's entries
    cannot carry away (for video, one frame per row, the temporal median of each pixel:
    the background of a static camera). ``observed``: the entries counted (a column
    with none gets 0)."""
    if center is False or center is None:
        return None
    if observed is None:
        if center == "median":  # numpy.median's, by blocks of columns, without a copy of X
            return _column_medians(X).astype(np.float64, copy=False)
        return X.mean(axis=0, dtype=np.float64)
    counts = observed.sum(axis=0)
    if center != "median":  # accumulated in float64, as X.mean above (float32 data)
        return np.where(observed, X, 0.0).sum(axis=0, dtype=np.float64) / np.maximum(counts, 1)
    with warnings.catch_warnings():  # columns with no entry: NaN, then 0
        warnings.simplefilter("ignore", RuntimeWarning)
        med = np.nanmedian(np.where(observed, X, np.nan), axis=0)
    return np.where(counts > 0, med, 0.0)


@dataclass(frozen=True)
class _LowRank:
    """``L - b`` of one ALM step, in the form its route leaves it (never ``n x d``).

    * ``'factors'``: ``(U * s) @ Vt`` (partial and exact SVD; the Gram route on wide data
      at rank ``r <= n / 4``, with ``Vt = diag(1/sigma) U^T M``, orthonormal rows only up
      to about eps sigma_1^2 / sigma_i^2);
    * ``'rows'``: ``M V diag(gain) V^T`` with ``V = Vt.T`` (the Gram route on tall data):
      a row block of ``L`` from the same rows of ``M``;
    * ``'columns'``: ``U diag(gain) U^T M`` (the Gram route on wide data at rank
      ``r > n / 4``): a column block from the same columns of ``M``.

    ``s`` are the thresholded singular values (decreasing), ``gain = s / sigma``.
    ``extra``: the Gram route's short-side singular vectors just below the threshold
    (columns, decreasing), asked for where a single-precision Gram matrix is formed next
    (:class:`~.alm_svt._SVTStep`); None otherwise.
    """

    kind: str
    s: np.ndarray
    U: np.ndarray | None = None
    Vt: np.ndarray | None = None
    gain: np.ndarray | None = None
    method: str = "gram"
    extra: np.ndarray | None = None

    @classmethod
    def empty(cls, n: int, d: int) -> _LowRank:
        return cls("factors", np.zeros(0), np.zeros((n, 0)), np.zeros((0, d)), method="full")


@dataclass
class _ALMOutcome:
    """Where the loop stopped: ``work`` holds ``D = X - L`` and ``dual`` the multiplier
    ``Y`` that entered the last step, at penalty ``mu`` (see ``alm_gap._final_blocks``)."""

    work: np.ndarray
    dual: np.ndarray
    mu: float
    mean: np.ndarray | None  # b of the last L step (None: no mean in the problem)
    low: _LowRank  # L - b
    objective: list
    n_iter: int
    converged: bool
    stop_reason: str
    certified_gap: float = np.inf  # the certified gap at the last iteration, if computed
    trace: dict | None = None  # relative primal and dual residuals, cheap gap, mu
    alpha: float = 1.0  # the relaxation of the last pass: dual holds the relaxed multiplier
    parts: list | None = None  # (nuclear norm, sparse term) of each objective value


@dataclass(frozen=True)
class _Problem:
    """One convex problem: its ``L`` step and its sparse term."""

    low_rank_step: Callable  # (M, mu) -> (b or None, _LowRank of L - b); may overwrite M
    sparse: Any  # alm_blocks._L1 (PCP) or alm_blocks._L21 (outlier pursuit, CRPCA-OM)
    svt: Any  # alm_svt._SVTStep; its accuracy follows the primal residual
    free_mean: bool = False  # the dual must then have zero column sums


def convex_result(
    low_rank: np.ndarray,
    sparse: np.ndarray,
    singular_values: np.ndarray,
    right_vectors: Callable[[int], np.ndarray],
    *,
    mean: np.ndarray,
    n_components: int | None,
    row_sparse: bool,
    rng: np.random.Generator,
    loop: LoopSummary,
    **info,
) -> SolverResult:
    """The result of a convex solver from its final ``L`` (``low_rank``, with its singular
    values, decreasing) and ``S`` (``sparse``).

    ``rank`` counts the singular values above ``max(n, d) * eps`` times the largest (the
    rule of :func:`numpy.linalg.matrix_rank`); ``components`` are the first
    ``n_components`` (default: ``max(rank, 1)``) right singular vectors, from
    ``right_vectors(count)`` (``count`` rows, at most ``rank``) completed by ``rng``.
    ``loop`` is the loop's outcome (iterations, stop, objective); ``info``
    gets ``low_rank``, ``sparse``, ``rank``, ``low_rank_singular_values``, the keyword
    arguments (``duality_gap``, ``mu``, ...) and, for a row-sparse ``S``, ``outliers``.
    """
    top = singular_values.max(initial=0.0)
    eps = max(low_rank.shape) * np.finfo(float).eps
    rank = int(np.count_nonzero(singular_values > top * eps)) if top > 0 else 0
    k = max(rank, 1) if n_components is None else int(n_components)
    vectors = right_vectors(min(k, rank))
    info = {
        "low_rank": low_rank,
        "sparse": sparse,
        "rank": rank,
        "low_rank_singular_values": singular_values[:rank].copy(),
        **info,
    }
    if row_sparse:
        info["outliers"] = np.einsum("ij,ij->i", sparse, sparse) > 0
    return SolverResult.from_loop(
        loop, components=complete_orthonormal(vectors.T, k, rng).T, mean=mean, info=info
    )
