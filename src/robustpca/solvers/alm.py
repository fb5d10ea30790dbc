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

**Memory.** The loop holds two ``n x d`` arrays and never a third one, nor an ``n x d``
factor of ``L``. After the ``L`` step they hold :math:`D_{k+1} = X - L_{k+1}` and
:math:`Y_k`, from which :math:`S_{k+1} = \operatorname{prox}(D_{k+1} + Y_k/\mu_k)`,
:math:`Y_{k+1}` and :math:`L_{k+1}` follow row by row. Each iteration makes three passes
over blocks of about 1 MiB: (1) from :math:`(D_k, Y_{k-1})` it writes :math:`Y_k` and
the argument :math:`M = X - S_k + Y_k/\mu_k` of the ``L`` step (over :math:`D_k`); (2)
the singular value thresholding of ``M`` (below); (3) it applies the thresholding
operator to ``M`` block by block, writing :math:`D_{k+1}` over ``M``, and measures the
primal residual (for the l2,1 term after the column form below, in one more pass over
row blocks). The data are centred block by block (``X`` is never copied). At the end
the duality gap is computed block by block from :math:`(D, Y)`, then :math:`S` is
written over ``Y`` and the low-rank part :math:`X - D` over ``D``. A fit holds those two
arrays, three blocks, ``min(n, d)``-square matrices, factors of ``min(n, d) / 4`` rows
at most, and at the end ``components`` (``rank x d`` when ``n_components=None``).

**Singular value thresholding.** ``svd_solver='auto'`` takes, each iteration, the
cheaper of two routes:

* the *Gram route*: the eigendecomposition of the ``min(n, d)``-square Gram matrix of
  ``M`` (``n d min(n, d)`` flops in one BLAS ``syrk``) gives every singular value
  :math:`\sigma_i` and one side of the singular vectors, ``V`` (tall data) or ``U``
  (wide data); the thresholded matrix is :math:`MV\operatorname{diag}(s/\sigma)V^\top`
  or :math:`U\operatorname{diag}(s/\sigma)U^\top M` with :math:`s = \sigma - \tau`,
  applied to row or column blocks of ``M`` in pass (3) (``2 n d r`` flops each way);
* the *partial route* (:func:`robustpca.prox.partial_svt_factors`): randomised subspace
  iteration on the predicted number ``k`` of triplets with the rank prediction of Lin
  et al. (``svp``: one more than the last rank when it shrank, 5% of ``min(n, d)`` more
  when it did not, truncated while all ``k`` exceed the threshold) and the previous right
  singular vectors as a warm start. Taken when ``40 (k + 10) <= min(n, d)`` (the
  measured break-even, one BLAS thread, was at ``min(n, d) / (k + 10)`` of 30 to 40;
  on the AT&T faces, ``min(n, d) = 400``, the Gram route was as fast at rank 2 and twice
  as fast at rank 26), with the Gram route as fallback when it converges slowly.

``'partial'`` and ``'full'`` are the former routes unchanged
(:func:`robustpca.prox.svt_factors`, warm-started partial SVD with LAPACK's exact SVD as
fallback, or the exact SVD every iteration); the exact SVD copies ``M`` and returns a
``min(n, d) x d`` factor, so those routes need about two more ``n x d`` arrays.

**Accuracy of the Gram route.** It squares the condition number: eigenvalues are
accurate to about :math:`\epsilon\sigma_1^2`, so a kept :math:`\sigma_i > \tau` to
:math:`\epsilon\sigma_1^2/(2\sigma_i)` and the thresholded matrix to about
:math:`\epsilon\sigma_1^2/\tau`. Here :math:`\tau = 1/\mu_k` (PCP) or
:math:`\gamma/\mu_k` with :math:`\mu_k \le \bar\mu`; for PCP
:math:`\bar\mu = 10^7\mu_0`, :math:`\mu_0 = 1.25/\lVert X\rVert_2`, so
:math:`\tau \ge 0.8\cdot 10^{-7}\lVert X\rVert_2`, an error of at most about
:math:`3\cdot 10^{-9}` relative, below ``tol = 1e-7``. Measured along the iterates of
the exact-SVD ALM (``svd_solver='full'``; Gram route against LAPACK on the same ``M``
every iteration), the relative error of the thresholded matrix was at most 6.8e-12 for
PCP (40 iterations, :math:`\tau/\sigma_1` down to 1.1e-7) and 1.5e-14 for outlier
pursuit and CRPCA-OM on the occluded 32 x 32 AT&T faces, with the same rank at every
step (the bound is reached only for singular values just above :math:`\tau`: outlier
pursuit run on to :math:`\tau/\sigma_1` = 4e-8, ``tol=1e-15``, kept three singular
values far above it, error 1.2e-14). Whole default fits with ``'auto'`` against
``'full'`` (relative Frobenius distance of ``low_rank_`` / ``sparse_``, relative
difference of the final objective; the same iterations and ranks in every case):

=====================================  =====================  =====================
data                                   PCP                    outlier p. / CRPCA-OM
=====================================  =====================  =====================
AT&T 400 x 10304, occluded             3e-11 / 2e-10 / 2e-13  3e-14 / 8e-14 / 3e-16
AT&T 400 x 1024, occluded              1e-11 / 1e-10 / 1e-13  1e-14 / 5e-14 / 3e-16
synthetic 20,000 x 256 (10% outliers)  3e-11 / 1e-10 / 1e-14  6e-14 / 2e-13 / 4e-16
planted 300 x 300 (Lin et al.)         7e-15 / 1e-16 / 0      3e-14 / 0 / 5e-14
=====================================  =====================  =====================

The former ``'auto'`` (the partial SVD with Lin et al.'s truncated steps, the exact
SVD beyond a fifth of the spectrum) differed from ``'full'`` by 3e-4 to 2e-3 in
``low_rank_`` on the same data and by 15% (with another rank and a duality gap of 0.28)
on the planted 300 x 300 problem for outlier pursuit and CRPCA-OM. A perturbation of
``M`` by 1e-13 (relative) at every step moved the final fits by 1e-13 to 3e-13: the loop
does not amplify the errors of its steps.

The duality gap is computed from blocks of the final multiplier with the exact
``||Y||_2`` (the top eigenvalue of its short-side Gram matrix).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import linalg as sla

from ..linalg import complete_orthonormal
from ..prox import OVERSAMPLES, SVDFactors, partial_svt_factors, svt_factors
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
#: Bytes of one block of the blocked passes (three such blocks are held).
BLOCK_BYTES = 1 << 20
#: 'auto' takes the partial route when PARTIAL_COST * (hint + 10) <= min(n, d).
PARTIAL_COST = 40
#: The Gram route on wide data keeps the r x d factor while r <= n / FACTOR_ROWS.
FACTOR_ROWS = 4

Callback = Callable[[int, IterationState], bool | None]


# ------------------------------------------------------------------ spectral norms
def _times(X, center, V):
    """``(X - 1 c^T) @ V`` without forming ``X - 1 c^T``."""
    XV = X @ V
    if center is not None:
        XV -= center @ V
    return XV


def spectral_norm(
    X: np.ndarray, rng: np.random.Generator, *, rtol: float = 1e-6, center=None
) -> float:
    """Largest singular value of ``X`` (of ``X - center`` when ``center`` is given, without
    forming it): exact for small ``X``, else block power iteration (11 vectors, at most 30
    passes) until the top Ritz value changes by at most ``rtol`` relative (it is a lower
    bound that converges from below)."""
    side = min(X.shape)
    if side <= 4 * OVERSAMPLES:
        A = X if center is None else X - center
        return float(sla.svdvals(A, check_finite=False)[0]) if A.size else 0.0
    Q = _times(X, center, rng.standard_normal((X.shape[1], OVERSAMPLES + 1)))
    Q = sla.qr(Q, mode="economic")[0]
    value = 0.0
    for _ in range(30):
        B = Q.T @ X
        if center is not None:
            B -= np.outer(Q.sum(axis=0), center)
        s = sla.svdvals(B, check_finite=False)
        if s[0] == 0 or abs(s[0] - value) <= rtol * s[0]:
            return float(s[0])
        value = s[0]
        Q = sla.qr(_times(X, center, B.T), mode="economic")[0]
    return float(value)


def _row_norms(X: np.ndarray) -> np.ndarray:
    """l2 norms of the rows of ``X`` without an ``X``-sized temporary."""
    return np.sqrt(np.einsum("ij,ij->i", X, X))


def gamma_max(X: np.ndarray, center: np.ndarray | None = None) -> float:
    r"""Smallest :math:`\gamma` for which ``Z = 0`` solves problem (29) on ``X`` (on
    ``X - center`` when given).

    :math:`Z = 0` is optimal iff some subgradient of :math:`\lVert X\rVert_{2,1}`, the
    rows of ``X`` scaled to unit norm (``G``, zero rows may stay zero), lies in
    :math:`\gamma\,\partial\lVert 0\rVert_* = \{W : \lVert W\rVert_2 \le \gamma\}`;
    so the threshold is :math:`\lVert G\rVert_2 \le \lVert G\rVert_F \le \sqrt{n}`.
    ``G`` is the only ``X``-sized array formed.
    """
    G = np.array(X, dtype=np.float64) if center is None else np.subtract(X, center)
    norms = _row_norms(G)
    np.divide(G, norms[:, None], out=G, where=norms[:, None] > 0)
    G[norms == 0] = 0.0
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


# ------------------------------------------------------------- the data, by blocks
def _blocks(length: int, other: int) -> list[slice]:
    """Slices of ``range(length)`` whose blocks (times ``other``) hold about
    ``BLOCK_BYTES``, at most 1/32 of ``length`` and at least 1."""
    step = max(1, min(BLOCK_BYTES // (8 * max(other, 1)), -(-length // 32)))
    return [slice(i, min(i + step, length)) for i in range(0, length, step)]


class _Data:
    """The data the ALM sees, ``X - 1 c^T``, by row or column blocks, never formed
    (``c=None``: ``X`` itself). Holds ``X`` (not copied) and three block-sized scratch
    buffers that the blocked passes share."""

    def __init__(self, X: np.ndarray, center: np.ndarray | None):
        n, d = X.shape
        if center is None and X.dtype != np.float64:  # blocks are then made in float64
            center = np.zeros(d)
        self.X, self.center, self.shape = X, center, X.shape
        self.rows, self.columns = _blocks(n, d), _blocks(d, n)
        self._size = max(self.rows[0].stop * d, n * self.columns[0].stop)
        self._work = None

    def scratch(self, h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._work is None:
            self._work = np.empty((3, self._size))
        return tuple(self._work[i, : h * w].reshape(h, w) for i in range(3))

    def release(self) -> None:
        """Drop the scratch blocks (allocated again when asked for)."""
        self._work = None

    def row_block(self, rows: slice) -> tuple[np.ndarray, ...]:
        """Three scratch blocks for ``rows``."""
        return self.scratch(rows.stop - rows.start, self.shape[1])

    def column_block(self, cols: slice) -> tuple[np.ndarray, ...]:
        return self.scratch(self.shape[0], cols.stop - cols.start)

    def take(self, rows: slice, cols: slice, out: np.ndarray) -> np.ndarray:
        """A block of ``X - c``: a view of ``X`` without a centre, else written into ``out``."""
        if self.center is None:
            return self.X[rows, cols]
        return np.subtract(self.X[rows, cols], self.center[cols], out=out)

    def norm(self) -> float:
        """Frobenius norm."""
        total = 0.0
        for rows in self.rows:
            block = self.take(rows, slice(None), self.row_block(rows)[0])
            total += float(np.einsum("ij,ij->", block, block))
        return float(np.sqrt(total))

    def abs_max(self) -> float:
        """Largest absolute entry (subtracting ``c_j`` is monotone, so exact)."""
        hi, lo = self.X.max(axis=0), self.X.min(axis=0)
        if self.center is not None:
            hi, lo = hi - self.center, lo - self.center
        return float(max(hi.max(), -lo.min()))

    def divided(self, value: float) -> np.ndarray:
        """A new array ``(X - 1 c^T) / value``."""
        out = np.empty(self.shape)
        for rows in self.rows:
            block = self.take(rows, slice(None), self.row_block(rows)[0])
            np.divide(block, value, out=out[rows])
        return out

    def spectral_norm(self, rng: np.random.Generator) -> float:
        return spectral_norm(self.X, rng, center=self.center)


# ------------------------------------------------------------ the sparse terms
class _L1:
    r"""PCP's :math:`\lambda\lVert S\rVert_1`, with :math:`\lVert L\rVert_*`."""

    rowwise = False

    def __init__(self, lam: float):
        self.lam = lam

    def prox_into(self, T, mu, out, factor=None) -> None:
        """:func:`robustpca.prox.soft_threshold` at ``lam / mu``, written into ``out``."""
        t = self.lam / mu
        np.clip(T, -t, t, out=out)
        np.subtract(T, out, out=out)

    def loss(self, D, scratch) -> float:
        """``||D||_1`` of these rows (the objective weighs it by ``lam``)."""
        return float(np.abs(D, out=scratch).sum())

    def objective(self, loss: float, s: np.ndarray) -> float:
        return float(s.sum() + self.lam * loss)

    def entry_norm(self, Y) -> float:
        return float(max(Y.max(initial=0.0), -Y.min(initial=0.0)))

    def dual_norm(self, two: float, entry: float) -> float:
        return max(two, entry / self.lam)


class _L21:
    r"""The l2,1 norm :math:`\lVert E\rVert_{2,1}` (rows), with :math:`\gamma\lVert Z\rVert_*`."""

    rowwise = True

    def __init__(self, gamma: float):
        self.gamma = gamma

    @staticmethod
    def row_factor(norms, mu) -> np.ndarray:
        """Row scaling of :func:`robustpca.prox.l21_shrinkage` at ``1 / mu``."""
        t = 1.0 / mu
        scale = np.zeros_like(norms)
        np.divide(t, norms, out=scale, where=norms > t)
        return np.where(norms > t, 1.0 - scale, 0.0)

    def prox_into(self, T, mu, out, factor=None) -> None:
        """:func:`robustpca.prox.l21_shrinkage` of whole rows ``T`` (or with the row
        ``factor`` of the whole rows), written into ``out``."""
        if factor is None:
            factor = self.row_factor(np.linalg.norm(T, axis=-1, keepdims=True), mu)
        np.multiply(T, factor, out=out)

    def loss(self, D, scratch) -> float:
        return float(np.linalg.norm(D, axis=1).sum())

    def objective(self, loss: float, s: np.ndarray) -> float:
        return float(loss + self.gamma * s.sum())

    def entry_norm(self, Y) -> float:
        return float(_row_norms(Y).max(initial=0.0))

    def dual_norm(self, two: float, entry: float) -> float:
        return max(two / self.gamma, entry)


# ------------------------------------------------------------------ the SVT step
@dataclass(frozen=True)
class _LowRank:
    """``L - b`` of one ALM step, in the form its route leaves it (never ``n x d``).

    * ``'factors'``: ``(U * s) @ Vt`` (partial and exact SVD; the Gram route on wide data
      at rank ``r <= n / 4``, with ``Vt = diag(1/sigma) U^T M``, orthonormal rows only up
      to about eps sigma_1^2 / sigma_i^2);
    * ``'rows'``: ``M V diag(gain) V^T`` with ``V = Vt.T`` (the Gram route on tall data):
      a row block of ``L`` from the same rows of ``M``;
    * ``'columns'``: ``U diag(gain) U^T M`` (the Gram route on wide data at rank
      ``r > n / 4``): a column block from the same columns of ``M``.

    ``s`` are the thresholded singular values (decreasing), ``gain = s / sigma``.
    """

    kind: str
    s: np.ndarray
    U: np.ndarray | None = None
    Vt: np.ndarray | None = None
    gain: np.ndarray | None = None
    method: str = "gram"

    @classmethod
    def empty(cls, n: int, d: int) -> _LowRank:
        return cls("factors", np.zeros(0), np.zeros((n, 0)), np.zeros((0, d)), method="full")


def _gram_step(M: np.ndarray, tau: float) -> _LowRank:
    """Singular value thresholding of ``M`` by the Gram matrix of its short side.

    ``M`` is neither copied nor modified; holds the ``min(n, d)``-square Gram matrix, its
    eigenvectors and, for wide data at rank ``r <= n / 4``, the ``r x d`` factor.
    """
    n, d = M.shape
    wide = n <= d
    G = M @ M.T if wide else M.T @ M  # numpy uses syrk for a product with its transpose
    lam, E = sla.eigh(G, check_finite=False, overwrite_a=True)
    sigma = np.sqrt(np.maximum(lam[::-1], 0.0))
    r = int(np.count_nonzero(sigma > tau))
    sigma, E = sigma[:r], np.ascontiguousarray(E[:, ::-1][:, :r])
    s = sigma - tau
    if not wide:
        return _LowRank("rows", s, Vt=np.ascontiguousarray(E.T), gain=s / sigma)
    if FACTOR_ROWS * r > n:
        return _LowRank("columns", s, U=E, gain=s / sigma)
    Vt = E.T @ M
    Vt /= sigma[:, None]
    return _LowRank("factors", s, U=E, Vt=Vt)


class _SVTStep:
    """Singular value thresholding with Lin et al.'s rank prediction and a warm start.

    As in Lin et al.'s code, the partial route computes at most ``hint`` triplets; when all
    of them exceed the threshold the step is truncated (``method='truncated'``) and the
    next hint grows by 5% of ``min(n, d)``; otherwise it is one more than the rank found.
    The partial SVD is converged to ``rtol``, which the ALM loop keeps at 1% of its
    relative primal residual (between 1e-12 and 1e-6): the proximal steps are computed
    more accurately as the iterates converge, the usual condition of inexact proximal
    methods. ``'auto'`` chooses between the partial and the Gram route by their cost (see
    the module docstring). Holds the warm start (``hint`` rows of length ``d``) only when
    the next step may take the partial route.
    """

    def __init__(self, shape: tuple[int, int], solver: str, rng: np.random.Generator):
        self.side = min(shape)
        self.hint = min(10, self.side)
        self.solver = solver
        self.rng = rng
        self.init = None
        self.rtol = 1e-6
        self.counts = {"full": 0, "partial": 0, "truncated": 0, "gram": 0}

    def _partial_pays(self) -> bool:
        """'auto': is the partial route predicted cheaper than the Gram route?"""
        return PARTIAL_COST * (self.hint + OVERSAMPLES) <= self.side

    def __call__(self, M: np.ndarray, tau: float) -> _LowRank:
        kwargs = {"rng": self.rng, "init": self.init, "rtol": self.rtol}
        if self.solver != "auto":
            f = svt_factors(M, tau, rank_hint=self.hint, grow=False, solver=self.solver, **kwargs)
        elif self._partial_pays():
            f = partial_svt_factors(M, tau, rank_hint=self.hint, **kwargs)
        else:
            f = None
        low = (
            _gram_step(M, tau) if f is None else _LowRank("factors", f.s, f.U, f.Vt, None, f.method)
        )
        svp = low.s.size
        grow = 1 if svp < self.hint else max(1, round(0.05 * self.side))
        self.hint = max(1, min(svp + grow, self.side))
        self.counts[low.method] += 1
        self.init = None
        warm = self.solver == "partial" or (self.solver == "auto" and self._partial_pays())
        if warm and low.Vt is not None:
            self.init = low.Vt[: self.hint].copy() if low.method == "gram" else low.Vt
        return low


def _exact_right_factors(f: SVDFactors, *, overwrite: bool) -> tuple[np.ndarray, np.ndarray]:
    """Singular values and orthonormal right singular vectors of ``(U * s) @ Vt``.

    LAPACK's and the partial route's factors are orthonormal: returned as they are. The
    wide Gram route's ``U`` is orthonormal and its ``Vt`` only up to about
    eps sigma_1^2 / sigma_i^2: with ``H = Vt Vt^T = E Lambda E^T`` (r x r) and the SVD
    ``diag(s) E Lambda^(1/2) = P Sigma Q^T``, ``(U * s) @ Vt = (U P) Sigma (W Vt)`` with
    ``W = Q^T Lambda^(-1/2) E^T``, both sides orthonormal to working precision (one
    Rayleigh-Ritz step, as in Cholesky QR). ``overwrite``: ``Vt`` is transformed in place
    by column blocks (no second ``r x d`` array).
    """
    s = f.s
    if f.method != "gram" or s.size == 0:
        return s, f.Vt
    lam, E = sla.eigh(f.Vt @ f.Vt.T, check_finite=False, overwrite_a=True)
    lam = np.maximum(lam, np.finfo(float).eps * lam[-1])
    E *= np.sqrt(lam)  # E Lambda^(1/2)
    _, sigma, Qt = np.linalg.svd(s[:, None] * E)  # its workspace is not numpy's
    Qt /= lam  # W = Q^T Lambda^(-1/2) E^T = (Q^T Lambda^(-1)) (E Lambda^(1/2))^T
    W = Qt @ E.T
    del E, Qt
    if not overwrite:
        return sigma, W @ f.Vt
    Vt = f.Vt
    for cols in _blocks(Vt.shape[1], Vt.shape[0]):
        Vt[:, cols] = W @ Vt[:, cols]
    return sigma, Vt


def _right_vectors(data: _Data, low: _LowRank, m: int, z_columns, *, overwrite: bool):
    """The top ``m`` orthonormal right singular vectors (rows) of ``L - b``.

    ``z_columns(cols, out)`` gives column blocks of ``L - b``: the ``'columns'`` form keeps
    no row factor, so there they come from ``U^T (L - b) = diag(s) V^T``, rows divided by
    ``s`` and made orthonormal by :func:`_exact_right_factors` (holds ``m x d``)."""
    if low.kind == "rows":
        return low.Vt[:m]
    if low.kind == "factors":
        f = SVDFactors(low.U, low.s, low.Vt, low.method)
        return _exact_right_factors(f, overwrite=overwrite)[1][:m]
    U = low.U[:, :m]
    Vt = np.empty((m, data.shape[1]))
    buffer = np.empty((data.shape[0], data.columns[0].stop))
    for cols in data.columns:
        Vt[:, cols] = U.T @ z_columns(cols, buffer[:, : cols.stop - cols.start])
    Vt /= low.s[:m, None]
    return _exact_right_factors(SVDFactors(U, low.s[:m], Vt, "gram"), overwrite=True)[1]


# --------------------------------------------------------------------- the loop
@dataclass
class _ALMOutcome:
    """Where the loop stopped: ``work`` holds ``D = X - L`` and ``dual`` the multiplier
    ``Y`` that entered the last step, at penalty ``mu`` (see :func:`_final_blocks`)."""

    work: np.ndarray
    dual: np.ndarray
    mu: float
    mean: np.ndarray | None  # b of the last L step (None: no mean in the problem)
    low: _LowRank  # L - b
    objective: list
    n_iter: int
    converged: bool
    stop_reason: str


@dataclass(frozen=True)
class _Problem:
    """One convex problem: its ``L`` step and its sparse term."""

    low_rank_step: Callable  # (M, mu) -> (b or None, _LowRank of L - b); may overwrite M
    sparse: _L1 | _L21
    svt: _SVTStep  # its accuracy follows the primal residual
    free_mean: bool = False  # the dual must then have zero column sums


def _shift_into(data: _Data, S: np.ndarray, Y: np.ndarray, inv: float) -> None:
    """First iteration: ``S <- (X - S) + inv * Y``, the argument of the ``L`` step."""
    for rows in data.rows:
        a, b, _ = data.row_block(rows)
        np.subtract(data.take(rows, slice(None), a), S[rows], out=S[rows])
        S[rows] += np.multiply(Y[rows], inv, out=b)


def _advance(data: _Data, sparse, work, Y, mu_prev: float, inv: float) -> None:
    """From ``(D_k, Y_{k-1})`` to ``(M_{k+1}, Y_k)`` by row blocks: ``S_k = prox(D_k +
    Y_{k-1}/mu_prev)``, ``Y_k = Y_{k-1} + mu_prev (D_k - S_k)`` in place, and ``M = (X -
    S_k) + inv * Y_k`` written over ``D_k``."""
    inv_prev = 1.0 / mu_prev
    for rows in data.rows:
        T, S, _ = data.row_block(rows)
        D = work[rows]
        np.multiply(Y[rows], inv_prev, out=T)
        T += D
        sparse.prox_into(T, mu_prev, S)
        np.subtract(D, S, out=T)  # R
        T *= mu_prev
        Y[rows] += T
        np.subtract(data.take(rows, slice(None), T), S, out=D)
        D += np.multiply(Y[rows], inv, out=T)


def _residual(sparse, D, Y, mu, T, S, factor=None) -> float:
    """``||D - prox(D + Y/mu)||_F^2`` of one block, with scratch ``T`` and ``S``."""
    np.multiply(Y, 1.0 / mu, out=T)
    T += D
    sparse.prox_into(T, mu, S, factor)
    np.subtract(D, S, out=S)
    return float(np.einsum("ij,ij->", S, S))


def _low_rank_pass(data: _Data, sparse, work, Y, low: _LowRank, mean, mu):
    """Apply the ``L`` step block by block: ``D = X - L`` written over ``M`` (in
    ``work``). Returns the share ``g(D)`` of the objective and ``||D - S||_F^2``, with
    ``S = prox(D + Y/mu)`` (not written). Holds three blocks."""
    if low.kind == "columns":
        return _column_pass(data, sparse, work, Y, low, mean, mu)
    U = low.U * low.s if low.kind == "factors" else None
    loss = residual = 0.0
    for rows in data.rows:
        L, T, S = data.row_block(rows)
        if U is not None:
            np.matmul(U[rows], low.Vt, out=L)
        else:
            np.matmul((work[rows] @ low.Vt.T) * low.gain, low.Vt, out=L)
        if mean is not None:
            L += mean
        D = work[rows]
        np.subtract(data.take(rows, slice(None), T), L, out=D)
        loss += sparse.loss(D, S)
        residual += _residual(sparse, D, Y[rows], mu, T, S)
    return loss, residual


def _column_pass(data: _Data, sparse, work, Y, low: _LowRank, mean, mu):
    """:func:`_low_rank_pass` for ``L = U diag(gain) U^T M`` by column blocks; the row
    norms of the l2,1 term are accumulated, and its residual needs a row pass after."""
    A, Ut = low.U * low.gain, low.U.T
    loss = residual = 0.0
    squares = np.zeros(data.shape[0])
    for cols in data.columns:
        L, T, S = data.column_block(cols)
        np.matmul(A, Ut @ work[:, cols], out=L)
        if mean is not None:
            L += mean[cols]
        D = work[:, cols]
        np.subtract(data.take(slice(None), cols, T), L, out=D)
        if sparse.rowwise:
            squares += np.einsum("ij,ij->i", D, D)
        else:
            loss += sparse.loss(D, S)
            residual += _residual(sparse, D, Y[:, cols], mu, T, S)
    if sparse.rowwise:
        loss = float(np.sqrt(squares).sum())
        for rows in data.rows:
            T, S, _ = data.row_block(rows)
            residual += _residual(sparse, work[rows], Y[rows], mu, T, S)
    return loss, residual


def _inexact_alm(data: _Data, problem: _Problem, *, mu, mu_max, rho, Y, max_iter, tol, callback):
    """The shared loop of Lin et al. (2010, Alg. 5) and Nie et al. (2014, Alg. 3).

    Takes ownership of the initial multiplier ``Y`` (updated in place) and allocates the
    one other ``n x d`` array, ``work`` (``S``, then ``M`` or ``D`` in turn).
    """
    n, d = data.shape
    scale = data.norm()
    work = np.zeros((n, d))  # S_0
    history: list[float] = []
    stop_reason, converged, mean, low = StopReason.MAX_ITER, False, None, _LowRank.empty(n, d)
    if scale == 0.0:  # X - c = 0: D = 0 and Y_0 = 0 are the solution
        return _ALMOutcome(work, Y, mu, None, low, [0.0], 0, True, StopReason.EXACT)
    mu_used = mu
    for iteration in range(1, max_iter + 1):
        low = None  # the previous factors are not kept while the next are made
        if iteration == 1:
            _shift_into(data, work, Y, 1.0 / mu)
        else:
            _advance(data, problem.sparse, work, Y, mu_used, 1.0 / mu)
        mean, low = problem.low_rank_step(work, mu)
        loss, residual = _low_rank_pass(data, problem.sparse, work, Y, low, mean, mu)
        history.append(problem.sparse.objective(loss, low.s))
        mu_used, mu = mu, min(rho * mu, mu_max)
        if callback is not None:
            view = _callback_view(data, work, low, mean)
            if callback(iteration, IterationState(iteration, history[-1], None, *view)):
                stop_reason = StopReason.CALLBACK
                break
        residual = float(np.sqrt(residual)) / scale
        problem.svt.rtol = min(1e-6, max(1e-12, 0.01 * residual))
        # a truncated SVT step is never the last one (Lin et al.'s code has no such check)
        if residual <= tol and low.method != "truncated":
            stop_reason, converged = PRIMAL_RESIDUAL, True
            break
    return _ALMOutcome(work, Y, mu_used, mean, low, history, iteration, converged, stop_reason)


def _callback_view(data: _Data, work, low: _LowRank, mean):
    """Lazy ``(components, mean)`` of the current iterate for ``IterationState``."""
    b = np.zeros(data.shape[1]) if mean is None else mean

    def z_columns(cols, out):  # L - b = X - c - D - b
        np.subtract(data.take(slice(None), cols, out), work[:, cols], out=out)
        out -= b[cols]
        return out

    def components():
        return _right_vectors(data, low, low.s.size, z_columns, overwrite=False)

    return components, lambda: b


# ------------------------------------------------------------------ the results
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


def _final_blocks(sparse, out: _ALMOutcome, rows, cols, Yk, S, factor=None):
    """A block of the final multiplier ``Y_k = Y + mu (D - prox(D + Y/mu))`` into ``Yk``
    (``S``: scratch, left holding ``mu R``); ``factor``: the l2,1 row scaling of whole
    rows when the block has only some columns."""
    D, Y, mu = out.work[rows, cols], out.dual[rows, cols], out.mu
    np.multiply(Y, 1.0 / mu, out=Yk)
    Yk += D
    sparse.prox_into(Yk, mu, S, factor)
    np.subtract(D, S, out=S)
    S *= mu
    np.add(Y, S, out=Yk)
    return Yk


def _final_dual(data: _Data, sparse, out: _ALMOutcome) -> np.ndarray:
    """The final multiplier as a new array."""
    Yk = np.empty(data.shape)
    for rows in data.rows:
        _final_blocks(sparse, out, rows, slice(None), Yk[rows], data.row_block(rows)[0])
    return Yk


def _gap(data: _Data, problem: _Problem, out: _ALMOutcome, objective: float) -> float:
    """:func:`duality_gap` of the final multiplier, which is never formed: its blocks are
    made from ``(D, Y)`` in three passes (column sums and l2,1 row scalings; the inner
    product with ``X - c`` and the entry norm; the Gram matrix of its short side, whose
    top eigenvalue gives ``||Y||_2`` to about machine precision)."""
    if objective <= 0:
        return 0.0
    sparse, (n, d) = problem.sparse, data.shape
    factor = np.ones((n, 1)) if sparse.rowwise else None
    total = np.zeros(d)
    for rows in data.rows:
        Yk, S, T = data.row_block(rows)
        _final_blocks(sparse, out, rows, slice(None), Yk, S)
        total += Yk.sum(axis=0)
        if sparse.rowwise:  # the row scaling of prox(D + Y/mu), for the column blocks
            np.multiply(out.dual[rows], 1.0 / out.mu, out=T)
            T += out.work[rows]
            factor[rows] = sparse.row_factor(np.linalg.norm(T, axis=-1, keepdims=True), out.mu)
    ybar = total / n if problem.free_mean else np.zeros(d)
    value = entry = 0.0
    wide = n <= d
    G = np.zeros((n, n) if wide else (d, d))
    for rows in data.rows:
        Yk, S, T = data.row_block(rows)
        _final_blocks(sparse, out, rows, slice(None), Yk, S)
        Yk -= ybar
        value += float(np.vdot(data.take(rows, slice(None), T), Yk))
        entry = max(entry, sparse.entry_norm(Yk))
        if not wide:
            G += Yk.T @ Yk
    if wide:
        for cols in data.columns:
            Yk, S, _ = data.column_block(cols)
            _final_blocks(sparse, out, slice(None), cols, Yk, S, factor)
            Yk -= ybar[cols]
            G += Yk @ Yk.T
    top = sla.eigvalsh(G, subset_by_index=[len(G) - 1, len(G) - 1], check_finite=False)[0]
    two = float(np.sqrt(max(top, 0.0)))
    value /= max(1.0, sparse.dual_norm(two, entry))
    return (objective - value) / objective


def _finish_arrays(data: _Data, sparse, out: _ALMOutcome) -> tuple[np.ndarray, np.ndarray]:
    """``S = prox(D + Y/mu)`` over ``Y`` and the low-rank part ``X - D = L + c`` over
    ``D``, by row blocks. Returns ``(low_rank, sparse)``."""
    for rows in data.rows:
        T, _, _ = data.row_block(rows)
        np.multiply(out.dual[rows], 1.0 / out.mu, out=T)
        T += out.work[rows]
        sparse.prox_into(T, out.mu, out.dual[rows])
        np.subtract(data.X[rows], out.work[rows], out=out.work[rows])
    return out.work, out.dual


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
        callback=callback,
    )
    objective = out.objective[-1]
    dual = _final_dual(data, problem.sparse, out) if return_dual else None
    gap = _gap(data, problem, out, objective)
    low_rank, sparse = _finish_arrays(data, problem.sparse, out)
    data.release()
    offset = np.zeros(data.shape[1]) if out.mean is None else out.mean
    if center is not None:
        offset = offset + center

    def z_columns(cols, buffer):  # L - b = low_rank - (b + c)
        return np.subtract(low_rank[:, cols], offset[cols], out=buffer)

    s = out.low.s
    top = s.max(initial=0.0)
    rank = int(np.count_nonzero(s > top * max(data.shape) * np.finfo(float).eps)) if top > 0 else 0
    k = max(rank, 1) if n_components is None else int(n_components)
    kept = _right_vectors(data, out.low, min(k, rank), z_columns, overwrite=True)
    if 2 * kept.shape[0] < out.low.s.size:  # do not keep a large factor alive
        kept = kept.copy()
    info = {
        "low_rank": low_rank,
        "sparse": sparse,
        "rank": rank,
        "low_rank_singular_values": s[:rank].copy(),
        "duality_gap": gap,
        "mu": mu0,
        "svd_counts": dict(problem.svt.counts),
    }
    if return_dual:
        info["dual"] = dual
    if row_sparse:
        info["outliers"] = np.einsum("ij,ij->i", sparse, sparse) > 0
    return SolverResult(
        components=complete_orthonormal(kept.T, k, rng).T,
        mean=offset,
        weights=None,
        n_iter=out.n_iter,
        converged=out.converged,
        stop_reason=out.stop_reason,
        objective=np.asarray(out.objective, dtype=float),
        info=info,
    )


def _auto_mu(data, mu, mu_max, ratio, rng):
    """``mu=None``: 1.25 / ||X||_2 (Lin et al.); ``mu_max=None``: ``ratio * mu0``."""
    if mu is None:
        norm_two = data.spectral_norm(rng)
        mu = 1.25 / norm_two if norm_two > 0 else 1.0
    cap = ratio * mu if mu_max is None else float(mu_max)
    return float(mu), max(cap, float(mu))


# ---------------------------------------------------------------------- solvers
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
    return_dual: bool = True,
) -> SolverResult:
    r"""Principal component pursuit by the inexact ALM (Lin, Chen & Ma 2010, Algorithm 5).

    .. math:: \min_{L, S} \lVert L\rVert_* + \lambda\lVert S\rVert_1
              \quad\text{s.t.}\quad X = L + S .

    Starts from :math:`S_0 = 0`, :math:`Y_0 = X / J(X)` with
    :math:`J(X) = \max(\lVert X\rVert_2, \lambda^{-1}\lVert X\rVert_\infty)`. ``mu=None``
    gives :math:`\mu_0 = 1.25/\lVert X\rVert_2` and ``mu_max=None`` gives
    :math:`\bar\mu = 10^7\mu_0` (the values of Lin et al.'s code), so the iterates are
    equivariant to the scale of ``X``. ``return_dual=False`` leaves out the multiplier
    (one ``n x d`` array less; the estimators use it).

    Returns
    -------
    SolverResult
        ``objective``: :math:`\lVert L_k\rVert_* + \lambda\lVert X - L_k\rVert_1` after
        each iteration; ``info``: ``low_rank``, ``sparse``, ``dual`` (:math:`Y`, with
        ``return_dual``), ``rank``, ``low_rank_singular_values``, ``duality_gap``
        (:func:`duality_gap`), ``mu`` (:math:`\mu_0`) and ``svd_counts`` (SVT steps by
        route).
    """
    center_vec = X.mean(axis=0, dtype=np.float64) if center else None
    data = _Data(X, center_vec)
    # Y_0 = X / J(X), J(X) = max(||X||_2, ||X||_inf / lam) (Lin et al., Algorithm 5)
    norm_two = data.spectral_norm(rng)
    J = max(norm_two, data.abs_max() / lam)
    svt = _SVTStep(X.shape, svd_solver, rng)
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
    svd_solver: str = "auto",
    rng: np.random.Generator,
    callback: Callback | None = None,
    return_dual: bool = True,
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
    :math:`\mu_0 = 0.1`. ``return_dual`` as in :func:`solve_pcp`.

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
    svd_solver: str = "auto",
    rng: np.random.Generator,
    callback: Callback | None = None,
    return_dual: bool = True,
) -> SolverResult:
    r"""CRPCA-OM, problem (30) of Nie et al. (2014), by their Algorithm 3 (ALM).

    .. math:: \min_{b, Z} \lVert X - 1b^\top - Z\rVert_{2,1} + \gamma\lVert Z\rVert_* .

    Each iteration solves problem (32) by Theorem 3 (:func:`optimal_mean_svt`), problem
    (33) by row shrinkage, updates :math:`\Lambda` and sets
    :math:`\mu = \min(\rho\mu, \bar\mu)`. The data are translated by their
    arithmetic mean first (the solution is translation equivariant; this only keeps
    the numbers well scaled; the translation is applied block by block, ``X`` is not
    copied) and the mean is added back to ``b``. ``mu`` and ``mu_max`` as in
    :func:`solve_outlier_pursuit`; the paper's literal values are ``mu=0.1,
    mu_max=1e8``. ``return_dual`` as in :func:`solve_pcp`.

    Returns
    -------
    SolverResult
        ``mean``: :math:`b`; ``objective``: objective (30) at :math:`(b_k, Z_k)` after
        each iteration; ``info`` as for :func:`solve_outlier_pursuit` (``low_rank`` is
        :math:`1b^\top + Z`).
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
        callback=callback,
        return_dual=return_dual,
    )
