r"""The PCA methods of robustpca in passes over row chunks (the core of the dask route).

Each ``solve_*_chunked`` function is the pass-based twin of an in-memory solver and
replicates its iteration exactly: the same initialisation, weights, objective and
stopping rule (see :mod:`robustpca.solvers.chunked` for the passes and the loop). They
take a pass runner ``run`` and ``moments0``, the :class:`~robustpca.solvers.chunked.Moments`
of a first pass with unit weights (count, mean, centred ``d x d`` scatter), and return a
:class:`~robustpca.solvers.SolverResult`; the reweighting ones also return a
:class:`PerSample` telling how to get the training residuals and weights.

Passes per iteration (each pass is one ``dask.compute`` in the dask route):

* :func:`solve_weighted_pca_chunked` (PCA): none beyond the first pass.
* :func:`solve_optimal_mean_pca_chunked` (RPCA-OM): 1; 2 with ``epsilon=0``.
* :func:`solve_generalized_mean_chunked` and :func:`solve_generalized_mean_pca_chunked`
  (PCA-GM, both of its algorithms): 1; 2 with ``delta=0``.
* :func:`solve_l21_pca_chunked` (PCA-L21): 1.
* :func:`solve_r1_pca_chunked` (R1-PCA): 2 with the median cutoff, 1 with a fixed one.
* :func:`solve_adaptive_neighbors_pca_chunked` (RWL-AN): 2.

These ``*_chunked`` solvers work with the ``d x d`` scatter (tall data). For wide data
(``n_samples < n_features``, where the in-memory solvers switch to the ``n x n`` Gram
matrix) their ``solve_*_gram`` twins, which iterate in memory on the Gram matrix of one
column pass, are in :mod:`robustpca.solvers.chunked_gram_pca`.

References
----------
F. Nie, J. Yuan and H. Huang, "Optimal Mean Robust Principal Component Analysis", ICML
2014. F. Nie and H. Huang, "Non-Greedy L21-Norm Maximization for Principal Component
Analysis", arXiv:1603.08293. C. Ding, D. Zhou, X. He and H. Zha, "R1-PCA", ICML 2006.
J. Oh and N. Kwak, "Generalized mean for robust principal component analysis", Pattern
Recognition 54, 2016. R. Zhang and H. Tong, "Robust Principal Component Analysis with
Adaptive Neighbors", NeurIPS 2019.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import numpy as np

from ..linalg import complete_orthonormal, positive_eigen_mask, top_eigh
from ..losses import L2pLoss, RobustLoss
from ._result import SolverResult
from .adaptive_neighbors import RESIDUAL_RTOL, AdaptiveNeighborLoss
from .chunked import (
    ChunkedReweightingResult,
    Moments,
    by_sub_blocks,
    gather_stats,
    minimize_reweighted_chunked,
    reweight_pass,
    weights_are_local,
)
from .chunked_state import largest_distance_pass
from .chunked_steps import SubspaceIterationStep, SubspaceState, WeightedPCAStep
from .convex_maximization import l21_row_subgradients, maximize_linearized
from .l21_pca import l21_objective
from .optimal_mean import _weighted_pca_result
from .reweighting import EXACT_RESIDUAL_RTOL

__all__ = [
    "PerSample",
    "l21_pass",
    "solve_adaptive_neighbors_pca_chunked",
    "solve_generalized_mean_chunked",
    "solve_generalized_mean_pca_chunked",
    "solve_l21_pca_chunked",
    "solve_optimal_mean_pca_chunked",
    "solve_r1_pca_chunked",
    "solve_weighted_pca_chunked",
]


@dataclass(frozen=True)
class PerSample:
    """The training residual norms and weights of a chunked fit: in memory or a recipe.

    Parameters
    ----------
    step : WeightedPCAStep or SubspaceIterationStep
        The fit's step, which gives the residuals of a chunk at ``state``.
    state : object
        The final state of the loop (:class:`~robustpca.solvers.chunked_steps.SubspaceState`, or
        R1-PCA's basis).
    loss : RobustLoss
        The loss whose weights the fit used.
    residuals : ndarray of shape (n_samples,) or None, default=None
        The residual norms, when the loop brought them back (global weight rules); otherwise
        :func:`~robustpca.solvers.chunked.rows_block` recomputes them chunk by chunk.
    weights : ndarray of shape (n_samples,) or None, default=None
        The weights (already times ``weight_scale``), in memory as ``residuals``.
    weight_scale : float, default=1.0
        The factor of the loss weights that ``rows_block`` applies.
    """

    step: Any
    state: Any
    loss: RobustLoss
    residuals: np.ndarray | None = None
    weights: np.ndarray | None = None
    weight_scale: float = 1.0


def _location_state(moments: Moments) -> SubspaceState:
    d = moments.mean.shape[0]
    return SubspaceState(moments.mean, np.empty((d, 0)), np.empty(0))


def _reweighted_fit(
    run,
    step,
    loss,
    moments0,
    k,
    rng,
    *,
    initial=None,
    initial_weights=None,
    max_iter,
    tol,
    callback,
    fixed_mean=None,
    initial_value=1.0,
    exact_below=None,
):
    """The reweighting loop of problem (14) from the first-pass moments, then its basis.

    ``initial=None`` starts from uniform weights (``initial_value`` each), whose moments
    are those of the first pass; a global rule's callback then gets them as a vector.
    """
    if initial is None and initial_weights is None and not weights_are_local(loss):
        initial_weights = np.full(round(moments0.weight), initial_value)
    res = minimize_reweighted_chunked(
        run,
        step,
        loss,
        _location_state(moments0),
        initial if initial is not None else (lambda: moments0),
        initial_weights=initial_weights,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda s: (
            lambda: complete_orthonormal(s.basis, k, rng).T,
            lambda: (s.mean if fixed_mean is None else fixed_mean).copy(),
        ),
        exact_below=exact_below,
    )
    return res, complete_orthonormal(res.solution.basis, k, rng)


def _result(components, mean, res, info=None) -> SolverResult:
    return SolverResult.from_loop(
        res, components=components, mean=np.array(mean, dtype=np.float64, copy=True), info=info
    )


def solve_weighted_pca_chunked(moments: Moments, n_components: int, *, rng) -> SolverResult:
    """Weighted PCA (problem 14 for fixed weights) from the moments of one pass.

    ``objective`` is :math:`\\sum_i w_i r_i^2 = \\mathrm{tr}\\,S - \\sum_{j\\le k}
    \\lambda_j` (no second pass); ``info`` has ``explained_variance`` and
    ``total_variance`` with the denominator of :func:`~robustpca.solvers.solve_weighted_pca`.

    Parameters
    ----------
    moments : Moments
        The weighted count, mean and centred scatter of the data.
    n_components : int
        The number of components.
    rng : numpy.random.Generator
        Completes a rank-deficient basis.
    """
    state = WeightedPCAStep(n_components).solve(moments)
    components = complete_orthonormal(state.basis, n_components, rng).T
    trace = float(np.trace(cast(np.ndarray, moments.scatter)))  # the scatter is gathered
    return _weighted_pca_result(
        components, state.mean, state.eigvals, trace, moments.weight, moments.count
    )


def solve_optimal_mean_pca_chunked(
    run,
    moments0: Moments,
    n_components: int,
    loss: RobustLoss,
    *,
    rng,
    max_iter=100,
    tol=1e-6,
    callback=None,
) -> tuple[SolverResult, PerSample]:
    r"""RPCA-OM (Nie et al. 2014, Algorithm 1) in passes; ``moments0`` has unit weights.

    .. math::
        \min_{b,\; U^\top U = I} \sum_{i=1}^n \rho\bigl(\lVert (I - UU^\top)(x_i - b)
        \rVert_2\bigr) \qquad \text{(problem 13 for } \rho(r) = \sqrt{r^2+\epsilon}\text{)}

    Iteration ``t`` solves problem (14) from the moments of the weights ``d^{(t)}``; one
    pass at the new ``(b, U)`` gives the objective and, for a local ``loss``, the moments
    of ``d^{(t+1)}``: ``n_iter + 1`` passes in all. The iterates equal those of
    :func:`~robustpca.solvers.solve_optimal_mean_pca`.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    moments0 : Moments
        The moments of a first pass with unit weights.
    n_components : int
        The number of components.
    loss : RobustLoss
        :class:`~robustpca.losses.L21Loss` gives RPCA-OM as published.
    rng : numpy.random.Generator
        Completes a rank-deficient basis.
    max_iter : int, default=100
        The most iterations.
    tol : float, default=1e-6
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.losses import L21Loss
    >>> from robustpca.solvers import solve_optimal_mean_pca
    >>> from robustpca.solvers.chunked import NumpyPassRunner, moments_pass
    >>> X = np.random.default_rng(0).normal(size=(200, 6))
    >>> run = NumpyPassRunner(X, chunk_rows=64)
    >>> loss = L21Loss(epsilon=1e-9)
    >>> fit, _ = solve_optimal_mean_pca_chunked(
    ...     run, run(moments_pass)["moments"], 2, loss, rng=np.random.default_rng(0))
    >>> ref = solve_optimal_mean_pca(X, 2, loss, rng=np.random.default_rng(0))
    >>> fit.n_iter == ref.n_iter, run.n_passes == fit.n_iter + 1
    (True, True)
    >>> bool(np.allclose(fit.objective, ref.objective, rtol=1e-12))
    True
    """
    step = WeightedPCAStep(n_components)
    res, basis = _reweighted_fit(
        run,
        step,
        loss,
        moments0,
        n_components,
        rng,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        exact_below=EXACT_RESIDUAL_RTOL * moments0.rms_distance,  # as in memory
    )
    per_sample = PerSample(step, res.solution, res.loss, res.residuals, res.weights)
    return _result(basis.T, res.solution.mean, res), per_sample


def solve_generalized_mean_chunked(
    run, moments0: Moments, p: float, delta: float, *, max_iter=100, tol=1e-6
) -> ChunkedReweightingResult:
    """Oh & Kwak's Algorithm 1 (generalized sample mean) in passes of weighted means.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    moments0 : Moments
        The moments of a first pass with unit weights.
    p : float
        Power of the generalized mean, in (0, 1].
    delta : float
        The perturbation of eq. (13), squared data units.
    max_iter : int, default=100
        The most iterations.
    tol : float, default=1e-6
        Stop when the relative change of :math:`M_p` (eq. 9) is at most ``tol``.
    """
    step = WeightedPCAStep(0, location_only=True)
    return minimize_reweighted_chunked(
        run,
        step,
        L2pLoss(p=2.0 * p, epsilon=delta),
        _location_state(moments0),
        lambda: moments0,
        max_iter=max_iter,
        tol=tol * p,  # on M_p, as in memory (solvers.generalized_mean)
    )


def solve_generalized_mean_pca_chunked(
    run,
    moments0: Moments,
    n_components: int,
    p: float,
    *,
    mean,
    delta,
    rng,
    max_iter=100,
    tol=1e-6,
    callback=None,
) -> tuple[SolverResult, PerSample]:
    """PCA-GM (Oh & Kwak's Algorithm 2) about the fixed centre ``mean``, in passes.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    moments0 : Moments
        The moments of a first pass with unit weights.
    n_components : int
        The number of components.
    p : float
        Power in (0, 1]; ``p = 1`` is PCA about ``mean``.
    mean : array-like of shape (n_features,)
        The centre :math:`m_G`, e.g. from :func:`solve_generalized_mean_chunked`.
    delta : float
        The perturbation of eq. (13), squared data units.
    rng : numpy.random.Generator
        Completes a rank-deficient basis.
    max_iter : int, default=100
        The most iterations.
    tol : float, default=1e-6
        Stop when the relative change of :math:`M_p` is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops.
    """
    mean = np.asarray(mean, dtype=np.float64)
    step = WeightedPCAStep(n_components, center=mean)
    largest = run(largest_distance_pass, center=mean)["largest"].value  # one pass
    res, basis = _reweighted_fit(
        run,
        step,
        L2pLoss(p=2.0 * p, epsilon=delta),
        moments0,
        n_components,
        rng,
        max_iter=max_iter,
        tol=tol * p,  # on M_p, as in memory (solvers.generalized_mean)
        callback=callback,
        fixed_mean=mean,
        exact_below=EXACT_RESIDUAL_RTOL * largest,  # as in memory
    )
    weights = None if res.weights is None else res.weights / p
    per_sample = PerSample(step, res.solution, res.loss, res.residuals, weights, 1.0 / p)
    return _result(basis.T, mean, res), per_sample


def solve_adaptive_neighbors_pca_chunked(
    run,
    moments0: Moments,
    n_components: int,
    n_neighbors: int,
    *,
    n_samples: int,
    rng,
    init="uniform",
    max_iter=300,
    tol=1e-6,
    callback=None,
) -> tuple[SolverResult, PerSample]:
    """RWL-AN PCA (Zhang & Tong 2019, Algorithm 2) in passes, two per iteration.

    Algorithm 1 activates the ``n_neighbors`` smallest errors (a partition of all ``n``
    residuals), so every iteration brings the residual norms back (``8 n`` bytes), forms
    the weights in memory and gathers their moments in a second pass.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    moments0 : Moments
        The moments of a first pass with unit weights.
    n_components : int
        The number of components.
    n_neighbors : int
        ``k``, the number of activated samples, in ``[1, n_samples]``.
    n_samples : int
        The number of rows.
    rng : numpy.random.Generator
        Draws ``init='random'`` and completes rank-deficient bases.
    init : {"uniform", "random"}, default="uniform"
        Starting weights: ``1/n`` (the first subspace is PCA's), or a uniform draw on the
        simplex (Algorithm 2, step 1), whose moments take a pass.
    max_iter : int, default=300
        The most iterations.
    tol : float, default=1e-6
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops.

    Returns
    -------
    result : SolverResult
        ``info['gamma']`` is the :math:`\\gamma` of the final residuals.
    per_sample : PerSample
    """
    step = WeightedPCAStep(n_components, zero_rtol=RESIDUAL_RTOL)
    loss = AdaptiveNeighborLoss(n_neighbors=n_neighbors)
    initial, w0 = None, None
    if init == "random":
        w0 = rng.dirichlet(np.ones(n_samples))
        initial = partial(gather_stats, run, step, _location_state(moments0), w0)
    res, basis = _reweighted_fit(
        run,
        step,
        loss,
        moments0,
        n_components,
        rng,
        initial=initial,
        initial_weights=w0,
        initial_value=1.0 / n_samples,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
    )
    sol = res.solution
    r = res.residuals
    if basis.shape[1] != sol.basis.shape[1]:  # completed basis: residuals from it
        final = SubspaceState(sol.mean, basis, sol.eigvals)
        r = run(reweight_pass, step=step, state=final, mode="residuals")["residuals"].values
        sol = final
    result = _result(basis.T, sol.mean, res, info={"gamma": loss.gamma_for(r)})
    return result, PerSample(step, sol, loss, r, loss.weights(r))


def solve_r1_pca_chunked(
    run,
    moments0: Moments,
    n_components: int,
    loss: RobustLoss,
    *,
    rng,
    max_iter=100,
    tol=1e-6,
    callback=None,
) -> tuple[SolverResult, PerSample]:
    """R1-PCA (Ding et al. 2006): re-weighted subspace iteration from PCA, in passes.

    With the median cutoff (``threshold=None``) an iteration is a residual pass and a
    :math:`C_w U` pass; with a fixed cutoff, one pass.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    moments0 : Moments
        The moments of a first pass with unit weights.
    n_components : int
        The number of components.
    loss : RobustLoss
        :class:`~robustpca.losses.HuberLoss` with ``threshold=None`` is R1-PCA as
        published; its ``weights`` give :math:`w_i`.
    rng : numpy.random.Generator
        Completes a rank-deficient basis.
    max_iter : int, default=100
        The most iterations.
    tol : float, default=1e-6
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops.

    Returns
    -------
    result : SolverResult
        ``info['threshold']`` is the loss's cutoff (``None`` for a loss without one).
    per_sample : PerSample
    """
    mean, S = moments0.mean, cast(np.ndarray, moments0.scatter)  # gathered by the first pass
    vals, vecs = top_eigh(0.5 * (S + S.T), n_components)
    U0 = vecs[:, positive_eigen_mask(vals)]
    step = SubspaceIterationStep(mean)
    if weights_are_local(loss):
        out = run(reweight_pass, step=step, state=U0, loss=loss, mode="fused")
        initial, w1 = (lambda: out["stats"]), None
    else:  # Ding's first step re-weights the PCA residuals
        r0 = run(reweight_pass, step=step, state=U0, mode="residuals")["residuals"].values
        w1 = loss.resolve(r0).weights(r0)
        initial = partial(gather_stats, run, step, U0, w1)
    res = minimize_reweighted_chunked(
        run,
        step,
        loss,
        U0,
        initial,
        initial_weights=w1,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda U: (lambda: U.T, lambda: mean.copy()),
    )
    U = complete_orthonormal(res.solution, n_components, rng)
    info = {"threshold": getattr(res.loss, "threshold", None)}
    per_sample = PerSample(step, res.solution, res.loss, res.residuals, res.weights)
    return _result(U.T, mean, res, info=info), per_sample


@by_sub_blocks
def l21_pass(x, rows=None, *, mean, W) -> dict:
    """One chunk of PCA-L21: objective (8) at ``W`` and :math:`M = \\sum_i x_i \\alpha_i^\\top`.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    rows : ndarray or None, default=None
        The runner's rows for the chunk; unused.
    mean : ndarray of shape (n_features,)
        The centre subtracted from the rows.
    W : ndarray of shape (n_features, n_components)
        The current projection.

    Returns
    -------
    dict
        ``objective`` (float) and ``M`` of shape (n_features, n_components).
    """
    xc = x - mean
    Y = xc @ W
    return {"objective": l21_objective(Y), "M": xc.T @ l21_row_subgradients(Y)}


class _L21Iterate:
    """``W`` with its pass (objective and ``M``) run once, on first use."""

    def __init__(self, W, run, mean):
        self.W, self._run, self._mean, self._out = W, run, mean, None

    def evaluate(self) -> dict:
        if self._out is None:
            self._out = self._run(l21_pass, mean=self._mean, W=self.W)
        return self._out


def solve_l21_pca_chunked(
    run,
    moments0: Moments,
    n_components: int,
    *,
    rng,
    init="pca",
    max_iter=100,
    tol=1e-6,
    callback=None,
) -> SolverResult:
    """PCA-L21 (Nie & Huang, Algorithm 2) by :func:`maximize_linearized`, one pass per iterate.

    Step 1 (:math:`\\alpha_i = W^\\top x_i / \\lVert W^\\top x_i\\rVert`) and the
    objective are per-sample, and step 2 needs only :math:`M = \\sum_i x_i \\alpha_i^\\top`
    (``d x k``), so a pass at ``W`` gives objective (8) and the next ``W = UV^\\top``.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    moments0 : Moments
        The moments of a first pass with unit weights.
    n_components : int
        The number of components.
    rng : numpy.random.Generator
        Draws ``init='random'``.
    init : {"pca", "random"} or ndarray of shape (n_features, n_components), default="pca"
        Starting ``W`` (orthonormal columns); ``"pca"`` uses the PCA subspace.
    max_iter : int, default=100
        The most iterations.
    tol : float, default=1e-6
        As for :func:`~robustpca.solvers.maximize_linearized`.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops.
    """
    mean, S = moments0.mean, cast(np.ndarray, moments0.scatter)  # gathered by the first pass
    d = mean.shape[0]
    if isinstance(init, str) and init == "pca":
        W0 = top_eigh(S, n_components)[1]
    elif isinstance(init, str) and init == "random":
        W0 = np.linalg.qr(rng.standard_normal((d, n_components)))[0]
    else:
        W0 = np.asarray(init, dtype=float)

    def argmax(M):
        U, _, Vt = np.linalg.svd(M, full_matrices=False)
        return _L21Iterate(U @ Vt, run, mean)

    res = maximize_linearized(
        _L21Iterate(W0, run, mean),
        subgradient=lambda it: it.evaluate()["M"],
        linear_argmax=argmax,
        objective=lambda it: it.evaluate()["objective"],
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda it: (lambda: it.W.T, lambda: mean.copy()),
    )
    W = res.solution.W
    G = W.T @ S @ W  # = Y^T Y for Y = X0 W: the principal axes of the projected data
    W = W @ np.linalg.eigh(0.5 * (G + G.T))[1][:, ::-1]
    return _result(W.T, mean, res)
