r"""AccAltProj (Cai, Cai & Wei 2019) in passes over row chunks: one pass an iteration.

On tall data (``n >= d``) with ``2r <= d``, every ``n``-sized object of
:func:`~robustpca.solvers.known_rank.solve_accaltproj` is a row block of ``S`` or of the
left factor ``U`` (``n x r``), and each step of an iteration is local to a row once a few
small matrices are known. The state of a chunk is its ``(S, U)``; a pass

1. forms the chunk's new left factor, ``U' = U A + (X - S) V B`` with ``r x r``
   matrices ``A``, ``B`` from the last tangent-space step (below), its rows of
   :math:`L = U'\operatorname{diag}(s)V'^\top`, the hard thresholding
   :math:`S' = \mathcal T_\zeta(X - L)` and the residual's squared norm (the objective);
2. in the same visit, gathers what the next tangent-space step needs at
   :math:`Z = X - S'`: :math:`Z^\top U'` (``d x r``), :math:`U'^\top U'` and, with
   :math:`W' = ZV' - U'\operatorname{diag}(s)` (small near convergence, so that its Gram
   matrix loses nothing to cancellation), :math:`W'^\top W'` and :math:`U'^\top W'`.

The truncation of the projection on the tangent space (:func:`_tangent_step`, Cai et
al.'s Algorithm 1, lines 6-8) then runs in memory: ``core = U^T Z V``, the QR of
:math:`(I - VV^\top)Z^\top U` as in memory (``d x r``), and for the left side only the
Gram matrix of :math:`W_1 = (I - UU^\top)ZV`, which is all the ``2r x 2r`` matrix ``M``
needs (its singular values and right vectors depend on :math:`R_1` only through
:math:`R_1^\top R_1 = W_1^\top W_1`); the new left factor is
:math:`U\,U_M^{top} + W_1 V_M^{top}\operatorname{diag}(1/\sigma)`, so no QR of an
``n x r`` matrix is formed. The initialisation (Algorithm 3) takes two passes for the
Gram matrices of ``X`` and of :math:`X - \mathcal T(X)`, whose top eigenpairs are those
of :func:`~robustpca.solvers.known_rank.top_singular_triplets` (the same Lanczos
iteration from the same random start above ``LANCZOS_MIN_SIDE`` columns, LAPACK's
eigensolver below): ``3 + n_iter`` passes in all, plus one at the end for the rank and
components (the Gram matrix of ``U``, gathered in the last pass already).

Trimming (``trim=True``) and ``2r > d`` (where the in-memory solver forms the projection
and takes its full SVD) are not done here. The runner is a state runner of
:mod:`robustpca.solvers.chunked_state` (:class:`~.chunked_state.NumpyStateRunner` in
memory). Nothing here imports dask, validates or warns.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla
from scipy.sparse.linalg import eigsh

from ..linalg import complete_orthonormal, single_blas_thread
from ._result import IterationState, LoopSummary, SolverResult, StopReason
from .known_rank import (
    LANCZOS_MIN_SIDE,
    RESIDUAL,
    STALLED,
    _orth_complement_qr,
    accaltproj_defaults,
    hard_threshold,
    lanczos_unit,
)
from .row_spread import RowSpread

__all__ = ["accaltproj_first_pass", "solve_accaltproj_chunked"]


# ------------------------------------------------------------------ chunk kernels
def accaltproj_first_pass(x, state):
    """The first pass: finite data, the Gram matrix of ``X`` and the spread of its rows
    (``spread``, a :class:`~robustpca.solvers.row_spread.RowSpread`).

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk of ``X``.
    state : object
        The chunk's state (``None`` before the first pass), returned unchanged.
    """
    if not np.isfinite(x).all():
        raise ValueError(
            "Input X contains NaN or infinity; a dask fit of AccAltProj needs finite data "
            "(fit X.compute() for missing entries)."
        )
    return state, {"gram": x.T @ x, "spread": RowSpread.of(x)}


def _thresholded_gram(x, state, *, zeta):
    """``(X - T(X))^T (X - T(X))`` of a chunk, ``T`` the hard thresholding at ``zeta``."""
    z = x - hard_threshold(x, zeta)
    return state, {"gram": z.T @ z}


def _update(x, state, *, zeta_init, V_old, A, B, s, V, zeta):
    """One pass: the new ``U`` and ``S`` of a chunk, the objective, the next step's sums."""
    if state is None:  # the initialisation: U = 0, S = T(X, zeta_init)
        S, U = hard_threshold(x, zeta_init), np.zeros((x.shape[0], A.shape[0]))
    else:
        S, U = state
    Z = x - S
    U_new = U @ A + (Z @ V_old) @ B
    R = x - (U_new * s) @ V.T
    S = hard_threshold(R, zeta)
    R -= S
    Z = np.subtract(x, S, out=Z)
    W = Z @ V - U_new * s
    part = {
        "residual": float(np.einsum("ij,ij->", R, R)),
        "ZtU": Z.T @ U_new,
        "UtU": U_new.T @ U_new,
        "WtW": W.T @ W,
        "UtW": U_new.T @ W,
    }
    return (S, U_new), part


def _low_rank_block(state, *, s, V):
    """A chunk's rows of ``L = U diag(s) V^T``."""
    return (state[1] * s) @ V.T


# --------------------------------------------------------------- in-memory steps
def _sqrt_psd(H: np.ndarray) -> np.ndarray:
    """An ``R`` with ``R^T R = H`` for a symmetric positive semi-definite ``H``."""
    try:
        return sla.cholesky(H, lower=False, check_finite=False)
    except np.linalg.LinAlgError:
        lam, E = sla.eigh(H, check_finite=False)
        return np.sqrt(np.maximum(lam, 0.0))[:, None] * E.T


def _top_triplets(G: np.ndarray, k: int, rng: np.random.Generator):
    """``s, V`` of :func:`~.known_rank.top_singular_triplets` of a tall matrix with Gram
    matrix ``G``: ARPACK's Lanczos as ``svds`` runs it (same draw from ``rng``, tolerance
    0, then the exact SVD of the ``k`` projected columns) or LAPACK's eigensolver."""
    d = len(G)
    with single_blas_thread():
        if d > LANCZOS_MIN_SIDE and k < d - 1:
            unit = lanczos_unit(G)
            if unit == 0.0:  # as top_singular_triplets: no start vector is drawn
                return np.zeros(k), np.eye(d, k)
            v0 = rng.standard_normal(size=(d,))
            E = eigsh(G if unit == 1.0 else G / unit, k=k, tol=0, which="LM", v0=v0)[1]
            E = np.linalg.qr(E)[0]
            lam, W = sla.eigh(E.T @ G @ E, check_finite=False)
            V = E @ W
        else:
            lam, V = sla.eigh(G, check_finite=False)
    order = np.argsort(lam)[::-1][:k]
    return np.sqrt(np.maximum(lam[order], 0.0)), V[:, order]


def _tangent_step(sums: dict, U_s: np.ndarray, V: np.ndarray, r: int):
    """:func:`~.known_rank._tangent_truncation` from a pass's sums: the new ``s``, ``V``,
    every singular value of ``M`` and the coefficients ``A``, ``B`` of the new left
    factor ``U A + (X - S) V B`` (``U_s``: the ``s`` with which ``W'`` was formed)."""
    UtU, UtW, WtW, ZtU = sums["UtU"], sums["UtW"], sums["WtW"], sums["ZtU"]
    core = UtW + UtU * U_s  # U^T Z V, with Z V = W' + U diag(s)
    delta = core - np.diag(U_s)  # W_1 = W' - U delta
    H1 = WtW - UtW.T @ delta - delta.T @ UtW + delta.T @ UtU @ delta
    H1 = 0.5 * (H1 + H1.T)
    with single_blas_thread():
        Q2, R2 = _orth_complement_qr(ZtU - V @ core.T, V)
        M = np.block([[core, R2.T], [_sqrt_psd(H1), np.zeros((r, r))]])
        _, sigma, Vmt = sla.svd(M, check_finite=False)
    s = sigma[:r]
    inv = np.divide(1.0, s, out=np.zeros_like(s), where=s > 0)
    C = Vmt[:r, :r].T * inv  # W_1 V_M^top diag(1/s): the new left factor's W_1 part
    top = (core @ Vmt[:r, :r].T + R2.T @ Vmt[:r, r:].T) * inv  # U_M^top
    V_new = V @ Vmt[:r, :r].T + Q2 @ Vmt[:r, r:].T
    return s, V_new, sigma, top - core @ C, C


# ------------------------------------------------------------------------ the solver
def solve_accaltproj_chunked(
    run,
    first: dict,
    rank: int,
    *,
    beta: float | None = None,
    beta_init: float | None = None,
    gamma: float = 0.5,
    max_iter: int = 100,
    tol: float = 1e-7,
    rng: np.random.Generator,
    callback=None,
) -> SolverResult:
    r"""AccAltProj over the row chunks of ``run`` (module docstring): the iterations,
    thresholds, stopping rules and result of
    :func:`~robustpca.solvers.known_rank.solve_accaltproj` (``trim=False``, every entry
    observed), one pass an iteration.

    Parameters
    ----------
    run : callable
        A state runner (:mod:`robustpca.solvers.chunked_state`) with ``n_samples`` and
        ``map_states``.
    first : dict
        The sums of :func:`accaltproj_first_pass`.
    rank : int
        ``r``, with ``2 r <= n_features``.
    beta, beta_init, gamma, max_iter, tol, rng, callback
        As for ``solve_accaltproj``.

    Returns
    -------
    SolverResult
        As ``solve_accaltproj``'s; ``low_rank`` and ``sparse`` from ``run.map_states``
        (for dask, chunked arrays; ``low_rank`` is formed from the chunks' ``U`` when it
        is computed).
    """
    G = first["gram"]
    n, d, r = run.n_samples, len(G), int(rank)
    default_beta, _ = accaltproj_defaults(n, d)
    beta = default_beta if beta is None else float(beta)
    beta_init = beta if beta_init is None else float(beta_init)  # the defaults' rule
    norm_x = float(np.sqrt(max(float(np.trace(G)), 0.0)))
    objective: list[float] = []
    top = _top_triplets(G, 1, rng)[0]
    thresholds = [beta_init * float(top[0]) if top.size else 0.0]
    s, V = _top_triplets(run(_thresholded_gram, zeta=thresholds[0])["gram"], r, rng)
    thresholds.append(beta * float(s[0]))
    inv = np.divide(1.0, s, out=np.zeros_like(s), where=s > 0)
    step = {"V_old": V, "A": np.zeros((r, r)), "B": np.diag(inv)}
    sums = run(_update, zeta_init=thresholds[0], s=s, V=V, zeta=thresholds[-1], **step)
    stop_reason, converged, n_iter = StopReason.MAX_ITER, False, 0
    if norm_x == 0:
        stop_reason, converged = StopReason.EXACT, True
        objective.append(0.0)
    for k in range(1, max_iter + 1 if norm_x > 0 else 1):
        s_new, V_new, sigma, A, B = _tangent_step(sums, s, V, r)
        next_sigma = float(sigma[r]) if sigma.size > r else 0.0
        thresholds.append(beta * (next_sigma + gamma**k * float(sigma[0])))
        step = {"V_old": V, "A": A, "B": B}
        sums = run(_update, zeta_init=None, s=s_new, V=V_new, zeta=thresholds[-1], **step)
        s, V = s_new, V_new
        objective.append(float(np.sqrt(max(sums["residual"], 0.0))) / norm_x)
        n_iter = k
        if callback is not None:
            if callback(k, _callback_state(k, objective[-1], V)):
                stop_reason = StopReason.CALLBACK
                break
        if objective[-1] <= tol:
            stop_reason, converged = RESIDUAL, True
            break
        levelled = abs(thresholds[-1] - thresholds[-2]) <= tol * thresholds[-2]
        if k > 1 and levelled and abs(objective[-2] - objective[-1]) <= tol * objective[-2]:
            stop_reason, converged = STALLED, True
            break
    # the result of known_rank._result: the exact SVD of U diag(s) V^T
    with single_blas_thread():
        Ru = _sqrt_psd(0.5 * (sums["UtU"] + sums["UtU"].T))
        Qv, Rv = sla.qr(V, mode="economic", check_finite=False)
        sv, bt = sla.svd((Ru * s) @ Rv.T, check_finite=False)[1:]
    top_sv = sv.max(initial=0.0)
    eps = max(n, d) * np.finfo(float).eps
    n_rank = int(np.count_nonzero(sv > top_sv * eps)) if top_sv > 0 else 0
    components = complete_orthonormal((Qv @ bt.T)[:, :n_rank], r, rng).T
    sv = sv[:r]
    info = {
        "low_rank": run.map_states(_low_rank_block, d, s=s, V=V),
        "sparse": run.map_states(_sparse_block, d),
        "rank": n_rank,
        "low_rank_singular_values": sv,
        "explained_variance": sv**2 / max(n - 1, 1),
        "thresholds": np.asarray(thresholds),
        "beta": beta,
        "beta_init": beta_init,
    }
    loop = LoopSummary(n_iter, converged, stop_reason, np.asarray(objective, dtype=float))
    return SolverResult.from_loop(loop, components=components, mean=np.zeros(d), info=info)


def _callback_state(iteration: int, objective: float, V: np.ndarray) -> IterationState:
    """The callback's view: the current basis (``V^T``) and a zero mean."""
    basis, zeros = V.T, np.zeros(V.shape[0])
    return IterationState(iteration, objective, None, lambda: basis, lambda: zeros)


def _sparse_block(state):
    return state[0]
