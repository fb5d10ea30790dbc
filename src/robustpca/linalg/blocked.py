r"""Blocked passes over the data: weighted sums, distances, residuals and Gram matrices.

The data are never copied: every pass visits blocks of rows (or columns) of about
:data:`BLOCK_BYTES`, widened to float64 in a reused buffer (:class:`_Workspace`), so
float32 input keeps its footprint and every reduction is accumulated in float64, and no
``n x d`` temporary is allocated per iteration. :func:`gram_step` is the Gram route's
weighted step (Nie et al. 2014, problem 14, by the SVD route for ``d > n``).

**One BLAS library per loop.** NumPy's and SciPy's wheels each bring their own OpenBLAS
(scipy/scipy#15129). When an iteration alternates between them (a NumPy ``@`` in the
residual pass, SciPy's ``syrk`` and LAPACK for the scatter and its eigenvectors), the
threads of one library still spin-wait while the other's start, and with more than one
BLAS thread they fight over the cores. The passes of the scatter route therefore make
their products through SciPy's BLAS (:meth:`Projector.project_out`,
:func:`add_weighted_rows`, :func:`sum_weighted_rows`, the ``syrk`` of
:func:`_syrk_upper`), as its eigensolvers do, and so do the training distances at the
end of those fits (``_tall_fit_blas`` in :mod:`robustpca.estimators._outlier_api`).
With two BLAS threads the mixed loop was several times slower than one thread, the
single-library loop as fast; the results are the same to the bit
(``benchmarks/bench_blas_threads.py``; ``docs/design-notes/linear-algebra.md``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import linalg as sla

from .eigen import positive_eigen_mask

__all__ = [
    "GramStep",
    "Projector",
    "add_weighted_rows",
    "blas_matmul",
    "centred_gram",
    "gram_basis",
    "gram_step",
    "raw_centred_gram",
    "row_sq_distances",
    "subspace_sq_residuals",
    "sum_weighted_rows",
    "weighted_row_sum",
]

#: Gram-route residuals below this fraction of ||x_i - b||^2 are recomputed exactly.
SUSPICIOUS_RTOL = 1e-6

#: ... and so are all of them when one weight exceeds this multiple of the median weight.
EXTREME_WEIGHT_RATIO = 1e4

#: Size of one block of rows (or columns) in the passes over the data: small enough to
#: stay in cache and keep the float64 scratch small (the speed is flat over a wide
#: range of block sizes).
BLOCK_BYTES = 1 << 20

#: Fewest rows (or columns) in a block of the passes that update the whole d x d scatter
#: (or n x n Gram matrix) per block: thinner blocks would make that update the cost.
MIN_BLOCK = 256

#: Largest ratio of the total squared norm of the rows to that of the centred rows for
#: which the Gram matrix is formed from the raw data and centred afterwards
#: (:func:`raw_centred_gram`): the rounding error relative to the centred entries grows by
#: about this factor.
RAW_GRAM_MAX_GAIN = 16.0


def gram_basis(X0: np.ndarray, offset_coef: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """``(X0 - 1 m^T)^T coef`` with ``m = X0^T offset_coef``, without the n x d copy.

    Parameters
    ----------
    X0 : ndarray of shape (n_samples, n_features)
        The data centred about a fixed point (the Gram route's ``X - center``).
    offset_coef : ndarray of shape (n_samples,)
        Coefficients of the shift ``m`` of the mean over the rows of ``X0``.
    coef : ndarray of shape (n_samples, k)
        Coefficients of the basis columns over the rows (:attr:`GramStep.coef`).

    Returns
    -------
    ndarray of shape (n_features, k)
    """
    m = X0.T @ offset_coef
    return X0.T @ coef - np.outer(m, coef.sum(axis=0))


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
    """``sum_i w_i (x_i - point)`` in float64, by blocks of rows (no ``n x d`` temporary).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, float64 or float32 (widened block by block).
    w : ndarray of shape (n_samples,)
        Weight of each row.
    point : ndarray of shape (n_features,) or None, default=None
        Point subtracted from every row; None is the origin.
    work : _Workspace or None, default=None
        Scratch buffer reused across passes; None allocates one.

    Returns
    -------
    ndarray of shape (n_features,)
    """
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
    """``||x_i - point||^2`` for every row, in float64, by blocks of rows.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, float64 or float32 (widened block by block).
    point : ndarray of shape (n_features,)
        The point the distances are taken to.
    work : _Workspace or None, default=None
        Scratch buffer reused across passes; None allocates one.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    n, d = X.shape
    work = _Workspace() if work is None else work
    out = np.empty(n)
    for rows in _row_slices(n, d):
        B = _centred_rows(X, rows, point, work)
        out[rows] = np.einsum("ij,ij->i", B, B)
    return out


_GEMM = sla.blas.get_blas_funcs("gemm", dtype=np.float64)
_GEMV = sla.blas.get_blas_funcs("gemv", dtype=np.float64)


def blas_matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` through SciPy's BLAS (module docstring, "One BLAS library per loop").

    Two C-ordered float64 operands are read as the F-ordered transposes BLAS expects
    (``(B^T A^T)^T``), so nothing is copied; other dtypes take NumPy's product.

    Parameters
    ----------
    A : ndarray of shape (m, p)
        Left operand.
    B : ndarray of shape (p, q)
        Right operand.

    Returns
    -------
    ndarray of shape (m, q)
    """
    if A.dtype != np.float64 or B.dtype != np.float64:
        return A @ B
    if A.flags.c_contiguous and B.flags.c_contiguous:
        return _GEMM(1.0, B.T, A.T).T
    return _GEMM(1.0, A, B)


class Projector:
    """``B -= (B U) U^T`` for C-ordered row blocks ``B``, through SciPy's BLAS (module
    docstring, "One BLAS library per loop").

    Parameters
    ----------
    U : ndarray of shape (n_features, k)
        Orthonormal basis of the subspace projected out (float64); held in the layouts
        that ``gemm`` reads without a copy.
    """

    def __init__(self, U: np.ndarray):
        self.Ut, self.U = np.asfortranarray(U.T), np.asfortranarray(U)

    def project_out(self, B: np.ndarray) -> np.ndarray:
        """``B -= (B U) U^T`` in place.

        Parameters
        ----------
        B : ndarray of shape (n_rows, n_features)
            C-ordered float64 block of rows, overwritten by its projection.

        Returns
        -------
        ndarray of shape (n_rows, k)
            The scores ``B U`` of the block before the projection.
        """
        BU_t = _GEMM(1.0, self.Ut, B.T)  # (B U)^T, k x rows (B.T is F-ordered: no copy)
        _GEMM(-1.0, self.U, BU_t, beta=1.0, c=B.T, overwrite_c=1)  # B^T -= U (B U)^T
        return BU_t.T


def sum_weighted_rows(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``w @ X`` for float64 ``X``, through SciPy's BLAS when ``X`` is contiguous (a
    NumPy product at the start of a fit whose loop is SciPy's wakes NumPy's threads,
    which then spin against SciPy's: module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        float64 data; a non-contiguous array takes NumPy's product.
    w : ndarray of shape (n_samples,)
        Weight of each row.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    if X.flags.c_contiguous:
        return _GEMV(1.0, X.T, w)
    if X.flags.f_contiguous:
        return _GEMV(1.0, X, w, trans=1)
    return w @ X


def add_weighted_rows(total: np.ndarray, w: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``total + w @ B`` for a C-ordered block ``B``, through SciPy's BLAS.

    Parameters
    ----------
    total : ndarray of shape (n_features,)
        float64 running sum, updated in place where BLAS can (use the returned array).
    w : ndarray of shape (n_rows,)
        Weight of each row of the block.
    B : ndarray of shape (n_rows, n_features)
        C-ordered float64 block of rows.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    return _GEMV(1.0, B.T, w, beta=1.0, y=total, overwrite_y=1)


def subspace_sq_residuals(X, point: np.ndarray, U: np.ndarray, work=None) -> np.ndarray:
    """``||(I - UU^T)(x_i - point)||^2`` formed explicitly (no cancellation), by row blocks.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, float64 or float32 (widened block by block).
    point : ndarray of shape (n_features,)
        The point the subspace passes through.
    U : ndarray of shape (n_features, k)
        Orthonormal basis of the subspace.
    work : _Workspace or None, default=None
        Scratch buffer reused across passes; None allocates one.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    n, d = X.shape
    work = _Workspace() if work is None else work
    r2 = np.empty(n)
    projector = Projector(U)
    for rows in _row_slices(n, d):
        B = _centred_rows(X, rows, point, work)
        projector.project_out(B)
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
    two traces is at most :data:`RAW_GRAM_MAX_GAIN` (at most about one digit lost);
    data far from the origin relative to their spread get ``None`` and the blocked,
    explicitly centred :func:`centred_gram`. Saves that route's copies of the centred
    blocks, a noticeable share of the Gram matrix's cost.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, as they are.
    center : ndarray of shape (n_features,)
        The point ``c`` subtracted from every row.

    Returns
    -------
    ndarray of shape (n_samples, n_samples) or None
    """
    # the two traces first, from the rows' norms (a pass), so that data far from the
    # origin do not pay for a Gram matrix they cannot use
    g = X @ center
    raw_trace = float(np.einsum("ij,ij->", X, X))
    centred_trace = raw_trace - 2.0 * float(g.sum()) + X.shape[0] * float(center @ center)
    if not raw_trace <= RAW_GRAM_MAX_GAIN * centred_trace:
        return None
    G = X @ X.T  # numpy calls syrk for a product with its own transpose
    G -= g[:, None]
    G -= g[None, :]
    G += float(center @ center)
    return G


def centred_gram(X, center: np.ndarray, work: _Workspace | None = None) -> np.ndarray:
    """The float64 Gram matrix ``(X - 1 c^T)(X - 1 c^T)^T``, by blocks of columns.

    Dense float64 data go through :func:`raw_centred_gram` first.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, float64 or float32 (widened block by block).
    center : ndarray of shape (n_features,)
        The point ``c`` subtracted from every row.
    work : _Workspace or None, default=None
        Scratch buffer for the blocked route; None allocates one.

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
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
    """One Gram-route solve of problem (14): see :func:`gram_step`.

    Attributes
    ----------
    c : ndarray of shape (n_samples,)
        Offset coefficients: ``b = center + X0^T c`` (zeros without a mean).
    eigvals : ndarray of shape (r,)
        The positive eigenvalues kept, in decreasing order.
    coef : ndarray of shape (n_samples, r)
        ``U = X_c^T coef`` (before orthonormalisation).
    sq : ndarray of shape (n_samples,)
        ``||x_i - b||^2``.
    r2 : ndarray of shape (n_samples,)
        ``||(I - UU^T)(x_i - b)||^2`` as a difference of squares.
    suspicious : bool
        Whether ``r2`` must be formed explicitly instead.
    """

    c: np.ndarray
    eigvals: np.ndarray
    coef: np.ndarray
    sq: np.ndarray
    r2: np.ndarray
    suspicious: bool


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

    Parameters
    ----------
    G : ndarray of shape (n_samples, n_samples)
        C-ordered float64 Gram matrix of the data centred about a fixed point.
    w : ndarray of shape (n_samples,)
        Nonnegative sample weights ``d``.
    eigh : callable
        ``eigh(K, rows)`` returns the top eigenpairs ``(values, vectors)`` of ``K``,
        decreasing, from ``K[rows][:, rows]`` when ``rows`` is not None
        (:class:`WarmStartEigh`).
    with_mean : bool
        Whether the weighted mean is estimated (else ``c = 0``).
    Gcc_out : ndarray of shape (n_samples, n_samples) or None, default=None
        Buffer for :math:`G_c` (with a mean); None allocates one.
    K_out : ndarray of shape (n_samples, n_samples) or None, default=None
        Buffer for :math:`D^{1/2} G_c D^{1/2}`; None allocates one.

    Returns
    -------
    GramStep
    """
    # the products through SciPy's BLAS, as the eigensolver (module docstring); the
    # transposed F-ordered views of the C-ordered G and Gcc are read without a copy
    if with_mean:
        c = w / w.sum()
        Gc_vec = _GEMV(1.0, G.T, c, trans=1)
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
    proj = _GEMM(1.0, Gcc.T, coef, trans_a=1)
    sq = np.maximum(np.diag(Gcc).copy(), 0.0)
    r2 = sq - np.einsum("ij,ij->i", proj, proj)
    extreme = w.max() > EXTREME_WEIGHT_RATIO * np.median(w)
    suspicious = bool(extreme or np.any(r2 < SUSPICIOUS_RTOL * sq))
    return GramStep(c, vals, coef, sq, r2, suspicious)
