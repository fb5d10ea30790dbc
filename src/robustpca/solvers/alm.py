r"""Convex robust PCA by the inexact augmented Lagrangian method (ALM).

Three problems :math:`\min f(L) + g(S)` subject to :math:`X = L + S` (one sample per row): **PCP**
(Candès, Li, Ma & Wright 2011), :math:`\lVert L\rVert_* + \lambda\lVert S\rVert_1`; **outlier
pursuit** (Xu, Caramanis & Sanghavi 2012; problem 29 of Nie et al. 2014), :math:`\gamma\lVert
Z\rVert_* + \lVert E\rVert_{2,1}`; and **CRPCA-OM** (Nie et al. 2014, problems 30-31), the same
with a free mean. One loop solves all three (Lin, Chen & Ma 2010, Algorithm 5; Nie et al. 2014,
Algorithm 3): an ``L`` step (singular value thresholding, :mod:`.alm_svt`), a sparse step (a
proximal map) and a multiplier update per iteration, on two ``n x d`` arrays updated in place by
blocks (:mod:`.alm_blocks`); ``gap_tol`` of :func:`solve_pcp` and :class:`.alm_schedule._Schedule`
set its stop. ``docs/design-notes/pcp.md`` gives the reasons for each part, with measurements.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..linalg.work_space import work_space
from ..prox import svt_factors
from ._result import IterationState, LoopSummary, SolverResult, StopReason
from .alm_blocks import (
    _L1,
    _L21,
    _advance,
    _Data,
    _finish_arrays,
    _low_rank_pass,
    _shift_into,
)
from .alm_blocks import BLOCK_BYTES as BLOCK_BYTES  # re-exported: importable from here
from .alm_gap import _cheap_gap, _final_dual, _gap, duality_gap
from .alm_norms import gamma_max, spectral_norm
from .alm_schedule import DUALITY_GAP as DUALITY_GAP  # re-exported
from .alm_schedule import RELAX_PCP, _Schedule
from .alm_svt import FACTOR_ROWS as FACTOR_ROWS  # re-exported
from .alm_svt import PARTIAL_COST as PARTIAL_COST  # re-exported
from .alm_svt import _right_vectors, _SVTStep
from .alm_types import _ALMOutcome, _LowRank, _Problem, column_offset, convex_result

__all__ = [
    "DUALITY_GAP",
    "PRIMAL_RESIDUAL",
    "duality_gap",
    "gamma_max",
    "optimal_mean_svt",
    "solve_crpca_om",
    "solve_outlier_pursuit",
    "solve_pcp",
    "spectral_norm",
]

#: Stop reason of the ALM solvers (the criterion of Lin, Chen & Ma 2010).
PRIMAL_RESIDUAL = StopReason.PRIMAL_RESIDUAL
Callback = Callable[[int, IterationState], bool | None]


def optimal_mean_svt(X: np.ndarray, threshold: float, **svd_kwargs) -> tuple:
    r"""Solve problem (32) of Nie et al. (2014) in closed form (Theorem 3).

    .. math::
        \min_{b, Z} \tfrac12 \lVert X - 1b^\top - Z\rVert_F^2 + \tau \lVert Z\rVert_*
        \;\Rightarrow\; \hat b = \tfrac1n X^\top 1,\quad
        \hat Z = U(\Sigma - \tau I)_+ V^\top ,

    with :math:`U\Sigma V^\top` the SVD of the centred :math:`X - 1\hat b^\top`. The
    solution is unique and :math:`\hat Z` has zero column sums (Lemma 3).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    threshold : float
        :math:`\tau \ge 0`.
    **svd_kwargs
        Passed to :func:`robustpca.prox.svt_factors`.

    Returns
    -------
    b : ndarray of shape (n_features,)
    factors : SVDFactors
        :math:`\hat Z` = ``(factors.U * factors.s) @ factors.Vt``.
    """
    b = X.mean(axis=0)
    return b, svt_factors(X - b, threshold, **svd_kwargs)


# --------------------------------------------------------------------- the loop
def _inexact_alm(
    data: _Data, problem: _Problem, *, mu, mu_max, rho, Y, max_iter, tol, gap_tol, callback
):
    """The loop of Lin et al. (2010, Alg. 5) and Nie et al. (2014, Alg. 3), with the gap stop
    of :class:`_Schedule` unless ``gap_tol`` is None. Owns the multiplier ``Y`` (updated in
    place) and allocates one other ``n x d`` array, ``work`` (``S``, then ``M`` or ``D``)."""
    n, d = data.shape
    scale = data.norm()
    work = work_space((n, d), np.float64, zeros=True)  # S_0
    history: list[float] = []
    parts: list[tuple[float, float]] = []  # (nuclear norm, g(D)): the terms of history
    trace: dict[str, list] = {"primal": [], "dual": [], "gap": [], "mu": [], "certified": []}
    low: _LowRank | None  # None between iterations: the old factors are released
    stop_reason, converged, mean, low = StopReason.MAX_ITER, False, None, _LowRank.empty(n, d)
    if scale == 0.0:  # X - c = 0: D = 0 and Y_0 = 0 are the solution
        exact = (0, True, StopReason.EXACT, 0.0, trace)
        return _ALMOutcome(work, Y, mu, None, low, [0.0], *exact, parts=[(0.0, 0.0)])
    relax = 1.0 if problem.sparse.rowwise else RELAX_PCP
    schedule = _Schedule(mu, rho, mu_max, tol, gap_tol, relax)
    mu_used, certified, alpha = mu, np.inf, 1.0
    for iteration in range(1, max_iter + 1):
        low = None  # the previous factors are not kept while the next are made
        relax = schedule.relaxation()  # of this iteration's sparse step
        if iteration == 1:  # S_0 = 0: the relaxed multiplier is Y_0
            _shift_into(data, work, Y, 1.0 / mu)
        else:
            _advance(data, problem.sparse, work, Y, mu_used, 1.0 / mu, alpha, relax)
        mean, low = problem.low_rank_step(work, mu)
        measure, alpha = schedule.measures(), relax
        stats = _low_rank_pass(
            data, problem.sparse, work, Y, low, mean, mu, measure, problem.free_mean, alpha
        )
        history.append(problem.sparse.objective(stats.loss, low.s))
        parts.append((float(low.s.sum()), float(stats.loss)))
        primal = float(np.sqrt(stats.primal)) / scale
        gap = dual = np.nan
        if measure:
            # ||Y hat||^2 + ||Y_{k+1}||^2, with ||Y_{k+1}||^2 = ||Y hat + change||^2
            size = 2 * (stats.size + stats.size_next) + stats.dual
            dual = float(np.sqrt(stats.dual / size)) if size > 0 else 0.0
        if measure is True:
            gap = _cheap_gap(problem, stats, history[-1], n)
        for key, value in zip(
            ("primal", "dual", "gap", "mu"), (primal, dual, gap, mu), strict=True
        ):
            trace[key].append(value)
        mu_used, mu = mu, schedule.next_mu(mu, primal, dual)
        if callback is not None:
            view = _callback_view(data, work, low, mean)  # state.mean: b + c
            if callback(iteration, IterationState(iteration, history[-1], None, *view)):
                stop_reason = StopReason.CALLBACK
                break
        if gap_tol is None:
            if primal <= tol:
                stop_reason, converged = PRIMAL_RESIDUAL, True
                break
            continue
        growing = schedule.phase == "lin"
        if schedule.wants_certificate(iteration, primal, gap, mu_used):
            outcome = _ALMOutcome(
                work, Y, mu_used, mean, low, history, iteration, False, "", alpha=alpha
            )
            certified = _gap(data, problem, outcome, history[-1], gap_tol)
            trace["certified"].append((iteration, certified))
            if schedule.done(iteration, gap, certified):
                stop_reason, converged = DUALITY_GAP, True
                break
            if growing and mu > mu_used:  # the balancing starts where the penalty froze
                mu = mu_used
    tail = (converged, stop_reason, certified, trace, alpha)
    return _ALMOutcome(work, Y, mu_used, mean, low, history, iteration, *tail, parts=parts)


def _callback_view(data: _Data, work, low: _LowRank, mean):
    """Lazy ``(components, mean)`` of the iterate for ``IterationState``; the mean is the
    offset of ``L``, ``b + c`` (``c``: the centre taken out first), as the result's."""
    b = np.zeros(data.shape[1]) if mean is None else mean

    def z_columns(cols, out):  # L - b = X - c - D - b
        np.subtract(data.take(slice(None), cols, out), work[:, cols], out=out)
        out -= b[cols]
        return out

    def components():
        return _right_vectors(data, low, low.s.size, z_columns, overwrite=False)

    return components, lambda: b if data.center is None else b + data.center


# ------------------------------------------------------------------ the results
def _solve(
    data: _Data,
    problem: _Problem,
    *,
    center,
    n_components,
    mu,
    mu_max,
    cap_ratio,
    rho,
    dual0,
    max_iter,
    tol,
    gap_tol,
    rng,
    callback,
    row_sparse,
    return_dual,
):
    mu0, cap = _auto_mu(data, mu, mu_max, cap_ratio, rng)
    out = _inexact_alm(
        data,
        problem,
        mu=mu0,
        mu_max=cap,
        rho=rho,
        Y=dual0,
        max_iter=max_iter,
        tol=tol,
        gap_tol=gap_tol,
        callback=callback,
    )
    objective = out.objective[-1]
    dual = _final_dual(data, problem.sparse, out) if return_dual else None
    gap = out.certified_gap if out.converged and gap_tol is not None else None
    if gap is None or not np.isfinite(gap):
        gap = _gap(data, problem, out, objective)
    low_rank, sparse = _finish_arrays(data, problem.sparse, out)
    data.release()
    offset = np.zeros(data.shape[1]) if out.mean is None else out.mean
    if center is not None:
        offset = offset + center

    def z_columns(cols, buffer):  # L - b = low_rank - (b + c)
        return np.subtract(low_rank[:, cols], offset[cols], out=buffer)

    def right_vectors(count):
        kept = _right_vectors(data, out.low, count, z_columns, overwrite=True)
        # do not keep a large factor alive
        return kept.copy() if 2 * kept.shape[0] < out.low.s.size else kept

    extra = {"dual": dual} if return_dual else {}
    return convex_result(
        low_rank,
        sparse,
        out.low.s,
        right_vectors,
        mean=offset,
        n_components=n_components,
        row_sparse=row_sparse,
        rng=rng,
        loop=LoopSummary(
            out.n_iter, out.converged, out.stop_reason, np.asarray(out.objective, dtype=float)
        ),
        duality_gap=gap,
        mu=mu0,
        objective_parts=np.asarray(out.parts, dtype=float).reshape(-1, 2),
        svd_counts=dict(problem.svt.counts),
        residuals={k: np.asarray(v) for k, v in (out.trace or {}).items()},
        **extra,
    )


def _auto_mu(data, mu, mu_max, ratio, rng):
    """``mu=None``: 1.25 / ||X||_2 (Lin et al.); ``mu_max=None``: ``ratio * mu0``."""
    if mu is None:
        norm_two = spectral_norm(data.X, rng, center=data.center)
        mu = 1.25 / norm_two if norm_two > 0 else 1.0
    cap = ratio * mu if mu_max is None else float(mu_max)
    return float(mu), max(cap, float(mu))


# ---------------------------------------------------------------------- solvers
def solve_pcp(
    X: np.ndarray,
    *,
    lam: float,
    n_components: int | None = None,
    center: bool | str = False,
    mu: float | None = None,
    mu_max: float | None = None,
    rho: float = 1.5,
    max_iter: int = 1000,
    tol: float = 1e-7,
    gap_tol: float | None = 1e-3,
    svd_solver: str = "auto",
    rng: np.random.Generator,
    callback: Callback | None = None,
    return_dual: bool = True,
) -> SolverResult:
    r"""Principal component pursuit by the inexact ALM (Lin, Chen & Ma 2010, Algorithm 5).

    .. math:: \min_{L, S} \lVert L\rVert_* + \lambda\lVert S\rVert_1
              \quad\text{s.t.}\quad X = L + S .

    Starts from :math:`S_0 = 0`, :math:`Y_0 = X / J(X)` with
    :math:`J(X) = \max(\lVert X\rVert_2, \lambda^{-1}\lVert X\rVert_\infty)`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Float32 ``X`` is not copied; SVT steps may form Gram matrices partly in single
        precision (:mod:`.alm_single_gram`, ``svd_counts['single']``), within its rounding.
    lam : float
    n_components : int or None, default=None
        Rows of the result's ``components``; None: ``max(rank, 1)``.
    center : {False, True, "median"}, default=False
        Column means or medians taken out first (:func:`~.alm_types.column_offset`).
    mu, mu_max : float or None, default=None
        Penalty :math:`\mu_0` and cap; None: :math:`1.25/\lVert X\rVert_2` and
        :math:`10^7\mu_0` (Lin et al.'s code), equivariant to the scale of ``X``.
    rho : float, default=1.5
        Growth factor of the penalty, :math:`\mu_{k+1} = \min(\rho\mu_k, \bar\mu)`.
    max_iter : int, default=1000
    tol : float, default=1e-7
        Target of the relative primal residual :math:`\lVert X - L - S\rVert_F`.
    gap_tol : float or None, default=1e-3
        Certified relative duality gap to reach (:mod:`~.alm_gap`); None: stop on ``tol``, which
        can leave the objective above the optimum where the iterates freeze.
    svd_solver : {"auto", "partial", "full"}, default="auto"
    rng : numpy.random.Generator
        Draws the start vectors; completes ``components`` beyond the rank.
    callback : callable or None, default=None
        ``callback(iteration, state)`` (an :class:`IterationState`); true stops the loop.
    return_dual : bool, default=True

    Returns
    -------
    SolverResult
        ``objective``: :math:`\lVert L_k\rVert_* + \lambda\lVert X - L_k\rVert_1` after each
        iteration; ``info``: ``low_rank``, ``sparse``, ``dual`` (:math:`Y`, with ``return_dual``:
        one ``n x d`` array), ``rank``, ``low_rank_singular_values``, ``duality_gap``
        (:func:`duality_gap`), ``mu`` (:math:`\mu_0`), ``objective_parts`` (nuclear norm and sparse
        term of each ``objective``), ``svd_counts`` (SVT steps by route).
    """
    center_vec = column_offset(X, center)
    data = _Data(X, center_vec)
    # Y_0 = X / J(X), J(X) = max(||X||_2, ||X||_inf / lam) (Lin et al., Algorithm 5)
    norm_two = spectral_norm(data.X, rng, center=data.center)
    J = max(norm_two, data.abs_max() / lam)
    svt = _SVTStep(X.shape, svd_solver, rng, single=X.dtype == np.float32)
    problem = _Problem(lambda M, mu: (None, svt(M, 1.0 / mu)), _L1(lam), svt)
    return _solve(
        data,
        problem,
        center=center_vec,
        n_components=n_components,
        mu=1.25 / norm_two if mu is None and norm_two > 0 else mu,
        mu_max=mu_max,
        cap_ratio=1e7,
        rho=rho,
        dual0=data.divided(J) if J > 0 else np.zeros(X.shape),
        max_iter=max_iter,
        tol=tol,
        gap_tol=gap_tol,
        rng=rng,
        callback=callback,
        row_sparse=False,
        return_dual=return_dual,
    )


def _row_sparse_alm(X, *, gamma, with_mean, center, svd_solver, rng, **alm):
    """Problems (29) and (30): Nie et al.'s Algorithm 3 with or without the mean."""
    svt = _SVTStep(X.shape, svd_solver, rng)

    def low_rank_step(M, mu):
        if with_mean:  # Theorem 3 (optimal_mean_svt), with the warm-started SVT
            b = M.mean(axis=0)
            M -= b
            return b, svt(M, gamma / mu)
        return None, svt(M, gamma / mu)

    return _solve(
        _Data(X, center),
        _Problem(low_rank_step, _L21(gamma), svt, free_mean=with_mean),
        center=center,
        cap_ratio=1e9,
        dual0=np.zeros(X.shape),
        rng=rng,
        row_sparse=True,
        **alm,
    )


def solve_outlier_pursuit(
    X: np.ndarray,
    *,
    gamma: float,
    n_components: int | None = None,
    center: bool = False,
    mu: float | None = None,
    mu_max: float | None = None,
    rho: float = 1.5,
    max_iter: int = 1000,
    tol: float = 1e-7,
    gap_tol: float | None = 1e-3,
    svd_solver: str = "auto",
    rng: np.random.Generator,
    callback: Callback | None = None,
    return_dual: bool = True,
) -> SolverResult:
    r"""Outlier pursuit, problem (29) of Nie et al. (2014), by the inexact ALM.

    .. math:: \min_{Z} \lVert X - Z\rVert_{2,1} + \gamma \lVert Z\rVert_* ,
              \qquad \lVert E\rVert_{2,1} = \sum_i \lVert e_i\rVert_2 ,

    the problem of Xu, Caramanis & Sanghavi (2012) with :math:`\lambda = 1/\gamma`, solved by
    Algorithm 3 of Nie et al. without the mean (:math:`E_0 = 0`, :math:`\Lambda_0 = 0`).

    Parameters
    ----------
    gamma : float
    center : bool, default=False
        Centre by the mean first (CRPCA as compared in Nie et al., sec. 5.3).
    mu, mu_max : float or None, default=None
        As in :func:`solve_pcp`, but ``mu_max=None`` gives :math:`10^9\mu_0`, the ratio
        of the paper's :math:`\bar\mu = 10^8` to its :math:`\mu_0 = 0.1`.
    X, n_components, rho, max_iter, tol, gap_tol, svd_solver, rng, callback, return_dual
        As in :func:`solve_pcp`.

    Returns
    -------
    SolverResult
        ``objective``: objective (29) at :math:`Z_k` after each iteration; ``info`` as
        for :func:`solve_pcp` plus ``outliers``, the rows with :math:`e_i \ne 0`.
    """
    return _row_sparse_alm(
        X,
        gamma=gamma,
        with_mean=False,
        center=X.mean(axis=0, dtype=np.float64) if center else None,
        svd_solver=svd_solver,
        rng=rng,
        n_components=n_components,
        mu=mu,
        mu_max=mu_max,
        rho=rho,
        max_iter=max_iter,
        tol=tol,
        gap_tol=gap_tol,
        callback=callback,
        return_dual=return_dual,
    )


def solve_crpca_om(
    X: np.ndarray,
    *,
    gamma: float,
    n_components: int | None = None,
    mu: float | None = None,
    mu_max: float | None = None,
    rho: float = 1.5,
    max_iter: int = 1000,
    tol: float = 1e-7,
    gap_tol: float | None = 1e-3,
    svd_solver: str = "auto",
    rng: np.random.Generator,
    callback: Callback | None = None,
    return_dual: bool = True,
) -> SolverResult:
    r"""CRPCA-OM, problem (30) of Nie et al. (2014), by their Algorithm 3 (ALM).

    .. math:: \min_{b, Z} \lVert X - 1b^\top - Z\rVert_{2,1} + \gamma\lVert Z\rVert_* .

    Each iteration solves problem (32) by Theorem 3 (:func:`optimal_mean_svt`) and (33) by row
    shrinkage, updates :math:`\Lambda` and sets :math:`\mu = \min(\rho\mu, \bar\mu)`. The data are
    translated by their arithmetic mean first, block by block without a copy (the solution is
    translation equivariant; this only keeps the numbers well scaled); ``b`` gets it back.

    Parameters
    ----------
    X, gamma, mu, mu_max
        As in :func:`solve_outlier_pursuit` (the paper's values: ``mu=0.1, mu_max=1e8``).
    n_components, rho, max_iter, tol, gap_tol, svd_solver, rng, callback, return_dual
        As in :func:`solve_pcp`.

    Returns
    -------
    SolverResult
        ``mean``: :math:`b`; ``objective``: (30) at :math:`(b_k, Z_k)` after each iteration;
        ``info`` as for :func:`solve_outlier_pursuit` (``low_rank``: :math:`1b^\top + Z`).
    """
    return _row_sparse_alm(
        X,
        gamma=gamma,
        with_mean=True,
        center=X.mean(axis=0, dtype=np.float64),
        svd_solver=svd_solver,
        rng=rng,
        n_components=n_components,
        mu=mu,
        mu_max=mu_max,
        rho=rho,
        max_iter=max_iter,
        tol=tol,
        gap_tol=gap_tol,
        callback=callback,
        return_dual=return_dual,
    )
