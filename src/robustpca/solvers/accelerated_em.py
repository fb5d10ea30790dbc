r"""SQUAREM acceleration of the re-weighted EM over missing entries.

With missing entries, each iteration of :func:`~robustpca.solvers.minimize_reweighted_pca`
is one EM step (:mod:`robustpca.solvers.missing`): weighted PCA on the current
completion, then the gaps refilled from the new subspace. EM converges linearly, at the
rate of the fraction of missing information, which is close to 1 on small tables with
a flat direction (rrcov's wood with a tenth of its cells missing), where the plain loop
runs to ``max_iter`` (``docs/design-notes/missing-entries.md``).

SQUAREM (Varadhan & Roland 2008, scheme S3) extrapolates the fixed-point map ``F`` of the
gap values ``g``. From ``g_0``, two plain steps give ``g_1 = F(g_0)`` and ``g_2 = F(g_1)``;
with :math:`r = g_1 - g_0`, :math:`v = g_2 - 2 g_1 + g_0` and the step length
:math:`\alpha = -\lVert r\rVert / \lVert v\rVert`, clamped to ``[-step_max, -1]``,

.. math:: g' = g_0 - 2\alpha r + \alpha^2 v ,

and one more step from ``g'`` (with the weights of ``g_2``) gives the next iterate. At
:math:`\alpha = -1`, ``g'`` is ``g_2`` itself. The objective keeps the loop monotone: an
extrapolated iterate whose objective is above that of ``g_2`` is discarded, and the loop
goes on from ``g_2``. ``step_max`` starts at 1 and grows fourfold each time the step
length reaches it, and shrinks fourfold (to 1 at least) on a discarded step (the
defaults of the R package ``SQUAREM``).

Every kept iterate is a plain step (a weighted PCA on a completion, the gaps refilled
from its subspace), so the fixed points are EM's and the stopping rule is the loop's
(:func:`~robustpca.solvers.reweighting_progress.stopping_test`). A plain step whose
objective rises stops the loop at the last kept iterate (``StopReason.OBJECTIVE_ROSE``):
on data where EM has no minimiser its fills grow without bound, and once a row's
observed coordinates no longer identify its scores (:func:`~robustpca.solvers.missing.
observed_fit` drops the direction), the objective jumps up. ``n_iter`` counts the kept
iterates; a discarded extrapolation costs one more weighted solve than it counts.

References
----------
R. Varadhan, C. Roland, "Simple and globally convergent methods for accelerating the
convergence of any EM algorithm", Scandinavian Journal of Statistics 35(2), 335-353,
2008.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..losses import RobustLoss
from ._result import IterationState, StopReason
from .reweighting_progress import ReweightingProgress, ReweightingResult, rose

__all__ = ["minimize_reweighted_squarem"]

#: The growth of the largest step length each time it is reached (R's ``SQUAREM``).
_STEP_GROWTH = 4.0
#: A step length within this of -1 extrapolates nothing (R's ``SQUAREM``: 0.01).
_SAME_STEP = 0.01


def _norm(x: np.ndarray) -> float:
    """The 2-norm, scaled by the largest entry and without a BLAS call.

    Scaled, so that data of any magnitude neither overflow nor underflow (``x * x`` is
    ``inf`` beyond about 1e154) and ``c x`` gives exactly ``|c|`` times the norm for a
    power of two ``c`` (``tests/test_equivariance.py``). Without BLAS, because NumPy's
    ``dot`` woke NumPy's BLAS threads in a loop whose products are SciPy's, and slowed
    each weighted solve ("One BLAS library per loop" in
    :mod:`robustpca.linalg.blocked`)."""
    top = float(np.max(np.abs(x), initial=0.0))
    if top == 0.0 or not np.isfinite(top):
        return top
    y = x / top
    return top * float(np.sqrt(np.sum(y * y)))


class _Iterate:
    """One weighted solve: the subspace, its residuals, objective and next weights."""

    def __init__(self, problem, residuals, loss: RobustLoss, weights: np.ndarray, gaps):
        self.used = weights
        self.solution = problem.solve(weights)
        self.residuals = residuals(self.solution)  # completes problem.X from it
        concrete = loss.resolve(self.residuals)
        self.value = float(concrete.rho(self.residuals).sum())
        self.weights = concrete.weights(self.residuals)
        self.gaps = problem.X.take(gaps)


def minimize_reweighted_squarem(
    problem: Any,
    residuals: Callable[[Any], np.ndarray],
    loss: RobustLoss,
    initial_weights: np.ndarray,
    *,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    state_view: Callable[[Any], tuple[Callable | None, Callable | None]] | None = None,
) -> ReweightingResult:
    """:func:`~robustpca.solvers.minimize_reweighted` on a
    :class:`~robustpca.solvers.missing.MissingPCAProblem`, accelerated by SQUAREM
    (module docstring).

    Parameters
    ----------
    problem : MissingPCAProblem
        Holds the completion ``X`` and the mask ``missing``; ``problem.solve(d)`` is the
        weighted step on the completion.
    residuals : callable
        ``residuals(subspace) -> r``; completes ``problem.X`` from ``subspace``.
    loss, initial_weights, max_iter, tol, callback, state_view
        As in :func:`~robustpca.solvers.minimize_reweighted`; ``max_iter`` bounds the
        kept iterates.

    Returns
    -------
    ReweightingResult
    """
    progress = ReweightingProgress(tol, callback)
    # flat indices of the gaps: a boolean mask scans every entry, at every gather
    gaps = np.flatnonzero(problem.missing)
    weights = np.asarray(initial_weights, dtype=float)
    step_max = 1.0
    kept: _Iterate | None = None

    def keep(it: _Iterate) -> bool:
        """Record a kept iterate; whether the loop stops there. A plain step whose
        objective rose (EM's never does; the observed fit's pseudo-inverse can, where it
        drops a direction that the fills grew along) stops the loop at the last kept
        iterate, its completion restored."""
        nonlocal kept
        if kept is not None and rose(kept.value, it.value):
            residuals(kept.solution)
            progress.stop(StopReason.OBJECTIVE_ROSE, converged=False)
            return True
        kept = it
        progress.record(it.value)
        state = partial(
            IterationState.from_view, progress.n_iter, it.value, it.used, it.solution, state_view
        )
        return progress.should_stop(progress.n_iter, state) or progress.n_iter >= max_iter

    def plain(w: np.ndarray) -> _Iterate | None:
        if not np.any(w > 0):
            progress.stop(StopReason.ALL_CAPPED)
            return None
        return _Iterate(problem, residuals, loss, w, gaps)

    while progress.n_iter < max_iter:
        start = problem.X.take(gaps)
        first = plain(weights)
        if first is None or keep(first):
            break
        second = plain(first.weights)
        if second is None or keep(second):
            break
        weights = second.weights
        r = first.gaps - start
        v = second.gaps - 2.0 * first.gaps + start
        norm_v = _norm(v)
        if norm_v == 0.0:
            continue
        alpha = max(-step_max, min(-1.0, -_norm(r) / norm_v))
        if alpha > -1.0 - _SAME_STEP:  # g' = g_2: the next cycle starts there
            if alpha == -step_max:
                step_max *= _STEP_GROWTH
            continue
        problem.X.put(gaps, start - 2.0 * alpha * r + alpha * alpha * v)
        jump = plain(weights)
        if jump is None:  # every weight zero: stop at g_2, its completion restored
            problem.X.put(gaps, second.gaps)
            break
        if jump.value <= second.value:
            if alpha == -step_max:
                step_max *= _STEP_GROWTH
            weights = jump.weights
            if keep(jump):
                break
        else:  # discarded: back to g_2, with a shorter largest step
            problem.X.put(gaps, second.gaps)
            step_max = max(1.0, step_max / _STEP_GROWTH)
    if kept is None:  # every weight was zero before the first solve
        raise ValueError("initial_weights must contain at least one positive weight.")
    return ReweightingResult(
        solution=kept.solution,
        residuals=kept.residuals,
        weights=kept.weights,
        used_weights=kept.used,
        **progress.outcome(),
    )
