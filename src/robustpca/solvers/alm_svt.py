r"""The singular value thresholding step of the convex ALM solvers.

Each iteration of :mod:`robustpca.solvers.alm` thresholds the singular values of its
argument ``M`` at :math:`\tau` (:math:`1/\mu_k` for PCP, :math:`\gamma/\mu_k` for
outlier pursuit and CRPCA-OM). ``svd_solver='auto'`` (:class:`_SVTStep`) takes, each
iteration, the cheaper of two exact routes:

* the *Gram route* (:func:`_gram_step`): the eigendecomposition of the
  ``min(n, d)``-square Gram matrix of ``M`` gives every singular value above
  :math:`\tau` and one side of the singular vectors; the thresholded matrix is applied
  block by block in the next pass (:mod:`robustpca.solvers.alm_blocks`), never formed;
* the *partial route* (:func:`_block_svt`): block subspace iteration with Rayleigh-Ritz
  on Lin et al.'s predicted rank plus a few columns, warm-started from the previous
  step's right vectors, converged triplets locked. It is **verified**: the triplet
  after the last one kept must fall below the threshold, else the block grows (or, in
  ``'auto'``, the Gram route takes the step), so no step is truncated.

Both give the exact SVT to about ``BLOCK_RTOL`` of the top singular value, and fits
follow the full-SVD iterates (``tests/test_svt_partial.py``). ``'auto'`` takes the Gram
route first, then tries the partial route where its block is a small share of the side
(``PARTIAL_COST``), weighing a flop of its thin products ``THIN_PRODUCT_COST`` times a
flop of the Gram route's ``syrk``; it is given up once it has cost as much as a Gram
step, and after a dear one the Gram route is kept for a number of steps in proportion
(``PARTIAL_RETRY``). The choice is a count, not a clock, so that a fit repeats bit for
bit. ``'partial'`` always tries the block route first; ``'full'`` is LAPACK's SVD every
iteration. The Gram route squares the condition number: its thresholded matrix is
accurate to about :math:`\epsilon\sigma_1^2/\tau`, and the penalty's cap keeps
:math:`\tau` above :math:`0.8\cdot 10^{-7}\lVert X\rVert_2` for PCP, so that stays
below ``tol``.
For data stored in single precision (PCP), the Gram route forms the part of its Gram
matrix off the last step's singular vectors in single precision
(:mod:`.alm_single_gram`), checked each step against the data's own rounding.
``docs/design-notes/pcp.md`` has the measurements behind these choices.
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import numpy as np
from scipy import linalg as sla

from ..linalg import single_blas_thread
from ..prox import SVDFactors, svt_factors
from .alm_blocks import _blocks, _Data
from .alm_single_gram import single_precision_gram
from .alm_types import _LowRank

#: 'auto' takes the partial route when PARTIAL_COST * (hint + 1 + BLOCK_OVERSAMPLES)
#: <= min(n, d).
PARTIAL_COST = 10
#: 'auto' also takes the Gram route for the next ``PARTIAL_RETRY * c`` steps after a
#: partial step that cost ``c > 1`` times the Gram route (``_SVTStep._dearer``), then
#: tries the partial route again; each such retry that costs more too doubles the wait.
#: Where the singular values near the threshold are close, the block iteration needs
#: many passes a step (docs/design-notes/pcp.md).
PARTIAL_RETRY = 4
#: What a flop of a product of ``M`` with a few columns costs, in flops of the Gram
#: route's ``syrk``. A count rather than the clock keeps fits repeatable; a dearer weight
#: gave the cheaper partial steps of square problems to the Gram route, and where the
#: block iteration crawls (video) the give-up rule bounds a wrong prediction to one Gram
#: step (docs/design-notes/pcp.md).
THIN_PRODUCT_COST = 1.0
#: A product of ``M`` with fewer columns than this costs as much as with this many: it
#: reads all of ``M``.
MEMORY_COLUMNS = 16
#: The QR and SVD of the Rayleigh-Ritz matrix of ``a`` columns cost as much as
#: ``RAYLEIGH_RITZ * a^2 / n`` products of the ``n``-row ``M`` with a vector.
RAYLEIGH_RITZ = 15
#: Extra columns of the block iteration beyond the hint and the verifying triplet.
BLOCK_OVERSAMPLES = 5
#: Residual tolerance of the block iteration, relative to the top singular value: fits
#: then end as close to LAPACK's as the Gram route's do.
BLOCK_RTOL = 5e-11
#: A triplet is locked (no longer iterated) once its residual is this fraction of the
#: acceptance tolerance ``BLOCK_RTOL * theta_1``: locked triplets stay ten times more
#: accurate than the step requires, as they were when every triplet went on iterating.
LOCK_FRACTION = 0.1
#: Passes of the block iteration before the Gram route takes over.
BLOCK_MAX_PASSES = 30
#: The Gram route computes all eigenpairs when the last step kept more than this
#: fraction of them, only those above the threshold otherwise (both by LAPACK's
#: ``syevr``, whose subsets cost more per vector). By the last rank, not Lin et al.'s
#: prediction, which overshoots where the rank falls. ``syevd`` (divide and conquer) is
#: as fast but less accurate.
ALL_EIGENPAIRS_FRACTION = 1.0 / 3.0
#: The Gram route on wide data keeps the r x d factor while r <= n / FACTOR_ROWS.
FACTOR_ROWS = 4
#: The QR and SVD of the block iteration's few columns run on one BLAS thread, the
#: products with the data on all of them: OpenBLAS's threads slow those small
#: factorizations down.
SMALL_FACTORIZATIONS_ONE_THREAD = True
#: The Gram route's eigendecomposition runs on one BLAS thread up to this side. It is
#: SciPy's LAPACK between NumPy's products: with two or more BLAS threads the two
#: OpenBLAS libraries' threads fight over the cores ("More than one BLAS thread" in
#: docs/performance.md); above it the threads pay for themselves in the eigensolver.
GRAM_EIGH_ONE_THREAD_MAX = 1000
#: Single-precision data: the Gram route forms the part of its Gram matrix off the last
#: step's singular vectors in single precision (:mod:`.alm_single_gram`) when the short
#: side is at least this (below it the thin products cost what the ``syrk`` saves) ...
SINGLE_GRAM_MIN_SIDE = 512
#: ... the last rank at most this fraction of it ...
SINGLE_GRAM_RANK_FRACTION = 1.0 / 8.0
#: ... and keeps the result where that part's rounding, about
#: ``eps32 ||R||_2^2 / tau`` on the thresholded matrix, is at most this fraction of
#: ``eps32 sigma_1``, by which the single-precision data are uncertain; otherwise the
#: step is repeated in double precision.
SINGLE_GRAM_RATIO = 0.25
#: After a repeated step, the double-precision Gram route is kept for this many steps
#: (doubling at each repeat).
SINGLE_GRAM_RETRY = 2
#: At most this many singular vectors below the threshold join the basis of the next
#: single-precision Gram matrix: those above the threshold's next value (the last step's
#: ratio of thresholds ahead), which a falling threshold brings in, so that they are not
#: in the rounded part (they made its norm fail the check where the rank jumped).
SINGLE_GRAM_EXTRA = 8


def _gram_step(
    M: np.ndarray,
    tau: float,
    predicted: int = 0,
    G: np.ndarray | None = None,
    below: float | None = None,
) -> _LowRank:
    """Singular value thresholding of ``M`` by the Gram matrix of its short side.

    ``M`` is neither copied nor modified; holds the ``min(n, d)``-square Gram matrix, its
    eigenvectors and, for wide data at rank ``r <= n / 4``, the ``r x d`` factor.
    ``predicted``: the number of singular values expected above ``tau`` (the last
    rank), which picks whether all eigenpairs are computed
    (:data:`ALL_EIGENPAIRS_FRACTION`). ``G``: that Gram matrix, formed by the caller
    (:func:`~.alm_single_gram.single_precision_gram`; overwritten). ``below``: a value
    under ``tau`` whose singular values above it (at most :data:`SINGLE_GRAM_EXTRA`)
    give their vectors as ``extra``; the step itself is the same.
    """
    n, d = M.shape
    floor = tau if below is None else min(below, tau)
    wide = n <= d
    if G is None:  # numpy uses syrk for a product with its transpose
        G = M @ M.T if wide else M.T @ M
    with single_blas_thread(min(n, d) <= GRAM_EIGH_ONE_THREAD_MAX):
        try:
            if predicted > ALL_EIGENPAIRS_FRACTION * min(n, d):  # all (cheaper then)
                lam, E = sla.eigh(G, check_finite=False, overwrite_a=True, driver="evr")
            else:  # only the eigenpairs above tau^2 (syevr: the vectors wanted, not all)
                lam, E = sla.eigh(
                    G,
                    check_finite=False,
                    overwrite_a=True,
                    subset_by_value=(floor * floor, np.inf),
                    driver="evr",
                )
        except np.linalg.LinAlgError:  # syevr fails on tight clusters (eigh_index_range)
            G = M @ M.T if wide else M.T @ M  # (overwritten)
            lam, E = sla.eigh(G, check_finite=False, overwrite_a=True, driver="evd")
        first = int(np.searchsorted(lam, tau * tau, side="right"))  # those above tau^2
        start = int(np.searchsorted(lam, floor * floor, side="right"))
        start = max(start, first - SINGLE_GRAM_EXTRA)
        extra = np.ascontiguousarray(E[:, start:first][:, ::-1]) if below is not None else None
        lam, E = lam[first:], E[:, first:]
    sigma = np.sqrt(np.maximum(lam[::-1], 0.0))
    r = int(np.count_nonzero(sigma > tau))
    sigma, E = sigma[:r], np.ascontiguousarray(E[:, ::-1][:, :r])
    s = sigma - tau
    if not wide:
        return _LowRank("rows", s, Vt=np.ascontiguousarray(E.T), gain=s / sigma, extra=extra)
    if FACTOR_ROWS * r > n:
        return _LowRank("columns", s, U=E, gain=s / sigma, extra=extra)
    Vt = E.T @ M
    Vt /= sigma[:, None]
    return _LowRank("factors", s, U=E, Vt=Vt, extra=extra)


def _orth(Y: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the few columns of ``Y``, on one BLAS thread (see
    :data:`SMALL_FACTORIZATIONS_ONE_THREAD`)."""
    with single_blas_thread(SMALL_FACTORIZATIONS_ONE_THREAD):
        return sla.qr(Y, mode="economic", check_finite=False, overwrite_a=True)[0]


def _small_svd(B: np.ndarray):
    """Thin SVD of the ``b x d`` (``b`` small) Rayleigh-Ritz matrix, on one BLAS thread.

    By a QR of ``B^T = Q R`` first and the SVD of the ``b x b`` ``R^T = P S W^T``, so
    ``B = P S (Q W)^T``: both factorizations are backward stable, so this is as
    accurate as LAPACK's SVD of ``B``, and faster than ``gesdd``, which reduces the wide
    matrix to bidiagonal form directly.
    """
    with single_blas_thread(SMALL_FACTORIZATIONS_ONE_THREAD):
        Q, R = sla.qr(B.T, mode="economic", check_finite=False)
        P, s, Wt = sla.svd(R.T, check_finite=False)
        return P, s, (Q @ Wt.T).T


def _block_svt(
    M, tau, k, init, rng, rtol=BLOCK_RTOL, max_passes=BLOCK_MAX_PASSES, tally=None, give_up=None
):
    r"""Verified partial SVT: the top ``k + 1`` triplets of ``M`` by block subspace
    iteration with Rayleigh-Ritz on ``k + 1 + BLOCK_OVERSAMPLES`` columns, warm-started
    from the rows of ``init`` (the previous step's block of right vectors).

    Returns ``(low, Vt_block)``: the thresholded triplets as a ``_LowRank`` ``'factors'``
    (``method='partial'``) and the block's right Ritz vectors for the next warm start;
    ``('grow', Vt_block)`` when the ``(k + 1)``-th Ritz value exceeds ``tau`` (the
    block is too small: Ritz values are lower bounds, so then ``sigma_{k+1} > tau``
    for sure); ``(None, None)`` when it did not converge in ``max_passes``.

    The step is accepted when every triplet above ``tau`` has the residual
    :math:`\lVert Mv_i - \theta_iu_i\rVert_2 \le \mathrm{rtol}\,\theta_1` (the left
    residuals are zero by construction) and the next Ritz value plus its residual is
    below ``tau`` (there is a singular value of ``M`` within that residual of it, so
    below the threshold). The thresholded matrix then equals the full SVD's to about
    ``rtol`` relative, unless a singular value above ``tau`` was missed by the whole
    block (started from random directions besides the warm start: not observed).
    ``tally``: a one-element list to which the cost of the step is added, in products of
    ``M`` with a vector (:func:`_pass_cost`; for :class:`_SVTStep`); ``give_up()``, asked
    before each pass, ends the iteration as unconverged.
    """
    tally = [0] if tally is None else tally
    m = min(M.shape)
    width = min(k + 1 + BLOCK_OVERSAMPLES, m)
    omega = rng.standard_normal((M.shape[1], width))
    if init is not None and init.shape[0] > 0:
        keep = min(init.shape[0], width - 2)
        omega[:, :keep] = init[:keep].T
    Q = _orth(M @ omega)
    tally[0] += max(width, MEMORY_COLUMNS)
    locked = _Locked(M.shape)
    for _ in range(max_passes):
        if give_up is not None and give_up():
            return None, None
        # Rayleigh-Ritz on the complement of the locked triplets, on both sides
        Ub, theta_a, Vt_a = _small_svd(locked.deflate_rows(Q.T @ M))
        tally[0] += _pass_cost(Q.shape[1], M.shape[0])  # Q^T M, its SVD, and M V below
        theta = np.concatenate([locked.theta, theta_a])
        order = np.argsort(-theta, kind="stable")  # locked first, unless overtaken
        if theta[order[min(k, width - 1)]] > tau and width < m:
            return "grow", np.vstack([locked.Vt, Vt_a])[order]
        MV = M @ Vt_a.T
        U_a = Q @ Ub
        residual_a = np.linalg.norm(MV - U_a * theta_a, axis=0)
        theta, residual = theta[order], np.concatenate([locked.residual, residual_a])[order]
        count = int(np.count_nonzero(theta > tau))
        top = theta[0] if theta[0] > 0 else 1.0
        kept = residual[:count].max(initial=0.0) <= rtol * top
        # the next Ritz value, within its residual of a singular value, is below tau
        if kept and (count == width or theta[count] + residual[count] <= tau):
            U = np.hstack([locked.U, U_a])[:, order[:count]]
            Vt = np.vstack([locked.Vt, Vt_a])[order]
            low = _LowRank("factors", theta[:count] - tau, U, Vt[:count])
            return replace(low, method="partial"), Vt
        n_lock = locked.add(U_a, theta_a, Vt_a, residual_a, tau, LOCK_FRACTION * rtol * top)
        Q = _orth(locked.deflate(_shifted_power(MV, U_a, theta_a)[:, n_lock:]))
    return None, None


def _pass_cost(active: int, n: int) -> float:
    """The cost of a pass of :func:`_block_svt` on ``active`` columns, in products of the
    ``n``-row ``M`` with a vector: two products with ``M``, each reading all of ``M``
    however few the columns (``MEMORY_COLUMNS``), and the QR and SVD of the Rayleigh-Ritz
    matrix (``RAYLEIGH_RITZ``)."""
    return 2 * max(active, MEMORY_COLUMNS) + RAYLEIGH_RITZ * active * active / n


def _shifted_power(MV: np.ndarray, U_a: np.ndarray, theta_a: np.ndarray) -> np.ndarray:
    r"""The next block, ``(M M^T - s I) Q`` in the basis of the Ritz vectors:
    ``MV diag(theta) - s U`` (``M^T Q = V diag(theta) U_b^T`` and ``Q U_b = U``), with the
    shift :math:`s = \theta_b^2 / 2` at half the smallest Ritz value squared.

    The unwanted eigenvalues of :math:`MM^\top` beyond the block lie in
    :math:`[0, \sigma_{b+1}^2] \subseteq [0, \theta_b^2]` at convergence, and the shift
    at the middle of that interval is the best one for a degree-one filter (Rutishauser;
    Saad 2011, sec. 5.1): per pass a component along :math:`\sigma_i` grows by
    :math:`(\sigma_i^2 - s) / \max_{t} |t - s|` against :math:`\sigma_i^2 / \sigma_{b+1}^2`
    unshifted, never less for :math:`\sigma_i \ge \sigma_{b+1}` and up to twice as much
    (in logarithm: fewer passes) where the gap is wide. It costs no product with ``M``;
    the rounding of column ``i`` stays of order :math:`\epsilon\sigma_1\theta_i`, as in
    ``MV diag(theta)`` unshifted.
    """
    shift = 0.5 * theta_a[-1] ** 2
    Y = MV * theta_a
    Y -= shift * U_a
    return Y


class _Locked:
    """The converged leading triplets of :func:`_block_svt`, no longer iterated.

    A triplet is locked when its residual is at most ``LOCK_FRACTION * rtol`` times the
    top Ritz value and its value is above the threshold (it will be kept): it stays as
    it is (``M`` does not change within a step, nor its residual), and the rest of the
    block iterates on the orthogonal complement of its left vector, so the products with
    ``M`` shrink to the unconverged columns (the leading triplets converge first, the
    ones just above the threshold last).
    """

    def __init__(self, shape: tuple[int, int]):
        self.U = np.empty((shape[0], 0))
        self.Vt = np.empty((0, shape[1]))
        self.theta = np.empty(0)
        self.residual = np.empty(0)

    def add(self, U_a, theta_a, Vt_a, residual_a, tau, tol) -> int:
        """Lock the leading active triplets that converged above ``tau``; their number."""
        n_lock = 0
        while (
            n_lock < theta_a.size - 1
            and theta_a[n_lock] > tau
            and residual_a[n_lock] <= tol
            and (self.theta.size == 0 or theta_a[n_lock] <= self.theta[-1])
        ):
            n_lock += 1
        if n_lock:
            self.U = np.hstack([self.U, U_a[:, :n_lock]])
            self.Vt = np.vstack([self.Vt, Vt_a[:n_lock]])
            self.theta = np.concatenate([self.theta, theta_a[:n_lock]])
            self.residual = np.concatenate([self.residual, residual_a[:n_lock]])
        return n_lock

    def deflate(self, Y: np.ndarray) -> np.ndarray:
        """``Y`` without its components along the locked left vectors."""
        if self.theta.size:
            Y -= self.U @ (self.U.T @ Y)
        return Y

    def deflate_rows(self, B: np.ndarray) -> np.ndarray:
        """``B`` without its components along the locked right vectors, so that the
        active right vectors are orthogonal to them: ``M`` then maps them off the locked
        left vectors (whose left residuals vanish), and a locked triplet's residual
        (``rtol`` times the top value) does not leak into theirs amplified by its value."""
        if self.theta.size:
            B -= (B @ self.Vt.T) @ self.Vt
        return B


class _SVTStep:
    """Singular value thresholding with Lin et al.'s rank prediction, verified.

    Lin et al.'s prediction ``hint`` of how many singular values exceed the threshold
    (``svp``: one more than the last rank when it shrank, 5% of ``min(n, d)`` more when
    it did not) sets the block of :func:`_block_svt`, which computes one triplet more
    than that and checks that it falls below the threshold; otherwise the block is
    enlarged (to the count found plus 5% of ``min(n, d)``) and the step repeated, warm
    started. No step is truncated: every step is the exact SVT to about ``BLOCK_RTOL``
    (unlike Lin et al.'s code, whose truncated early steps differ from the exact SVT).
    ``'auto'`` takes that partial route after its first step (by the Gram route, which
    times it) when ``PARTIAL_COST * (hint + 1 + BLOCK_OVERSAMPLES) <= min(n, d)`` and no
    wait (``PARTIAL_RETRY``) is running, the Gram route otherwise and whenever the block
    iteration does not converge, costs more than a Gram step (``_dearer``) or would
    have to grow (a wider block costs more per pass, and the Gram step's spectrum sets
    the next hint);
    ``'partial'`` always tries it first; ``'full'`` is LAPACK's SVD. Holds the block of
    right vectors (``hint + 6`` rows of length ``d``) for the warm start.

    ``single``: the data are in single precision, so the Gram route may form its Gram
    matrix with :func:`~.alm_single_gram.single_precision_gram` on the last step's
    singular vectors of the short side (held, ``side x rank``), checked by
    :data:`SINGLE_GRAM_RATIO`.
    """

    def __init__(
        self,
        shape: tuple[int, int],
        solver: str,
        rng: np.random.Generator,
        single: bool = False,
    ):
        self.wide = shape[0] <= shape[1]
        self.single = single
        self.basis: np.ndarray | None = None  # the last step's short-side vectors
        self.tau: float | None = None  # the last step's threshold
        self.single_skip, self.single_wait = 0, SINGLE_GRAM_RETRY
        self.side, self.long = min(shape), max(shape)
        # Gram steps before the partial route is tried again, and the next such wait
        self.skip, self.wait = 0, PARTIAL_RETRY
        self.hint = min(10, self.side)
        self.rank = 0  # of the last step
        self.solver = solver
        self.rng = rng
        self.init: np.ndarray | None = None  # the partial route's warm start
        self.rtol = BLOCK_RTOL
        # "single": of the Gram steps, those formed in single precision
        self.counts = {"full": 0, "partial": 0, "grown": 0, "gram": 0, "single": 0}
        self.gram_steps = 0

    def _partial_pays(self) -> bool:
        """'auto': is the partial route predicted cheaper than the Gram route? By the
        block's width (``PARTIAL_COST``), and by what the last partial step cost."""
        return PARTIAL_COST * (self.hint + 1 + BLOCK_OVERSAMPLES) <= self.side and not self.skip

    def _gram_cost(self) -> float:
        """The Gram route in products of ``M`` with a vector (``2 n d`` flops each): the
        ``syrk`` (``side^2 long`` flops) and the tridiagonal reduction (``4/3 side^3``
        flops, half of them at the speed of matrix-vector products, so counted thrice)."""
        return 0.5 * self.side * (1.0 + 4.0 * self.side / self.long)

    def _dearer(self, tally: float) -> float:
        """How many times the Gram route's cost a partial step of ``tally`` products of
        ``M`` with a vector cost, each flop weighed ``THIN_PRODUCT_COST`` times a flop of
        the Gram route."""
        return THIN_PRODUCT_COST * tally / self._gram_cost()

    def _partial(self, M: np.ndarray, tau: float) -> _LowRank | None:
        tally = [0]
        low = self._grown(M, tau, tally)
        dearer = self._dearer(tally[0])
        if low is None:  # given up: the Gram step that follows is part of its cost
            dearer += 1.0
        # 'auto' waits in proportion, so that retries cost a few Gram steps ('partial'
        # always tries this route, and keeps the warm start of a Gram fallback)
        if dearer > 1.0 and self.solver == "auto":
            self.skip, self.wait = int(np.ceil(self.wait * dearer)), 2 * self.wait
        return low

    def _grown(self, M: np.ndarray, tau: float, tally: list) -> _LowRank | None:
        k, init = self.hint, self.init
        give_up = None
        if self.solver == "auto":  # once dearer than the Gram route, take it instead

            def give_up():
                return self._dearer(tally[0]) > 1.0

        while k + 1 + BLOCK_OVERSAMPLES < self.side:
            low, Vt = _block_svt(
                M, tau, k, init, self.rng, rtol=self.rtol, tally=tally, give_up=give_up
            )
            if not isinstance(low, str):
                self.init = Vt
                return low
            self.counts["grown"] += 1
            if self.solver == "auto":  # the Gram route, whose spectrum sets the next hint
                break
            k, init = k + max(1, round(0.05 * self.side)), Vt
        return None

    def _gram(self, M: np.ndarray, tau: float) -> _LowRank:
        """The Gram route, its Gram matrix in single precision off the last step's
        vectors where :data:`SINGLE_GRAM_MIN_SIDE` and :data:`SINGLE_GRAM_RANK_FRACTION`
        allow, kept where :data:`SINGLE_GRAM_RATIO` holds."""
        basis = self.basis
        if self.single_skip:
            self.single_skip -= 1
        elif (
            basis is not None
            and 0 < basis.shape[1] <= SINGLE_GRAM_RANK_FRACTION * self.side
            and self.side >= SINGLE_GRAM_MIN_SIDE
        ):
            G, r2 = single_precision_gram(M, basis)
            low = _gram_step(M, tau, self.rank, G=G, below=self._below(tau))
            sigma1 = tau + (low.s[0] if low.s.size else 0.0)
            if r2 <= SINGLE_GRAM_RATIO * tau * sigma1:
                self.counts["single"] += 1
                return low
            self.single_skip, self.single_wait = self.single_wait, 2 * self.single_wait
        return _gram_step(M, tau, self.rank, below=self._below(tau))

    def _below(self, tau: float) -> float | None:
        """The next threshold if it falls as the last did (:data:`SINGLE_GRAM_EXTRA`);
        None where no single-precision Gram matrix follows."""
        if not (self.single and self.side >= SINGLE_GRAM_MIN_SIDE):
            return None
        last = self.tau if self.tau is not None else tau
        return tau * min(1.0, tau / last) if last > 0 else tau

    def __call__(self, M: np.ndarray, tau: float) -> _LowRank:
        low = None
        if self.solver == "full":
            f = svt_factors(M, tau, solver="full")
            low = _LowRank("factors", f.s, f.U, f.Vt, None, "full")
        elif self.solver == "partial" or (self.gram_steps and self._partial_pays()):
            low = self._partial(M, tau)
        elif self.skip:  # retried once the Gram route has been taken for a few steps
            self.skip -= 1
        if low is None:
            self.init = None
            low = self._gram(M, tau)
            self.gram_steps += 1
        if self.single:
            self.basis = low.U if self.wide else (None if low.Vt is None else low.Vt.T)
            if self.basis is not None and low.extra is not None and low.extra.shape[1]:
                self.basis = np.hstack([self.basis, low.extra])
            self.tau = tau
        svp = self.rank = low.s.size
        grow = 1 if svp < self.hint else max(1, round(0.05 * self.side))
        self.hint = max(1, min(svp + grow, self.side))
        self.counts[low.method] += 1
        if low.method == "gram" and low.Vt is not None and self._partial_pays():
            self.init = low.Vt[: self.hint + BLOCK_OVERSAMPLES].copy()
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
    H = f.Vt @ f.Vt.T
    with single_blas_thread(SMALL_FACTORIZATIONS_ONE_THREAD):  # r x r
        try:
            lam, E = sla.eigh(H, check_finite=False, overwrite_a=True)
        except np.linalg.LinAlgError:  # syevr on H = I + rounding: a tight cluster
            lam, E = sla.eigh(f.Vt @ f.Vt.T, check_finite=False, driver="evd")
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
        return cast(np.ndarray, low.Vt)[:m]
    if low.kind == "factors":
        f = SVDFactors(cast(np.ndarray, low.U), low.s, cast(np.ndarray, low.Vt), low.method)
        return _exact_right_factors(f, overwrite=overwrite)[1][:m]
    U = cast(np.ndarray, low.U)[:, :m]  # 'columns': U only
    Vt = np.empty((m, data.shape[1]))
    buffer = np.empty((data.shape[0], data.columns[0].stop))
    for cols in data.columns:
        Vt[:, cols] = U.T @ z_columns(cols, buffer[:, : cols.stop - cols.start])
    Vt /= low.s[:m, None]
    return _exact_right_factors(SVDFactors(U, low.s[:m], Vt, "gram"), overwrite=True)[1]
