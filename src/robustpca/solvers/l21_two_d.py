r"""2-D PCA-L21: problem (27) of Nie & Huang, sec. III.D.

.. math::
    \max_{U^\top U = I_{k_1},\; V^\top V = I_{k_2}} \sum_{i=1}^n \lVert U^\top X_i V
    \rVert_F \qquad (27)

over centred images :math:`X_i \in \mathbb{R}^{r \times c}`. As the paper says, for
fixed ``U`` it is a PCA-L21 problem in ``V`` and vice versa, and the two are solved in
turn by Algorithm 2. The ``V`` step is the instance of
:func:`~robustpca.solvers.maximize_linearized` (Algorithm 1) with
:math:`g_i(V) = Y_i^\top V`, :math:`Y_i = X_i^\top U`, subgradients
:math:`\alpha_i = g_i(V) / \lVert g_i(V)\rVert_F` (eq. 23, via
:func:`~robustpca.solvers.l21_row_subgradients` on the flattened :math:`g_i`) and the
step :math:`\max_{V^\top V = I} \mathrm{Tr}(V^\top M)`, :math:`M = \sum_i Y_i \alpha_i`,
solved by the polar factor of :math:`M` (eq. 26). The ``U`` step is the same on the
transposed images, since :math:`\lVert U^\top X_i V\rVert_F = \lVert V^\top X_i^\top U
\rVert_F`. Every step is an Algorithm-3 step on a convex objective, so the objective
never decreases (Theorem 3).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._result import IterationState, SolverResult, StopReason, relative_change
from .convex_maximization import l21_row_subgradients, maximize_linearized
from .two_d import CentredImages, initial_two_d_bases
from .two_d_images import _alternating_result, _callback_stops, _documents_dense_components

__all__ = ["l21_two_d_objective", "l21_two_d_update", "solve_l21_two_d"]


def l21_two_d_objective(E: np.ndarray, left: np.ndarray, right: np.ndarray) -> float:
    r"""Objective (27): :math:`\sum_i \lVert U^\top E_i V\rVert_F`.

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width)
        The centred images :math:`E_i`.
    left : ndarray of shape (height, k1)
        :math:`U`.
    right : ndarray of shape (width, k2)
        :math:`V`.

    Returns
    -------
    float
    """
    Z = np.matmul(left.T, E @ right)
    return float(np.sqrt(np.einsum("nij,nij->n", Z, Z)).sum())


def _polar(M: np.ndarray) -> np.ndarray:
    """Orthonormal polar factor ``P Q^T`` of ``M = P S Q^T`` (eq. 26)."""
    P, _, Qt = np.linalg.svd(M, full_matrices=False)
    return P @ Qt


def l21_two_d_update(
    E: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    *,
    max_iter: int = 100,
    tol: float = 1e-6,
) -> tuple[np.ndarray, int]:
    r"""Algorithm 2 of Nie & Huang in ``V`` for fixed ``U``: the right update of (27).

    Parameters
    ----------
    E : ndarray of shape (n_samples, height, width)
        Centred images (pass them transposed, ``E.swapaxes(1, 2)``, with the roles of
        ``left`` and ``right`` exchanged, for the ``U`` update).
    left : ndarray of shape (height, k1)
        The fixed ``U``.
    right : ndarray of shape (width, k2)
        The starting ``V`` (orthonormal columns).
    max_iter, tol
        Iterations of Algorithm 2 and the relative objective change that stops it.

    Returns
    -------
    (V, n_iter)
    """
    n, w, k1 = E.shape[0], E.shape[2], left.shape[1]
    Y = np.swapaxes(E, 1, 2) @ left  # Y_i = E_i^T U, (n, w, k1)
    # both products of the loop as one matrix product each (not n small ones):
    # U^T E_i V = Y_i^T V for every i at once, and M = sum_i Y_i alpha_i
    Yt = np.ascontiguousarray(np.swapaxes(Y, 1, 2)).reshape(n * k1, w)  # rows Y_i^T
    Yw = np.ascontiguousarray(np.swapaxes(Y, 0, 1)).reshape(w, n * k1)  # [Y_1 ... Y_n]

    last: list = [None, None]  # Algorithm 1 evaluates each V twice (objective, then step)

    def values(V: np.ndarray) -> np.ndarray:  # U^T E_i V, flattened per image
        if last[0] is not V:
            last[:] = [V, (Yt @ V).reshape(n, -1)]
        return last[1]

    result = maximize_linearized(
        right,
        subgradient=lambda V: l21_row_subgradients(values(V)).reshape(n, k1, -1),
        linear_argmax=lambda alpha: _polar(Yw @ alpha.reshape(n * k1, -1)),
        objective=lambda V: float(np.linalg.norm(values(V), axis=1).sum()),
        max_iter=max_iter,
        tol=tol,
    )
    return result.solution, result.n_iter


@_documents_dense_components
def solve_l21_two_d(
    images: np.ndarray,
    n_components: tuple[int, int],
    *,
    rng: np.random.Generator,
    init: str | tuple[np.ndarray, np.ndarray] = "2dpca",
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    dense_components: bool = True,
) -> SolverResult:
    """Solve problem (27) of Nie & Huang on images centred by their arithmetic mean.

    Parameters
    ----------
    images : ndarray of shape (n_samples, height, width)
    n_components : (int, int)
        ``(k1, k2)``: columns of ``U`` (height side) and ``V`` (width side).
    rng : numpy.random.Generator
        Draws ``init='random'`` and completes rank-deficient starting bases.
    init : {'2dpca', 'random'} or (ndarray, ndarray), default='2dpca'
        Starting ``(U, V)``: the (2D)^2PCA bases, random orthonormal matrices, or given.
    max_iter : int
        Maximum number of alternations (``V`` then ``U``); also caps each inner
        Algorithm-2 loop.
    tol : float
        Stop when the relative change of objective (27) over one alternation is at
        most ``tol``; each inner loop stops on the same criterion.
    callback : callable, optional
        ``callback(iteration, state)`` after each alternation; returning ``True`` stops.
    {dense_components}

    Returns
    -------
    SolverResult
        ``objective`` holds (27) after each alternation (non-decreasing); ``info`` has
        ``left_components`` (U), ``right_components`` (V) and ``n_inner_iter`` (the
        Algorithm-2 iterations run in all).
    """
    _, h, w = images.shape
    k1, k2 = n_components
    mean = images.mean(axis=0, dtype=np.float64)
    if isinstance(init, str) and init == "2dpca":
        # from blocks of centred images, before the centred copy exists (the row scatter
        # needs a transposed copy of whatever it is given)
        U, V = initial_two_d_bases(CentredImages(images, mean), k1, k2, rng)
    elif isinstance(init, str) and init == "random":
        U = np.linalg.qr(rng.standard_normal((h, k1)))[0]
        V = np.linalg.qr(rng.standard_normal((w, k2)))[0]
    else:
        U, V = (np.asarray(b, dtype=float) for b in init)
    E = images - mean
    Et = np.swapaxes(E, 1, 2)
    previous = l21_two_d_objective(E, U, V)
    history: list[float] = []
    stop_reason, converged = StopReason.MAX_ITER, False
    n_inner = 0
    for iteration in range(1, max_iter + 1):
        V, n_v = l21_two_d_update(E, U, V, max_iter=max_iter, tol=tol)
        U, n_u = l21_two_d_update(Et, V, U, max_iter=max_iter, tol=tol)
        n_inner += n_v + n_u
        history.append(l21_two_d_objective(E, U, V))
        if _callback_stops(callback, iteration, history[-1], mean, U, V):
            stop_reason = StopReason.CALLBACK
            break
        if relative_change(previous, history[-1]) <= tol:
            stop_reason, converged = StopReason.TOLERANCE, True
            break
        previous = history[-1]
    return _alternating_result(
        E, U, V, mean, history, converged, stop_reason, dense_components, n_inner_iter=n_inner
    )
