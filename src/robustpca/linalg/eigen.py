r"""Top-k eigenpairs and orthonormal bases: the eigen-solvers of every route.

:func:`top_eigh` takes the top eigenpairs of a symmetric matrix (LAPACK's ``syevr``, or
the tridiagonal route for small float64 matrices); :class:`WarmStartEigh` solves a
sequence of slowly changing eigenproblems from the previous Ritz vectors. The
eigenproblems of successive reweighting iterations change little; from ``n =
WARM_START_MIN`` on, :class:`WarmStartEigh` reuses the previous Ritz vectors (block-Krylov
Rayleigh-Ritz steps, checked against the eigen-residual, LAPACK as the fallback); below
that LAPACK's ``syevr`` is faster (measurements at :data:`WARM_START_MIN`).
"""

from __future__ import annotations

import contextlib
import functools
from typing import TYPE_CHECKING

import numpy as np
from scipy import linalg as sla
from scipy.linalg import lapack
from threadpoolctl import ThreadpoolController

if TYPE_CHECKING:
    from scipy.sparse.linalg import LinearOperator

__all__ = [
    "WarmStartEigh",
    "cholesky_qr",
    "complete_orthonormal",
    "eigh_index_range",
    "flip_component_signs",
    "positive_eigen_mask",
    "single_blas_thread",
    "svd_right",
    "top_eigh",
    "top_eigh_tridiagonal",
]

#: Eigenvalues below this fraction of the largest are treated as zero.
RANK_RTOL = 1e-12

#: Eigenproblems of at least this size, in a sequence of slowly changing matrices (the
#: reweighting iterations), start from the previous Ritz vectors (:class:`WarmStartEigh`).
#: Below it the exact solver is cheaper than the several block-Krylov steps a warm start
#: needs (``docs/design-notes/linear-algebra.md``).
WARM_START_MIN = 1000

#: Largest float64 matrix whose top eigenpairs :func:`top_eigh` takes by the tridiagonal
#: route (:func:`top_eigh_tridiagonal`): faster than ``syevr`` for a few hundred rows,
#: no faster beyond, and ``dstemr`` allocates an ``n x n`` output.
TRIDIAGONAL_MAX = 600

#: Tolerance of the checks of the tridiagonal route (orthonormality of the eigenvectors of
#: ``T``, and their residual relative to the largest entry of ``T``).
TRIDIAGONAL_RTOL = 1e-10

#: Extra Ritz vectors carried along (the block is k + WARM_EXTRA wide).
WARM_EXTRA = 10

#: Block-Krylov steps tried before falling back to the exact solver.
WARM_MAX_STEPS = 6

#: A warm-started eigenpair is accepted when ||A v - lambda v|| <= WARM_RTOL * lambda_1.
WARM_RTOL = 1e-10

#: Lanczos steps, from a random start, of the check that no eigenvalue above the accepted
#: ones lies outside the warm block (:func:`deflated_top`).
WARM_CHECK_STEPS = 12


_GEMM = sla.blas.get_blas_funcs("gemm", dtype=np.float64)


#: The tridiagonal route (at most TRIDIAGONAL_MAX rows) runs on one BLAS thread: OpenBLAS's
#: threads make its blocked reduction slower at these sizes.
TRIDIAGONAL_ONE_THREAD = True


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    return ThreadpoolController()


def single_blas_thread(active: bool = True):
    """Context that limits BLAS to one thread.

    Parameters
    ----------
    active : bool, default=True
        Whether to limit; False returns a no-op context.

    Returns
    -------
    context manager
    """
    if not active:
        return contextlib.nullcontext()
    return _threadpool_controller().limit(limits=1, user_api="blas")


def cholesky_qr(U: np.ndarray) -> np.ndarray:
    """Orthonormalise the columns of a nearly orthonormal ``U`` (one Cholesky-QR step).

    Costs ``O(d k^2)`` with a ``k x k`` factorisation; falls back to Householder QR if the
    Gram matrix of ``U`` is not numerically positive definite.

    Parameters
    ----------
    U : ndarray of shape (d, k)
        Columns to orthonormalise (not modified).

    Returns
    -------
    ndarray of shape (d, k)
        Orthonormal columns spanning the columns of ``U``.

    Notes
    -----
    Every call is NumPy's, none SciPy's: its callers are the Gram routes, whose products
    are NumPy's ("One BLAS library per loop" in :mod:`robustpca.linalg.blocked`). SciPy's
    triangular solve here left SciPy's OpenBLAS threads spinning against NumPy's next
    products, which slowed the fits at two BLAS threads
    (``benchmarks/bench_blas_threads.py``; ``docs/design-notes/linear-algebra.md``).
    """
    try:
        L = np.linalg.cholesky(U.T @ U)
    except np.linalg.LinAlgError:
        Q, R = np.linalg.qr(U)
        return Q * np.where(np.diag(R) < 0, -1.0, 1.0)[None, :]
    # U L^{-T}: the inverse of the k x k factor, then one d x k x k product
    return U @ np.linalg.solve(L, np.eye(L.shape[0])).T


def eigh_index_range(
    A: np.ndarray, first: int, last: int, *, eigvals_only: bool = False, lower: bool = True
):
    """Eigenvalues ``first..last`` (ascending, 0-based, inclusive) of a symmetric matrix,
    with their eigenvectors unless ``eigvals_only``, as SciPy's ``eigh`` returns them.

    LAPACK's ``syevr`` for the index range; where it fails, the full ``syevd``. On a
    tight cluster (the eigenvalues equal to rounding) ``syevr``'s subset stage can
    raise ``LinAlgError`` (eigenvectors failed to converge) or return fewer eigenpairs
    than asked; the cases found are in ``docs/design-notes/linear-algebra.md``.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric matrix (only the triangle named by ``lower`` is read).
    first, last : int
        0-based indices of the first and last eigenvalue wanted, in ascending order.
    eigvals_only : bool, default=False
        Whether to return the eigenvalues alone.
    lower : bool, default=True
        Whether the lower triangle of ``A`` holds the matrix (else the upper).

    Returns
    -------
    vals : ndarray of shape (last - first + 1,)
        Ascending eigenvalues.
    vecs : ndarray of shape (n, last - first + 1)
        Their eigenvectors; not returned with ``eigvals_only``.
    """
    count = last - first + 1
    try:
        found = sla.eigh(
            A,
            lower=lower,
            eigvals_only=eigvals_only,
            subset_by_index=[first, last],
            driver="evr",
            check_finite=False,
        )
    except np.linalg.LinAlgError:
        found = None
    if found is not None and (found if eigvals_only else found[0]).size == count:
        return found
    full = sla.eigh(A, lower=lower, eigvals_only=eigvals_only, driver="evd", check_finite=False)
    if eigvals_only:
        return full[first : last + 1]
    return full[0][first : last + 1], full[1][:, first : last + 1]


def top_eigh(A: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` eigenpairs of a symmetric matrix, in decreasing order.

    When ``k`` is small relative to the size: the tridiagonal route
    (:func:`top_eigh_tridiagonal`) for float64 matrices of at most
    :data:`TRIDIAGONAL_MAX` rows, else (or when its checks fail) LAPACK's ``syevr`` for
    the subset (:func:`eigh_index_range`). When most of the spectrum is wanted, the full
    ``syevd`` (faster then).

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric matrix.
    k : int
        Number of eigenpairs, capped at ``n``.

    Returns
    -------
    vals : ndarray of shape (min(k, n),)
        Decreasing eigenvalues.
    vecs : ndarray of shape (n, min(k, n))
        Their eigenvectors.
    """
    n = A.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.empty(0, dtype=A.dtype), np.empty((n, 0), dtype=A.dtype)
    if 4 * k < n:
        if A.dtype == np.float64 and n <= TRIDIAGONAL_MAX:
            with single_blas_thread(TRIDIAGONAL_ONE_THREAD):
                found = top_eigh_tridiagonal(A, k)
            if found is not None:
                return found
        vals, vecs = eigh_index_range(A, n - k, n - 1)
    else:
        vals, vecs = sla.eigh(A, driver="evd", check_finite=False)
        vals, vecs = vals[n - k :], vecs[:, n - k :]
    return vals[::-1], vecs[:, ::-1]


@functools.cache
def _sytrd_lwork(n: int) -> int:
    return max(int(lapack.dsytrd_lwork(n, lower=1)[0]), n)


def top_eigh_tridiagonal(A: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Top-``k`` eigenpairs of a symmetric float64 ``A`` (decreasing), via its tridiagonal form.

    The three stages of LAPACK's ``syevr`` with a faster middle one for a subset:
    Householder reduction ``A = Q T Q^T`` (blocked ``dsytrd``), the top ``k`` eigenpairs
    of ``T`` by MRRR on the index range (``dstemr``, where ``syevr`` uses bisection and
    inverse iteration, ``dstebz`` + ``dstein``, for any proper subset), and ``Q Z`` as the
    product of the reflectors (``dormqr`` on the reflectors shifted into QR storage, as
    ``dorgtr`` does for ``uplo='L'``). The reduction costs the same as in ``syevr``;
    MRRR is the cheaper middle stage, which makes the route faster than ``syevr`` for
    a few hundred rows (:data:`TRIDIAGONAL_MAX`).

    LAPACK calls MRRR in ``syevr`` only for the whole spectrum, so the result is checked:
    ``info == 0``, ``k`` pairs found, ``|Z^T Z - I| <= TRIDIAGONAL_RTOL`` and
    ``|T Z - Z diag(w)| <= TRIDIAGONAL_RTOL * |T|`` (entrywise maxima, ``O(n k^2)``).

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric float64 matrix (lower triangle read).
    k : int
        Number of eigenpairs, ``1 <= k <= n``.

    Returns
    -------
    tuple of (ndarray of shape (k,), ndarray of shape (n, k)) or None
        Decreasing eigenvalues and their eigenvectors, or None when a check fails,
        ``n < 2`` or ``k`` is out of range (:func:`top_eigh` then calls ``syevr``).
    """
    n = A.shape[0]
    if n < 2 or not 1 <= k <= n:
        return None
    c, d, e, tau, info = lapack.dsytrd(A, lower=1, lwork=_sytrd_lwork(n))
    if info != 0:
        return None
    e_work = np.zeros(n)  # dstemr's off-diagonal has n entries and is overwritten
    e_work[:-1] = e
    m, w, z, info = lapack.dstemr(d.copy(), e_work, 3, 0.0, 0.0, n - k + 1, n, compute_v=1)
    if info != 0 or m != k:
        return None
    vals, Z = w[:k], z[:, :k]
    TZ = d[:, None] * Z
    TZ[:-1] += e[:, None] * Z[1:]
    TZ[1:] += e[:, None] * Z[:-1]
    TZ -= Z * vals[None, :]
    norm_t = max(float(np.abs(d).max()), float(np.abs(e).max()), np.finfo(float).tiny)
    gram = _GEMM(1.0, Z, Z, trans_a=1)  # Z^T Z through SciPy's BLAS (linalg.blocked)
    gram[np.diag_indices(k)] -= 1.0
    if not (
        float(np.abs(TZ).max()) <= TRIDIAGONAL_RTOL * norm_t
        and float(np.abs(gram).max()) <= TRIDIAGONAL_RTOL
    ):
        return None
    reflectors = np.asfortranarray(c[1:, : n - 1])  # Q = diag(1, Q'), Q' in QR storage
    rows = np.asfortranarray(Z[1:])
    _, work, info = lapack.dormqr(b"L", b"N", reflectors, tau, rows, -1)
    if info != 0:
        return None
    QZ, _, info = lapack.dormqr(b"L", b"N", reflectors, tau, rows, int(work[0]), overwrite_c=1)
    if info != 0:
        return None
    vecs = np.empty((n, k))
    vecs[0] = Z[0, ::-1]
    vecs[1:] = QZ[:, ::-1]
    return vals[::-1].copy(), vecs


def _krylov_ritz(A: np.ndarray, V: np.ndarray, k: int, max_steps: int, rtol: float):
    """Rayleigh-Ritz on ``span[V, AV]``, repeated until the top ``k`` pairs converge.

    Returns ``(values, vectors, block, A @ block)`` (``block``: the ``len(V.T)`` leading
    Ritz vectors, the next start) or ``None`` when ``max_steps`` steps do not reach ``rtol``,
    or as soon as the residual, shrinking at the rate of the last step, would not reach
    it within them: a hopeless start costs 2 steps, not ``max_steps``.
    """
    m = V.shape[1]
    previous = None
    for step in range(1, max_steps + 1):
        Q, _ = np.linalg.qr(np.hstack([V, A @ V]))
        AQ = A @ Q
        H = Q.T @ AQ
        w, S = np.linalg.eigh(0.5 * (H + H.T))
        w, S = w[::-1], S[:, ::-1]
        V = Q @ S[:, :m]
        residual = AQ @ S[:, :k] - V[:, :k] * w[:k]
        size, target = np.linalg.norm(residual, axis=0).max(), rtol * abs(w[0])
        if size <= target:
            return w[:k], V[:, :k], V, AQ @ S[:, :m]
        if previous is not None and size * (size / previous) ** (max_steps - step) > target:
            return None
        previous = size
    return None


def deflated_top(
    A: np.ndarray | LinearOperator, V: np.ndarray, steps: int, rng: np.random.Generator
) -> float:
    """A lower bound on the largest eigenvalue of symmetric ``A`` on the orthogonal
    complement of the orthonormal columns ``V``: the top Ritz value of ``steps`` Lanczos
    steps (fully reorthogonalised) from a random start, 0 where the complement is empty.

    A small eigen-residual proves that Ritz pairs are eigenpairs, not that they are the
    largest: a dominant direction outside the Krylov space of a warm start is never seen.
    Lanczos finds the extreme eigenvalue of the rest within a few steps, except from a
    start nearly orthogonal to it, which a random start makes improbable (Kuczynski &
    Wozniakowski 1992).

    Parameters
    ----------
    A : ndarray or scipy.sparse.linalg.LinearOperator of shape (n, n)
        The symmetric matrix, or an operator applying it (``A @ v``).
    V : ndarray of shape (n, m)
        Orthonormal columns, deflated.
    steps : int
        Lanczos steps (at most the complement's dimension).
    rng : numpy.random.Generator
        Draws the start.

    Returns
    -------
    float
    """
    n = A.shape[0]
    steps = min(steps, n - V.shape[1])
    if steps <= 0:
        return 0.0
    Q, AQ = np.zeros((n, steps)), np.zeros((n, steps))
    q = np.asarray(rng.standard_normal(n), dtype=np.float64)
    for j in range(steps):
        for _ in range(2):  # twice is enough (Giraud et al. 2005)
            q -= V @ (V.T @ q) + Q[:, :j] @ (Q[:, :j].T @ q)
        norm = np.linalg.norm(q)
        if not norm > 0:
            steps = j
            break
        Q[:, j] = q / norm
        AQ[:, j] = A @ Q[:, j]
        q = AQ[:, j].copy()
    if steps == 0:
        return 0.0
    H = Q[:, :steps].T @ AQ[:, :steps]
    return float(np.linalg.eigvalsh(0.5 * (H + H.T))[-1])


class WarmStartEigh:
    """Top-``k`` eigenpairs of a sequence of slowly changing symmetric matrices.

    The weighted matrices of successive reweighting iterations differ little, so their
    top subspaces do too: from the ``k + WARM_EXTRA`` Ritz vectors of the previous call,
    a few Rayleigh-Ritz steps on the block Krylov space ``[V, AV]`` reach the eigenpairs
    to ``||A v - lambda v|| <= WARM_RTOL * lambda_1``, at ``O(n^2 k)`` a step instead of
    the ``O(n^3)`` tridiagonal reduction of LAPACK. They are accepted once a Lanczos check
    outside the block (:func:`deflated_top`) finds no larger eigenvalue than the k-th.
    Matrices smaller than ``min_size``, the first call, any call whose
    :data:`WARM_MAX_STEPS` steps do not converge or that fails the check, and the call
    after such a failure use :func:`top_eigh`.

    Parameters
    ----------
    k : int
        Number of eigenpairs per call (capped at the matrix size).
    min_size : int or None, default=None
        Smallest matrix that is warm-started; None is :data:`WARM_START_MIN` (below it
        ``syevr`` is faster, see there).
    """

    def __init__(self, k: int, *, min_size: int | None = None):
        self.k = k
        self.min_size = WARM_START_MIN if min_size is None else min_size
        self._block: np.ndarray | None = None
        self._failed = False
        self._rng = np.random.default_rng(0)  # the check's starts: reproducible runs
        self.n_warm = 0
        self.n_exact = 0

    def __call__(self, A: np.ndarray, rows: np.ndarray | None = None):
        """Top-``k`` eigenpairs of ``A``, or of ``A[rows][:, rows]`` when the other rows
        and columns of ``A`` are zero (zero weights): the same nonzero eigenpairs from a
        smaller matrix, the vectors returned with zeros off ``rows``. The warm-start block
        is kept in ``A``'s coordinates, so ``rows`` may change between calls."""
        N = A.shape[0]
        if rows is not None:
            A = A[np.ix_(rows, rows)]
        n = A.shape[0]
        k = min(self.k, n)
        m = min(k + WARM_EXTRA, n)
        if n < self.min_size or 4 * m >= n:
            self.n_exact += 1
            vals, vecs = top_eigh(A, k)
            return vals, _pad_rows(vecs, rows, N)
        block = self._block
        warm = block is not None and block.shape == (N, m) and not self._failed
        if block is not None and warm:
            start = block if rows is None else block[rows]
            found = _krylov_ritz(A, start, k, WARM_MAX_STEPS, WARM_RTOL)
            if found is not None and not self._larger_outside(A, *found):
                vals, vecs, block, _ = found
                self._block = _pad_rows(block, rows, N)
                self.n_warm += 1
                return vals, _pad_rows(vecs, rows, N)
        # after a failed warm start the next call goes straight to LAPACK (bounded waste)
        self._failed = warm
        vals, vecs = top_eigh(A, m)
        self._block = _pad_rows(vecs, rows, N)
        self.n_exact += 1
        return vals[:k], self._block[:, :k]

    def _larger_outside(self, A, vals, vecs, block, A_block) -> bool:
        """Whether an eigenvalue above the k-th may lie outside ``block``: not where the
        Frobenius norm of ``A`` on the complement bounds them all below it (one pass over
        ``A``, :math:`\\lVert PAP\\rVert_F^2 = \\lVert A\\rVert_F^2 - 2\\lVert AV
        \\rVert_F^2 + \\lVert V^\\top AV\\rVert_F^2`), else as the Lanczos check finds."""
        least = vals[-1] + WARM_RTOL * abs(vals[0])
        total = float(np.einsum("ij,ij->", A, A))
        inner = block.T @ A_block
        rest = total - 2.0 * float(np.einsum("ij,ij->", A_block, A_block))
        rest += float(np.einsum("ij,ij->", inner, inner))
        if least > 0 and rest + WARM_RTOL * total < least * least:
            return False
        return deflated_top(A, block, WARM_CHECK_STEPS, self._rng) > least


def _pad_rows(V: np.ndarray, rows: np.ndarray | None, n: int) -> np.ndarray:
    """``V`` as the rows ``rows`` of an ``n``-row matrix that is zero elsewhere."""
    if rows is None:
        return V
    out = np.zeros((n, V.shape[1]))
    out[rows] = V
    return out


def complete_orthonormal(basis: np.ndarray, n_columns: int, rng: np.random.Generator) -> np.ndarray:
    """Extend a (d, r) matrix with orthonormal columns to (d, n_columns).

    Used when the data have fewer directions of variance than ``n_components``
    (for example a rank-deficient data set): the extra directions are arbitrary but
    orthonormal.

    Parameters
    ----------
    basis : ndarray of shape (d, r)
        Orthonormal columns, kept as the leading ones.
    n_columns : int
        Columns wanted; with ``r >= n_columns`` the first ``n_columns`` of ``basis``.
    rng : numpy.random.Generator
        Draws the extra directions, so that fits stay reproducible.

    Returns
    -------
    ndarray of shape (d, n_columns)
    """
    d, r = basis.shape
    if r >= n_columns:
        return basis[:, :n_columns]
    extra = rng.standard_normal((d, n_columns - r))
    for _ in range(2):  # twice is enough for numerical orthogonality
        extra -= basis @ (basis.T @ extra)
    q, _ = np.linalg.qr(extra)
    for _ in range(2):
        q -= basis @ (basis.T @ q)
        q, _ = np.linalg.qr(q)
    return np.hstack([basis, q])


#: :func:`svd_right` reduces matrices with at least this many rows per column to their
#: triangular factor first; the QR pays off from about this aspect ratio
#: (``docs/design-notes/linear-algebra.md``).
QR_FIRST_ROWS_PER_COLUMN = 1.5


def svd_right(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Singular values and right singular vectors ``(s, Vt)`` of ``A``, thin.

    For tall ``A`` by the SVD of the triangular factor ``R`` of ``A = QR``. LAPACK's
    ``gesdd``, which :func:`numpy.linalg.svd` calls, reduces a tall matrix by the same
    QR, then forms the left vectors ``U = Q U_R``: as dear again, for callers that
    discard them. The singular values are those of ``R``, equal to rounding, and the
    right vectors the same up to rounding and the signs of the columns
    (``tests/test_eigensolver_fallback.py``).

    Parameters
    ----------
    A : ndarray of shape (m, n)
        The matrix (not modified).

    Returns
    -------
    s : ndarray of shape (min(m, n),)
        Singular values, decreasing.
    Vt : ndarray of shape (min(m, n), n)
        Right singular vectors, as rows.
    """
    m, n = A.shape
    if n and m >= QR_FIRST_ROWS_PER_COLUMN * n:
        A = sla.qr(A, mode="r", check_finite=False)[0][:n]
    _, s, vt = np.linalg.svd(A, full_matrices=False)
    return s, vt


def flip_component_signs(components: np.ndarray) -> np.ndarray:
    """Make the largest-magnitude entry of every row positive (deterministic output).

    Parameters
    ----------
    components : ndarray of shape (n_components, n_features)
        Rows whose signs are fixed (not modified).

    Returns
    -------
    ndarray of shape (n_components, n_features)
    """
    idx = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), idx])
    signs[signs == 0] = 1.0
    return components * signs[:, None]


def positive_eigen_mask(vals: np.ndarray) -> np.ndarray:
    """Mask of eigenvalues that are numerically positive (relative to the largest).

    Parameters
    ----------
    vals : ndarray of shape (k,)
        Eigenvalues; those above :data:`RANK_RTOL` times the largest (and above 0) pass.

    Returns
    -------
    ndarray of bool, shape (k,)
    """
    top = max(vals.max(initial=0.0), 0.0)
    return (vals > RANK_RTOL * top) & (vals > 0)
