r"""The convex problems on the observed entries only: robust matrix completion.

With :math:`\Omega` the observed entries (Candès, Li, Ma & Wright 2011, sec. 1.6 and 4):

.. math::
    \min_{L, S, b}\ \lVert L\rVert_* + \lambda\, r(P_\Omega(S))
    \quad\text{s.t.}\quad P_\Omega(L + \mathbf 1 b^\top + S) = P_\Omega(X),

with :math:`r` the l1 norm (principal component pursuit) or the l2,1 norm of the rows
over their observed entries (outlier pursuit; with the free mean :math:`b`, CRPCA-OM of
Nie, Yuan & Huang 2014, problem (30)). The inexact ALM of Lin, Chen & Ma (2010) runs on
:math:`X` with zeros in the gaps and with :math:`S` free (unpenalised) off
:math:`\Omega`: the S-step then sets :math:`S = X - L - \mathbf 1 b^\top + Y/\mu` there,
so the constraint and the multiplier :math:`Y` live on :math:`\Omega` only, and
:math:`L` fills the gaps. The mean is updated from the observed entries of each column.

The certified relative duality gap is computed at the end: the multiplier is supported on
:math:`\Omega`, centred over the observed entries of each column when there is a free
mean, and scaled into the dual ball (spectral norm at most 1, entry or row norm at most
:math:`\lambda`); the primal value is that of the feasible point :math:`(L, b,
P_\Omega(X - L - \mathbf 1 b^\top))`. By weak duality the gap bounds the relative
suboptimality.

The stopping rule is that of the complete-data solvers
(:class:`~robustpca.solvers.alm_schedule._Schedule`): Lin et al.'s growing penalty until
the relative primal residual on :math:`\Omega` is below ``tol``, then, unless
``gap_tol`` is None, the penalty balanced on the primal and dual residuals (Boyd et al.
2011, sec. 3.4.1) until the certified gap is below ``gap_tol``: Lin et al.'s rule alone
can stop far above the optimum here too, however small ``tol``
(``docs/design-notes/pcp.md``). The dual residual is :math:`\mu_k \lVert S_{k+1}
- S_k\rVert_F / \lVert Y_{k+1}\rVert_F`. The certificate uses the singular values of
the thresholding step and one Lanczos spectral norm of the multiplier.
"""

from __future__ import annotations

import numpy as np

from ..prox import l21_shrinkage, soft_threshold, svt_factors
from ._result import IterationState, LoopSummary, SolverResult, StopReason
from .alm import Callback, spectral_norm
from .alm_schedule import DUALITY_GAP, _Schedule
from .alm_types import column_offset, convex_result

__all__ = ["solve_observed"]


def _masked_row_shrinkage(R: np.ndarray, observed: np.ndarray, tau: float) -> np.ndarray:
    """l2,1 shrinkage of each row over its observed entries (zero elsewhere)."""
    return l21_shrinkage(np.where(observed, R, 0.0), tau)


def _solve(
    X,
    observed,
    lam,
    *,
    row_sparse,
    with_mean,
    center,
    mu,
    mu_max,
    rho,
    max_iter,
    tol,
    gap_tol,
    rng,
    n_components,
    callback,
):
    n, d = X.shape
    offset = column_offset(X, center, observed)
    offset0 = np.zeros(d) if offset is None else offset
    Z = np.where(observed, X - offset0, 0.0)
    norm_Z = float(np.linalg.norm(Z))
    two = float(np.linalg.norm(Z, 2)) if norm_Z > 0 else 0.0
    inf = _entry_norm(Z, row_sparse)
    J = max(two, inf / lam) if lam > 0 else two
    Y = Z / J if J > 0 else np.zeros_like(Z)
    mu = (1.25 / two if two > 0 else 1.0) if mu is None else float(mu)
    mu0 = mu  # reported as ``mu``, as the complete-data solvers do
    mu_cap = 1e7 * mu if mu_max is None else max(float(mu_max), mu)
    L = np.zeros_like(Z)
    S = np.zeros_like(Z)
    b = np.zeros(d)
    counts = np.maximum(observed.sum(axis=0), 1)
    # (nuclear norm, sparse penalty) of the feasible point after each iteration
    parts: list[tuple[float, float]] = []
    sv = min(10, min(n, d))
    s = np.zeros(0)
    stop, converged, n_iter = StopReason.MAX_ITER, False, 0
    schedule = _Schedule(mu, rho, mu_cap, tol, gap_tol)
    if norm_Z == 0:  # the data equal their offset: L = S = 0, as on complete data
        stop, converged, parts, max_iter = StopReason.EXACT, True, [(0.0, 0.0)], 0
    for n_iter in range(1, max_iter + 1):
        # the duality gap certifies the fit: its steps skip the partial route's check
        f = svt_factors(Z - b - S + Y / mu, 1.0 / mu, rank_hint=sv, rng=rng, certify=False)
        s = f.s
        L = f.to_array()
        rank = s.size
        sv = rank + 1 if rank < sv else min(rank + max(1, round(0.05 * min(n, d))), min(n, d))
        if with_mean:
            b = np.where(observed, Z - L - S + Y / mu, 0.0).sum(axis=0) / counts
        R = Z - L - b + Y / mu
        if row_sparse:
            S_next = _masked_row_shrinkage(R, observed, lam / mu)
        else:
            S_next = np.where(observed, soft_threshold(R, lam / mu), 0.0)
        S_next = np.where(observed, S_next, R)  # free off Omega: absorbs the gaps
        change = float(np.linalg.norm(S_next - S)) if gap_tol is not None else 0.0
        S = S_next
        P = np.where(observed, Z - L - b - S, 0.0)
        Y += mu * P
        # the objective at the feasible point (L, b, P_Omega(Z - L - b)), as the
        # complete-data solvers record it at (L, X - L)
        parts.append((float(s.sum()), _penalty(np.where(observed, Z - L - b, 0.0), row_sparse)))
        primal = float(np.linalg.norm(P)) / norm_Z
        if callback is not None and callback(
            n_iter,
            IterationState(
                n_iter,
                _objective(*parts[-1], lam, row_sparse),
                None,
                lambda f=f: f.Vt.copy(),  # the row space of L
                lambda b=b: offset0 + b,
            ),
        ):
            stop = StopReason.CALLBACK
            break
        if gap_tol is None and primal <= tol:
            stop, converged = StopReason.PRIMAL_RESIDUAL, True
            break
        if gap_tol is None:
            mu = min(rho * mu, mu_cap)
            continue
        size = float(np.linalg.norm(Y))
        dual = mu * change / size if size > 0 else 0.0
        growing = schedule.phase == "lin"
        mu_used, mu = mu, schedule.next_mu(mu, primal, dual)
        if schedule.wants_certificate(n_iter, primal, np.inf, mu_used):
            certified = _iterate_gap(Z, Y, observed, parts[-1], lam, row_sparse, with_mean, rng)
            if schedule.done(n_iter, np.inf, certified):
                stop, converged = DUALITY_GAP, True
                break
            if growing and mu > mu_used:  # the balancing starts where the penalty froze
                mu = mu_used
    # the feasible point (L, b, P_Omega(Z - L - b)) and the certified gap
    sigma = np.linalg.svd(L, compute_uv=False) if L.size else np.zeros(0)
    S_obs = np.where(observed, Z - L - b, 0.0)
    primal = float(sigma.sum()) + lam * _penalty(S_obs, row_sparse)
    gap = _certified_gap(Z, Y, observed, lam, primal, row_sparse, with_mean)
    objective = np.array([_objective(*part, lam, row_sparse) for part in parts], dtype=float)
    offset = offset0 + b
    low_rank = L + offset
    return convex_result(
        low_rank,
        np.where(observed, S, 0.0),  # the shrunk iterate: exact zeros off the support
        sigma,
        lambda count: np.linalg.svd(L, full_matrices=False)[2][:count],
        mean=offset,
        n_components=n_components,
        row_sparse=row_sparse,
        rng=rng,
        loop=LoopSummary(n_iter, converged, stop, objective),
        duality_gap=gap,
        mu=float(mu0),
        objective_parts=np.asarray(parts, dtype=float).reshape(-1, 2),
    )


def _penalty(S: np.ndarray, row_sparse: bool) -> float:
    """The l2,1 norm of ``S`` (``row_sparse``) or its l1 norm."""
    if row_sparse:
        return float(np.sqrt(np.einsum("ij,ij->i", S, S)).sum())
    return float(np.abs(S).sum())


def _objective(nuclear: float, penalty: float, lam: float, row_sparse: bool) -> float:
    r"""The paper's objective from its parts: PCP's :math:`\lVert L\rVert_* + \lambda
    \lVert S\rVert_1`, or outlier pursuit's :math:`\lVert E\rVert_{2,1} + \gamma
    \lVert Z\rVert_*` with :math:`\gamma = 1/\lambda` (not divided by
    :math:`\gamma`: the complete-data solvers' value)."""
    if row_sparse:
        return penalty + nuclear / lam
    return nuclear + lam * penalty


def _entry_norm(W: np.ndarray, row_sparse: bool) -> float:
    """The dual norm of :func:`_penalty`: the largest row norm or entry magnitude."""
    if row_sparse:
        return float(np.sqrt(np.einsum("ij,ij->i", W, W)).max(initial=0.0))
    return float(np.abs(W).max(initial=0.0))


def _iterate_gap(Z, Y, observed, part, lam, row_sparse, with_mean, rng) -> float:
    """The certified gap of the current iterate (its feasible point, as at the end),
    from ``part``: the nuclear norm of ``L`` (the thresholding step's singular values)
    and the penalty of ``P_Omega(Z - L - b)``."""
    nuclear, penalty = part
    primal = nuclear + lam * penalty
    return _certified_gap(Z, Y, observed, lam, primal, row_sparse, with_mean, rng=rng)


def _certified_gap(Z, Y, observed, lam, primal, row_sparse, with_mean, rng=None) -> float:
    W = np.where(observed, Y, 0.0)
    if with_mean:  # dual feasibility for a free mean: columns sum to zero on Omega
        col = W.sum(axis=0) / np.maximum(observed.sum(axis=0), 1)
        W = np.where(observed, W - col, 0.0)
    if not W.size:
        spectral = 0.0
    elif rng is None:
        spectral = float(np.linalg.norm(W, 2))
    else:  # Lanczos, during the loop (exact for small W)
        spectral = spectral_norm(W, rng)
    entry = _entry_norm(W, row_sparse)
    scale = max(1.0, spectral, entry / lam if lam > 0 else 0.0)
    dual = float(np.sum(Z * W)) / scale
    if primal <= 0:
        return 0.0
    return max(0.0, (primal - dual) / primal)


def solve_observed(
    X: np.ndarray,
    observed: np.ndarray,
    *,
    lam: float,
    row_sparse: bool = False,
    with_mean: bool = False,
    center: bool | str = False,
    n_components: int | None = None,
    mu: float | None = None,
    mu_max: float | None = None,
    rho: float = 1.5,
    max_iter: int = 1000,
    tol: float = 1e-7,
    gap_tol: float | None = None,
    rng: np.random.Generator,
    callback: Callback | None = None,
) -> SolverResult:
    r"""The convex problems on the observed entries (module docstring).

    - ``row_sparse=False``: PCP, :math:`\lVert L\rVert_* + \lambda\lVert P_\Omega(S)
      \rVert_1` (:func:`~.alm.solve_pcp` on complete data);
    - ``row_sparse=True``: outlier pursuit (``with_mean=False``) or CRPCA-OM
      (``with_mean=True``), :math:`\lVert L\rVert_* + \lambda \sum_i
      \lVert P_\Omega(s_i)\rVert_2`, i.e. ``lam = 1 / gamma`` of the papers'
      :math:`\lVert E\rVert_{2,1} + \gamma\lVert L\rVert_*`
      (:func:`~.alm.solve_outlier_pursuit`, :func:`~.alm.solve_crpca_om`).

    Data equal to their offset on :math:`\Omega` stop at once (``StopReason.EXACT``, no
    iteration).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data; may hold NaN off ``observed``.
    observed : ndarray of bool of shape (n_samples, n_features)
        True at the observed entries :math:`\Omega`.
    lam : float
        The weight :math:`\lambda` of the sparse penalty.
    row_sparse : bool, default=False
        Penalise the rows' l2,1 norm (outlier pursuit, CRPCA-OM) rather than the l1 norm.
    with_mean : bool, default=False
        Fit the free mean :math:`b` (CRPCA-OM).
    center : {False, True, "median"}, default=False
        Subtract the observed column means (``"median"``: their medians) first, as
        :func:`~.alm.solve_pcp` does.
    n_components : int or None, default=None
        Rows of the result's ``components``; None: ``max(rank, 1)``.
    mu : float or None, default=None
        Initial penalty :math:`\mu_0`; None: :math:`1.25/\lVert P_\Omega(X)\rVert_2`.
    mu_max : float or None, default=None
        Cap on the penalty; None: :math:`10^7\mu_0` for all three problems (the gap
        certifies the fit whatever the cap).
    rho : float, default=1.5
        Growth factor of the penalty.
    max_iter : int, default=1000
        Maximum number of iterations.
    tol : float, default=1e-7
        Target of the relative primal residual on :math:`\Omega`.
    gap_tol : float or None, default=None
        The certified relative duality gap the loop goes on to meet (module docstring);
        None: Lin et al.'s primal rule alone.
    rng : numpy.random.Generator
        Draws the start vectors; completes ``components`` beyond the rank.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration, as in :func:`~.alm.solve_pcp`
        (``state.components``: the row space of the low-rank iterate; ``state.mean``: its
        offset); returning ``True`` stops.

    Returns
    -------
    SolverResult
        The result of the complete-data solver, with ``low_rank`` filling the gaps and
        ``sparse`` zero there: ``objective`` is the papers' objective (for the row-sparse
        problems :math:`\lVert E\rVert_{2,1} + \gamma\lVert L\rVert_*`, ``gamma = 1 /
        lam``) at the feasible point :math:`(L_k, b_k, P_\Omega(X - L_k - \mathbf 1
        b_k^\top))` after each iteration, ``info['mu']`` is :math:`\mu_0` and
        ``info['objective_parts']`` holds the objective's two terms per iteration
        (nuclear norm, then l1 or l2,1 norm).
    """
    return _solve(
        np.where(observed, X, 0.0),
        observed,
        lam,
        row_sparse=row_sparse,
        with_mean=with_mean,
        center=center,
        mu=mu,
        mu_max=mu_max,
        rho=rho,
        max_iter=max_iter,
        tol=tol,
        gap_tol=gap_tol,
        rng=rng,
        n_components=n_components,
        callback=callback,
    )
