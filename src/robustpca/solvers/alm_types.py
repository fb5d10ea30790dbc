"""Types shared by the convex ALM solvers' loop and steps (no logic, no imports among them).

The loop (:mod:`robustpca.solvers.alm`), its blocked passes
(:mod:`robustpca.solvers.alm_blocks`) and its singular value thresholding
(:mod:`robustpca.solvers.alm_svt`) all speak of these three types; they live here, below
all three, so that the imports of the ALM modules only point downward:
``alm -> alm_svt -> alm_blocks -> alm_types``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__: list[str] = []  # private types of the ALM solvers


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
    """

    kind: str
    s: np.ndarray
    U: np.ndarray | None = None
    Vt: np.ndarray | None = None
    gain: np.ndarray | None = None
    method: str = "gram"

    @classmethod
    def empty(cls, n: int, d: int) -> _LowRank:
        return cls("factors", np.zeros(0), np.zeros((n, 0)), np.zeros((0, d)), method="full")


@dataclass
class _ALMOutcome:
    """Where the loop stopped: ``work`` holds ``D = X - L`` and ``dual`` the multiplier
    ``Y`` that entered the last step, at penalty ``mu`` (see ``alm_blocks._final_blocks``)."""

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


@dataclass(frozen=True)
class _Problem:
    """One convex problem: its ``L`` step and its sparse term."""

    low_rank_step: Callable  # (M, mu) -> (b or None, _LowRank of L - b); may overwrite M
    sparse: Any  # alm_blocks._L1 (PCP) or alm_blocks._L21 (outlier pursuit, CRPCA-OM)
    svt: Any  # alm_svt._SVTStep; its accuracy follows the primal residual
    free_mean: bool = False  # the dual must then have zero column sums
