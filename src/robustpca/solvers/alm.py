r"""Convex robust PCA by the inexact augmented Lagrangian method (ALM).

Three convex problems of the form :math:`\min f(L) + g(S)` subject to :math:`X = L + S`
(one sample per row of ``X``):

* **PCP**, principal component pursuit (Candès, Li, Ma & Wright 2011; problem 28 of
  Nie et al. 2014 with :math:`\gamma = 1/\lambda`):
  :math:`\lVert L\rVert_* + \lambda\lVert S\rVert_1`;
* **outlier pursuit** (Xu, Caramanis & Sanghavi 2012; CRPCA, problem 29 of Nie et al.):
  :math:`\gamma\lVert Z\rVert_* + \lVert E\rVert_{2,1}`, the l2,1 norm summing the
  l2 norms of the samples (rows) of ``E``;
* **CRPCA-OM** (Nie et al. 2014, problems 30-31): the same with a free mean,
  :math:`L = 1b^\top + Z`.

All three are solved by the same inexact ALM loop (Lin, Chen & Ma 2010, Algorithm 5;
Nie et al. 2014, Algorithm 3), one pass of alternating minimisation of the augmented
Lagrangian :math:`f(L) + g(S) + \langle Y, X - L - S\rangle + \frac\mu2\lVert X - L -
S\rVert_F^2` per multiplier update:

.. math::
    L_{k+1} = \operatorname{prox}_{f/\mu_k}(X - S_k + Y_k/\mu_k),\quad
    S_{k+1} = \operatorname{prox}_{g/\mu_k}(X - L_{k+1} + Y_k/\mu_k),

    Y_{k+1} = Y_k + \mu_k (X - L_{k+1} - S_{k+1}),\quad
    \mu_{k+1} = \min(\rho\mu_k, \bar\mu),

stopped when :math:`\lVert X - L - S\rVert_F \le \mathrm{tol}\,\lVert X\rVert_F`
(Lin et al.). The ``L`` step is singular value thresholding for PCP and outlier
pursuit, and for CRPCA-OM the closed form of Theorem 3 of Nie et al.:
:math:`b = \frac1n \tilde X^\top 1` (the arithmetic mean) and :math:`Z` the singular
value thresholding of the centred :math:`\tilde X` (:func:`optimal_mean_svt`). The
centring is a broadcast subtraction; no ``n x n`` centring matrix is formed.

The singular value thresholding uses the partial SVD of :mod:`robustpca.prox` with the
rank prediction of Lin et al. (``svp``: one more than the last rank when it shrank,
5% of ``min(n, d)`` more when it did not) and the previous right singular vectors as
a warm start; it falls back to the exact SVD when the partial one is not cheaper.
Wide data (``n_samples < n_features``) need no Gram-matrix route here: every step works
on ``n x d`` iterates, and LAPACK's SVD and the subspace iteration already cost
``O(n d min(n, d))`` and ``O(n d k)``; a Gram route would square the condition number of
the thresholded singular values for no gain in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import linalg as sla

from ..linalg import complete_orthonormal
from ..prox import OVERSAMPLES, SVDFactors, l21_shrinkage, soft_threshold, svt_factors
from ._result import IterationState, SolverResult, StopReason

__all__ = [
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


def spectral_norm(X: np.ndarray, rng: np.random.Generator, *, rtol: float = 1e-6) -> float:
    """Largest singular value of ``X``: exact for small ``X``, else block power iteration
    (11 vectors, at most 30 passes) until the top Ritz value changes by at most ``rtol``
    relative (it is a lower bound that converges from below)."""
    side = min(X.shape)
    if side <= 4 * OVERSAMPLES:
        return float(sla.svdvals(X, check_finite=False)[0]) if X.size else 0.0
    Q = sla.qr(X @ rng.standard_normal((X.shape[1], OVERSAMPLES + 1)), mode="economic")[0]
    value = 0.0
    for _ in range(30):
        B = Q.T @ X
        s = sla.svdvals(B, check_finite=False)
        if s[0] == 0 or abs(s[0] - value) <= rtol * s[0]:
            return float(s[0])
        value = s[0]
        Q = sla.qr(X @ B.T, mode="economic")[0]
    return float(value)


def gamma_max(X: np.ndarray) -> float:
    r"""Smallest :math:`\gamma` for which ``Z = 0`` solves problem (29) on ``X``.

    :math:`Z = 0` is optimal iff some subgradient of :math:`\lVert X\rVert_{2,1}`, the
    rows of ``X`` scaled to unit norm (``G``, zero rows may stay zero), lies in
    :math:`\gamma\,\partial\lVert 0\rVert_* = \{W : \lVert W\rVert_2 \le \gamma\}`;
    so the threshold is :math:`\lVert G\rVert_2 \le \lVert G\rVert_F \le \sqrt{n}`.
    """
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    G = np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)
    return spectral_norm(G, np.random.default_rng(0), rtol=1e-10)


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


class _SVTStep:
    """Singular value thresholding with Lin et al.'s rank prediction and a warm start.

    As in Lin et al.'s code, at most ``hint`` triplets are computed; when all of them
    exceed the threshold the step is truncated (``method='truncated'``) and the next
    hint grows by 5% of ``min(n, d)``; otherwise it is one more than the rank found.
    The partial SVD is converged to ``rtol``, which the ALM loop keeps at 1% of its
    relative primal residual (between 1e-12 and 1e-6): the proximal steps are computed
    more accurately as the iterates converge, the usual condition of inexact proximal
    methods.
    """

    def __init__(self, shape: tuple[int, int], solver: str, rng: np.random.Generator):
        self.side = min(shape)
        self.hint = min(10, self.side)
        self.solver = solver
        self.rng = rng
        self.init = None
        self.rtol = 1e-6
        self.counts = {"full": 0, "partial": 0, "truncated": 0}

    def __call__(self, M: np.ndarray, tau: float) -> SVDFactors:
        factors = svt_factors(
            M,
            tau,
            rank_hint=self.hint,
            grow=False,
            solver=self.solver,
            rng=self.rng,
            init=self.init,
            rtol=self.rtol,
        )
        svp = factors.s.size
        grow = 1 if svp < self.hint else max(1, round(0.05 * self.side))
        self.hint = max(1, min(svp + grow, self.side))
        self.init = factors.Vt
        self.counts[factors.method] += 1
        return factors


@dataclass
class _ALMOutcome:
    low_rank: np.ndarray
    sparse: np.ndarray
    dual: np.ndarray
    mean: np.ndarray
    factors: SVDFactors
    objective: list
    n_iter: int
    converged: bool
    stop_reason: str


@dataclass(frozen=True)
class _Problem:
    """One convex problem: its two proximal steps, objective and dual norm."""

    low_rank_step: Callable  # (M, mu) -> (L, mean, factors)
    sparse_prox: Callable  # (M, mu) -> S
    objective: Callable  # (X - L, factors) -> objective at the feasible (L, X - L)
    dual_norm: Callable  # Y -> the norm whose unit ball is the dual feasible set
    svt: _SVTStep  # its accuracy follows the primal residual
    free_mean: bool = False  # the dual must then have zero column sums


def _inexact_alm(X, problem: _Problem, *, mu, mu_max, rho, dual0, max_iter, tol, callback):
    """The shared loop of Lin et al. (2010, Alg. 5) and Nie et al. (2014, Alg. 3)."""
    n, d = X.shape
    scale = float(np.linalg.norm(X))
    S = np.zeros_like(X)
    Y = np.array(dual0, dtype=np.float64, copy=True)
    L, mean = np.zeros_like(X), np.zeros(d)
    factors = SVDFactors(np.zeros((n, 0)), np.zeros(0), np.zeros((0, d)), "full")
    if scale == 0.0:
        return _ALMOutcome(L, S, Y, mean, factors, [0.0], 0, True, StopReason.EXACT)
    history: list[float] = []
    stop_reason, converged = StopReason.MAX_ITER, False
    for iteration in range(1, max_iter + 1):
        inv = 1.0 / mu
        L, mean, factors = problem.low_rank_step(X - S + inv * Y, mu)
        D = X - L
        S = problem.sparse_prox(D + inv * Y, mu)
        R = D - S
        Y += mu * R
        history.append(float(problem.objective(D, factors)))
        mu = min(rho * mu, mu_max)
        if callback is not None:
            view = (lambda f=factors: f.Vt, lambda m=mean: m)
            if callback(iteration, IterationState(iteration, history[-1], None, *view)):
                stop_reason = StopReason.CALLBACK
                break
        residual = float(np.linalg.norm(R)) / scale
        problem.svt.rtol = min(1e-6, max(1e-12, 0.01 * residual))
        # a truncated SVT step is never the last one (Lin et al.'s code has no such check)
        if residual <= tol and factors.method != "truncated":
            stop_reason, converged = PRIMAL_RESIDUAL, True
            break
    return _ALMOutcome(L, S, Y, mean, factors, history, iteration, converged, stop_reason)


def duality_gap(X: np.ndarray, Y: np.ndarray, objective: float, dual_norm, free_mean=False):
    r"""Relative gap between a primal value and the dual value of a scaled multiplier.

    The three problems are :math:`\min f(L) + g(X - L)` with norms ``f``, ``g``; their
    dual is :math:`\max \langle X, Y\rangle` over :math:`f^*(Y) \le 1`,
    :math:`g^*(Y) \le 1` (and :math:`Y^\top 1 = 0` with a free mean). ``Y`` is made
    feasible (centred, then divided by ``max(1, dual_norm(Y))``), so by weak duality
    ``(objective - <X, Y>) / objective`` is a certified upper bound on the relative
    suboptimality of ``objective`` (it is never negative beyond rounding).
    """
    if objective <= 0:
        return 0.0
    if free_mean:
        Y = Y - Y.mean(axis=0)
    value = float(np.vdot(X, Y)) / max(1.0, dual_norm(Y))
    return (objective - value) / objective


def _components(factors: SVDFactors, n_components, shape, rng):
    """Top right singular vectors of the low-rank part, padded to ``n_components``."""
    s, Vt = factors.s, factors.Vt
    top = s.max(initial=0.0)
    rank = int(np.count_nonzero(s > top * max(shape) * np.finfo(float).eps)) if top > 0 else 0
    k = max(rank, 1) if n_components is None else int(n_components)
    basis = complete_orthonormal(Vt[: min(k, rank)].T, k, rng)
    return basis.T, rank


def _solve(
    X,
    problem,
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
    svt,
    rng,
    callback,
    row_sparse,
):
    mu0, cap = _auto_mu(X, mu, mu_max, cap_ratio, rng)
    out = _inexact_alm(
        X,
        problem,
        mu=mu0,
        mu_max=cap,
        rho=rho,
        dual0=dual0,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
    )
    components, rank = _components(out.factors, n_components, X.shape, rng)
    objective = out.objective[-1]
    info = {
        "low_rank": out.low_rank + center,
        "sparse": out.sparse,
        "rank": rank,
        "low_rank_singular_values": out.factors.s[:rank].copy(),
        "duality_gap": duality_gap(X, out.dual, objective, problem.dual_norm, problem.free_mean),
        "mu": mu0,
        "dual": out.dual,
        "svd_counts": dict(svt.counts),
    }
    if row_sparse:
        info["outliers"] = np.linalg.norm(out.sparse, axis=1) > 0
    return SolverResult(
        components=components,
        mean=out.mean + center,
        weights=None,
        n_iter=out.n_iter,
        converged=out.converged,
        stop_reason=out.stop_reason,
        objective=np.asarray(out.objective, dtype=float),
        info=info,
    )


def _auto_mu(X, mu, mu_max, ratio, rng):
    """``mu=None``: 1.25 / ||X||_2 (Lin et al.); ``mu_max=None``: ``ratio * mu0``."""
    if mu is None:
        norm_two = spectral_norm(X, rng)
        mu = 1.25 / norm_two if norm_two > 0 else 1.0
    cap = ratio * mu if mu_max is None else float(mu_max)
    return float(mu), max(cap, float(mu))


def _matrix_two_norm(Y: np.ndarray) -> float:
    """||Y||_2 for the duality gap: exact up to 200 x 200, else block power to 1e-8."""
    if min(Y.shape) <= 200:
        return float(sla.svdvals(Y, check_finite=False)[0]) if Y.size else 0.0
    return spectral_norm(Y, np.random.default_rng(0), rtol=1e-8)


def solve_pcp(
    X: np.ndarray,
    *,
    lam: float,
    n_components: int | None = None,
    center: bool = False,
    mu: float | None = None,
    mu_max: float | None = None,
    rho: float = 1.5,
    max_iter: int = 1000,
    tol: float = 1e-7,
    svd_solver: str = "auto",
    rng: np.random.Generator,
    callback: Callback | None = None,
) -> SolverResult:
    r"""Principal component pursuit by the inexact ALM (Lin, Chen & Ma 2010, Algorithm 5).

    .. math:: \min_{L, S} \lVert L\rVert_* + \lambda\lVert S\rVert_1
              \quad\text{s.t.}\quad X = L + S .

    Starts from :math:`S_0 = 0`, :math:`Y_0 = X / J(X)` with
    :math:`J(X) = \max(\lVert X\rVert_2, \lambda^{-1}\lVert X\rVert_\infty)`. ``mu=None``
    gives :math:`\mu_0 = 1.25/\lVert X\rVert_2` and ``mu_max=None`` gives
    :math:`\bar\mu = 10^7\mu_0` (the values of Lin et al.'s code), so the iterates are
    equivariant to the scale of ``X``.

    Returns
    -------
    SolverResult
        ``objective``: :math:`\lVert L_k\rVert_* + \lambda\lVert X - L_k\rVert_1` after
        each iteration; ``info``: ``low_rank``, ``sparse``, ``dual`` (:math:`Y`),
        ``rank``, ``low_rank_singular_values``, ``duality_gap`` (:func:`duality_gap`),
        ``mu`` (:math:`\mu_0`) and ``svd_counts`` (SVT steps by route).
    """
    center_vec = X.mean(axis=0, dtype=np.float64) if center else np.zeros(X.shape[1])
    Xc = X - center_vec
    # Y_0 = X / J(X), J(X) = max(||X||_2, ||X||_inf / lam) (Lin et al., Algorithm 5)
    norm_two = spectral_norm(Xc, rng)
    J = max(norm_two, np.abs(Xc).max(initial=0.0) / lam)
    svt = _SVTStep(Xc.shape, svd_solver, rng)
    zero = np.zeros(X.shape[1])

    def low_rank_step(M, mu):
        f = svt(M, 1.0 / mu)
        return (f.U * f.s) @ f.Vt, zero, f

    problem = _Problem(
        low_rank_step,
        lambda M, mu: soft_threshold(M, lam / mu),
        lambda D, f: f.s.sum() + lam * np.abs(D).sum(),
        lambda Y: max(_matrix_two_norm(Y), np.abs(Y).max(initial=0.0) / lam),
        svt,
    )
    return _solve(
        Xc,
        problem,
        center=center_vec,
        n_components=n_components,
        mu=1.25 / norm_two if mu is None and norm_two > 0 else mu,
        mu_max=mu_max,
        cap_ratio=1e7,
        rho=rho,
        dual0=Xc / J if J > 0 else np.zeros_like(Xc),
        max_iter=max_iter,
        tol=tol,
        svt=svt,
        rng=rng,
        callback=callback,
        row_sparse=False,
    )


def _row_sparse_alm(X, *, gamma, with_mean, center, svd_solver, rng, **alm):
    """Problems (29) and (30): Nie et al.'s Algorithm 3 with or without the mean."""
    svt = _SVTStep(X.shape, svd_solver, rng)
    zero = np.zeros(X.shape[1])

    def low_rank_step(M, mu):
        if with_mean:  # Theorem 3 (optimal_mean_svt), with the warm-started SVT
            b = M.mean(axis=0)
            f = svt(M - b, gamma / mu)
            return (f.U * f.s) @ f.Vt + b, b, f
        f = svt(M, gamma / mu)
        return (f.U * f.s) @ f.Vt, zero, f

    problem = _Problem(
        low_rank_step,
        lambda M, mu: l21_shrinkage(M, 1.0 / mu),
        lambda D, f: np.linalg.norm(D, axis=1).sum() + gamma * f.s.sum(),
        lambda Y: max(_matrix_two_norm(Y) / gamma, np.linalg.norm(Y, axis=1).max(initial=0.0)),
        svt,
        free_mean=with_mean,
    )
    return _solve(
        X,
        problem,
        center=center,
        cap_ratio=1e9,
        dual0=np.zeros_like(X),
        svt=svt,
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
    svd_solver: str = "auto",
    rng: np.random.Generator,
    callback: Callback | None = None,
) -> SolverResult:
    r"""Outlier pursuit, problem (29) of Nie et al. (2014), by the inexact ALM.

    .. math:: \min_{Z} \lVert X - Z\rVert_{2,1} + \gamma \lVert Z\rVert_* ,
              \qquad \lVert E\rVert_{2,1} = \sum_i \lVert e_i\rVert_2 ,

    the problem of Xu, Caramanis & Sanghavi (2012) with :math:`\lambda = 1/\gamma`,
    solved by Algorithm 3 of Nie et al. without the mean (:math:`E_0 = 0`,
    :math:`\Lambda_0 = 0`). With ``center=True`` the data are first centred by their
    arithmetic mean (CRPCA as compared in Nie et al., sec. 5.3). ``mu=None`` gives
    :math:`\mu_0 = 1.25/\lVert X\rVert_2` and ``mu_max=None`` gives
    :math:`10^9\mu_0`, the ratio of the paper's :math:`\bar\mu = 10^8` to its
    :math:`\mu_0 = 0.1`.

    Returns
    -------
    SolverResult
        ``objective``: objective (29) at :math:`Z_k` after each iteration; ``info`` as
        for :func:`solve_pcp` plus ``outliers``, the rows with :math:`e_i \ne 0`.
    """
    center_vec = X.mean(axis=0, dtype=np.float64) if center else np.zeros(X.shape[1])
    return _row_sparse_alm(
        X - center_vec,
        gamma=gamma,
        with_mean=False,
        center=center_vec,
        svd_solver=svd_solver,
        rng=rng,
        n_components=n_components,
        mu=mu,
        mu_max=mu_max,
        rho=rho,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
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
    svd_solver: str = "auto",
    rng: np.random.Generator,
    callback: Callback | None = None,
) -> SolverResult:
    r"""CRPCA-OM, problem (30) of Nie et al. (2014), by their Algorithm 3 (ALM).

    .. math:: \min_{b, Z} \lVert X - 1b^\top - Z\rVert_{2,1} + \gamma\lVert Z\rVert_* .

    Each iteration solves problem (32) by Theorem 3 (:func:`optimal_mean_svt`), problem
    (33) by row shrinkage, updates :math:`\Lambda` and sets
    :math:`\mu = \min(\rho\mu, \bar\mu)`. The data are translated by their
    arithmetic mean first (the solution is translation equivariant; this only keeps
    the numbers well scaled) and the mean is added back to ``b``. ``mu`` and
    ``mu_max`` as in :func:`solve_outlier_pursuit`; the paper's literal values are
    ``mu=0.1, mu_max=1e8``.

    Returns
    -------
    SolverResult
        ``mean``: :math:`b`; ``objective``: objective (30) at :math:`(b_k, Z_k)` after
        each iteration; ``info`` as for :func:`solve_outlier_pursuit` (``low_rank`` is
        :math:`1b^\top + Z`).
    """
    center_vec = X.mean(axis=0, dtype=np.float64)
    return _row_sparse_alm(
        X - center_vec,
        gamma=gamma,
        with_mean=True,
        center=center_vec,
        svd_solver=svd_solver,
        rng=rng,
        n_components=n_components,
        mu=mu,
        mu_max=mu_max,
        rho=rho,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
    )
