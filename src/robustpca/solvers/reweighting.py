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
from functools import partial
from typing import Any, cast

import numpy as np

from ..losses import RobustLoss
from ._result import IterationState, StopReason
from .accelerated_em import minimize_reweighted_squarem
from .reweighting_progress import ReweightingProgress, ReweightingResult, rose, stopping_test

__all__ = [
    "ReweightingProgress",
    "ReweightingResult",
    "minimize_reweighted",
    "minimize_reweighted_pca",
    "stopping_test",
]


#: Residuals at most this share of the data's largest row norm are rounding: a subspace
#: from an eigensolver carries about ``sqrt(eps)`` of it (``exact_below``).
EXACT_RESIDUAL_RTOL = 4.0 * float(np.sqrt(np.finfo(np.float64).eps))


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
    monotone: bool = False,
    exact_below: float | None = None,
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
    monotone : bool, default=False
        The objective cannot rise (a majorise-minimise loop with exact steps): an
        iteration whose objective rises beyond rounding stops the loop at the one before
        (``StopReason.OBJECTIVE_ROSE``; ``residuals`` is evaluated there again, for the
        side effects of the EM over missing entries).
    exact_below : float, optional
        A residual at most this is rounding (about ``eps`` times the data's scale): when
        every row of positive weight has one, the data are fitted exactly and the loop
        stops (``StopReason.EXACT``), where a loss without smoothing would otherwise
        re-weight rows by their rounding.

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
        last = (x, r, used, weights)
        used = weights
        x = solve_weighted(weights)
        r = residuals(x)
        concrete = loss.resolve(r)
        value = float(concrete.rho(r).sum())
        if smooth_objective is not None:
            value += float(smooth_objective(x))
        if monotone and progress.history and rose(progress.history[-1], value):
            x, r, used, weights = last
            residuals(x)
            progress.stop(StopReason.OBJECTIVE_ROSE, converged=False)
            break
        progress.record(value)
        weights = concrete.weights(r)
        state = partial(IterationState.from_view, iteration, value, used, x, state_view)
        if progress.should_stop(iteration, state):
            break
        # every row the next step weighs is fitted exactly: a fixed point, where further
        # steps would weigh rounding alone (a capped loss may weigh other rows next)
        positive = weights > 0
        if exact_below is not None and np.any(positive) and np.all(r[positive] <= exact_below):
            progress.stop(StopReason.EXACT)
            break
    if x is None:  # every weight was zero before the first solve
        raise ValueError("initial_weights must contain at least one positive weight.")
    r, used = cast(np.ndarray, r), cast(np.ndarray, used)  # set with x
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
    accelerate: bool = True,
    exact_below: float | None = None,
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
    loss, initial_weights, max_iter, tol, callback, exact_below
        As in :func:`minimize_reweighted` (``exact_below`` on complete data).
    residuals : callable, optional
        ``residuals(subspace) -> r``; ``subspace.residuals()`` by default.
    fixed_mean : ndarray, optional
        The centre the callback's ``state.mean`` reports (a copy) when the subproblem
        keeps a fixed one (PCA-GM); ``subspace.mean()`` otherwise.
    accelerate : bool, default=True
        On a :class:`~robustpca.solvers.missing.MissingPCAProblem` (the EM over missing
        entries), extrapolate the gap values by SQUAREM
        (:func:`~robustpca.solvers.accelerated_em.minimize_reweighted_squarem`), where
        the loss has no parameter estimated from the residuals: its objective, which
        decides whether an extrapolation is kept, must be one function from one
        iteration to the next. A loss re-estimated at every iteration (HQ-PCA's kernel
        width, RWL-AN's ``gamma``, Huber's median cutoff) keeps the plain loop.

    Returns
    -------
    ReweightingResult
        ``solution`` is the last weighted subspace.
    """

    def state_view(sub: Any) -> tuple[Callable, Callable]:
        mean = sub.mean if fixed_mean is None else fixed_mean.copy
        return (lambda: sub.basis().T), mean

    residuals = (lambda sub: sub.residuals()) if residuals is None else residuals
    em = getattr(problem, "missing", None) is not None and not loss.refitted
    if accelerate and em:
        return minimize_reweighted_squarem(
            problem,
            residuals,
            loss,
            initial_weights,
            max_iter=max_iter,
            tol=tol,
            callback=callback,
            state_view=state_view,
        )
    return minimize_reweighted(
        problem.solve,
        residuals,
        loss,
        initial_weights,
        monotone=not loss.refitted,  # exact majorise-minimise steps (module notes)
        exact_below=None if em else exact_below,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=state_view,
    )
