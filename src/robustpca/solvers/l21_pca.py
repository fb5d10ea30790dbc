r"""PCA-L21: non-greedy L21-norm maximisation (Nie & Huang, Algorithm 2).

.. math:: \max_{W^\top W = I} \sum_{i=1}^n \lVert W^\top x_i \rVert_2 \qquad (8)

is the instance of :func:`~robustpca.solvers.maximize_linearized` with
:math:`\alpha_i = W^\top x_i / \lVert W^\top x_i\rVert_2` (eq. 23) and the step
:math:`\max_{W^\top W=I} \mathrm{Tr}(W^\top M)`, :math:`M = \sum_i x_i\alpha_i^\top`,
solved by :math:`W = UV^\top` from the thin SVD :math:`M = U\Lambda V^\top` (eq. 26).

Wide data (``n_samples < n_features``) never touch a ``d``-dimensional quantity inside
the loop: :math:`W = X^\top C` stays in the row space of the data, so
:math:`XW = GC` and :math:`W = M(M^\top M)^{-1/2}` with :math:`M^\top M = A^\top G A`
(``k x k``), where :math:`G = XX^\top` is computed once. An iteration then costs
``O(n^2 k)`` instead of ``O(n d k)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

from ..linalg import complete_orthonormal, positive_eigen_mask, top_eigh
from ._result import IterationState, SolverResult
from .convex_maximization import LinearizedResult, l21_row_subgradients, maximize_linearized
from .informative_coordinates import informative_rows
from .missing import complete, initial_fill, pca_basis

__all__ = ["l21_objective", "solve_l21_pca", "solve_l21_pca_missing"]


def l21_objective(Y: np.ndarray) -> float:
    """``sum_i ||y_i||_2`` of the rows of ``Y = X W`` (objective 8).

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_components)
        The projections ``X W`` of the (centred) data.

    Returns
    -------
    float
    """
    return float(np.linalg.norm(Y, axis=1).sum())


def _inverse_sqrt_psd(S: np.ndarray) -> np.ndarray:
    """``S^{-1/2}`` on the numerically non-zero part of a PSD matrix's spectrum."""
    vals, vecs = np.linalg.eigh(0.5 * (S + S.T))
    keep = positive_eigen_mask(vals)
    inv = np.zeros_like(vals)
    inv[keep] = 1.0 / np.sqrt(vals[keep])
    return (vecs * inv) @ vecs.T


def _principal_axes(W: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Rotate ``W`` within its span so that ``X W`` has uncorrelated, sorted columns.

    Objective (8) is invariant to ``W -> W R`` for orthogonal ``R``, so this only fixes
    the basis (ordered by projected variance, like PCA) without changing the solution.
    """
    _, R = np.linalg.eigh(Y.T @ Y)
    return W @ R[:, ::-1]


def _maximize_l21(
    Y0: np.ndarray,
    linear_argmax: Callable,
    *,
    max_iter: int,
    tol: float,
    callback: Callable[[int, IterationState], bool | None] | None,
    state_view: Callable,
) -> LinearizedResult:
    r"""Algorithm 2 by :func:`maximize_linearized` on states ``(coef, Y = X_0 W)``.

    Step 1 and objective (8) need only ``Y``; ``linear_argmax(alpha)`` (step 2) returns
    the next state, with ``coef`` the route's coefficients of ``W`` (``W`` itself, or
    ``C`` with :math:`W = X_0^\top C` on the Gram matrix). The first state is
    ``(None, Y0)``.
    """
    return maximize_linearized(
        (None, Y0),
        subgradient=lambda state: l21_row_subgradients(state[1]),
        linear_argmax=linear_argmax,
        objective=lambda state: l21_objective(state[1]),
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=state_view,
    )


def solve_l21_pca(
    X: np.ndarray,
    n_components: int,
    *,
    rng: np.random.Generator,
    init: str | np.ndarray = "pca",
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    route: str = "auto",
) -> SolverResult:
    """Solve problem (8) of Nie & Huang on data centred by the arithmetic mean.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int
    rng : numpy.random.Generator
        Draws the random initialisation (``init='random'``) and basis completion.
    init : {'pca', 'random'} or ndarray of shape (n_features, n_components)
        Starting ``W`` (orthonormal columns); ``'pca'`` uses the PCA subspace.
    max_iter, tol, callback
        See :func:`~robustpca.solvers.maximize_linearized`.
    route : {'auto', 'gram', 'scatter'}
        ``'auto'`` uses the Gram route when ``n_samples < n_features``.

    Returns
    -------
    SolverResult
        ``objective`` holds objective (8) after each iteration (non-decreasing).
    """
    n, d = X.shape
    k = n_components
    mean = X.mean(axis=0, dtype=np.float64)
    X0 = X - mean
    gram = (n < d) if route == "auto" else route == "gram"
    G = X0 @ X0.T if gram else None

    if isinstance(init, str) and init == "pca":
        if gram:
            vals, V = top_eigh(cast(np.ndarray, G), k)  # G is the Gram matrix here
            keep = positive_eigen_mask(vals)
            W0 = np.linalg.qr(X0.T @ (V[:, keep] / np.sqrt(vals[keep])))[0]
            W0 = complete_orthonormal(W0, k, rng)
        else:
            W0 = top_eigh(X0.T @ X0, k)[1]
    elif isinstance(init, str) and init == "random":
        W0 = np.linalg.qr(rng.standard_normal((d, k)))[0]
    else:
        W0 = np.asarray(init, dtype=float)

    # A state is (coefficients, Y = X0 W): W = X0^T C in the Gram route, W itself otherwise.
    def argmax(A: np.ndarray):
        if gram:
            C = A @ _inverse_sqrt_psd(A.T @ G @ A)
            return C, G @ C
        U, _, Vt = np.linalg.svd(X0.T @ A, full_matrices=False)
        W = U @ Vt
        return W, X0 @ W

    result = _maximize_l21(
        X0 @ W0,
        argmax,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda state: (
            lambda: (W0 if state[0] is None else X0.T @ state[0] if gram else state[0]).T,
            lambda: mean,
        ),
    )
    coef, _ = result.solution
    if coef is None:  # stopped before the first update
        W = W0
    elif gram:
        W = X0.T @ coef
        U, s, Vt = np.linalg.svd(W, full_matrices=False)  # polar factor: exact orthonormality
        keep = s > 1e-8 * s.max(initial=0.0)
        W = U @ Vt if keep.all() else complete_orthonormal(U[:, keep], k, rng)
    else:
        W = coef
    return SolverResult.from_loop(result, components=_principal_axes(W, X0 @ W).T, mean=mean)


def solve_l21_pca_missing(
    X: np.ndarray,
    missing: np.ndarray,
    n_components: int,
    *,
    rng: np.random.Generator,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
) -> SolverResult:
    """Problem (8) with missing entries, by EM (:mod:`robustpca.solvers.missing`).

    Each iteration is one step of Algorithm 2 on the current completion centred by its
    arithmetic mean (:math:`\\alpha_i`, then :math:`W = UV^\\top` from the SVD of
    :math:`M`), after which the missing entries are completed by the least-squares fit
    of each row's observed coordinates to the new subspace. Starts from the PCA
    subspace of the median-completed data. ``objective`` holds objective (8) of the
    completion after each iteration: the completion moves with ``W``, so Theorem 1's
    monotonicity is not claimed for it (the stop is its relative change). Rows with at
    most ``k`` informative entries take no part
    (:func:`~robustpca.solvers.informative_coordinates.informative_rows`).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data; the values at ``missing`` are ignored (may be NaN).
    missing : ndarray of bool of shape (n_samples, n_features)
        True at the missing entries.
    n_components : int
        Dimension ``k`` of the subspace.
    rng : numpy.random.Generator
        Completes the starting basis where the data have too few directions of variance.
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=1e-6
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration; returning ``True`` stops.

    Returns
    -------
    SolverResult
    """
    rows = informative_rows(X, missing, n_components)
    if rows is not None:
        X, missing = X[rows], missing[rows]
    filled = initial_fill(X, missing)
    mean = filled.mean(axis=0)
    W0 = pca_basis(filled - mean, n_components, rng)
    filled, _ = complete(filled, missing, mean, W0.T)

    # The state is (W, C, mean, P): the completion held centred, C = completion - mean,
    # and its projections P = C W, which the objective and the next subgradients share
    # (one pass over n x d per iteration for the centring instead of three).
    def centred_state(W: np.ndarray, C: np.ndarray, mean: np.ndarray):
        shift = C.mean(axis=0)
        C -= shift
        return W, C, mean + shift, C @ W

    def argmax(alpha: np.ndarray):
        _, C, mean, _ = state_box[0]
        U, _, Vt = np.linalg.svd(C.T @ alpha, full_matrices=False)
        W = U @ Vt
        # the fit of the centred completion is the fit of the completion, less its mean
        C, _ = complete(C, missing, np.zeros_like(mean), W.T)
        state_box[0] = centred_state(W, C, mean)
        return state_box[0]

    state_box = [centred_state(W0, filled - mean, mean)]
    del filled
    result = maximize_linearized(
        state_box[0],
        subgradient=lambda state: l21_row_subgradients(state[3]),
        linear_argmax=argmax,
        objective=lambda state: l21_objective(state[3]),
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda state: (lambda: state[0].T, lambda: state[2]),
    )
    W, _, mean, P = result.solution
    components = _principal_axes(W, P).T
    return SolverResult.from_loop(result, components=components, mean=mean)
