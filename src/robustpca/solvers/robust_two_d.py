"""Robust 2DPCA with the optimal mean: problem (5) of Zhang & Tong (2019).

Split from :mod:`robustpca.solvers.two_d` (which holds the shared image algebra,
(2D)^2PCA and GLRAM); the re-weighted loop of R2DPCA and capped R2DPCA lives here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..losses import RobustLoss
from ._result import IterationState, SolverResult
from .reweighting import EXACT_RESIDUAL_RTOL, minimize_reweighted
from .two_d_images import (
    CentredImages,
    _documents_dense_components,
    _result_components,
    _state_view,
    image_residuals,
    initial_two_d_bases,
    left_update,
    normalize_bases,
    right_update,
)

__all__ = ["solve_robust_two_d_pca"]


# --- robust 2DPCA (problem 5 of Zhang & Tong) ---------------------------------------------


@dataclass(frozen=True)
class _Iterate:
    """One iterate of the re-weighted loop: the bases and the mean (pre-centred)."""

    left: np.ndarray
    right: np.ndarray
    mean0: np.ndarray  # mean minus the pre-centring image
    residual_images: CentredImages  # A_i - M, formed block by block on demand


@_documents_dense_components
def solve_robust_two_d_pca(
    images: np.ndarray,
    n_components: tuple[int, int],
    loss: RobustLoss,
    *,
    rng: np.random.Generator,
    init: tuple[np.ndarray, np.ndarray] | None = None,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    dense_components: bool = True,
) -> SolverResult:
    r"""Robust 2DPCA with the optimal mean: problem (5) of Zhang & Tong (2019).

    .. math::
        \min_{M,\; L^\top L = I,\; R^\top R = I} \sum_{i=1}^n
        \rho\bigl(\lVert (A_i - M) - LL^\top (A_i - M) RR^\top \rVert_F\bigr),

    with :math:`\rho(r) = \sqrt{r^2+\epsilon}` (:class:`~robustpca.losses.L21Loss`,
    R2DPCA) or :math:`\min(\sqrt{r^2+\epsilon}, \theta)`
    (:class:`~robustpca.losses.CappedL2Loss`, capped R2DPCA), by the re-weighting of
    Nie et al. (2014), Algorithm 2 (:func:`~robustpca.solvers.minimize_reweighted`),
    with :math:`d_i = 1 / (2\lVert E_i\rVert_F)` for l2,1. Its weighted step

    .. math::
        \min_{M, L, R} \sum_i d_i \lVert (A_i - M) - LL^\top (A_i - M) RR^\top\rVert_F^2

    has no closed form in ``(L, R)``; one block-coordinate sweep warm-started at the
    current iterate is taken: ``M`` = the ``d``-weighted mean image (optimal for any
    ``L, R``: the argument of Theorem 1 of Zhang & Tong with :math:`P = L L^\top \otimes
    RR^\top`), then ``L`` and ``R`` by weighted GLRAM eigen-updates. Each block is
    minimised exactly, so the weighted objective does not increase, which is all the
    tangent-majorisation argument of Nie et al. (2014, Theorem 1) needs: the robust
    objective never increases.

    Parameters
    ----------
    images : ndarray of shape (n_samples, height, width)
    n_components : (int, int)
        ``(k1, k2)``.
    loss : RobustLoss
    rng : numpy.random.Generator
    init : (ndarray, ndarray), optional
        Starting ``(L, R)``; the (2D)^2PCA bases of the arithmetically centred images
        by default (:func:`initial_two_d_bases`).
    max_iter, tol, callback
        See :func:`~robustpca.solvers.minimize_reweighted`.
    {dense_components}

    Returns
    -------
    SolverResult
        ``weights`` are the :math:`d_i` at the solution; ``info`` has ``left_components``,
        ``right_components`` and ``residuals`` (the per-image Frobenius residuals).

    Notes
    -----
    Holds the pre-centred images :math:`A_i - \bar A` (one copy of the data; the
    starting bases, computed before, hold one copy too). Every pass of an iteration
    (the two eigen-updates, the residuals) forms :math:`A_i - M` by blocks of images
    (:class:`CentredImages`), so an iteration allocates no data-sized array.
    """
    n, h, w = images.shape
    k1, k2 = n_components
    center = images.mean(axis=0, dtype=np.float64)
    if init is None:  # before A0 exists, so that the copies it holds never meet A0
        init = initial_two_d_bases(CentredImages(images, center), k1, k2, rng)
    _, right = init
    A0 = images - center  # pre-centred for accuracy; the solution does not depend on it
    current = {"right": right}

    def solve_weighted(d: np.ndarray) -> _Iterate:
        m0 = np.tensordot(d, A0, axes=1) / d.sum()
        E = CentredImages(A0, m0)
        L = left_update(E, current["right"], k1, rng, d)[0]
        R = right_update(E, L, k2, rng, d)[0]
        current["right"] = R
        return _Iterate(L, R, m0, E)

    # an exact fit stops there: without smoothing it would be re-weighted by its rounding
    largest = float(np.sqrt(np.max(np.einsum("ijk,ijk->i", A0, A0), initial=0.0)))
    res = minimize_reweighted(
        solve_weighted,
        lambda it: image_residuals(it.residual_images, it.left, it.right),
        loss,
        np.ones(n),
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        exact_below=EXACT_RESIDUAL_RTOL * largest,
        state_view=lambda it: _state_view(lambda: center + it.mean0, it.left, it.right, h),
    )
    it = res.solution
    weights = res.weights if np.any(res.weights > 0) else res.used_weights
    left, right = normalize_bases(it.residual_images, it.left, it.right, weights)
    return SolverResult(
        components=_result_components(left, right, (h, w), dense_components),
        mean=(center + it.mean0).ravel(),
        weights=res.weights,
        n_iter=res.n_iter,
        converged=res.converged,
        stop_reason=res.stop_reason,
        objective=res.objective,
        info={"left_components": left, "right_components": right, "residuals": res.residuals},
    )
