r"""Linear-algebra kernels: top-k eigenpairs and the weighted-PCA subproblem.

The workhorse is :class:`WeightedPCAProblem`, the step-1/2 subproblem of RPCA-OM
(Nie et al. 2014, problem 14) and of weighted PCA:

.. math::
    \min_{b,\; U^\top U = I} \sum_i d_i \lVert (I - UU^\top)(x_i - b) \rVert_2^2
    \;\Rightarrow\; b = \frac{X^\top d}{1^\top d},\quad
    U = \text{top-}k \text{ eigenvectors of } \sum_i d_i (x_i - b)(x_i - b)^\top .

It picks one of two routes once, at construction:

* **Gram route** (``n_samples < n_features``, e.g. faces): the centred Gram matrix
  :math:`G = X_0 X_0^\top` is formed once (``O(n^2 d)``). For weights :math:`d`, with
  :math:`c = d / 1^\top d`, the weighted-centred Gram is
  :math:`G_c = G - Gc1^\top - 1c^\top G + (c^\top G c) 11^\top` and the eigenvectors
  :math:`V` of :math:`D^{1/2} G_c D^{1/2}` give :math:`U = X_c^\top D^{1/2} V
  \Lambda^{-1/2}`, the SVD route that Nie et al. suggest for :math:`d > n`. Residual
  norms come from :math:`G_c` alone, so an iteration costs ``O(n^2 k)`` plus a partial
  ``n x n`` eigendecomposition, independent of ``n_features``. No ``n x n`` diagonal or
  centring matrix is ever formed: :math:`D^{1/2}` is applied by broadcasting.
* **Scatter route** (``n_samples >= n_features``): the ``d x d`` weighted scatter about
  the new weighted mean and its top eigenvectors. One pass over the data forms it (BLAS
  ``syrk``) about the previous mean together with the shift to the new one (an exact
  rank-one correction, small because the means move little); a second pass forms the
  residuals :math:`\lVert (I - UU^\top)(x_i - b)\rVert` explicitly.

In both routes the data are centred by their arithmetic mean (a translation that
leaves every solution unchanged but keeps the Gram matrix well conditioned). The data are
never copied: every pass over them visits blocks of rows (or columns) of about
:data:`BLOCK_BYTES`, widened to float64 in a reused buffer, so float32 input keeps its
footprint and every reduction is accumulated in float64, and no ``n x d`` temporary is
allocated per iteration.

The eigenproblems of successive iterations change little; from ``n = WARM_START_MIN``
on, :class:`WarmStartEigh` reuses the previous Ritz vectors (block-Krylov Rayleigh-Ritz
steps, checked against the eigen-residual, LAPACK as the fallback); below that LAPACK's
``syevr`` is faster (measurements at :data:`WARM_START_MIN`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools

import numpy as np
from scipy import linalg as sla
from scipy.linalg import lapack
from threadpoolctl import ThreadpoolController

__all__ = [
    "GramStep",
    "WarmStartEigh",
    "WeightedPCAProblem",
    "WeightedSubspace",
    "centred_gram",
    "cholesky_qr",
    "complete_orthonormal",
    "flip_component_signs",
    "gram_basis",
    "gram_step",
    "positive_eigen_mask",
    "raw_centred_gram",
    "row_sq_distances",
    "single_blas_thread",
    "subspace_sq_residuals",
    "top_eigh",
    "top_eigh_tridiagonal",
    "weighted_row_sum",
]

#: Eigenvalues below this fraction of the largest are treated as zero.
RANK_RTOL = 1e-12
#: Gram-route residuals below this fraction of ||x_i - b||^2 are recomputed exactly.
SUSPICIOUS_RTOL = 1e-6
#: ... and so are all of them when one weight exceeds this multiple of the median weight.
EXTREME_WEIGHT_RATIO = 1e4
#: Gram-route iterations on at most this many samples run on one BLAS thread: on small
#: matrices thread start-up costs more than it saves (2.6x slower eigh at n = 400 on two
#: cores, measured in benchmarks/).
SMALL_GRAM = 1000
#: Size of one block of rows (or columns) in the passes over the data: small enough to
#: stay in cache and keep the float64 scratch small (256 KiB to 4 MiB blocks measured
#: within noise of each other on 200,000 x 256 data).
BLOCK_BYTES = 1 << 20
#: Fewest rows (or columns) in a block of the passes that update the whole d x d scatter
#: (or n x n Gram matrix) per block: thinner blocks would make that update the cost.
MIN_BLOCK = 256
#: Eigenproblems of at least this size, in a sequence of slowly changing matrices (the
#: reweighting iterations), start from the previous Ritz vectors (:class:`WarmStartEigh`).
#: Measured with one BLAS thread on RPCA-OM's matrices: at n = 400 (ORL faces, k = 30,
#: lambda_31 / lambda_30 = 0.98) LAPACK's ``syevr`` takes 9 ms and a block-Krylov step 4 ms,
#: with 2 to 8 steps needed, so the exact solver wins; at n = 2000 (k = 20) ``syevr``
#: takes 740 ms and the warm start 270 ms (4 steps to the tolerance).
WARM_START_MIN = 1000
#: Largest ratio of the total squared norm of the rows to that of the centred rows for
#: which the Gram matrix is formed from the raw data and centred afterwards
#: (:func:`raw_centred_gram`): the rounding error relative to the centred entries grows by
#: about this factor.
RAW_GRAM_MAX_GAIN = 16.0
#: Largest float64 matrix whose top eigenpairs :func:`top_eigh` takes by the tridiagonal
#: route (:func:`top_eigh_tridiagonal`): 13-25% faster than ``syevr`` at n = 100-400
#: (one BLAS thread), no faster at n = 1000, and ``dstemr`` allocates an ``n x n`` output.
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


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    return ThreadpoolController()


def single_blas_thread(active: bool = True):
    """Context that limits BLAS to one thread (a no-op when ``active`` is False)."""
    if not active:
        return contextlib.nullcontext()
    return _threadpool_controller().limit(limits=1, user_api="blas")


def gram_basis(X0: np.ndarray, offset_coef: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """``(X0 - 1 m^T)^T coef`` with ``m = X0^T offset_coef``, without the n x d copy."""
    m = X0.T @ offset_coef
    return X0.T @ coef - np.outer(m, coef.sum(axis=0))


def cholesky_qr(U: np.ndarray) -> np.ndarray:
    """Orthonormalise the columns of a nearly orthonormal ``U`` (one Cholesky-QR step).

    Costs ``O(d k^2)`` with a ``k x k`` factorisation; falls back to Householder QR if the
    Gram matrix of ``U`` is not numerically positive definite.
    """
    try:
        L = sla.cholesky(U.T @ U, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        Q, R = np.linalg.qr(U)
        return Q * np.where(np.diag(R) < 0, -1.0, 1.0)[None, :]
    return sla.solve_triangular(L, U.T, lower=True, check_finite=False).T


def top_eigh(A: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` eigenpairs of a symmetric matrix, in decreasing order (``k`` capped at n).

    When ``k`` is small relative to the size: the tridiagonal route
    (:func:`top_eigh_tridiagonal`) for float64 matrices of at most
    :data:`TRIDIAGONAL_MAX` rows, else (or when its checks fail) LAPACK's ``syevr`` for
    the subset. When most of the spectrum is wanted, the full ``syevd`` (faster then).
    """
    n = A.shape[0]
    k = min(k, n)
    if 4 * k < n:
        if A.dtype == np.float64 and n <= TRIDIAGONAL_MAX:
            found = top_eigh_tridiagonal(A, k)
            if found is not None:
                return found
        vals, vecs = sla.eigh(A, subset_by_index=[n - k, n - 1], driver="evr", check_finite=False)
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
    ``dorgtr`` does for ``uplo='L'``). On RPCA-OM's 400 x 400 weighted Gram matrices of the
    ORL faces (``k = 30``, one BLAS thread): 8.4 ms against 9.7 ms for ``syevr``; the
    reduction is 4.2 ms of both, MRRR 3 ms against 4.4 ms.

    LAPACK calls MRRR in ``syevr`` only for the whole spectrum, so the result is checked:
    ``info == 0``, ``k`` pairs found, ``|Z^T Z - I| <= TRIDIAGONAL_RTOL`` and
    ``|T Z - Z diag(w)| <= TRIDIAGONAL_RTOL * |T|`` (entrywise maxima, ``O(n k^2)``).
    Returns ``None`` when a check fails (:func:`top_eigh` then calls ``syevr``).
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
    gram = Z.T @ Z
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

    Returns ``(values, vectors, block)`` (``block``: the ``len(V.T)`` leading Ritz
    vectors, the next start) or ``None`` when ``max_steps`` steps do not reach ``rtol``,
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
            return w[:k], V[:, :k], V
        if previous is not None and size * (size / previous) ** (max_steps - step) > target:
            return None
        previous = size
    return None


class WarmStartEigh:
    """Top-``k`` eigenpairs of a sequence of slowly changing symmetric matrices.

    The weighted matrices of successive reweighting iterations differ little, so their
    top subspaces do too: from the ``k + WARM_EXTRA`` Ritz vectors of the previous call,
    a few Rayleigh-Ritz steps on the block Krylov space ``[V, AV]`` reach the eigenpairs
    to ``||A v - lambda v|| <= WARM_RTOL * lambda_1``, at ``O(n^2 k)`` a step instead of
    the ``O(n^3)`` tridiagonal reduction of LAPACK. Matrices smaller than
    :data:`WARM_START_MIN` (where ``syevr`` is faster, see there), the first call, any
    call whose :data:`WARM_MAX_STEPS` steps do not converge, and the call after such a
    failure use :func:`top_eigh`.
    """

    def __init__(self, k: int, *, min_size: int | None = None):
        self.k = k
        self.min_size = WARM_START_MIN if min_size is None else min_size
        self._block = None
        self._failed = False
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
        warm = self._block is not None and self._block.shape == (N, m) and not self._failed
        if warm:
            start = self._block if rows is None else self._block[rows]
            found = _krylov_ritz(A, start, k, WARM_MAX_STEPS, WARM_RTOL)
            if found is not None:
                vals, vecs, block = found
                self._block = _pad_rows(block, rows, N)
                self.n_warm += 1
                return vals, _pad_rows(vecs, rows, N)
        # after a failed warm start the next call goes straight to LAPACK (bounded waste)
        self._failed = warm
        vals, vecs = top_eigh(A, m)
        self._block = _pad_rows(vecs, rows, N)
        self.n_exact += 1
        return vals[:k], self._block[:, :k]


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
    orthonormal, and drawn from ``rng`` so that fits stay reproducible.
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


def flip_component_signs(components: np.ndarray) -> np.ndarray:
    """Make the largest-magnitude entry of every row positive (deterministic output)."""
    idx = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), idx])
    signs[signs == 0] = 1.0
    return components * signs[:, None]


class _Workspace:
    """A float64 scratch buffer reused by the blocked passes (no per-pass allocation)."""

    def __init__(self) -> None:
        self._data = np.empty(0)

    def get(self, rows: int, cols: int) -> np.ndarray:
        size = rows * cols
        if self._data.size < size:
            self._data = np.empty(size)
        return self._data[:size].reshape(rows, cols)


def _block_length(other: int, minimum: int) -> int:
    """Rows (or columns) per block so that a float64 block holds about BLOCK_BYTES."""
    return max(minimum, BLOCK_BYTES // (8 * max(int(other), 1)))


def _row_slices(n: int, d: int, minimum: int = 16):
    step = _block_length(d, minimum)
    return [slice(s, min(s + step, n)) for s in range(0, n, step)]


def _col_slices(n: int, d: int, minimum: int = 16):
    step = _block_length(n, minimum)
    return [slice(s, min(s + step, d)) for s in range(0, d, step)]


def _centred_rows(X, rows: slice, point: np.ndarray, work: _Workspace) -> np.ndarray:
    """``X[rows] - point`` in float64, written into the workspace (float32 X is widened)."""
    B = work.get(rows.stop - rows.start, X.shape[1])
    np.subtract(X[rows], point, out=B)
    return B


def _centred_cols(X, cols: slice, point: np.ndarray, work: _Workspace) -> np.ndarray:
    """``X[:, cols] - point[cols]`` in float64 (C-contiguous), in the workspace."""
    B = work.get(X.shape[0], cols.stop - cols.start)
    np.subtract(X[:, cols], point[cols], out=B)
    return B


def _syrk_upper(acc: np.ndarray, a: np.ndarray, trans: int) -> np.ndarray:
    """``acc += a a^T`` (``trans=0``) or ``a^T a`` (``trans=1``), upper triangle only.

    ``acc`` is F-ordered and ``a`` F-contiguous (the transpose of a C-ordered block), so
    BLAS ``syrk`` works in place, with half the flops of a general product.
    """
    syrk = sla.blas.get_blas_funcs("syrk", (a,))
    return syrk(1.0, a, beta=1.0, c=acc, trans=trans, lower=0, overwrite_c=1)


def _symmetric_from_upper(A: np.ndarray) -> np.ndarray:
    upper = np.triu(A)
    return upper + np.triu(A, 1).T


def weighted_row_sum(X, w: np.ndarray, point: np.ndarray | None = None, work=None) -> np.ndarray:
    """``sum_i w_i (x_i - point)`` in float64, by blocks of rows (no ``n x d`` temporary)."""
    n, d = X.shape
    if point is None and X.dtype == np.float64:
        return w @ X
    point = np.zeros(d) if point is None else point
    work = _Workspace() if work is None else work
    total = np.zeros(d)
    for rows in _row_slices(n, d):
        total += w[rows] @ _centred_rows(X, rows, point, work)
    return total


def row_sq_distances(X, point: np.ndarray, work: _Workspace | None = None) -> np.ndarray:
    """``||x_i - point||^2`` for every row, in float64, by blocks of rows."""
    n, d = X.shape
    work = _Workspace() if work is None else work
    out = np.empty(n)
    for rows in _row_slices(n, d):
        B = _centred_rows(X, rows, point, work)
        out[rows] = np.einsum("ij,ij->i", B, B)
    return out


def subspace_sq_residuals(X, point: np.ndarray, U: np.ndarray, work=None) -> np.ndarray:
    """``||(I - UU^T)(x_i - point)||^2`` formed explicitly (no cancellation), by row blocks."""
    n, d = X.shape
    work = _Workspace() if work is None else work
    r2 = np.empty(n)
    for rows in _row_slices(n, d):
        B = _centred_rows(X, rows, point, work)
        B -= (B @ U) @ U.T
        r2[rows] = np.einsum("ij,ij->i", B, B)
    return r2


def _dense_float64(X) -> bool:
    """Whether BLAS can read ``X`` as it is (float64, one contiguous buffer)."""
    return (
        isinstance(X, np.ndarray)
        and X.dtype == np.float64
        and (X.flags.c_contiguous or X.flags.f_contiguous)
    )


def raw_centred_gram(X: np.ndarray, center: np.ndarray) -> np.ndarray | None:
    r"""``(X - 1 c^T)(X - 1 c^T)^T`` from the raw Gram matrix, or ``None`` if inaccurate.

    One ``syrk`` on ``X`` as it is, then the exact rank-two centring
    :math:`G - g1^\top - 1g^\top + (c^\top c) 11^\top` with :math:`g = Xc`. Rounding in
    the raw products is relative to :math:`\lVert x_i\rVert^2` instead of
    :math:`\lVert x_i - c\rVert^2`, so the result is returned only when the ratio of the
    two traces is at most :data:`RAW_GRAM_MAX_GAIN` (at most about one digit lost: 5.4 on
    the ORL faces); data far from the origin relative to their spread get ``None`` and
    the blocked, explicitly centred :func:`centred_gram`. Saves that route's copies of
    the centred blocks (``n x d`` float64 written once: 10 of 50 ms on the ORL faces).
    """
    G = X @ X.T  # numpy calls syrk for a product with its own transpose
    raw_trace = float(np.trace(G))
    g = X @ center
    G -= g[:, None]
    G -= g[None, :]
    G += float(center @ center)
    centred_trace = float(np.trace(G))
    if not raw_trace <= RAW_GRAM_MAX_GAIN * centred_trace:
        return None
    return G


def centred_gram(X, center: np.ndarray, work: _Workspace | None = None) -> np.ndarray:
    """The float64 Gram matrix ``(X - 1 c^T)(X - 1 c^T)^T``, by blocks of columns.

    Dense float64 data go through :func:`raw_centred_gram` first.
    """
    if _dense_float64(X):
        G = raw_centred_gram(X, center)
        if G is not None:
            return G
    return _blocked_centred_gram(X, center, work)


def _blocked_centred_gram(X, center: np.ndarray, work: _Workspace | None = None) -> np.ndarray:
    n, d = X.shape
    work = _Workspace() if work is None else work
    G = np.zeros((n, n), order="F")
    for cols in _col_slices(n, d, MIN_BLOCK):
        B = _centred_cols(X, cols, center, work)
        G = _syrk_upper(G, B.T, trans=1)  # += B B^T
    return np.ascontiguousarray(_symmetric_from_upper(G))


@dataclasses.dataclass(frozen=True)
class GramStep:
    """One Gram-route solve of problem (14): see :func:`gram_step`."""

    c: np.ndarray  # offset coefficient: b = center + X0^T c (zeros without a mean)
    eigvals: np.ndarray
    coef: np.ndarray  # U = X_c^T coef (before orthonormalisation)
    sq: np.ndarray  # ||x_i - b||^2
    r2: np.ndarray  # ||(I - UU^T)(x_i - b)||^2 as a difference of squares
    suspicious: bool  # whether r2 must be formed explicitly instead


def gram_step(G, w, eigh, with_mean: bool, Gcc_out=None, K_out=None) -> GramStep:
    r"""The Gram-route step of problem (14) of Nie et al. (2014) on a centred Gram matrix.

    With :math:`c = d / 1^\top d` (or :math:`c = 0` without a mean),
    :math:`G_c = G - Gc1^\top - 1c^\top G + (c^\top G c) 11^\top`, the top eigenpairs
    :math:`(\Lambda, V)` of :math:`D^{1/2} G_c D^{1/2}` (by ``eigh(K, rows)``, the rows of
    positive weight only: zero weights give zero rows and columns) give
    :math:`U = X_c^\top D^{1/2} V \Lambda^{-1/2}` and the residuals
    :math:`\operatorname{diag}(G_c) - \lVert (G_c D^{1/2} V \Lambda^{-1/2})_i\rVert^2`.
    Shared by :class:`WeightedPCAProblem` and the chunked (Dask) Gram route, which differ
    only in how they form ``U`` and explicit residuals from the data.

    ``suspicious`` flags an iteration whose residuals must be formed explicitly: the
    difference of squares loses about ``1e-16 ||x_i - b||^2`` to cancellation, and a
    sample (almost) on the subspace gets a huge weight that amplifies the rounding of its
    Gram column, so when such a sample exists (a residual below :data:`SUSPICIOUS_RTOL` of
    its norm, or a weight above :data:`EXTREME_WEIGHT_RATIO` times the median) every
    residual is formed in feature space (``O(n d k)``, only in these iterations).
    """
    if with_mean:
        c = w / w.sum()
        Gc_vec = G @ c
        Gcc = np.subtract(G, Gc_vec[:, None], out=Gcc_out)
        Gcc -= Gc_vec[None, :]
        Gcc += c @ Gc_vec
    else:
        c = np.zeros_like(w)
        Gcc = G
    sw = np.sqrt(w)
    K = np.multiply(Gcc, sw[:, None], out=K_out)
    K *= sw[None, :]
    vals, vecs = eigh(K, None if np.all(w > 0) else np.flatnonzero(w > 0))
    usable = positive_eigen_mask(vals)
    vals, vecs = vals[usable], vecs[:, usable]
    coef = (sw[:, None] * vecs) / np.sqrt(vals)[None, :]
    proj = Gcc @ coef
    sq = np.maximum(np.diag(Gcc).copy(), 0.0)
    r2 = sq - np.einsum("ij,ij->i", proj, proj)
    extreme = w.max() > EXTREME_WEIGHT_RATIO * np.median(w)
    suspicious = bool(extreme or np.any(r2 < SUSPICIOUS_RTOL * sq))
    return GramStep(c, vals, coef, sq, r2, suspicious)


class WeightedSubspace:
    """A solution of the weighted-PCA subproblem, in whichever route produced it.

    Residuals of the training samples are available cheaply; the (d, k) basis and
    the mean are formed only on request.
    """

    def __init__(
        self, problem, weights, offset_coef, eigvals, coef, sq_norms, residual_sq, total=None
    ):
        self._problem = problem
        self.weights = weights
        #: sum_i d_i ||x_i - b||^2, the trace of the weighted scatter about the mean
        self.total_scatter = float(weights @ sq_norms) if total is None else total
        self._offset_coef = offset_coef  # c = d / sum(d) (Gram) or mean - center (scatter)
        self.eigvals = eigvals
        self._coef = coef  # Gram: D^{1/2} V Lambda^{-1/2}; scatter: U
        self.sq_norms = sq_norms  # ||x_i - b||^2
        self._residual_sq = residual_sq

    def residuals(self) -> np.ndarray:
        """Residual norms ``||(I - UU^T)(x_i - b)||`` of the training samples."""
        if self._residual_sq is None:
            raise ValueError("this subspace was solved with residuals=False")
        return np.sqrt(self._residual_sq)

    def mean(self) -> np.ndarray:
        """The weighted mean ``b`` in the original coordinates (float64)."""
        return self._problem._mean(self._offset_coef)

    def basis(self) -> np.ndarray:
        """The (n_features, n_components) orthonormal basis ``U`` (float64)."""
        p = self._problem
        U = p._gram_basis(self._offset_coef, self._coef) if p.gram else self._coef
        return complete_orthonormal(U, p.n_components, p.rng)


class WeightedPCAProblem:
    r"""Weighted mean and top-``k`` weighted principal subspace of fixed data ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64 or float32
        Data (neither modified nor copied: every pass widens blocks of rows or columns
        to float64, so float32 data keep their memory footprint and every reduction is
        accumulated in float64).
    n_components : int
        Subspace dimension ``k``.
    rng : numpy.random.Generator
        Used only to complete a rank-deficient basis.
    center : bool, default=True
        Whether the weighted mean is estimated. With ``False`` the subspace passes
        through ``offset`` (the origin by default) and :meth:`solve` returns ``b =
        offset``.
    reference_weights : ndarray, optional
        Weights of the point about which the data are centred (for accuracy only;
        the solution does not depend on it). Uniform by default.
    route : {'auto', 'gram', 'scatter'}
        ``'auto'`` takes the Gram route when ``n_samples < n_features``.
    offset : ndarray of shape (n_features,), optional
        With ``center=False``: the fixed point the subspace passes through (``X - offset``
        is never formed).

    Notes
    -----
    Scatter route, per :meth:`solve`: one blocked pass forms the weighted scatter about
    the previous weighted mean together with the weighted sum that moves it to the new
    mean (:math:`S_b = S_a - s\,\delta\delta^\top` exactly, with a small shift
    :math:`\delta`), one ``d x d`` eigenproblem, and one blocked pass for the residuals
    :math:`\lVert (I - UU^\top)(x_i - b)\rVert^2`. Blocks hold :data:`BLOCK_BYTES`, so no
    ``n x d`` temporary is allocated.
    """

    def __init__(
        self,
        X,
        n_components,
        rng,
        *,
        center=True,
        route="auto",
        reference_weights=None,
        offset=None,
    ):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        n, d = X.shape
        self.X = X
        self.n_components = n_components
        self.rng = rng
        self.with_mean = center
        self._work = _Workspace()
        self._eigh = WarmStartEigh(n_components)
        if not center:
            self.center = np.zeros(d) if offset is None else np.asarray(offset, dtype=np.float64)
        elif reference_weights is None:
            self.center = X.mean(axis=0, dtype=np.float64)
        else:
            w = np.asarray(reference_weights, dtype=np.float64)
            self.center = weighted_row_sum(X, w, work=self._work) / w.sum()
        self._center_is_mean = center and reference_weights is None
        self.gram = (n < d) if route == "auto" else (route == "gram")
        # Gram route on dense float64 data: one syrk on the raw data, centred afterwards,
        # and the basis and mean by one product with X each (no centred copies) when
        # that is accurate (raw_centred_gram)
        self._raw_products = False
        if self.gram:
            G = raw_centred_gram(X, self.center) if _dense_float64(X) else None
            self._raw_products = G is not None
            self.G = G if G is not None else _blocked_centred_gram(X, self.center, self._work)
            self._Gcc = np.empty_like(self.G)
            self._K = np.empty_like(self.G)
        else:
            self._shift = np.zeros(d)  # previous weighted mean - center

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    def mean_sq_distance(self) -> float:
        """Mean squared distance of the rows to their arithmetic mean.

        Free on the Gram route (the trace of the centred Gram matrix, when the data are
        centred by their arithmetic mean), else one pass over the data. The scale from
        which the losses' default epsilon is set.
        """
        if self.gram and self._center_is_mean:
            return max(float(np.trace(self.G)), 0.0) / self.n_samples
        mean = self.center if self._center_is_mean else self.X.mean(axis=0, dtype=np.float64)
        return float(row_sq_distances(self.X, mean, self._work).sum()) / self.n_samples

    def solve(self, weights: np.ndarray, *, residuals: bool = True) -> WeightedSubspace:
        """Solve problem (14) of Nie et al. (2014) for the given weights.

        ``residuals=False`` is for callers that need only the basis, the mean and the
        eigenvalues: it skips every pass over the data for the residuals of the training
        samples (the scatter route's second pass; the Gram route's explicit residuals in
        a degenerate iteration, see :func:`gram_step`), and :meth:`WeightedSubspace.residuals`
        then raises.
        """
        if not self.gram:
            return self._solve_scatter(weights, residuals)
        with single_blas_thread(self.n_samples <= SMALL_GRAM):
            return self._solve_gram(weights, residuals)

    # -- Gram route ---------------------------------------------------------------------
    def _mean(self, offset_coef: np.ndarray) -> np.ndarray:
        if not self.gram:
            return self.center + offset_coef
        if not self.with_mean:
            return self.center.copy()
        if self._raw_products:
            return self.center + (self.X.T @ offset_coef - self.center * offset_coef.sum())
        return self.center + weighted_row_sum(self.X, offset_coef, self.center, self._work)

    def _gram_basis(self, offset_coef: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """``(X0 - 1 m^T)^T coef`` with ``X0 = X - center``, by blocks of columns."""
        X, (n, d) = self.X, self.X.shape
        colsum = coef.sum(axis=0)
        shift = self.with_mean and np.any(offset_coef)
        if self._raw_products:
            # X0^T coef = X^T coef - center (1^T coef); colsum is ~0 here (the weighted
            # centring puts sqrt(w) in the null space of K), so nothing large cancels
            k = coef.shape[1]
            P = X.T @ (np.column_stack([coef, offset_coef]) if shift else coef)
            U = P[:, :k] - np.outer(self.center, colsum)
            if shift:
                U -= np.outer(P[:, k] - self.center * offset_coef.sum(), colsum)
            return cholesky_qr(U)
        U = np.empty((d, coef.shape[1]))
        for cols in _col_slices(n, d):
            B = _centred_cols(X, cols, self.center, self._work)
            U[cols] = B.T @ coef
            if shift:
                U[cols] -= np.outer(B.T @ offset_coef, colsum)
        return cholesky_qr(U)

    def _solve_gram(self, w: np.ndarray, residuals: bool = True) -> WeightedSubspace:
        step = gram_step(self.G, w, self._eigh, self.with_mean, self._Gcc, self._K)
        r2 = None
        if residuals:
            r2 = step.r2
            if step.suspicious:
                U = self._gram_basis(step.c, step.coef)
                r2 = self._exact_residuals(self._mean(step.c), U)
            r2 = np.clip(r2, 0.0, step.sq)
        return WeightedSubspace(self, w, step.c, step.eigvals, step.coef, step.sq, r2)

    def _exact_residuals(self, point: np.ndarray, U: np.ndarray) -> np.ndarray:
        """``||(I - UU^T)(x_i - point)||^2`` formed explicitly, by blocks of rows."""
        return subspace_sq_residuals(self.X, point, U, self._work)

    # -- scatter route ------------------------------------------------------------------
    def _solve_scatter(self, w: np.ndarray, residuals: bool = True) -> WeightedSubspace:
        X = self.X
        n, d = X.shape
        s = float(w.sum())
        point = self.center + self._shift
        # one pass: the weighted scatter about the previous mean and the weighted sum of
        # deviations from it (so the scatter about the new mean is an exact rank-one
        # update with a small shift, and nothing cancels)
        S = np.zeros((d, d), order="F")
        t = np.zeros(d)
        sw = np.sqrt(w)
        for rows in _row_slices(n, d, MIN_BLOCK):
            if not np.any(w[rows]):
                continue
            B = _centred_rows(X, rows, point, self._work)
            if self.with_mean:
                t += w[rows] @ B
            B *= sw[rows, None]
            S = _syrk_upper(S, B.T, trans=0)  # += B^T B
        S = _symmetric_from_upper(S)
        if self.with_mean:
            delta = t / s
            S -= s * np.outer(delta, delta)
            self._shift = self._shift + delta
        vals, vecs = self._eigh(S)
        usable = positive_eigen_mask(vals)
        U = np.ascontiguousarray(vecs[:, usable])
        sq = r2 = None
        if residuals:
            sq, r2 = self._scatter_residuals(self.center + self._shift, U)
        total = float(np.trace(S))
        return WeightedSubspace(self, w, self._shift.copy(), vals[usable], U, sq, r2, total)

    def _scatter_residuals(self, point: np.ndarray, U: np.ndarray):
        """``||x_i - b||^2`` and ``||(I - UU^T)(x_i - b)||^2``, by blocks of rows.

        The residual is formed explicitly (``O(n d k)``, no cancellation): at tight
        tolerances the rounding of the difference of squares would decide the stop.
        """
        X, (n, d) = self.X, self.X.shape
        sq, r2 = np.empty(n), np.empty(n)
        for rows in _row_slices(n, d):
            B = _centred_rows(X, rows, point, self._work)
            sq[rows] = np.einsum("ij,ij->i", B, B)
            B -= (B @ U) @ U.T
            r2[rows] = np.einsum("ij,ij->i", B, B)
        return sq, r2


def positive_eigen_mask(vals: np.ndarray) -> np.ndarray:
    """Mask of eigenvalues that are numerically positive (relative to the largest)."""
    top = max(vals.max(initial=0.0), 0.0)
    return (vals > RANK_RTOL * top) & (vals > 0)
