r"""Known-rank robust PCA: accelerated alternating projections and GoDec.

Both decompose ``X`` (one sample per row, ``m x n``) into a low-rank part of rank at
most ``r`` and a sparse part by alternating projections on the two non-convex sets
(no nuclear or l1 norm: the rank ``r`` is given):

* :func:`solve_accaltproj` -- AccAltProj (Cai, Cai & Wei 2019, Algorithm 1):
  the low-rank step is a rank-``r`` truncation of ``X - S`` projected on the tangent
  space of the current iterate (an SVD of a ``2r x 2r`` matrix, never of an ``m x n``
  one), the sparse step a hard thresholding at a level that decays geometrically;
* :func:`~robustpca.solvers.godec.solve_godec` -- GoDec (Zhou & Tao 2011, Algorithm 1;
  its own module): the low-rank step is the bilateral random projection (BRP) with
  power iterations, the sparse step keeps the ``k`` largest entries of the residual.

The solvers are pure functions: no validation, no warnings (the estimators of
:mod:`robustpca.estimators._known_rank` do that). Both return a
:class:`~robustpca.solvers.SolverResult` whose ``info`` holds ``low_rank``, ``sparse``,
``low_rank_singular_values``, ``explained_variance`` and ``rank``.

**Missing entries.** Both solvers take ``observed`` (True where an entry of ``X`` is
observed; ``None``: all are). Neither paper treats missing entries; ours fit the
problem on the observed entries only, ``S`` supported on them and ``L`` filling the
gaps, by imputation: each low-rank step is taken on ``Z = P_O(X - S) + P_O^c(L)``, the
observed entries less the current sparse part, with the current ``L`` in the gaps (from
the columns' observed medians at the start), and each sparse step thresholds the
observed residual ``P_O(X - L)``. For GoDec this is majorize-minimize:
``||Z - L'||_F^2`` majorizes ``||P_O(X - L' - S)||_F^2`` and touches it at ``L' = L``,
so its objective, now ``||P_O(X - L - S)||_F^2``, still never increases. That
completion converges slowly where rows keep few entries outside the gaps and ``S``, so
GoDec's low-rank step with gaps is by default an exact alternating least-squares sweep
on those entries where it is cheap (``missing_step`` of
:func:`~robustpca.solvers.godec.solve_godec`). The
stopping rules measure the observed entries (``||P_O(X)||_F`` as the reference). With
every entry observed the iterates are those of the complete-data solvers, operation for
operation.

**Threads.** The thin QRs (``n x r``), the small SVDs and ARPACK's Lanczos iterations
(matrix-vector products, memory bound) run on one BLAS thread; the products of the data
with ``r`` columns keep every thread. OpenBLAS threads gain nothing on the former, and
on a busy machine they cost orders of magnitude (the figures are in
``docs/design-notes/known-rank.md``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import linalg as sla
from scipy.sparse.linalg import svds

from ..linalg import complete_orthonormal, single_blas_thread
from ._result import IterationState, LoopSummary, SolverResult, StopReason
from .missing import initial_fill

__all__ = [
    "RESIDUAL",
    "STALLED",
    "accaltproj_defaults",
    "hard_threshold",
    "keep_largest_entries",
    "solve_accaltproj",
    "top_singular_triplets",
]

#: Stop reason of both solvers: the relative residual of the decomposition.
RESIDUAL = "relative residual ||X - L - S||_F / ||X||_F below tol"
#: Stop reason when the objective stalls (noisy data, whose residual does not vanish).
STALLED = "relative change of the objective below tol"
#: Below this side (or with ``k >= side - 1``) the truncated SVDs are LAPACK's full SVD.
LANCZOS_MIN_SIDE = 64

Callback = Callable[[int, IterationState], bool | None]


# ---------------------------------------------------------------- thresholding steps


def _transposed(A: np.ndarray) -> Callable[[], np.ndarray]:
    """A callback's lazy ``components``: the basis of the iteration, transposed."""
    return lambda: A.T


def _zeros(n: int) -> Callable[[], np.ndarray]:
    return lambda: np.zeros(n)


def hard_threshold(A: np.ndarray, zeta: float) -> np.ndarray:
    r"""The entries of ``A`` with :math:`|a_{ij}| > \zeta`, zeros elsewhere
    (:math:`\mathcal T_\zeta` of Cai et al. 2019, eq. 4). A new array.

    Parameters
    ----------
    A : ndarray of shape (m, n)
        The matrix to threshold.
    zeta : float
        The threshold :math:`\zeta`; entries of magnitude at most it become 0.
    """
    return np.where(np.abs(A) > zeta, A, 0.0)


def keep_largest_entries(A: np.ndarray, k: int) -> np.ndarray:
    r""":math:`P_\Omega(A)`, ``Omega`` the ``k`` entries of largest magnitude (Zhou & Tao
    2011, Algorithm 1: the projection on :math:`\{S : \operatorname{card}(S) \le k\}`).

    The ``k``-th magnitude by ``numpy.partition`` and one mask; where it is tied (the
    mask then holds more than ``k`` entries), ties are broken by position
    (``numpy.argpartition`` only then: its ``A.size`` indices make it dearer than the
    partition), so exactly ``min(k, A.size)`` entries are kept (fewer non-zeros where
    ``A`` has zeros).

    Parameters
    ----------
    A : ndarray of shape (m, n)
        The matrix to project.
    k : int
        Number of entries kept; none for ``k <= 0``.
    """
    size = A.size
    if k <= 0 or size == 0:
        return np.zeros_like(A)
    if k >= size:
        return A.copy()
    magnitude = np.abs(A)
    kth = np.partition(magnitude.ravel(), size - k)[size - k]
    keep = magnitude >= kth
    if np.count_nonzero(keep) == k:
        return np.where(keep, A, 0.0)
    S = np.zeros(A.shape, dtype=A.dtype)  # C order: its ravel is a view, as A's indices
    idx = np.argpartition(magnitude.ravel(), size - k)[size - k :]
    S.ravel()[idx] = A.ravel()[idx]
    return S


def top_singular_triplets(A: np.ndarray, k: int, rng: np.random.Generator):
    """``U (m, k), s (k,), V (n, k)``: the top ``k`` singular triplets, largest first.

    ARPACK's implicitly restarted Lanczos (``scipy.sparse.linalg.svds``, to machine
    precision, start vector drawn from ``rng``), as the authors' MATLAB code uses ``svds``;
    LAPACK's SVD for small matrices or ``k`` close to ``min(m, n)``.

    Parameters
    ----------
    A : ndarray of shape (m, n)
        The matrix.
    k : int
        Number of triplets.
    rng : numpy.random.Generator
        Draws ARPACK's start vector (unused by the LAPACK route).
    """
    side = min(A.shape)
    if side > LANCZOS_MIN_SIDE and k < side - 1:
        unit = lanczos_unit(A)
        if unit == 0.0:  # ARPACK's start vector would map to zero: s = 0, any bases
            return np.eye(A.shape[0], k), np.zeros(k), np.eye(A.shape[1], k)
        with single_blas_thread():  # see the module docstring, "Threads"
            U, s, Vt = svds(A if unit == 1.0 else A / unit, k=k, solver="arpack", random_state=rng)
        order = np.argsort(s)[::-1]
        return U[:, order], s[order] * unit, Vt[order].T
    with single_blas_thread():
        U, s, Vt = sla.svd(A, full_matrices=False, check_finite=False)
    return U[:, :k], s[:k], Vt[:k].T


def lanczos_unit(A: np.ndarray) -> float:
    """0 for a zero ``A``; else 1, or a power of two near its largest entry where that is
    beyond 1e100 or below 1e-100 (ARPACK's norms over- or underflow there; the scaling
    is exact)."""
    top = float(np.max(np.abs(A), initial=0.0))
    if top == 0.0 or 1e-100 <= top <= 1e100:
        return 1.0 if top else 0.0
    return float(np.ldexp(1.0, int(np.frexp(top)[1]) - 1))


def _frobenius(A: np.ndarray) -> float:
    return float(np.sqrt(np.einsum("ij,ij->", A, A))) if A.size else 0.0


class _Entries:
    """The data as the solvers see them: every entry (``observed=None``) or the observed
    ones, with the gaps filled by the current low-rank part (module docstring, "Missing
    entries"). ``data`` is ``X`` with zeros in the gaps; ``filled`` the start, with the
    columns' observed medians there."""

    def __init__(self, X: np.ndarray, observed: np.ndarray | None):
        self.observed = observed
        if observed is None:
            self.data = self.filled = X
        else:
            self.data = np.where(observed, X, 0.0)
            self.filled = initial_fill(X, ~observed)

    def residual(self, L: np.ndarray) -> np.ndarray:
        """``X - L`` on the observed entries, zero in the gaps (a new array)."""
        if self.observed is None:
            return self.data - L
        return np.where(self.observed, self.data - L, 0.0)

    def target(self, S: np.ndarray, L: np.ndarray) -> np.ndarray:
        """``X - S`` on the observed entries, ``L`` in the gaps (a new array)."""
        if self.observed is None:
            return self.data - S
        return np.where(self.observed, self.data - S, L)


# ------------------------------------------------------------------------ AccAltProj
def accaltproj_defaults(m: int, n: int) -> tuple[float, float]:
    r"""Default ``(beta, beta_init)`` of AccAltProj for an ``m x n`` matrix.

    :math:`\beta = 1/(2 (mn)^{1/4})`, the authors' MATLAB code's value (also the ``rpca``
    package's), and :math:`\beta_{init} = \beta` where their code takes :math:`4\beta`.
    Theorem 1 of Cai et al. asks for :math:`\beta = \mu r/(2\sqrt{mn})` and
    :math:`\beta_{init} \in [1, 3]\,\mu r\sigma_1(L)/(\sqrt{mn}\,\sigma_1(X))`, i.e.
    :math:`\beta_{init}/\beta \in [2, 6]\,\sigma_1(L)/\sigma_1(X)`: the ratio 4 assumes
    :math:`\sigma_1(X) \approx \sigma_1(L)` (small errors). When the errors dominate
    :math:`\sigma_1(X)` the first threshold lets through the errors that spoil
    :math:`L_0` and the iteration never recovers. On planted problems with gross errors
    of ten or more times the typical entry of ``L`` (the setup of Candès et al. used in
    our benchmarks) :math:`4\beta` failed where :math:`\beta` recovered ``L``, and
    :math:`\beta/2` failed on small errors (``docs/design-notes/known-rank.md``;
    ``tests/test_known_rank.py`` has some of them). ``beta_init=4 * beta`` reproduces
    the authors' code.

    Parameters
    ----------
    m, n : int
        The shape of the data matrix.
    """
    beta = 1.0 / (2.0 * (float(m) * float(n)) ** 0.25)
    return beta, beta


def _orth_complement_qr(W: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Q, R`` with ``Q R = W`` where ``W`` is already orthogonal to ``basis``; ``Q`` is
    re-orthogonalised against ``basis`` (Householder QR of a rank-deficient ``W`` gives
    arbitrary extra columns) and ``R = Q^T W``."""
    Q = sla.qr(W, mode="economic", check_finite=False)[0]
    Q -= basis @ (basis.T @ Q)
    Q = sla.qr(Q, mode="economic", check_finite=False)[0]
    return Q, Q.T @ W


def _tangent_truncation(Z: np.ndarray, U: np.ndarray, V: np.ndarray, r: int):
    r"""Rank-``r`` truncation of :math:`P_T(Z) = UU^TZ + ZVV^T - UU^TZVV^T`.

    Cai et al. (2019, sec. 2.1, Algorithm 1 lines 6-8): with
    :math:`Q_1R_1 = (I - UU^T)ZV` and :math:`Q_2R_2 = (I - VV^T)Z^TU`,
    :math:`P_T(Z) = [U, Q_1]\, M\, [V, Q_2]^T` with
    :math:`M = \begin{pmatrix} U^TZV & R_2^T\\ R_1 & 0\end{pmatrix}`, so its SVD is that
    of the ``2r x 2r`` matrix ``M``. Two products of ``Z`` with ``r`` columns, two thin
    QRs. When ``2r > min(m, n)`` (no room for ``[U, Q_1]``) the projection is formed and
    LAPACK's SVD taken. Returns ``U, s, V, sigma`` with ``sigma`` every singular value of
    :math:`P_T(Z)` that was computed (at least ``r + 1`` where they exist, else ``r``).
    """
    m, n = Z.shape
    if 2 * r > min(m, n):
        ZV = Z @ V
        UtZ = U.T @ Z
        P = U @ UtZ + (ZV - U @ (U.T @ ZV)) @ V.T
        Up, s, Vtp = sla.svd(P, full_matrices=False, check_finite=False)
        return Up[:, :r], s[:r], Vtp[:r].T, s
    ZV = Z @ V  # m x r
    ZtU = Z.T @ U  # n x r
    with single_blas_thread():  # thin QRs, a small SVD: module docstring
        core = U.T @ ZV  # U^T Z V
        Q1, R1 = _orth_complement_qr(ZV - U @ core, U)
        Q2, R2 = _orth_complement_qr(ZtU - V @ core.T, V)
        M = np.block([[core, R2.T], [R1, np.zeros((r, r))]])
        Um, s, Vmt = sla.svd(M, check_finite=False)
    U_new = U @ Um[:r, :r] + Q1 @ Um[r:, :r]
    V_new = V @ Vmt[:r, :r].T + Q2 @ Vmt[:r, r:].T
    return U_new, s[:r], V_new, s


def _trim(U: np.ndarray, V: np.ndarray, incoherence: float, r: int):
    r"""Column and row spaces of :math:`\mathrm{Trim}(L, \mu)` (Cai et al. 2019,
    Algorithm 2): rows of ``U`` longer than :math:`\sqrt{\mu r/m}` (of ``V``:
    :math:`\sqrt{\mu r/n}`) are scaled to that length. The tangent space of the trimmed
    matrix :math:`A\Sigma B^T` only depends on the spans of ``A`` and ``B``, which are
    returned orthonormalised."""
    out = []
    for W in (U, V):
        cap = np.sqrt(incoherence * r / W.shape[0])
        norms = np.sqrt(np.einsum("ij,ij->i", W, W))
        scale = np.minimum(1.0, cap / np.maximum(norms, np.finfo(float).tiny))
        with single_blas_thread():
            out.append(sla.qr(W * scale[:, None], mode="economic", check_finite=False)[0])
    return out[0], out[1]


def solve_accaltproj(
    X: np.ndarray,
    rank: int,
    *,
    beta: float | None = None,
    beta_init: float | None = None,
    gamma: float = 0.5,
    trim: bool = False,
    incoherence: float = 5.0,
    max_iter: int = 100,
    tol: float = 1e-7,
    rng: np.random.Generator | None = None,
    callback: Callback | None = None,
    observed: np.ndarray | None = None,
) -> SolverResult:
    r"""Robust PCA of known rank by accelerated alternating projections (AccAltProj).

    Cai, Cai & Wei (2019), Algorithm 1 with the initialisation of Algorithm 3:

    .. math::
        S_{-1} = \mathcal T_{\zeta_{-1}}(X),\ \zeta_{-1} = \beta_{init}\sigma_1(X);\quad
        L_0 = H_r(X - S_{-1});\quad
        S_0 = \mathcal T_{\zeta_0}(X - L_0),\ \zeta_0 = \beta\sigma_1(L_0);

        L_{k+1} = H_r(P_{\tilde T_k}(X - S_k)),\quad
        \zeta_{k+1} = \beta\big(\sigma_{r+1}(P_{\tilde T_k}(X - S_k))
            + \gamma^{k+1}\sigma_1(P_{\tilde T_k}(X - S_k))\big),\quad
        S_{k+1} = \mathcal T_{\zeta_{k+1}}(X - L_{k+1}),

    with :math:`H_r` the rank-``r`` truncation, :math:`\mathcal T_\zeta` hard
    thresholding (:func:`hard_threshold`) and :math:`\tilde T_k` the tangent space of the
    rank-``r`` manifold at :math:`L_k` (at :math:`\mathrm{Trim}(L_k)` with ``trim``), until
    :math:`\lVert X - L_k - S_k\rVert_F \le \mathrm{tol}\lVert X\rVert_F` (the paper's
    criterion) or, our addition, until both the threshold and that relative residual
    change by at most ``tol`` relative between two iterations (a fixed point). On data
    that are not exactly low rank plus sparse (noise, real images) the residual still
    vanishes: as ``S`` absorbs the small entries, :math:`X - S_k` approaches the rank-r
    :math:`L_k`, :math:`\sigma_{r+1}` and the thresholds decay to zero, and ``S`` ends
    up dense, while ``L`` stays within a fraction of the noise level of the truth
    (``docs/design-notes/known-rank.md``).

    The truncation of the projection costs two products of ``X - S`` with ``r``
    columns and an SVD of a ``2r x 2r`` matrix (:func:`_tangent_truncation`); the
    initialisation uses ARPACK's Lanczos SVD (:func:`top_singular_triplets`).

    Parameters
    ----------
    X : ndarray of shape (m, n)
    rank : int
        The rank ``r`` of the low-rank part, ``1 <= r <= min(m, n)``.
    beta, beta_init : float or None
        Threshold constants; ``None``: :func:`accaltproj_defaults`'s ``beta``, and for
        ``beta_init`` the ``beta`` in force.
    gamma : float, default=0.5
        Decay of the thresholds, in ``(0, 1)`` (the paper's theory: :math:`(1/\sqrt{12},
        1)`; 0.5 is the authors' code's default).
    trim : bool, default=False
        Trim the factors before the projection (Algorithm 2). Off by default as in the
        authors' code: the paper's theory needs it, their experiments do not use it.
    incoherence : float, default=5.0
        The :math:`\mu` of the trimming step (the authors' code's default).
    max_iter, tol : int, float
        Iteration cap and the relative residual to stop at.
    rng : numpy.random.Generator
        Draws the start of the truncated SVDs and the completion of ``components``.
    callback : callable or None
        ``callback(iteration, state)``; returning ``True`` stops.
    observed : ndarray of bool, shape (m, n), or None
        True where ``X`` is observed; the other entries are missing (their values are
        not read). ``None``: every entry is observed. See the module docstring,
        "Missing entries": the residual and ``S`` are then those of the observed
        entries, ``L`` fills the gaps, and the first threshold is set from the data
        with the columns' observed medians in the gaps.

    Returns
    -------
    SolverResult
        ``components`` (r, n): right singular vectors of ``L``; ``objective``: the
        relative residual after each iteration; ``info``: ``low_rank``, ``sparse``,
        ``low_rank_singular_values``, ``explained_variance``, ``rank``, ``thresholds``
        (the :math:`\zeta_k`, from :math:`\zeta_{-1}`), ``beta``, ``beta_init``.
    """
    rng = np.random.default_rng(0) if rng is None else rng
    X = np.asarray(X, dtype=np.float64)
    m, n = X.shape
    r = int(rank)
    default_beta, _ = accaltproj_defaults(m, n)
    beta = default_beta if beta is None else float(beta)
    beta_init = beta if beta_init is None else float(beta_init)  # the defaults' rule
    entries = _Entries(X, observed)
    norm_x = _frobenius(entries.data)
    thresholds: list[float] = []
    objective: list[float] = []

    # initialisation (Algorithm 3)
    top = top_singular_triplets(entries.filled, 1, rng)[1]
    thresholds.append(beta_init * float(top[0]) if top.size else 0.0)
    S = hard_threshold(entries.data, thresholds[-1])
    U, s, V = top_singular_triplets(entries.filled - S, r, rng)
    thresholds.append(beta * float(s[0]))
    L = (U * s) @ V.T
    S = hard_threshold(entries.residual(L), thresholds[-1])

    stop_reason, converged, n_iter = StopReason.MAX_ITER, False, 0
    if norm_x == 0:
        stop_reason, converged = StopReason.EXACT, True
        objective.append(0.0)
    for k in range(1, max_iter + 1 if norm_x > 0 else 1):
        if trim:
            Ut, Vt_ = _trim(U, V, incoherence, r)
        else:
            Ut, Vt_ = U, V
        U, s, V, sigma = _tangent_truncation(entries.target(S, L), Ut, Vt_, r)
        next_sigma = float(sigma[r]) if sigma.size > r else 0.0
        thresholds.append(beta * (next_sigma + gamma**k * float(sigma[0])))
        L = (U * s) @ V.T
        R = entries.residual(L)
        S = hard_threshold(R, thresholds[-1])
        R -= S
        objective.append(_frobenius(R) / norm_x)
        n_iter = k
        if callback is not None:
            state = IterationState(k, objective[-1], None, _transposed(V), _zeros(n))
            if callback(k, state):
                stop_reason = StopReason.CALLBACK
                break
        if objective[-1] <= tol:
            stop_reason, converged = RESIDUAL, True
            break
        levelled = abs(thresholds[-1] - thresholds[-2]) <= tol * thresholds[-2]
        if k > 1 and levelled and abs(objective[-2] - objective[-1]) <= tol * objective[-2]:
            stop_reason, converged = STALLED, True
            break
    if n_iter == 0:
        L = (U * s) @ V.T
    info = {"thresholds": np.asarray(thresholds), "beta": beta, "beta_init": beta_init}
    loop = LoopSummary(n_iter, converged, stop_reason, np.asarray(objective, dtype=float))
    return _result(X, L, S, (U, s, V), r, rng, info, loop)


def _result(X, L, S, factors, r, rng, info, loop: LoopSummary) -> SolverResult:
    """The shared result: exact SVD of the factored ``L = U diag(s) V^T`` (orthonormal to
    rounding whatever the iterations did), its numerical rank and the components."""
    m, n = X.shape
    U, s, V = factors
    with single_blas_thread():
        Ru = sla.qr(U, mode="r", check_finite=False)[0][: U.shape[1]]
        Qv, Rv = sla.qr(V, mode="economic", check_finite=False)
        sv, bt = sla.svd((Ru * s) @ Rv.T, check_finite=False)[1:]
    V = Qv @ bt.T
    top = sv.max(initial=0.0)
    rank = int(np.count_nonzero(sv > top * max(m, n) * np.finfo(float).eps)) if top > 0 else 0
    components = complete_orthonormal(V[:, :rank], r, rng).T
    sv = sv[:r]
    with np.errstate(over="ignore"):  # a variance beyond float64's range is infinite
        variance = sv**2 / max(m - 1, 1)
    info = {
        "low_rank": L,
        "sparse": S,
        "rank": rank,
        "low_rank_singular_values": sv,
        "explained_variance": variance,
        **info,
    }
    return SolverResult.from_loop(loop, components=components, mean=np.zeros(n), info=info)
