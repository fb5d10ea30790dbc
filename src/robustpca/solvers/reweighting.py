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
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from ..losses import RobustLoss
from ._result import IterationState, StopReason, relative_change

__all__ = [
    "ReweightingProgress",
    "ReweightingResult",
    "minimize_reweighted",
    "minimize_reweighted_pca",
    "stopping_test",
]


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
    the chunked (Dask) loops, through :class:`ReweightingProgress`.
    """
    value = history[-1]
    if value == 0.0:
        return StopReason.EXACT
    if len(history) > 1 and relative_change(history[-2], value) <= tol:
        return StopReason.TOLERANCE
    return None


@dataclass
class ReweightingProgress:
    """The objective history of a re-weighting loop and why it stopped.

    The bookkeeping shared by :func:`minimize_reweighted` and the chunked (Dask) loops:
    after each iteration :meth:`record` its objective and ask :meth:`should_stop`, which
    gives ``callback`` its say first and then applies :func:`stopping_test`. The
    attributes ``objective``, ``n_iter``, ``converged`` and ``stop_reason`` are those of
    the loop's result (:meth:`outcome`; :meth:`SolverResult.from_loop
    <robustpca.solvers.SolverResult.from_loop>` reads them from here directly).

    Parameters
    ----------
    tol : float
        The relative objective change at which :func:`stopping_test` stops.
    callback : callable, optional
        ``callback(iteration, state)`` after each iteration; returning ``True`` stops.
    """

    tol: float
    callback: Callable[[int, IterationState], bool | None] | None = None
    history: list[float] = field(default_factory=list)
    stop_reason: str = StopReason.MAX_ITER
    converged: bool = False

    @property
    def objective(self) -> np.ndarray:
        """The objective after each iteration."""
        return np.asarray(self.history)

    @property
    def n_iter(self) -> int:
        """Iterations recorded."""
        return len(self.history)

    def record(self, value: float) -> None:
        """Append the objective of the iteration just run."""
        self.history.append(value)

    def stop(self, reason: str, converged: bool = True) -> None:
        """Stop for ``reason`` (a :class:`StopReason`)."""
        self.stop_reason, self.converged = reason, converged

    def should_stop(self, iteration: int, state: Callable[[], IterationState]) -> bool:
        """Whether the loop stops after ``iteration`` (its objective recorded).

        ``state()`` builds what the callback sees; it is called only with a callback.
        """
        if self.callback is not None and self.callback(iteration, state()):
            self.stop(StopReason.CALLBACK, converged=False)
            return True
        reason = stopping_test(self.history, self.tol)
        if reason is not None:
            self.stop(reason)
            return True
        return False

    def outcome(self) -> dict[str, Any]:
        """``objective``, ``n_iter``, ``converged`` and ``stop_reason`` as keywords."""
        return {
            "objective": self.objective,
            "n_iter": self.n_iter,
            "converged": self.converged,
            "stop_reason": self.stop_reason,
        }


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
    progress = ReweightingProgress(tol, callback)
    x = r = used = None
    for iteration in range(1, max_iter + 1):
        if not np.any(weights > 0):
            progress.stop(StopReason.ALL_CAPPED)
            break
        used = weights
        x = solve_weighted(weights)
        r = residuals(x)
        concrete = loss.resolve(r)
        value = float(concrete.rho(r).sum())
        if smooth_objective is not None:
            value += float(smooth_objective(x))
        progress.record(value)
        weights = concrete.weights(r)
        state = partial(IterationState.from_view, iteration, value, used, x, state_view)
        if progress.should_stop(iteration, state):
            break
    if x is None:  # every weight was zero before the first solve
        raise ValueError("initial_weights must contain at least one positive weight.")
    return ReweightingResult(
        solution=x, residuals=r, weights=weights, used_weights=used, **progress.outcome()
    )


def minimize_reweighted_pca(
    problem: Any,
    loss: RobustLoss,
    initial_weights: np.ndarray,
    *,
    residuals: Callable[[Any], np.ndarray] | None = None,
    fixed_mean: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
) -> ReweightingResult:
    """:func:`minimize_reweighted` whose weighted step is problem (14), weighted PCA.

    The loop of RPCA-OM, PCA-GM, RWL-AN and PCA on missing entries, in memory or on the
    Gram matrix of the dask route.

    Parameters
    ----------
    problem : object
        The weighted-PCA subproblem (a :class:`~robustpca.linalg.WeightedPCAProblem`,
        :class:`~robustpca.solvers.missing.MissingPCAProblem` or
        :class:`~robustpca.solvers.chunked_gram.GramWeightedPCA`): ``problem.solve(d)``
        returns a subspace with ``basis()``, ``mean()`` and ``residuals()``.
    loss, initial_weights, max_iter, tol, callback
        As in :func:`minimize_reweighted`.
    residuals : callable, optional
        ``residuals(subspace) -> r``; ``subspace.residuals()`` by default.
    fixed_mean : ndarray, optional
        The centre the callback's ``state.mean`` reports (a copy) when the subproblem
        keeps a fixed one (PCA-GM); ``subspace.mean()`` otherwise.

    Returns
    -------
    ReweightingResult
        ``solution`` is the last weighted subspace.
    """

    def state_view(sub: Any) -> tuple[Callable, Callable]:
        mean = sub.mean if fixed_mean is None else fixed_mean.copy
        return (lambda: sub.basis().T), mean

    return minimize_reweighted(
        problem.solve,
        (lambda sub: sub.residuals()) if residuals is None else residuals,
        loss,
        initial_weights,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=state_view,
    )
