r"""The blocked in-place passes of the convex ALM solvers of :mod:`robustpca.solvers.alm`.

Holds the data as the loop sees them, by row or column blocks and centred block by block
(``_Data``), the sparse terms with their proximal steps written in place (``_L1`` for
PCP, ``_L21`` for outlier pursuit and CRPCA-OM), the passes of one iteration
(``_advance``, ``_low_rank_pass``) and those that end a fit (the final multiplier, the
blockwise duality gap ``_gap``, the returned arrays). The loop and the solvers that call
them are in :mod:`robustpca.solvers.alm`; the singular value thresholding between
passes (1) and (3), with the forms in which it leaves the low-rank part, is in
:mod:`robustpca.solvers.alm_svt`.

**Memory.** The loop holds two ``n x d`` arrays and never a third one, nor an ``n x d``
factor of ``L``. After the ``L`` step they hold :math:`D_{k+1} = X - L_{k+1}` and
:math:`Y_k`, from which :math:`S_{k+1} = \operatorname{prox}(D_{k+1} + Y_k/\mu_k)`,
:math:`Y_{k+1}` and :math:`L_{k+1}` follow row by row. Each iteration makes three passes
over blocks of about 1 MiB: (1) from :math:`(D_k, Y_{k-1})` it writes :math:`Y_k` and
the argument :math:`M = X - S_k + Y_k/\mu_k` of the ``L`` step (over :math:`D_k`); (2)
the singular value thresholding of ``M`` (:mod:`robustpca.solvers.alm_svt`); (3) it
applies the thresholding operator to ``M`` block by block, writing :math:`D_{k+1}` over
``M``, and measures the primal residual (for the l2,1 term after the column form of the
Gram route, in one more pass over row blocks). The data are centred block by block
(``X`` is never copied). At the end
the duality gap is computed block by block from :math:`(D, Y)`, then :math:`S` is
written over ``Y`` and the low-rank part :math:`X - D` over ``D``. A fit holds those two
arrays, three blocks, ``min(n, d)``-square matrices, factors of ``min(n, d) / 4`` rows
at most, and at the end ``components`` (``rank x d`` when ``n_components=None``).

The duality gap is computed from blocks of the final multiplier with the exact
``||Y||_2`` (the top eigenvalue of its short-side Gram matrix).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import linalg as sla

if TYPE_CHECKING:
    from .alm import _ALMOutcome, _Problem
    from .alm_svt import _LowRank

#: Bytes of one block of the blocked passes (three such blocks are held).
BLOCK_BYTES = 1 << 20


# ------------------------------------------------------------- the data, by blocks
def _blocks(length: int, other: int) -> list[slice]:
    """Slices of ``range(length)`` whose blocks (times ``other``) hold about
    ``BLOCK_BYTES``, at most 1/32 of ``length`` and at least 1."""
    step = max(1, min(BLOCK_BYTES // (8 * max(other, 1)), -(-length // 32)))
    return [slice(i, min(i + step, length)) for i in range(0, length, step)]


def _row_norms(X: np.ndarray) -> np.ndarray:
    """l2 norms of the rows of ``X`` without an ``X``-sized temporary."""
    return np.sqrt(np.einsum("ij,ij->i", X, X))


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


# ------------------------------------------------------- the passes of one iteration
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


# ------------------------------------------------------------ the passes at the end
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
    """:func:`robustpca.solvers.alm.duality_gap` of the final multiplier, which is never
    formed: its blocks are made from ``(D, Y)`` in three passes (column sums and l2,1 row
    scalings; the inner product with ``X - c`` and the entry norm; the Gram matrix of its
    short side, whose top eigenvalue gives ``||Y||_2`` to about machine precision)."""
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
