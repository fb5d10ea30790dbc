r"""The PCA methods of robustpca on wide data, in column passes (the dask Gram route).

For wide data (``n_samples < n_features``, where the in-memory solvers switch to the
``n x n`` Gram matrix) each ``solve_*_gram`` function is the twin of the Gram route of an
in-memory solver. It takes a :class:`~robustpca.solvers.chunked_gram.GramPasses` whose
first pass gave the centred Gram matrix, iterates in memory on it exactly as the Gram
routes of the in-memory solvers do, with no pass per iteration (one in an iteration where
those routes form residuals explicitly), and forms the ``d``-dimensional components and
mean in one last pass (``init='random'`` of PCA-L21: one more). They return a
:class:`~robustpca.solvers.SolverResult` (the generalized mean of PCA-GM's Algorithm 1:
the :class:`~robustpca.solvers.reweighting_progress.ReweightingResult` of its coefficient).

The passes and the Gram problem they use are in :mod:`robustpca.solvers.chunked_gram`;
the tall-data twins (``solve_*_chunked``, passes over row chunks with the ``d x d``
scatter) are in :mod:`robustpca.solvers.chunked_pca`, whose docstring lists the papers.
Where an in-memory solver takes its subproblem as ``problem=``, the Gram route is that
solver on :class:`~robustpca.solvers.chunked_gram.GramWeightedPCA` (weighted PCA,
RPCA-OM, RWL-AN); the others share their loops with the in-memory solvers
(:func:`~robustpca.solvers.reweighting.minimize_reweighted_pca`, R1-PCA's and PCA-L21's).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..linalg import SUSPICIOUS_RTOL, complete_orthonormal, positive_eigen_mask, top_eigh
from ..losses import L2pLoss, RobustLoss
from ._result import SolverResult
from .adaptive_neighbors import solve_adaptive_neighbors_pca
from .chunked_gram import GramPasses, GramWeightedPCA
from .l21_pca import _inverse_sqrt_psd, _maximize_l21, _principal_axes
from .optimal_mean import solve_optimal_mean_pca, solve_weighted_pca
from .r1_pca import _GramIterate, _minimize_r1, _orth_qr, _r1_result
from .reweighting import (
    EXACT_RESIDUAL_RTOL,
    ReweightingResult,
    minimize_reweighted,
    minimize_reweighted_pca,
)
from .reweighting_progress import returned_residuals

__all__ = [
    "solve_adaptive_neighbors_pca_gram",
    "solve_generalized_mean_gram",
    "solve_generalized_mean_pca_gram",
    "solve_l21_pca_gram",
    "solve_optimal_mean_pca_gram",
    "solve_r1_pca_gram",
    "solve_weighted_pca_gram",
]


def solve_weighted_pca_gram(
    passes: GramPasses, n_components: int, weights: np.ndarray, *, rng
) -> SolverResult:
    """Weighted PCA on wide data: :func:`~robustpca.solvers.solve_weighted_pca` on the
    Gram subproblem of the passes (:class:`~robustpca.solvers.chunked_gram.GramWeightedPCA`).

    One pass after :meth:`~robustpca.solvers.chunked_gram.GramPasses.first_pass` (the
    basis and the weighted mean).

    Parameters
    ----------
    passes : GramPasses
        The column passes over ``X``, their first pass already run (the centred Gram
        matrix ``G`` and the column means :math:`c_0`).
    n_components : int
        Number of components ``k``.
    weights : ndarray of shape (n_samples,)
        Non-negative sample weights :math:`d`; the Gram matrix is centred on their
        weighted mean.
    rng : numpy.random.Generator
        Only used to complete the basis of rank-deficient data.
    """
    problem = GramWeightedPCA(passes, n_components, rng, reference=weights / weights.sum())
    return solve_weighted_pca(None, n_components, weights, rng=rng, problem=problem)


def solve_optimal_mean_pca_gram(
    passes: GramPasses,
    n_components: int,
    loss: RobustLoss,
    *,
    rng,
    max_iter=100,
    tol=1e-6,
    callback=None,
) -> SolverResult:
    r"""RPCA-OM (Nie et al. 2014, Algorithm 1) on wide data, iterating on the Gram matrix.

    .. math::
        \min_{b,\; U^\top U = I} \sum_{i=1}^n \rho\bigl(\lVert (I - UU^\top)(x_i - b)
        \rVert_2\bigr) \qquad \text{(problem 13)}

    It is :func:`~robustpca.solvers.solve_optimal_mean_pca` on the Gram subproblem of
    the passes, so the iterates are those of its Gram route: no pass per iteration (one
    in an iteration where that route forms the residuals explicitly), one at the end for
    the basis and mean.

    Parameters
    ----------
    passes : GramPasses
        The column passes over ``X``, their first pass already run (the centred Gram
        matrix ``G`` and the column means :math:`c_0`).
    n_components : int
        Number of components ``k``.
    loss : RobustLoss
        :class:`~robustpca.losses.L21Loss` gives RPCA-OM as published.
    rng : numpy.random.Generator
        Only used to complete the basis of rank-deficient data.
    max_iter : int, default=100
        Iterations at most.
    tol : float, default=1e-6
        Stop on a relative change of the objective at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops. See
        :func:`~robustpca.solvers.minimize_reweighted`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.losses import L21Loss
    >>> from robustpca.solvers import solve_optimal_mean_pca
    >>> from robustpca.solvers.chunked_gram import GramPasses, NumpyColumnRunner
    >>> X = np.random.default_rng(0).normal(size=(20, 300))
    >>> passes = GramPasses(NumpyColumnRunner(X, chunk_cols=64))
    >>> passes.first_pass()
    >>> loss = L21Loss(epsilon=1.0)
    >>> fit = solve_optimal_mean_pca_gram(passes, 2, loss, rng=np.random.default_rng(0))
    >>> ref = solve_optimal_mean_pca(X, 2, loss, rng=np.random.default_rng(0))
    >>> fit.n_iter, ref.n_iter, passes.run.n_passes     # the Gram pass and the basis pass
    (11, 11, 2)
    >>> bool(np.allclose(fit.components.T @ fit.components, ref.components.T @ ref.components))
    True
    """
    problem = GramWeightedPCA(passes, n_components, rng)
    return solve_optimal_mean_pca(
        None,
        n_components,
        loss,
        rng=rng,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        problem=problem,
    )


def solve_generalized_mean_gram(
    passes: GramPasses, p: float, delta: float, *, max_iter=100, tol=1e-6
) -> ReweightingResult:
    r"""Oh & Kwak's Algorithm 1 on the Gram matrix; the solution is the coefficient ``c``.

    The mean is :math:`m = c_0 + X_0^\top c` with :math:`c = \alpha / 1^\top\alpha`, and
    :math:`\lVert x_i - m\rVert^2 = G_{ii} - 2 (Gc)_i + c^\top G c`. When that
    difference is below ``SUSPICIOUS_RTOL`` of its terms (plus ``delta``) for some
    sample, the distances are formed explicitly in one pass, as the in-memory solver
    always does.

    Parameters
    ----------
    passes : GramPasses
        The column passes over ``X``, their first pass already run (the centred Gram
        matrix ``G`` and the column means :math:`c_0`).
    p : float
        Power in (0, 1].
    delta : float
        Perturbation of eq. (13), squared data units (the ``epsilon`` of the
        :class:`~robustpca.losses.L2pLoss` with power ``2 p``).
    max_iter : int, default=100
        Iterations at most.
    tol : float, default=1e-6
        Stop on a relative change of the generalized mean :math:`M_p` at most ``tol``
        (of the objective at most ``p * tol``), as
        :func:`~robustpca.solvers.solve_generalized_mean`.
    """
    G = cast(np.ndarray, passes.gram)  # set by the first pass
    n = G.shape[0]
    diag = np.diag(G).copy()

    def distances(c):
        Gc = G @ c
        cGc = float(c @ Gc)
        d2 = diag - 2.0 * Gc + cGc
        if np.any(d2 + delta < SUSPICIOUS_RTOL * (diag + cGc)):
            d2 = passes.sq_residuals(c, M=np.empty((n, 0)))[1]
        return np.sqrt(np.maximum(d2, 0.0))

    return minimize_reweighted(
        lambda a: a / a.sum(),
        distances,
        L2pLoss(p=2.0 * p, epsilon=delta),
        np.ones(n),
        max_iter=max_iter,
        tol=tol * p,  # on M_p, as in memory (solvers.generalized_mean)
    )


def solve_generalized_mean_pca_gram(
    passes: GramPasses,
    n_components: int,
    p: float,
    *,
    mean_coef,
    delta,
    rng,
    max_iter=100,
    tol=1e-6,
    callback=None,
) -> SolverResult:
    """PCA-GM (Oh & Kwak's Algorithm 2) about :math:`c_0 + X_0^\\top` ``mean_coef``, wide data.

    Parameters
    ----------
    passes : GramPasses
        The column passes over ``X``, their first pass already run (the centred Gram
        matrix ``G`` and the column means :math:`c_0`).
    n_components : int
        Number of components ``k``.
    p : float
        Power in (0, 1]; ``p = 1`` is PCA about the centre.
    mean_coef : ndarray of shape (n_samples,)
        Coefficient ``a`` of the fixed centre :math:`m_G = c_0 + X_0^\\top a`, e.g. the
        solution of :func:`solve_generalized_mean_gram` (zeros: the column means).
    delta : float
        Perturbation of eq. (13), squared data units.
    rng : numpy.random.Generator
        Only used to complete the basis of rank-deficient data.
    max_iter : int, default=100
        Iterations at most.
    tol : float, default=1e-6
        Stop on a relative change of :math:`M_p` at most ``tol`` (of the objective at
        most ``p * tol``).
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops. See
        :func:`~robustpca.solvers.minimize_reweighted`.
    """
    problem = GramWeightedPCA(passes, n_components, rng, center=False, reference=mean_coef)
    loss = L2pLoss(p=2.0 * p, epsilon=delta)
    # the in-memory exact stop: the rows' largest distance to the centre, from G:
    # ||x0_i - X0^T a||^2 = G_ii - 2 (G a)_i + a^T G a
    G, a = np.asarray(passes.gram), np.asarray(mean_coef, dtype=np.float64)
    Ga = G @ a
    largest = float(np.sqrt(max(float(np.max(np.diag(G) - 2.0 * Ga + a @ Ga)), 0.0)))
    res = minimize_reweighted_pca(
        problem,
        loss,
        np.ones(problem.n_samples),
        max_iter=max_iter,
        tol=tol * p,  # on M_p, as in memory (solvers.generalized_mean)
        callback=callback,
        exact_below=EXACT_RESIDUAL_RTOL * largest,
    )
    sub = res.solution
    residuals, weights = returned_residuals(res, loss)
    return SolverResult.from_loop(
        res,
        components=sub.basis().T,
        mean=sub.mean(),
        weights=weights / p,
        info={"residuals": residuals},
    )


def solve_adaptive_neighbors_pca_gram(
    passes: GramPasses,
    n_components: int,
    n_neighbors: int,
    *,
    rng,
    init="uniform",
    max_iter=300,
    tol=1e-6,
    callback=None,
) -> SolverResult:
    """RWL-AN PCA (Zhang & Tong 2019, Algorithm 2) on wide data, on the Gram matrix.

    It is :func:`~robustpca.solvers.solve_adaptive_neighbors_pca` on the Gram subproblem
    of the passes. As in its Gram route, the final residuals (hence weights and
    ``outliers_``) are formed explicitly
    (:meth:`~robustpca.solvers.chunked_gram.GramWeightedPCA.final_residuals`): one pass,
    none if the last iteration's already were, two with a completed basis (fewer usable
    directions than ``n_components``, which the passes then ship as a ``d x k`` matrix).

    Parameters
    ----------
    passes : GramPasses
        The column passes over ``X``, their first pass already run (the centred Gram
        matrix ``G`` and the column means :math:`c_0`).
    n_components : int
        Subspace dimension (``m`` in the paper).
    n_neighbors : int
        ``k``, the number of activated samples, in ``[1, n_samples]``.
    rng : numpy.random.Generator
        Draws ``init='random'`` and completes rank-deficient bases.
    init : {"uniform", "random"} or ndarray of shape (n_samples,), default="uniform"
        Starting weights, as in :func:`~robustpca.solvers.solve_adaptive_neighbors_pca`.
    max_iter : int, default=300
        Iterations at most.
    tol : float, default=1e-6
        Stop on a relative change of objective 16 at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops. See
        :func:`~robustpca.solvers.minimize_reweighted`.
    """
    problem = GramWeightedPCA(passes, n_components, rng)
    return solve_adaptive_neighbors_pca(
        None,
        n_components,
        n_neighbors,
        rng=rng,
        init=init,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        problem=problem,
    )


def solve_r1_pca_gram(
    passes: GramPasses,
    n_components: int,
    loss: RobustLoss,
    *,
    rng,
    max_iter=100,
    tol=1e-6,
    callback=None,
) -> SolverResult:
    """R1-PCA (Ding et al. 2006) on wide data: the Gram route of :func:`solve_r1_pca`.

    :math:`U = X_0^\\top C` for an ``n x k`` matrix ``C``; the re-weighted subspace
    iteration runs on ``G`` in memory and one pass forms :math:`U` at the end.

    Parameters
    ----------
    passes : GramPasses
        The column passes over ``X``, their first pass already run (the centred Gram
        matrix ``G`` and the column means :math:`c_0`).
    n_components : int
        Subspace dimension ``k``.
    loss : RobustLoss
        Gives the weights :math:`w_i`; :class:`~robustpca.losses.HuberLoss` with
        ``threshold=None`` is R1-PCA as published.
    rng : numpy.random.Generator
        Only used to complete the basis when the data have fewer than ``k`` directions
        of variance.
    max_iter : int, default=100
        Iterations at most.
    tol : float, default=1e-6
        Stop on a relative change of the objective at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops. See
        :func:`~robustpca.solvers.minimize_reweighted`.
    """
    G = cast(np.ndarray, passes.gram)  # set by the first pass
    vals, vecs = top_eigh(G, n_components)
    keep = positive_eigen_mask(vals)
    vals, vecs = vals[keep], vecs[:, keep]
    start = _GramIterate(None, G, vecs / np.sqrt(vals)[None, :], vecs * np.sqrt(vals)[None, :])
    mean = cast(np.ndarray, passes.center)

    def basis(it):
        return _orth_qr(passes.products(it.C))

    res = _minimize_r1(
        start,
        loss,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda it: (lambda: basis(it).T, lambda: mean.copy()),
    )
    U = complete_orthonormal(basis(res.solution), n_components, rng)
    return _r1_result(res, loss, components=U.T, mean=mean.copy())


def solve_l21_pca_gram(
    passes: GramPasses,
    n_components: int,
    *,
    rng,
    init="pca",
    max_iter=100,
    tol=1e-6,
    callback=None,
) -> SolverResult:
    """PCA-L21 (Nie & Huang, Algorithm 2) on wide data: the Gram route of :func:`solve_l21_pca`.

    :math:`W = X_0^\\top C` stays in the row space; the iterations need only
    :math:`XW = GC` and run in memory. Passes: one for ``W`` at the end, one more for
    ``init='random'`` (:math:`X_0 W_0` of a random ``d x k`` start) and, on
    rank-deficient data, for the completed directions.

    Parameters
    ----------
    passes : GramPasses
        The column passes over ``X``, their first pass already run (the centred Gram
        matrix ``G`` and the column means :math:`c_0`).
    n_components : int
        Number of components ``k``.
    rng : numpy.random.Generator
        Draws the random initialisation (``init='random'``) and basis completion.
    init : {"pca", "random"}, default="pca"
        Starting ``W``: the PCA subspace, or the Q factor of a Gaussian ``d x k`` matrix
        (any value other than ``'pca'``).
    max_iter : int, default=100
        Iterations at most.
    tol : float, default=1e-6
        Stop on a relative change of the objective at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops. See
        :func:`~robustpca.solvers.maximize_linearized`.
    """
    G, k = cast(np.ndarray, passes.gram), n_components  # set by the first pass
    mean = cast(np.ndarray, passes.center)
    W0 = Y0 = None
    if init == "pca":
        vals, V = top_eigh(G, k)
        keep = positive_eigen_mask(vals)
        M0 = V[:, keep] / np.sqrt(vals[keep])
        if keep.sum() == k:  # X0^T M0 is orthonormal: W0 stays implicit
            Y0 = G @ M0
        else:
            W0 = complete_orthonormal(np.linalg.qr(passes.products(M0))[0], k, rng)
    else:
        W0 = np.linalg.qr(rng.standard_normal((mean.shape[0], k)))[0]
    if Y0 is None:  # then W0 was set
        Y0 = passes.project(cast(np.ndarray, W0))
    first = M0 if W0 is None else None

    def argmax(A):
        C = A @ _inverse_sqrt_psd(A.T @ G @ A)
        return C, G @ C

    def components(state):
        if state[0] is None:
            return (W0 if first is None else passes.products(first)).T
        return passes.products(state[0]).T

    result = _maximize_l21(
        Y0,
        argmax,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda state: (lambda: components(state), lambda: mean.copy()),
    )
    coef, Y = result.solution
    if coef is None:  # stopped before the first update (not reached: max_iter >= 1)
        W = components(result.solution).T
        Y = Y0
    else:
        U, s, Vt = np.linalg.svd(passes.products(coef), full_matrices=False)
        keep = s > 1e-8 * s.max(initial=0.0)
        if keep.all():  # polar factor W = X0^T coef Vt^T S^-1 Vt, so X0 W = G coef Vt^T S^-1 Vt
            W = U @ Vt
            Y = G @ (coef @ (Vt.T / s[None, :]) @ Vt)
        else:
            W = complete_orthonormal(U[:, keep], k, rng)
            Y = passes.project(W)
    return SolverResult.from_loop(result, components=_principal_axes(W, Y).T, mean=mean.copy())
