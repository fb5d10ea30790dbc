r"""Robust transfer PCA (Guo 2013) and rank-constrained robust PCA by proximal gradient.

Both problems are instances of one template: the data matrices (the source :math:`X_s`
and the target :math:`X_t`, or a single :math:`X`) are stacked row-wise, low-rank blocks
:math:`M_b` of rank at most :math:`k_b` cover contiguous row ranges, a sparse :math:`E` all:

.. math::
    \min_{M_b,\, E} \; f + g, \qquad
    f = \sum_j \frac{\alpha_j}{2} \Big\lVert \sum_{b \ni j} M_b^{(j)} + E_j - X_j
    \Big\rVert_F^2, \qquad g = \sum_j \beta_j \lVert E_j \rVert_1,
    \qquad \operatorname{rank}(M_b) \le k_b .

* **R-T-PCA**, problem (11) of Guo (2013): the stack :math:`[X_s; X_t]`, a shared block
  :math:`M_c` over all rows (:math:`A_s M_c` and :math:`A_t M_c` are its two row ranges),
  a source block :math:`M_s` and a target block :math:`M_t`. The objective is (13).
* **R-PCA with a rank constraint**, eq. (6) of Guo (2013) with :math:`\lVert M\rVert_*`
  replaced by :math:`\operatorname{rank}(M) \le k`: one data matrix and one block.

Algorithm 1 (proximal projected gradient): from :math:`\Theta = 0`, every iteration
takes a gradient step of length :math:`1/\eta` and projects each block on its
constraint set in closed form (16)-(17): the best rank-:math:`k_b` approximation
(truncated SVD) for :math:`M_b` and soft thresholding at :math:`\beta_j/\eta` for
:math:`E_j`. With :math:`\eta` at least the Lipschitz constant of :math:`\nabla f`, the
objective never increases (Lemma 1, eq. 21). The data matrices have disjoint rows, so
the Hessian of :math:`f` is block diagonal, of norm :math:`\max_j \alpha_j c_j`, with
:math:`c_j` the variables (blocks and :math:`E_j`) covering matrix :math:`j`:
:math:`3\max(\alpha_s, \alpha_t)` for (11), as in Algorithm 1, and :math:`2\alpha` for (6).

Implementation choices: the residual :math:`R = \sum_b M_b + E - X` is formed once per
iteration and gives the objective and every block's gradient (row ranges of
:math:`\alpha \odot R`), exactly. The rank-:math:`k` projection takes no full SVD: it is
warm-started from the previous one (:class:`~robustpca.solvers.rank_projection.RankProjector`).

``accelerate=True`` adds Nesterov/FISTA momentum (Beck & Teboulle 2009, the paper's
reference [2]) with a monotone restart: where the extrapolated step does not lower the
objective, the plain step of Algorithm 1 is taken from the current point instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..linalg import WeightedPCAProblem
from ..prox import soft_threshold
from ._result import IterationState, SolverResult, StopReason, relative_change
from .rank_projection import RankProjector

__all__ = [
    "lipschitz_constant",
    "solve_rank_constrained_rpca",
    "solve_robust_transfer_pca",
    "transfer_objective",
]


# --------------------------------------------------------------------------- the problem
@dataclass(frozen=True)
class _Segment:
    """Rows ``rows`` of the stack hold one data matrix with weights ``alpha``, ``beta``."""

    rows: slice
    alpha: float
    beta: float


@dataclass
class _Iterate:
    blocks: list[np.ndarray]
    E: np.ndarray
    R: np.ndarray  # sum_b M_b + E - X
    objective: float


class _Problem:
    """Data, blocks and weights of one instance of the template in the module notes."""

    def __init__(self, X, segments, block_rows, ranks, eta, exact_svd):
        self.X = X
        self.segments = segments
        self.block_rows = block_rows
        self.ranks = ranks
        self.eta = eta
        self.step = self._per_row([seg.alpha / eta for seg in segments])  # alpha_j / eta
        self.tau = self._per_row([seg.beta / eta for seg in segments])  # beta_j / eta
        self.projectors = [
            RankProjector(k, (rows.stop - rows.start, X.shape[1]), exact=exact_svd)
            for rows, k in zip(block_rows, ranks, strict=True)
        ]

    def _per_row(self, values: list[float]) -> float | np.ndarray:
        """One value per data matrix as a scalar if they are equal, else a column."""
        if all(v == values[0] for v in values):
            return values[0]
        column = np.empty((self.X.shape[0], 1))
        for seg, v in zip(self.segments, values, strict=True):
            column[seg.rows] = v
        return column

    def objective(self, R: np.ndarray, E: np.ndarray) -> float:
        """Objective (13): ``sum_j alpha_j/2 ||R_j||^2 + beta_j ||E_j||_1``."""
        first = self.segments[0]
        if all((seg.alpha, seg.beta) == (first.alpha, first.beta) for seg in self.segments):
            total = 0.5 * first.alpha * float(np.vdot(R, R))
            return total + first.beta * float(np.abs(E).sum()) if first.beta else total
        total = 0.0
        for seg in self.segments:
            Rj = R[seg.rows]
            total += 0.5 * seg.alpha * float(np.vdot(Rj, Rj))
            if seg.beta:
                total += seg.beta * float(np.abs(E[seg.rows]).sum())
        return total

    def make(self, blocks: list[np.ndarray], E: np.ndarray) -> _Iterate:
        R = E - self.X
        for rows, M in zip(self.block_rows, blocks, strict=True):
            R[rows] += M
        return _Iterate(blocks, E, R, self.objective(R, E))

    def prox_step(self, blocks, E, R) -> _Iterate:
        """``p(eta, Theta)`` of (16)-(17) at the point ``(blocks, E)`` with residual ``R``."""
        G = self.step * R  # grad f / eta, row ranges give every block's gradient
        new_blocks = [
            project(M - G[rows])
            for project, rows, M in zip(self.projectors, self.block_rows, blocks, strict=True)
        ]
        return self.make(new_blocks, soft_threshold(E - G, self.tau))

    def start(self) -> _Iterate:
        zero = [np.zeros((r.stop - r.start, self.X.shape[1])) for r in self.block_rows]
        return self.make(zero, np.zeros_like(self.X))


@dataclass(frozen=True)
class _PPGResult:
    iterate: _Iterate
    objective: np.ndarray
    n_iter: int
    converged: bool
    stop_reason: str
    n_restarts: int
    n_exact_svd: int


def _minimize(
    problem: _Problem,
    *,
    accelerate: bool,
    max_iter: int,
    tol: float,
    callback: Callable[[int, IterationState], bool | None] | None,
    state_view: Callable[[_Iterate], Callable[[], np.ndarray]],
) -> _PPGResult:
    """Algorithm 1 from ``Theta = 0``, optionally with restarted momentum."""
    current = problem.start()
    # below eps * F(0) the objective is zero to working precision (rounding noise there
    # would defeat the relative-change test when the data are exactly low rank)
    zero_level = np.finfo(float).eps * current.objective
    previous = None
    t = 1.0
    history: list[float] = []
    n_restarts = 0
    reason, converged, n_iter = StopReason.MAX_ITER, False, 0
    for n_iter in range(1, max_iter + 1):
        candidate = None
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        if accelerate and previous is not None and t > 1.0:
            w = (t - 1.0) / t_next
            candidate = problem.prox_step(
                [M + w * (M - P) for M, P in zip(current.blocks, previous.blocks, strict=True)],
                current.E + w * (current.E - previous.E),
                current.R + w * (current.R - previous.R),  # the residual is affine
            )
            if candidate.objective > current.objective:  # restart: plain step instead
                candidate, t_next = None, 1.0
                n_restarts += 1
        if candidate is None:
            candidate = problem.prox_step(current.blocks, current.E, current.R)
        previous, current, t = current, candidate, t_next
        history.append(current.objective)
        if callback is not None:
            state = IterationState(n_iter, current.objective, None, state_view(current))
            if callback(n_iter, state):
                reason = StopReason.CALLBACK
                break
        if current.objective <= zero_level:
            reason, converged = StopReason.EXACT, True
            break
        if relative_change(previous.objective, current.objective) <= tol:
            reason, converged = StopReason.TOLERANCE, True
            break
    return _PPGResult(
        iterate=current,
        objective=np.asarray(history),
        n_iter=n_iter,
        converged=converged,
        stop_reason=reason,
        n_restarts=n_restarts,
        n_exact_svd=sum(p.n_exact for p in problem.projectors),
    )


def _fit(
    problem: _Problem,
    low_rank: Callable[[_Iterate], np.ndarray],
    extras: Callable[[_Iterate], dict[str, np.ndarray]],
    n_components: int,
    rng: np.random.Generator,
    accelerate: bool,
    max_iter: int,
    tol: float,
    callback: Callable[[int, IterationState], bool | None] | None,
) -> SolverResult:
    """:func:`_minimize` and its result: the top right singular vectors of ``low_rank``; ``info``
    holds ``low_rank``, ``extras``, ``eta``, ``initial_objective`` and ``n_restarts``."""
    res = _minimize(
        problem,
        accelerate=accelerate,
        max_iter=max_iter,
        tol=tol,
        callback=callback,
        state_view=lambda it: lambda: _top_right_vectors(low_rank(it), n_components, rng),
    )
    M = low_rank(res.iterate)
    info = {
        "low_rank": M,
        **extras(res.iterate),
        "eta": float(problem.eta),
        "initial_objective": problem.start().objective,
        "n_restarts": res.n_restarts,
    }
    return SolverResult.from_loop(
        res,
        components=_top_right_vectors(M, n_components, rng),
        mean=np.zeros(problem.X.shape[1]),
        info=info,
    )


def _top_right_vectors(L: np.ndarray, n_components: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_components, d)`` top right singular vectors of ``L`` (Gram route when wide)."""
    subspace = WeightedPCAProblem(L, n_components, rng, center=False).solve(np.ones(L.shape[0]))
    return subspace.basis().T


# --------------------------------------------------------------------------- public API
def lipschitz_constant(
    alpha_source: float,
    alpha_target: float,
    *,
    n_source: int = 1,
    n_target: int = 1,
    n_shared: int = 1,
) -> float:
    r"""Lipschitz constant of :math:`\nabla f` in (14), the step :math:`\eta` of Algorithm 1.

    :math:`\max(c_s \alpha_s, c_t \alpha_t)`, :math:`c_j` the number of variables covering
    data matrix :math:`j`: :math:`E_j`, and :math:`M_c`, :math:`M_j` where their rank bounds
    are positive; with all positive, the attained :math:`3\max(\alpha_s, \alpha_t)` of Lemma 1.

    Parameters
    ----------
    alpha_source, alpha_target : float
        :math:`\alpha_s` and :math:`\alpha_t`.
    n_source, n_target, n_shared : int, default=1
        The rank bounds :math:`k_s, k_t, k_c`; only whether each is positive matters.

    Examples
    --------
    >>> from robustpca.solvers.transfer import lipschitz_constant
    >>> lipschitz_constant(1.0, 2.0)
    6.0
    >>> lipschitz_constant(1.0, 2.0, n_target=0)
    4.0
    >>> lipschitz_constant(1.0, 2.0, n_shared=0)
    4.0
    """
    c_s = 1 + (n_shared > 0) + (n_source > 0)
    c_t = 1 + (n_shared > 0) + (n_target > 0)
    return float(max(c_s * alpha_source, c_t * alpha_target))


def transfer_objective(
    source: np.ndarray,
    target: np.ndarray,
    shared: np.ndarray,
    source_private: np.ndarray,
    target_private: np.ndarray,
    source_sparse: np.ndarray,
    target_sparse: np.ndarray,
    *,
    alpha_source: float = 1.0,
    alpha_target: float = 1.0,
    beta_source: float = 0.1,
    beta_target: float = 0.1,
) -> float:
    r"""Objective (13) of Guo (2013), :math:`F(\Theta) = f(\Theta) + g(\Theta)`.

    .. math::
        \frac{\alpha_s}{2}\lVert A_s M_c + M_s + E_s - X_s\rVert_F^2
        + \frac{\alpha_t}{2}\lVert A_t M_c + M_t + E_t - X_t\rVert_F^2
        + \beta_s\lVert E_s\rVert_1 + \beta_t\lVert E_t\rVert_1 ,

    Parameters
    ----------
    source, target : ndarray of shape (n_s, d) and (n_t, d)
        :math:`X_s` and :math:`X_t`.
    shared : ndarray of shape (n_s + n_t, d)
        :math:`M_c`: :math:`A_s M_c` is its first ``n_s`` rows, :math:`A_t M_c` the rest.
    source_private, target_private : ndarray of shape (n_s, d) and (n_t, d)
        :math:`M_s` and :math:`M_t`; no rank constraint is checked.
    source_sparse, target_sparse : ndarray of shape (n_s, d) and (n_t, d)
        :math:`E_s` and :math:`E_t`.
    alpha_source, alpha_target, beta_source, beta_target : float
        :math:`\alpha_s, \alpha_t` (default 1.0) and :math:`\beta_s, \beta_t` (default 0.1).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.solvers.transfer import transfer_objective
    >>> Xs, Xt = np.ones((2, 3)), np.zeros((1, 3))
    >>> zero = np.zeros
    >>> transfer_objective(Xs, Xt, zero((3, 3)), zero((2, 3)), zero((1, 3)),
    ...                    zero((2, 3)), zero((1, 3)))
    3.0
    """
    ns = source.shape[0]
    Rs = shared[:ns] + source_private + source_sparse - source
    Rt = shared[ns:] + target_private + target_sparse - target
    return float(
        0.5 * alpha_source * np.vdot(Rs, Rs)
        + 0.5 * alpha_target * np.vdot(Rt, Rt)
        + beta_source * np.abs(source_sparse).sum()
        + beta_target * np.abs(target_sparse).sum()
    )


def solve_robust_transfer_pca(
    target: np.ndarray,
    source: np.ndarray,
    *,
    n_shared: int,
    n_source: int,
    n_target: int,
    n_components: int,
    rng: np.random.Generator,
    alpha_source: float = 1.0,
    alpha_target: float = 1.0,
    beta_source: float = 0.1,
    beta_target: float = 0.1,
    eta: float | None = None,
    accelerate: bool = False,
    max_iter: int = 10000,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    exact_svd: bool = False,
) -> SolverResult:
    r"""R-T-PCA: problem (11) of Guo (2013) by Algorithm 1 (proximal projected gradient).

    .. math::
        \min_{M_c, M_s, M_t, E_s, E_t}\; \frac{\alpha_s}{2}\lVert A_s M_c + M_s + E_s
        - X_s\rVert_F^2 + \frac{\alpha_t}{2}\lVert A_t M_c + M_t + E_t - X_t\rVert_F^2
        + \beta_s\lVert E_s\rVert_1 + \beta_t\lVert E_t\rVert_1

    subject to :math:`\operatorname{rank}(M_c) \le k_c`, :math:`\operatorname{rank}(M_s)
    \le k_s`, :math:`\operatorname{rank}(M_t) \le k_t`, from all variables at zero.

    Parameters
    ----------
    target, source : ndarray of shape (n_t, d) and (n_s, d)
        :math:`X_t` and :math:`X_s` (not modified).
    n_shared, n_source, n_target : int
        :math:`k_c, k_s, k_t` (``n_shared + n_target >= 1``; zero is allowed).
    n_components : int
        Top right singular vectors of :math:`\hat X_t = A_t M_c + M_t` kept as ``components``.
    rng : numpy.random.Generator
        Only used to complete ``components`` when :math:`\hat X_t` has lower rank.
    alpha_source, alpha_target, beta_source, beta_target : float
        :math:`\alpha_s, \alpha_t > 0` and :math:`\beta_s, \beta_t \ge 0`.
    eta : float or None
        Inverse step; ``None`` is :func:`lipschitz_constant`. A smaller value voids Lemma 1.
    accelerate : bool
        Restarted momentum (monotone); see the module notes.
    max_iter, tol
        Stop after ``max_iter`` iterations, at a relative change of (13) of at most ``tol``,
        or where (13) falls below ``eps`` times its value at zero (the data reconstructed
        to working precision; :attr:`StopReason.EXACT`).
    callback : callable or None
        ``callback(iteration, state)``, ``state.components`` lazy; returning True stops.
    exact_svd : bool
        Exact top-k eigenpairs every iteration, not the warm-started Rayleigh-Ritz
        projection (for testing; same iterates up to rounding).

    Returns
    -------
    SolverResult
        ``mean`` is zero (no offset); ``objective`` is (13) after each iteration
        (non-increasing). ``info`` holds ``low_rank`` (:math:`\hat X_t`), ``shared`` (:math:`M_c`,
        source rows first), ``source_private``, ``target_private``, ``source_sparse``,
        ``sparse`` (:math:`E_t`), ``eta``, ``initial_objective`` (:math:`F(0)`), ``n_restarts``.
    """
    ns, d = source.shape
    nt = target.shape[0]
    X = np.vstack([source, target]).astype(np.float64, copy=False)
    src, tgt = slice(0, ns), slice(ns, ns + nt)
    named = [("shared", slice(0, ns + nt), n_shared), ("source_private", src, n_source)]
    named = [*named, ("target_private", tgt, n_target)]
    named = [(name, rows, k) for name, rows, k in named if k > 0]
    if eta is None:
        eta = lipschitz_constant(
            alpha_source, alpha_target, n_source=n_source, n_target=n_target, n_shared=n_shared
        )
    segments = [_Segment(src, alpha_source, beta_source), _Segment(tgt, alpha_target, beta_target)]
    problem = _Problem(
        X, segments, [rows for _, rows, _ in named], [k for _, _, k in named], eta, exact_svd
    )

    def parts(it: _Iterate) -> dict[str, np.ndarray]:
        out = {"shared": np.zeros_like(X)}
        out.update(source_private=np.zeros((ns, d)), target_private=np.zeros((nt, d)))
        out.update({name: M for (name, _, _), M in zip(named, it.blocks, strict=True)})
        return out

    def recovered(it: _Iterate) -> np.ndarray:
        p = parts(it)
        return p["shared"][ns:] + p["target_private"]

    def extras(it: _Iterate) -> dict[str, np.ndarray]:
        return {**parts(it), "source_sparse": it.E[src].copy(), "sparse": it.E[tgt].copy()}

    return _fit(problem, recovered, extras, n_components, rng, accelerate, max_iter, tol, callback)


def solve_rank_constrained_rpca(
    X: np.ndarray,
    rank: int,
    *,
    n_components: int,
    rng: np.random.Generator,
    alpha: float = 1.0,
    beta: float = 0.1,
    eta: float | None = None,
    accelerate: bool = False,
    max_iter: int = 5000,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    exact_svd: bool = False,
) -> SolverResult:
    r"""Rank-constrained robust PCA, eq. (6) of Guo (2013) with a rank bound for the norm.

    .. math::
        \min_{M, E}\; \frac{\alpha}{2}\lVert M + E - X\rVert_F^2 + \beta\lVert E\rVert_1
        \quad \text{s.t.} \quad \operatorname{rank}(M) \le k ,

    the "R-PCA" of Guo's sec. 5, by the proximal projected gradient of R-T-PCA from zero.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        :math:`X` (not modified; float32 data are solved in float64).
    rank : int
        :math:`k` (zero is allowed).
    n_components, rng, accelerate, max_iter, tol, callback, exact_svd
        As in :func:`solve_robust_transfer_pca`, with :math:`M` for :math:`\hat X_t`.
    alpha, beta : float
        :math:`\alpha > 0` and :math:`\beta \ge 0`.
    eta : float or None
        Inverse step; ``None`` is :math:`2\alpha` (:math:`\alpha` for ``rank = 0``).

    Returns
    -------
    SolverResult
        ``components`` are the top ``n_components`` right singular vectors of ``M``;
        ``mean`` is zero; ``info`` holds ``low_rank`` (:math:`M`), ``sparse``
        (:math:`E`), ``eta``, ``initial_objective`` and ``n_restarts``.
    """
    X = np.asarray(X, dtype=np.float64)  # float32 data are solved in float64
    n = X.shape[0]
    if eta is None:
        eta = 2.0 * alpha if rank > 0 else alpha
    rows = slice(0, n)
    blocks = [rows] if rank > 0 else []
    problem = _Problem(
        X, [_Segment(rows, alpha, beta)], blocks, [rank] * len(blocks), eta, exact_svd
    )

    def low_rank(it: _Iterate) -> np.ndarray:
        return it.blocks[0] if it.blocks else np.zeros_like(X)

    def extras(it: _Iterate) -> dict[str, np.ndarray]:
        return {"sparse": it.E}

    return _fit(problem, low_rank, extras, n_components, rng, accelerate, max_iter, tol, callback)
