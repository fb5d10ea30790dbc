r"""The re-weighted minimisation of Nie et al. (2014), Algorithm 2, as a reusable loop.

The problem is

.. math:: \min_{x \in C} f(x) + \sum_i h_i(g_i(x)),

with every :math:`h_i` concave. Each iteration takes the supergradients
:math:`d_i = h_i'(g_i(x))` at the current point and solves the weighted problem
:math:`\min_{x\in C} f(x) + \sum_i d_i g_i(x)`. Because a concave function lies below
its tangent, the objective never increases (Nie et al. 2014, Theorem 1 and sec. 3.2).

Here :math:`g_i(x) = r_i(x)^2` is a squared residual norm and
:math:`h(r^2) = \rho(r)` is a :class:`robustpca.losses.RobustLoss`, whose ``weights``
method returns the supergradient. The loop knows nothing about PCA: the caller passes
``solve_weighted(d) -> x`` (step 2) and ``residuals(x) -> r`` (the :math:`r_i`).

Example: an l2,1 (geometric-median) location estimate falls out with three lines::

    >>> import numpy as np
    >>> from robustpca.losses import L21Loss
    >>> from robustpca.solvers import minimize_reweighted
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [50.0, 50.0]])
    >>> res = minimize_reweighted(
    ...     lambda d: d @ X / d.sum(),               # weighted mean = step 2
    ...     lambda b: np.linalg.norm(X - b, axis=1),  # residual norms
    ...     L21Loss(epsilon=1e-12), np.ones(4), max_iter=500, tol=1e-12)
    >>> bool(np.linalg.norm(res.solution) < 1.0)     # the outlier barely moves it
    True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..losses import RobustLoss
from ._result import IterationState, StopReason, relative_change

__all__ = ["ReweightingResult", "minimize_reweighted", "stopping_test"]


@dataclass(frozen=True)
class ReweightingResult:
    """Outcome of :func:`minimize_reweighted`.

    Attributes
    ----------
    solution : object
        The last iterate ``x`` returned by ``solve_weighted``.
    residuals : ndarray
        Residual norms ``r_i`` at ``solution``.
    weights : ndarray
        Weights ``d_i = h'(r_i^2)`` at ``solution`` (the weights of the KKT condition of
        the robust problem; at convergence they equal those that produced ``solution``).
    used_weights : ndarray
        Weights of the last weighted solve (``solution`` is optimal for them).
    objective : ndarray
        ``f(x) + sum_i rho(r_i)`` after each iteration.
    n_iter, converged, stop_reason
        As in :class:`robustpca.solvers.SolverResult`.
    """

    solution: Any
    residuals: np.ndarray
    weights: np.ndarray
    used_weights: np.ndarray
    objective: np.ndarray
    n_iter: int
    converged: bool
    stop_reason: str


def stopping_test(history: list[float], tol: float) -> str | None:
    """The stop of the re-weighting loops after an iteration with objective ``history[-1]``.

    ``StopReason.EXACT`` at a zero objective (every residual zero: no weight is defined
    beyond it), ``StopReason.TOLERANCE`` when the relative change from the previous
    iteration is at most ``tol``, else ``None``. Shared by :func:`minimize_reweighted` and
    the chunked (Dask) loop, :func:`robustpca.solvers.chunked.minimize_reweighted_chunked`.
    """
    value = history[-1]
    if value == 0.0:
        return StopReason.EXACT
    if len(history) > 1 and relative_change(history[-2], value) <= tol:
        return StopReason.TOLERANCE
    return None


def minimize_reweighted(
    solve_weighted: Callable[[np.ndarray], Any],
    residuals: Callable[[Any], np.ndarray],
    loss: RobustLoss,
    initial_weights: np.ndarray,
    *,
    smooth_objective: Callable[[Any], float] | None = None,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    state_view: Callable[[Any], tuple[Callable | None, Callable | None]] | None = None,
) -> ReweightingResult:
    """Minimise ``f(x) + sum_i rho(r_i(x))`` by iterative re-weighting (Algorithm 2).

    Parameters
    ----------
    solve_weighted : callable
        ``solve_weighted(d) -> x``: the optimal ``x`` of ``f(x) + sum_i d_i r_i(x)**2``.
    residuals : callable
        ``residuals(x) -> r``: the residual norms at ``x`` (1-D, non-negative).
    loss : RobustLoss
        Gives ``rho`` (objective) and ``weights`` (supergradients ``h'(r**2)``).
    initial_weights : ndarray
        Weights for the first weighted solve. Algorithm 1 starts from ``D = I`` (ones),
        so its first pass is ordinary least squares / PCA.
    smooth_objective : callable, optional
        ``f(x)``; zero if omitted.
    max_iter : int
        Maximum number of weighted solves.
    tol : float
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable, optional
        ``callback(iteration, state)`` after each iteration; returning ``True`` stops.
    state_view : callable, optional
        ``state_view(x) -> (components_fn, mean_fn)``: lazy accessors for the state.

    Returns
    -------
    ReweightingResult
    """
    weights = np.asarray(initial_weights, dtype=float)
    history: list[float] = []
    stop_reason = StopReason.MAX_ITER
    converged = False
    x = r = used = None
    for iteration in range(1, max_iter + 1):
        if not np.any(weights > 0):
            stop_reason, converged = StopReason.ALL_CAPPED, True
            break
        used = weights
        x = solve_weighted(weights)
        r = residuals(x)
        concrete = loss.resolve(r)
        value = float(concrete.rho(r).sum())
        if smooth_objective is not None:
            value += float(smooth_objective(x))
        history.append(value)
        weights = concrete.weights(r)
        if callback is not None:
            comps, mean = state_view(x) if state_view is not None else (None, None)
            state = IterationState(iteration, value, used, comps, mean)
            if callback(iteration, state):
                stop_reason = StopReason.CALLBACK
                break
        stop = stopping_test(history, tol)
        if stop is not None:
            stop_reason, converged = stop, True
            break
    if x is None:  # every weight was zero before the first solve
        raise ValueError("initial_weights must contain at least one positive weight.")
    return ReweightingResult(
        solution=x,
        residuals=r,
        weights=weights,
        used_weights=used,
        objective=np.asarray(history),
        n_iter=len(history),
        converged=converged,
        stop_reason=stop_reason,
    )
