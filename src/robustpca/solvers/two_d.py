r"""Two-dimensional (image) subspace solvers: 2DPCA, GLRAM and robust 2DPCA.

The data are ``n`` images :math:`A_i \in \mathbb{R}^{h \times w}`, passed as an array of
shape ``(n, h, w)``. A two-sided model keeps a left basis :math:`L \in \mathbb{R}^{h
\times k_1}` and a right basis :math:`R \in \mathbb{R}^{w \times k_2}` (orthonormal
columns) and reconstructs :math:`M + LL^\top (A_i - M) RR^\top`. Flattened in C order,
:math:`\mathrm{vec}(L^\top E R) = (L \otimes R)^\top \mathrm{vec}(E)`, so the model is an
ordinary linear subspace of :math:`\mathbb{R}^{hw}` with the orthonormal basis
:math:`L \otimes R` (:func:`kron_components`) -- but every product here is computed
image by image, never with that ``hw x k1 k2`` matrix (the solvers build it for their
result only when asked, ``dense_components=True``).

Memory: the products accept the images either as an ``(n, h, w)`` array or as
:class:`CentredImages`, the differences :math:`A_i - M` formed block by block in one
reused buffer of about :data:`~robustpca.linalg.BLOCK_BYTES`; the residuals are always
formed by blocks. The robust solver keeps only the pre-centred images and the current
mean, so a fit holds about one copy of the data whatever the number of iterations.

* :func:`solve_two_d_pca` -- 2DPCA (Yang et al. 2004): :math:`R` = top eigenvectors of
  the image scatter :math:`G = \frac1n\sum_i (A_i-\bar A)^\top (A_i-\bar A)`, no left basis.
* :func:`solve_glram` -- GLRAM (Ye 2005): :math:`\max \sum_i \lVert L^\top (A_i - M) R
  \rVert_F^2` by alternating eigen-updates.
* :func:`solve_robust_two_d_pca` -- R2DPCA, problem (5) of Zhang & Tong (2019):
  :math:`\min_{M, L, R} \sum_i \rho(\lVert A_i - M - LL^\top (A_i - M) RR^\top\rVert_F)`
  by :func:`~robustpca.solvers.minimize_reweighted`; the l2,1 loss gives R2DPCA, the
  capped loss capped R2DPCA.

Each eigen-update is a weighted PCA of the columns of :math:`(A_i - M)R` (or of the
rows of :math:`L^\top (A_i-M)`) and is delegated to
:class:`~robustpca.linalg.WeightedPCAProblem`, which takes the Gram route when those
vectors are fewer than their dimension and completes rank-deficient bases.

References
----------
J. Yang, D. Zhang, A. F. Frangi and J.-Y. Yang, "Two-dimensional PCA: a new approach to
appearance-based face representation and recognition", IEEE TPAMI 26(1), 2004.

J. Ye, "Generalized low rank approximations of matrices", Machine Learning 61, 2005
(ICML 2004), Algorithm GLRAM and Theorem 3.1.

D. Zhang and Z.-H. Zhou, "(2D)^2PCA: two-directional two-dimensional PCA for efficient
face representation and recognition", Neurocomputing 69, 2005.

R. Zhang, F. Nie and X. Li, "Auto-weighted two-dimensional principal component analysis
with robust outliers", ICASSP 2017; problem (5) of R. Zhang and H. Tong, "Robust
principal component analysis with adaptive neighbors", NeurIPS 2019.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import two_d_images
from ._result import IterationState, SolverResult, StopReason, relative_change
from .robust_two_d import solve_robust_two_d_pca
from .two_d_images import *  # noqa: F403 (the image algebra stays importable from here)
from .two_d_images import (
    _alternating_result,
    _callback_stops,
    _documents_dense_components,
    _result_components,
    glram_objective,
    left_update,
    normalize_bases,
    right_update,
)

__all__ = ["solve_glram", "solve_robust_two_d_pca", "solve_two_d_pca"]
__all__ += two_d_images.__all__


# --- 2DPCA --------------------------------------------------------------------------------


@_documents_dense_components
def solve_two_d_pca(
    images: np.ndarray,
    n_components: int,
    *,
    rng: np.random.Generator,
    dense_components: bool = True,
) -> SolverResult:
    r"""2DPCA of Yang et al. (2004): the top-``k`` eigenvectors of the image scatter.

    .. math:: G = \frac1n \sum_{i=1}^n (A_i - \bar A)^\top (A_i - \bar A), \qquad
        V = \text{top-}k \text{ eigenvectors of } G,

    maximising the total scatter :math:`J(V) = \mathrm{tr}(V^\top G V)` of the projected
    feature matrices :math:`Y_i = A_i V` (their eqs. 3-6).

    Parameters
    ----------
    images : ndarray of shape (n_samples, height, width)
    n_components : int
        Number of projection axes ``k``.
    rng : numpy.random.Generator
        Completes the basis when ``G`` has fewer than ``k`` positive eigenvalues.
    {dense_components}

    Returns
    -------
    SolverResult
        ``components`` are the rows of :math:`(I_h \otimes V)^\top`; ``objective`` holds
        :math:`J(V)`; ``info`` has ``right_components`` (V) and ``explained_variance``
        (the top-``k`` eigenvalues of ``G``).

    Notes
    -----
    Holds the centred images (one copy of the data) and blocks of the scatter pass.
    """
    n, h, w = images.shape
    mean = images.mean(axis=0, dtype=np.float64)
    E = images - mean
    V, vals = right_update(E, None, n_components, rng)
    _, V = normalize_bases(E, None, V)
    explained = np.zeros(n_components)
    explained[: min(vals.size, n_components)] = vals[:n_components] / n
    return SolverResult(
        components=_result_components(None, V, (h, w), dense_components),
        mean=mean.ravel(),
        weights=None,
        n_iter=1,
        converged=True,
        stop_reason=StopReason.CLOSED_FORM,
        objective=np.array([glram_objective(E, None, V) / n]),
        info={"right_components": V, "explained_variance": explained},
    )


# --- GLRAM --------------------------------------------------------------------------------


@_documents_dense_components
def solve_glram(
    images: np.ndarray,
    n_components: tuple[int, int],
    *,
    rng: np.random.Generator,
    center: bool = True,
    init: str = "2dpca",
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    dense_components: bool = True,
) -> SolverResult:
    r"""GLRAM (Ye 2005): :math:`\max_{L^\top L = I, R^\top R = I} \sum_i \lVert L^\top
    (A_i - M) R \rVert_F^2` by alternating eigen-updates.

    For fixed ``R`` the optimal ``L`` is formed by the top-``k1`` eigenvectors of
    :math:`M_L = \sum_i E_i RR^\top E_i^\top`, and for fixed ``L`` the optimal ``R`` by
    the top-``k2`` eigenvectors of :math:`M_R = \sum_i E_i^\top LL^\top E_i` (Ye,
    Theorem 3.3), so the objective never decreases.

    Parameters
    ----------
    images : ndarray of shape (n_samples, height, width)
    n_components : (int, int)
        ``(k1, k2)``.
    rng : numpy.random.Generator
        Completes rank-deficient bases.
    center : bool, default=True
        ``M`` = the arithmetic mean image (the optimal mean of the squared loss, for
        any ``L, R``); ``False`` is Ye's uncentred GLRAM (``M = 0``).
    init : {'2dpca', 'identity'}, default='2dpca'
        Starting ``R``: the 2DPCA axes (top eigenvectors of :math:`\sum_i E_i^\top E_i`),
        or Ye's start :math:`L_0 = (I_{k_1}, 0)^\top`, from which his Algorithm GLRAM
        updates ``R`` first (the ``R`` of :math:`L_0`, then the sweeps).
    max_iter, tol
        Stop after ``max_iter`` sweeps or when the relative objective change is at most
        ``tol``.
    callback : callable, optional
        ``callback(iteration, state)``; returning ``True`` stops.
    {dense_components}

    Returns
    -------
    SolverResult
        ``objective`` holds :math:`\sum_i \lVert L^\top E_i R\rVert_F^2` after each sweep
        (non-decreasing); ``info`` has ``left_components`` and ``right_components``.

    Notes
    -----
    Holds the centred images (one copy of the data) and products of ``n k h`` or
    ``n k w`` entries.
    """
    _, h, w = images.shape
    k1, k2 = n_components
    mean = images.mean(axis=0, dtype=np.float64) if center else np.zeros((h, w))
    E = images - mean
    start = None if init == "2dpca" else np.eye(h, k1)  # Ye's L_0 (None: 2DPCA's axes)
    right = right_update(E, start, k2, rng)[0]
    left = None
    history: list[float] = []
    stop_reason, converged = StopReason.MAX_ITER, False
    for iteration in range(1, max_iter + 1):
        left = left_update(E, right, k1, rng)[0]
        right = right_update(E, left, k2, rng)[0]
        history.append(glram_objective(E, left, right))
        if _callback_stops(callback, iteration, history[-1], mean, left, right):
            stop_reason = StopReason.CALLBACK
            break
        if history[-1] == 0.0:
            stop_reason, converged = StopReason.EXACT, True
            break
        if iteration > 1 and relative_change(history[-2], history[-1]) <= tol:
            stop_reason, converged = StopReason.TOLERANCE, True
            break
    return _alternating_result(
        E, left, right, mean, history, converged, stop_reason, dense_components
    )
