r"""RPCA-OM: robust PCA with the mean optimised jointly (Nie et al. 2014, Algorithm 1).

.. math::
    \min_{b,\; U^\top U = I} \sum_{i=1}^n \rho\bigl(\lVert (I - UU^\top)(x_i - b)
    \rVert_2\bigr) \qquad \text{(problem 13 for } \rho(r) = \sqrt{r^2+\epsilon}\text{)}

solved by :func:`~robustpca.solvers.minimize_reweighted` whose weighted step is the
closed form of problem (14): ``b`` = weighted mean, ``U`` = top eigenvectors of the
weighted scatter (:class:`~robustpca.linalg.WeightedPCAProblem`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ..linalg import WeightedPCAProblem
from ..losses import RobustLoss
from ..robust_scale import variance_count
from ._result import IterationState, SolverResult, StopReason
from .reweighting import EXACT_RESIDUAL_RTOL, minimize_reweighted_pca
from .reweighting_progress import returned_residuals

__all__ = ["solve_optimal_mean_pca", "solve_weighted_pca"]


def solve_weighted_pca(
    X: np.ndarray | None,
    n_components: int,
    weights: np.ndarray,
    *,
    rng: np.random.Generator,
    route: str = "auto",
    problem=None,
) -> SolverResult:
    r"""Weighted PCA in closed form: problem (14) of Nie et al. (2014) for fixed weights.

    ``mean`` is :math:`X^\top d / 1^\top d` and ``components`` the top eigenvectors of
    :math:`\sum_i d_i (x_i - b)(x_i - b)^\top`. ``objective`` holds the single value
    :math:`\sum_i d_i \lVert (I-UU^\top)(x_i-b)\rVert^2`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or None
        The data; None where ``problem`` is given.
    n_components : int
        Number of components.
    weights : ndarray of shape (n_samples,)
        The sample weights :math:`d_i \ge 0`.
    rng : numpy.random.Generator
        Completes the basis where the data have fewer directions of variance.
    route : {'auto', 'gram', 'scatter'}, default='auto'
        See :class:`~robustpca.linalg.WeightedPCAProblem`.
    problem : WeightedPCAProblem or None, default=None
        The subproblem of ``X`` already built (e.g. an
        :class:`~robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem`); ``X`` and
        ``route`` are then ignored.

    Returns
    -------
    SolverResult
    """
    if problem is None:
        problem = WeightedPCAProblem(X, n_components, rng, route=route, reference_weights=weights)
    sub = problem.solve(weights, residuals=False)
    count = variance_count(np.asarray(weights, dtype=np.float64))
    return _weighted_pca_result(
        sub.basis().T, sub.mean(), sub.eigvals, sub.total_scatter, float(weights.sum()), count
    )


def variance_dof(total_weight: float, count: float | None = None) -> float:
    """The divisor of a weighted scatter: :math:`W (n - 1) / n` for the count ``n`` of
    :func:`~robustpca.robust_scale.variance_count` (``W - 1`` for whole weights, with
    unit weights scikit-learn's ``n - 1``; ``count=None`` is ``W``), or ``W`` itself
    where ``n <= 1``."""
    total_weight = float(total_weight)
    count = total_weight if count is None else float(count)
    return total_weight * ((count - 1.0) / count) if count > 1.0 else total_weight


def _weighted_pca_result(
    components: np.ndarray,
    mean: np.ndarray,
    eigvals: np.ndarray,
    total_scatter: float,
    total_weight: float,
    count: float | None = None,
) -> SolverResult:
    """The closed-form result of weighted PCA from the top eigenvalues of its scatter.

    Also the dask route's (:func:`~robustpca.solvers.chunked_pca.solve_weighted_pca_chunked`).
    ``eigvals`` may have fewer than ``k = len(components)`` entries (rank-deficient data).
    """
    k = components.shape[0]
    # no residual pass: sum_i d_i r_i^2 = trace(S) - (sum of the top-k eigenvalues)
    objective = max(total_scatter - float(eigvals[:k].sum()), 0.0)
    dof = variance_dof(total_weight, count)
    explained = np.zeros(k)
    explained[: eigvals.size] = eigvals[:k]
    return SolverResult(
        components=components,
        mean=mean,
        weights=None,
        n_iter=1,
        converged=True,
        stop_reason=StopReason.CLOSED_FORM,
        objective=np.array([objective]),
        info={"explained_variance": explained / dof, "total_variance": total_scatter / dof},
    )


def solve_optimal_mean_pca(
    X: np.ndarray | None,
    n_components: int,
    loss: RobustLoss,
    *,
    rng: np.random.Generator,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    route: str = "auto",
    initial_weights: np.ndarray | None = None,
    problem: Any = None,
) -> SolverResult:
    """Solve problem (13) of Nie et al. (2014) (or its ``loss`` variant) by Algorithm 1.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or None
        None where ``problem`` is given.
    n_components : int
    loss : RobustLoss
        :class:`~robustpca.losses.L21Loss` gives RPCA-OM as published.
    rng : numpy.random.Generator
    max_iter, tol, callback
        See :func:`~robustpca.solvers.minimize_reweighted`.
    route : {'auto', 'gram', 'scatter'}
        See :class:`~robustpca.linalg.WeightedPCAProblem`.
    initial_weights : ndarray, optional
        Ones by default (``D = I`` in Algorithm 1).
    problem : WeightedPCAProblem, optional
        The subproblem of ``X`` already built (e.g. to read
        :meth:`~robustpca.linalg.WeightedPCAProblem.mean_sq_distance` for the loss's
        epsilon first), or another with its interface (the Gram route of
        :mod:`~robustpca.solvers.chunked_gram_pca`); ``route`` is then ignored.

    Returns
    -------
    SolverResult
        ``weights`` are the :math:`d_{ii}` at the returned solution.
    """
    if problem is None:
        problem = WeightedPCAProblem(cast(np.ndarray, X), n_components, rng, route=route)
    w0 = np.ones(problem.n_samples) if initial_weights is None else initial_weights
    # an exact fit stops there: without smoothing it would be re-weighted by its rounding
    exact = EXACT_RESIDUAL_RTOL * float(np.sqrt(problem.mean_sq_distance()))
    res = minimize_reweighted_pca(
        problem,
        loss,
        w0,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        exact_below=exact,
    )
    sub = res.solution
    residuals, weights = returned_residuals(res, loss)
    return SolverResult.from_loop(
        res,
        components=sub.basis().T,
        mean=sub.mean(),
        weights=weights,
        info={"residuals": residuals},
    )
