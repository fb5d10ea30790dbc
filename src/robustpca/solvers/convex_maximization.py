r"""Maximisation of convex objectives by successive linearisation (Nie & Huang).

Nie & Huang's Algorithm 3 solves

.. math:: \max_{v \in C} f(v) + \sum_i h_i(g_i(v)),

with every :math:`h_i` convex, by alternating

1. :math:`\alpha_i \leftarrow h_i'(g_i(v))` (a subgradient at the current point), and
2. :math:`v \leftarrow \arg\max_{v\in C} f(v) + \sum_i \mathrm{Tr}(\alpha_i^\top g_i(v))`.

A convex function lies above its tangent, so the objective never decreases (their
Theorem 3). Algorithm 1, the general L21-norm maximisation, is the special case
:math:`h_i = \lVert\cdot\rVert_2` with :math:`\alpha_i = g_i(v) / \lVert g_i(v)\rVert_2`
(0 when :math:`g_i(v) = 0`, their eq. 15).

:func:`maximize_linearized` is the loop; the caller supplies the two steps. Three
instances are provided: :func:`power_method` (problem 35), :func:`truncated_power_method`
(problem 36, Yuan & Zhang 2013) and :func:`l21_row_subgradients`, the step 1 of
Algorithm 1 for a batch of vectors (used by PCA-L21, Algorithm 2).

References
----------
F. Nie and H. Huang, "Non-greedy L21-norm maximization for principal component
analysis", arXiv:1603.08293, Algorithms 1 and 3, Theorems 1 and 3, problems 35-36.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._result import IterationState, StopReason, relative_change

__all__ = [
    "LinearizedResult",
    "l21_row_subgradients",
    "maximize_linearized",
    "power_method",
    "truncated_power_method",
]


@dataclass(frozen=True)
class LinearizedResult:
    """Outcome of :func:`maximize_linearized`.

    Attributes
    ----------
    solution : object
        The last iterate ``v``.
    objective : ndarray of shape (n_iter,)
        The objective after each iteration (not at the start).
    n_iter : int
        Iterations run.
    converged : bool
        Whether the tolerance was met.
    stop_reason : str
        Why the loop stopped (a :class:`~robustpca.solvers.StopReason`).
    """

    solution: Any
    objective: np.ndarray
    n_iter: int
    converged: bool
    stop_reason: str


def maximize_linearized(
    v0: Any,
    *,
    subgradient: Callable[[Any], Any],
    linear_argmax: Callable[[Any], Any],
    objective: Callable[[Any], float],
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    state_view: Callable[[Any], tuple[Callable | None, Callable | None]] | None = None,
) -> LinearizedResult:
    """Nie & Huang's Algorithm 3 (Algorithm 1 when ``h_i`` are l2 norms).

    Parameters
    ----------
    v0 : object
        Feasible starting point.
    subgradient : callable
        ``subgradient(v) -> alpha``: step 1, the subgradients :math:`h_i'(g_i(v))`.
    linear_argmax : callable
        ``linear_argmax(alpha) -> v``: step 2, the maximiser over the constraint set of
        ``f(v) + sum_i Tr(alpha_i^T g_i(v))``.
    objective : callable
        ``objective(v)``: the value of ``f(v) + sum_i h_i(g_i(v))``, recorded each
        iteration (it is non-decreasing, Theorem 3).
    max_iter, tol
        Stop after ``max_iter`` iterations or when the relative objective change is at
        most ``tol``.
    callback : callable, optional
        ``callback(iteration, state)``; returning ``True`` stops.
    state_view : callable, optional
        ``state_view(v) -> (components_fn, mean_fn)``: lazy accessors for the state.

    Returns
    -------
    LinearizedResult
    """
    v = v0
    history = [float(objective(v))]
    stop_reason, converged = StopReason.MAX_ITER, False
    n_iter = 0
    for iteration in range(1, max_iter + 1):
        v = linear_argmax(subgradient(v))
        history.append(float(objective(v)))
        n_iter = iteration
        if callback is not None:
            comps, mean = state_view(v) if state_view is not None else (None, None)
            if callback(iteration, IterationState(iteration, history[-1], None, comps, mean)):
                stop_reason = StopReason.CALLBACK
                break
        if relative_change(history[-2], history[-1]) <= tol:
            stop_reason, converged = StopReason.TOLERANCE, True
            break
    return LinearizedResult(v, np.asarray(history[1:]), n_iter, converged, stop_reason)


def l21_row_subgradients(Y: np.ndarray) -> np.ndarray:
    r"""Row-wise subgradients of :math:`\sum_i \lVert y_i \rVert_2` (Nie & Huang eq. 15).

    Parameters
    ----------
    Y : ndarray of shape (n_rows, n_columns)
        The vectors :math:`y_i`, one per row.

    Returns
    -------
    ndarray of shape (n_rows, n_columns)
        :math:`y_i / \lVert y_i \rVert_2` for every row with a non-zero norm, and the
        zero vector (a valid subgradient) for zero rows.
    """
    norms = np.linalg.norm(Y, axis=1, keepdims=True)
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return Y * scale


def _unit(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def _maximize_quadratic(
    A: np.ndarray,
    v0: np.ndarray,
    argmax: Callable[[np.ndarray], np.ndarray],
    *,
    max_iter: int,
    tol: float,
) -> LinearizedResult:
    r""":math:`\max_{v \in C} v^\top A v` by Algorithm 3, from ``argmax(v0)``.

    The subgradient of :math:`v^\top A v` is :math:`2Av`; ``argmax(alpha)`` maximises
    :math:`\alpha^\top v` over the constraint set :math:`C`.
    """
    A = np.asarray(A, dtype=float)
    return maximize_linearized(
        argmax(np.asarray(v0, dtype=float)),
        subgradient=lambda v: 2.0 * (A @ v),
        linear_argmax=argmax,
        objective=lambda v: float(v @ A @ v),
        max_iter=max_iter,
        tol=tol,
    )


def power_method(
    A: np.ndarray,
    v0: np.ndarray,
    *,
    max_iter: int = 1000,
    tol: float = 1e-12,
) -> LinearizedResult:
    r"""Top eigenvector of a PSD matrix as an instance of Algorithm 3 (problem 35).

    With :math:`h(v) = v^\top A v` (convex), the subgradient is :math:`2Av` and
    :math:`\arg\max_{\lVert v\rVert = 1} \alpha^\top v = \alpha / \lVert\alpha\rVert`:
    the classical power method.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric positive semi-definite matrix.
    v0 : ndarray of shape (n,)
        Starting vector; the first iterate is its normalisation.
    max_iter : int, default=1000
        Maximum number of iterations.
    tol : float, default=1e-12
        Stop when the relative change of :math:`v^\top A v` is at most ``tol``.

    Returns
    -------
    LinearizedResult
    """
    return _maximize_quadratic(A, v0, _unit, max_iter=max_iter, tol=tol)


def truncated_power_method(
    A: np.ndarray,
    v0: np.ndarray,
    n_nonzero: int,
    *,
    max_iter: int = 1000,
    tol: float = 1e-12,
) -> LinearizedResult:
    r"""Sparse top eigenvector: problem 36 of Nie & Huang by Algorithm 3.

    The constraint set is :math:`\{v: \lVert v\rVert_2 = 1, \lVert v\rVert_0 \le k\}`.
    The maximiser of :math:`\alpha^\top v` over it keeps the :math:`k` largest
    :math:`|\alpha_j|` and normalises: the truncated power method of Yuan & Zhang (2013).

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric positive semi-definite matrix.
    v0 : ndarray of shape (n,)
        Starting vector; the first iterate is its truncation, normalised.
    n_nonzero : int
        :math:`k`, the most non-zero coordinates. At or above ``n`` the constraint is void:
        the power method on ``A`` (all coordinates kept).
    max_iter : int, default=1000
        Maximum number of iterations.
    tol : float, default=1e-12
        Stop when the relative change of :math:`v^\top A v` is at most ``tol``.

    Returns
    -------
    LinearizedResult

    Raises
    ------
    ValueError
        For ``n_nonzero < 1``, which no unit vector meets.
    """
    k = int(n_nonzero)
    if k < 1:  # a shape error, not a check of the caller's parameters
        raise ValueError(f"n_nonzero={n_nonzero!r} must be >= 1: no unit vector has fewer.")

    def argmax(alpha: np.ndarray) -> np.ndarray:
        drop = max(alpha.size - k, 0)  # k >= n keeps every coordinate
        keep = np.argpartition(np.abs(alpha), drop)[drop:]
        out = np.zeros_like(alpha)
        out[keep] = alpha[keep]
        return _unit(out)

    return _maximize_quadratic(A, v0, argmax, max_iter=max_iter, tol=tol)
