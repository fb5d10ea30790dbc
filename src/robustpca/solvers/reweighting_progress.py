"""The bookkeeping of the re-weighting loops: their result, history and stopping test.

Shared by :func:`~robustpca.solvers.minimize_reweighted`, its SQUAREM-accelerated form
over missing entries (:mod:`robustpca.solvers.accelerated_em`) and the chunked (Dask)
loops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._result import IterationState, StopReason, relative_change

__all__ = ["ReweightingProgress", "ReweightingResult", "returned_residuals", "stopping_test"]


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


def returned_residuals(res: ReweightingResult, loss) -> tuple[np.ndarray, np.ndarray]:
    """The residuals and weights of the fit a solver returns: the loop's, or, where its
    last subspace completed its basis (fewer directions with variance than components),
    those of the completed basis (``completed_residuals`` of
    :class:`~robustpca.linalg.WeightedSubspace`), with the ``loss``'s weights at them.

    Parameters
    ----------
    res : ReweightingResult
        The loop's result.
    loss : RobustLoss
        The loop's loss; it weighs the completed basis's residuals.

    Returns
    -------
    residuals, weights : ndarray of shape (n_samples,)
    """
    completed = getattr(res.solution, "completed_residuals", lambda: None)()
    if completed is None:
        return res.residuals, res.weights
    return completed, loss.resolve(completed).weights(completed)


#: A monotone loop's objective may exceed the last one by this much (relative) in
#: rounding; beyond it, the loop stops at the last iterate (``StopReason.OBJECTIVE_ROSE``).
RISE_RTOL = 1e-12


def rose(last: float, value: float) -> bool:
    """Whether ``value`` exceeds ``last`` beyond :data:`RISE_RTOL` (relative)."""
    return value > last + RISE_RTOL * abs(last)


def stopping_test(history: list[float], tol: float) -> str | None:
    """The stop of the re-weighting loops after an iteration with objective ``history[-1]``.

    Shared by :func:`minimize_reweighted` and the chunked (Dask) loops, through
    :class:`ReweightingProgress`.

    Parameters
    ----------
    history : list of float
        The objective after each iteration so far.
    tol : float
        The largest relative change from the previous iteration that stops the loop.

    Returns
    -------
    str or None
        ``StopReason.EXACT`` at a zero objective (every residual zero: no weight is
        defined beyond it), ``StopReason.TOLERANCE`` when the relative change from the
        previous iteration is at most ``tol``, else ``None``.
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
    history : list of float, default=[]
        The objective after each iteration (:meth:`record`).
    stop_reason : str, default=StopReason.MAX_ITER
        Why the loop stopped (:meth:`stop`); the default holds until a stop.
    converged : bool, default=False
        Whether the stop counts as convergence (:meth:`stop`).
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
        """Append the objective of the iteration just run.

        Parameters
        ----------
        value : float
            The objective.
        """
        self.history.append(value)

    def stop(self, reason: str, converged: bool = True) -> None:
        """Stop for ``reason``.

        Parameters
        ----------
        reason : str
            A :class:`StopReason`.
        converged : bool, default=True
            Whether this stop counts as convergence.
        """
        self.stop_reason, self.converged = reason, converged

    def should_stop(self, iteration: int, state: Callable[[], IterationState]) -> bool:
        """Whether the loop stops after ``iteration`` (its objective recorded).

        Parameters
        ----------
        iteration : int
            The iteration just run, passed to the callback.
        state : callable
            ``state()`` builds the :class:`IterationState` the callback sees; it is called
            only with a callback.
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
