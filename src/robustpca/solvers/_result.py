"""Result and per-iteration state objects shared by the solvers.

A solver returns a result whose shape never changes and which says in words why it
stopped (the pattern of pymanopt's optimisers). Solvers never validate input and never
warn: the estimators do that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

__all__ = [
    "IterationState",
    "LoopOutcome",
    "LoopSummary",
    "SolverResult",
    "StopReason",
    "relative_change",
    "renumbered",
]


class StopReason:
    """The named stopping criteria used by every solver."""

    TOLERANCE = "relative objective change below tol"
    SUBSPACE = "subspace change (on the projector) below tol"
    MAX_ITER = "max_iter reached"
    CALLBACK = "stopped by callback"
    EXACT = "every row the fit weighs is reconstructed exactly (its residual is rounding)"
    ALL_CAPPED = "every sample has zero weight (all residuals beyond the cap)"
    FIXED_POINT = "iterate unchanged (fixed point)"
    CLOSED_FORM = "closed-form solution"
    PRIMAL_RESIDUAL = "relative primal residual ||X - L - S||_F / ||X||_F below tol"
    OBJECTIVE_ROSE = (
        "the objective rose beyond rounding (a weighted step lost its precision: weights "
        "too far apart without smoothing, or an observed fit unidentified where the fills "
        "of the gaps grow without bound): the iterate before it is returned"
    )


@dataclass
class IterationState:
    """What a ``callback(iteration, state)`` sees after each iteration.

    ``components`` and ``mean`` are computed on access only, because in the Gram route
    they cost a pass over the data that the iteration itself does not need.

    Parameters
    ----------
    iteration : int
        The iteration just completed.
    objective : float
        The objective after it.
    weights : ndarray of shape (n_samples,) or None
        The current per-sample weights (None for methods without weights).
    _components : callable or None, default=None
        ``_components()`` returns the current (n_components, n_features) basis.
    _mean : callable or None, default=None
        ``_mean()`` returns the current mean in feature space.
    """

    iteration: int
    objective: float
    weights: np.ndarray | None
    _components: Callable[[], np.ndarray] | None = field(default=None, repr=False)
    _mean: Callable[[], np.ndarray] | None = field(default=None, repr=False)

    @property
    def components(self) -> np.ndarray | None:
        """Current (n_components, n_features) orthonormal basis."""
        return None if self._components is None else self._components()

    @property
    def mean(self) -> np.ndarray | None:
        """Current mean (offset) in feature space."""
        return None if self._mean is None else self._mean()

    @classmethod
    def from_view(
        cls,
        iteration: int,
        objective: float,
        weights: np.ndarray | None,
        iterate: Any,
        state_view: Callable[[Any], tuple[Callable | None, Callable | None]] | None,
    ) -> IterationState:
        """The state of ``iterate`` after ``iteration``, as ``state_view`` shows it.

        Parameters
        ----------
        iteration : int
            The iteration just completed.
        objective : float
            The objective after it.
        weights : ndarray of shape (n_samples,) or None
            The current per-sample weights.
        iterate : object
            The solver's current iterate, passed to ``state_view``.
        state_view : callable or None
            ``state_view(iterate) -> (components_fn, mean_fn)`` gives the lazy components
            and mean; None gives a state with neither.

        Returns
        -------
        IterationState
        """
        components, mean = state_view(iterate) if state_view is not None else (None, None)
        return cls(iteration, objective, weights, components, mean)


class LoopOutcome(Protocol):
    """What an iterative loop reports besides its solution.

    The objective after each iteration and why the loop stopped: the attributes shared
    by the loops' own results (e.g.
    :class:`~robustpca.solvers.reweighting_progress.ReweightingResult`), from which
    :meth:`SolverResult.from_loop` takes them.
    """

    @property
    def objective(self) -> np.ndarray: ...

    @property
    def n_iter(self) -> int: ...

    @property
    def converged(self) -> bool: ...

    @property
    def stop_reason(self) -> str: ...


@dataclass(frozen=True)
class LoopSummary:
    """A :class:`LoopOutcome` of a loop written inline in its solver (the convex and
    known-rank solvers): how many iterations, whether and why it stopped, and the
    objective after each iteration."""

    n_iter: int
    converged: bool
    stop_reason: str
    objective: np.ndarray


@dataclass(frozen=True)
class SolverResult:
    """Outcome of a subspace solver.

    Attributes
    ----------
    components : ndarray of shape (n_components, n_features)
        Orthonormal rows spanning the fitted subspace.
    mean : ndarray of shape (n_features,)
        Fitted offset ``b``.
    weights : ndarray of shape (n_samples,) or None
        Final per-sample weights of reweighting methods.
    n_iter : int
        Iterations run.
    converged : bool
        Whether a convergence criterion (not the iteration cap or a callback) stopped it.
    stop_reason : str
        Why it stopped, in words (one of :class:`StopReason`).
    objective : ndarray
        Objective value after each iteration, in the paper's objective.
    info : dict
        Solver-specific extras (e.g. ``explained_variance``).
    """

    components: np.ndarray
    mean: np.ndarray
    weights: np.ndarray | None
    n_iter: int
    converged: bool
    stop_reason: str
    objective: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_loop(
        cls,
        loop: LoopOutcome,
        *,
        components: np.ndarray,
        mean: np.ndarray,
        weights: np.ndarray | None = None,
        info: dict[str, Any] | None = None,
    ) -> SolverResult:
        """The result of a solver whose iterations ran in ``loop``.

        Parameters
        ----------
        loop : LoopOutcome
            Gives ``n_iter``, ``converged``, ``stop_reason`` and ``objective``.
        components : ndarray of shape (n_components, n_features)
            The fitted components, as rows.
        mean : ndarray of shape (n_features,)
            The fitted offset ``b``.
        weights : ndarray of shape (n_samples,) or None, default=None
            Final per-sample weights of reweighting methods.
        info : dict or None, default=None
            Solver-specific extras; None is an empty dict.

        Returns
        -------
        SolverResult
        """
        return cls(
            components=components,
            mean=mean,
            weights=weights,
            n_iter=loop.n_iter,
            converged=loop.converged,
            stop_reason=loop.stop_reason,
            objective=loop.objective,
            info={} if info is None else info,
        )


def relative_change(previous: float, current: float) -> float:
    """``|previous - current| / max(|previous|, tiny)``: the objective stopping measure."""
    scale = max(abs(previous), np.finfo(float).tiny)
    return abs(previous - current) / scale


def renumbered(callback, before: int):
    """``callback`` seeing iteration ``before + i`` for an inner loop's iteration ``i``
    (None for None): a loop run several times (PCA-GM's centring passes, PCA-L1's EM
    completions) numbers its iterations on for the user's callback."""
    if callback is None:
        return None
    return lambda iteration, state: callback(before + iteration, state)
