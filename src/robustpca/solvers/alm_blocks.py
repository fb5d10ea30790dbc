r"""The blocked in-place passes of the convex ALM solvers of :mod:`robustpca.solvers.alm`.

Holds the data as the loop sees them, by row or column blocks and centred block by block
(``_Data``), the sparse terms with their proximal steps written in place (``_L1`` for
PCP, ``_L21`` for outlier pursuit and CRPCA-OM), the passes of one iteration
(``_advance``, ``_low_rank_pass``) and the one that writes the returned arrays. The
loop and the solvers that call them are in :mod:`robustpca.solvers.alm`; the singular
value thresholding between passes (1) and (3), with the forms in which it leaves the
low-rank part, is in :mod:`robustpca.solvers.alm_svt`; the duality gaps read from these
passes (the cheap one from pass (3)'s sums, the certified one at the end, from the two
arrays) in :mod:`robustpca.solvers.alm_gap`.

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
(``X`` is never copied). At the end the duality gap is computed block by block from
:math:`(D, Y)` with the exact ``||Y||_2`` (:mod:`robustpca.solvers.alm_gap`), then
:math:`S` is written over ``Y`` and the low-rank part :math:`X - D` over ``D``. In an
over-relaxed iteration (PCP's balancing phase) pass (1) leaves the relaxed multiplier
:math:`\hat W` in place of :math:`Y_k` (:func:`_advance`), from which the relaxed sparse
step and :math:`Y_{k+1}` follow in the same way (``alpha``). A fit holds those two
arrays, three blocks, ``min(n, d)``-square matrices, factors of ``min(n, d) / 4`` rows
at most, and at the end ``components`` (``rank x d`` when ``n_components=None``); the
single-precision Gram steps of :mod:`.alm_single_gram` form their residual by blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np

from ..linalg.work_space import work_space
from .alm_types import _ALMOutcome, _LowRank

#: Bytes of one block of the blocked passes (three such blocks are held).
BLOCK_BYTES = 1 << 20
#: Blocks are 1/32 of the data down to this size (60 x 40 in 30 blocks: 20x overhead).
MIN_BLOCK_BYTES = 1 << 16


# ------------------------------------------------------------- the data, by blocks
def _blocks(length: int, other: int) -> list[slice]:
    """Slices of ``range(length)`` whose blocks (times ``other``) hold about
    ``BLOCK_BYTES``, at most 1/32 of ``length`` above ``MIN_BLOCK_BYTES``, at least 1."""
    row = 8 * max(other, 1)
    step = max(1, min(BLOCK_BYTES // row, max(-(-length // 32), MIN_BLOCK_BYTES // row)))
    return [slice(i, min(i + step, length)) for i in range(0, length, step)]


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``<a, b>`` of two blocks of the passes: BLAS's dot where both are contiguous (the
    scratch blocks, where it beats ``einsum``), ``einsum`` where one is a strided view of
    a column block (``vdot`` would copy it)."""
    if a.flags.c_contiguous and b.flags.c_contiguous:
        return float(np.vdot(a, b))
    return float(np.einsum("ij,ij->", a, b))


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
        self._work: np.ndarray | None = None

    def scratch(self, h: int, w: int) -> tuple[np.ndarray, ...]:
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
            total += _dot(block, block)
        return float(np.sqrt(total))

    def abs_max(self) -> float:
        """Largest absolute entry (subtracting ``c_j`` is monotone, so exact)."""
        hi, lo = self.X.max(axis=0), self.X.min(axis=0)
        if self.center is not None:
            hi, lo = hi - self.center, lo - self.center
        return float(max(hi.max(), -lo.min()))

    def divided(self, value: float) -> np.ndarray:
        """A new array ``(X - 1 c^T) / value`` (the multiplier's start: a work space)."""
        out = work_space(self.shape, np.float64)
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

    def project_into(self, B, out, factor=None) -> None:
        r"""The multiplier :math:`\mu(A - \operatorname{prox}(A))` from ``B`` :math:`=
        \mu A` (Moreau): ``B`` clipped to ``[-lam, lam]``, written into ``out``."""
        np.clip(B, -self.lam, self.lam, out=out)

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

    def project_into(self, B, out, factor=None) -> None:
        r"""The multiplier :math:`\mu(A - \operatorname{prox}(A))` from ``B`` :math:`=
        \mu A` (Moreau): the rows of ``B`` scaled into the unit ball, ``B (1 - f)`` with
        the row factor ``f`` of ``A`` (``factor``, of whole rows, or from ``B``'s rows),
        written into ``out``."""
        if factor is None:
            norms = np.linalg.norm(B, axis=-1, keepdims=True)
            keep = np.ones_like(norms)
            np.divide(1.0, norms, out=keep, where=norms > 1.0)
        else:
            keep = 1.0 - factor
        np.multiply(B, keep, out=out)

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


def _advance(
    data: _Data,
    sparse,
    work,
    Y,
    mu_prev: float,
    inv: float,
    alpha: float = 1.0,
    relax: float = 1.0,
) -> None:
    r"""From ``(D_k, Y_{k-1})`` to ``(M_{k+1}, Y_k)`` by row blocks: with the sparse step's
    argument ``A = alpha D_k + Y_{k-1}/mu_prev``, ``Y_k = mu_prev (A - prox(A))`` (the
    projection of ``mu_prev A``, :func:`_multiplier_into`) over ``Y``, ``S_k = A -
    Y_k/mu_prev`` and ``M = (X - S_k) + inv * Y_k`` written over ``D_k`` (``alpha``: the
    relaxation of the pass that wrote ``D_k``). Two operations a block fewer than
    forming the ``prox`` explicitly.

    ``relax != 1``: the next ``L`` step's sparse step is over-relaxed (Eckstein &
    Bertsekas 1992; Boyd et al. 2011, sec. 3.4.3): it takes :math:`\alpha(X - L_{k+1}) +
    (1 - \alpha)S_k + Y_k/\mu` (:math:`\mu = 1/` ``inv``), so ``Y`` is left holding the
    relaxed multiplier :math:`\hat W = Y_k + \mu(1 - \alpha)S_k` (two more operations),
    whose sparse step's argument is :math:`\alpha D_{k+1} + \hat W/\mu` and next
    multiplier :math:`\hat W + \mu(\alpha D_{k+1} - S_{k+1})`: no third array."""
    for rows in data.rows:
        T, S, _ = data.row_block(rows)
        D, Yr = work[rows], Y[rows]
        _multiplier_into(sparse, D, Yr, mu_prev, alpha, T, Yr)  # T: mu_prev A
        T -= Yr  # mu_prev S_k, exactly 0 where the prox is
        np.multiply(Yr, inv, out=D)
        if relax != 1.0:
            Yr += np.multiply(T, (1.0 - relax) / (inv * mu_prev), out=S)
        T *= -1.0 / mu_prev
        T += data.take(rows, slice(None), S)  # X - S_k
        D += T


def _multiplier_into(sparse, D, W, mu, alpha, B, out, factor=None) -> np.ndarray:
    r"""The next multiplier :math:`\mu(A - \operatorname{prox}(A))` of the sparse step's
    argument :math:`A = \alpha D + W/\mu` into ``out`` (which may be ``W``), by Moreau's
    identity the projection of :math:`\mu A = \mu\alpha D + W` (left in ``B``) onto the
    dual ball of the sparse term (``sparse.project_into``): two operations fewer than
    forming ``prox(A)`` and :math:`W + \mu(\alpha D - \operatorname{prox}(A))`, with
    the same rounding order of magnitude. ``factor``: the l2,1 row factor of whole rows."""
    np.multiply(D, mu * alpha, out=B)
    B += W
    sparse.project_into(B, out, factor)
    return out


def _relaxed_point(D, Y, mu, alpha, out) -> np.ndarray:
    """``alpha D + Y/mu`` into ``out``: the argument of the sparse step (``alpha = 1``:
    ``D + Y/mu``, as before relaxation existed, to the last bit)."""
    np.multiply(Y, 1.0 / mu, out=out)
    if alpha == 1.0:
        out += D
    else:
        out /= alpha
        out += D
        out *= alpha
    return out


def _residual(sparse, D, Y, mu, T, S, factor=None, alpha=1.0) -> float:
    """``||D - prox(alpha D + Y/mu)||_F^2`` of one block, with scratch ``T`` and ``S``;
    leaves the next multiplier ``mu (A - prox(A))`` in ``S`` (:func:`_multiplier_into`)
    and the primal residual block ``D - prox(A)`` in ``T``."""
    _multiplier_into(sparse, D, Y, mu, alpha, T, S, factor)
    T -= S  # mu prox(A)
    T *= -1.0 / mu
    T += D
    return _dot(T, T)


@dataclass
class _PassStats:
    r"""What pass (3) measures besides ``D``: the primal and dual residuals and the dual
    value of :math:`\hat Y = \mu_k (M - L_{k+1})` (see :mod:`robustpca.solvers.alm`).

    ``loss``: ``g(D)`` of the objective; ``primal``: :math:`\lVert D - S_{k+1}\rVert_F^2`;
    ``dual``: :math:`\lVert Y_{k+1} - \hat Y\rVert_F^2 = \mu_k^2\lVert S_{k+1} -
    S_k\rVert_F^2` (Boyd et al.'s dual residual); ``size``: :math:`\lVert\hat
    Y\rVert_F^2` and ``size_next``: :math:`\langle Y_{k+1} - \hat Y, \hat Y\rangle`
    (its scale). With ``full`` (the cheap gap's sums) also ``value``: :math:`\langle X -
    c, \hat Y\rangle` and ``value_next`` that of :math:`Y_{k+1} - \hat Y` (None when
    skipped); ``entry``: the entry norm of :math:`\hat Y` (``max |y_ij|`` or the
    largest row norm); ``colsum``: column sums of :math:`\hat Y` and ``xsum`` of ``X -
    c`` (for the zero-mean constraint of the free mean; not summed, and left zero, with
    ``column_sums=False``).
    """

    d: int
    column_sums: bool = True
    full: bool = True
    loss: float = 0.0
    primal: float = 0.0
    dual: float = 0.0
    value: float = 0.0
    entry: float = 0.0
    size: float = 0.0
    size_next: float = 0.0
    value_next: float | None = 0.0
    colsum: np.ndarray = field(init=False)
    colsum_next: np.ndarray = field(init=False)
    xsum: np.ndarray = field(init=False)

    def __post_init__(self):
        self.colsum, self.xsum = np.zeros(self.d), np.zeros(self.d)
        self.colsum_next = np.zeros(self.d)
        self.column_sums = self.column_sums and self.full
        if not self.full:
            self.value_next = None

    def add_next_block(self, Xb, Yhat, change, cols=slice(None)) -> None:
        """``change``: the block of ``Y_next - Y hat``; ``Xb`` (that of ``X - c``) is read
        only with ``full``."""
        self.dual += _dot(change, change)
        self.size_next += _dot(change, Yhat)  # completed in the loop
        if self.full:  # value_next is None only without full
            self.value_next = cast(float, self.value_next) + _dot(Xb, change)
        if self.column_sums:
            self.colsum_next[cols] += change.sum(axis=0)

    def add_dual_block(self, Xb, Yhat, cols=slice(None), size=True) -> None:
        """``size=False``: ``||Y hat||^2`` is summed elsewhere (the l2,1 row sums)."""
        if size:
            self.size += _dot(Yhat, Yhat)
        if self.full:
            self.value += _dot(Xb, Yhat)
        if self.column_sums:
            self.colsum[cols] += Yhat.sum(axis=0)
            self.xsum[cols] += Xb.sum(axis=0)


def _low_rank_pass(
    data: _Data,
    sparse,
    work,
    Y,
    low: _LowRank,
    mean,
    mu,
    measure=True,
    column_sums=True,
    alpha=1.0,
) -> _PassStats:
    r"""Apply the ``L`` step block by block: ``D = X - L`` written over ``M`` (in
    ``work``), measuring on the way the primal residual with ``S = prox(D + Y/mu)`` (not
    written) and, with ``measure``, :math:`\hat Y = \mu(M - L)`, its dual value and the
    dual residual (those cost about five more passes over the blocks); with
    ``measure='residual'`` the dual residual only (``dual``, ``size`` and ``size_next``;
    ``value_next`` None), about three. ``alpha != 1`` (only with ``measure``): the
    sparse step that follows is relaxed, and ``Y`` holds the relaxed multiplier that
    :func:`_advance` wrote. Holds three blocks."""
    if low.kind == "columns":
        return _column_pass(data, sparse, work, Y, low, mean, mu, measure, column_sums, alpha)
    if not measure:
        return _plain_pass(data, sparse, work, Y, low, mean, mu)
    full = measure is True
    U = low.U * low.s if low.kind == "factors" else None
    stats = _PassStats(data.shape[1], column_sums, full)
    for rows in data.rows:
        L, T, S = data.row_block(rows)
        _low_rank_rows(low, U, work, rows, None, out=L)
        D = work[rows]  # M, less b with a free mean
        np.subtract(D, L, out=T)  # M - L = (M - b) - Z
        T *= mu  # Y hat
        if mean is not None:
            L += mean
        Xb = data.take(rows, slice(None), S)
        stats.add_dual_block(Xb, T)
        if full:
            stats.entry = max(stats.entry, sparse.entry_norm(T))
        np.subtract(Xb, L, out=D)
        stats.loss += sparse.loss(D, S)
        stats.primal += _residual(sparse, D, Y[rows], mu, L, S, alpha=alpha)  # S: Y_new
        S -= T  # Y_new - Y hat
        stats.add_next_block(data.take(rows, slice(None), L) if full else None, T, S)
    return stats


def _low_rank_rows(low: _LowRank, U, work, rows, mean, *, out) -> None:
    """The rows ``rows`` of ``L`` (plus ``mean``) into ``out``: ``U[rows] @ Vt`` with
    ``U`` the scaled left factors, or without them (``U=None``, ``L = M V diag(gain)
    V^T``) from the rows of ``M`` in ``work``."""
    Vt = cast(np.ndarray, low.Vt)  # kept by the 'factors' and 'rows' forms
    if U is not None:
        np.matmul(U[rows], Vt, out=out)
    else:
        np.matmul((work[rows] @ Vt.T) * low.gain, Vt, out=out)
    if mean is not None:
        out += mean


def _plain_pass(data: _Data, sparse, work, Y, low: _LowRank, mean, mu) -> _PassStats:
    """:func:`_low_rank_pass` without the dual measurements (``dual``, ``value`` and
    ``size`` stay zero, ``value_next`` None)."""
    U = low.U * low.s if low.kind == "factors" else None
    stats = _PassStats(data.shape[1], full=False)
    for rows in data.rows:
        L, T, S = data.row_block(rows)
        _low_rank_rows(low, U, work, rows, mean, out=L)
        D = work[rows]
        np.subtract(data.take(rows, slice(None), T), L, out=D)
        stats.loss += sparse.loss(D, S)
        stats.primal += _residual(sparse, D, Y[rows], mu, T, S)
    return stats


#: The row sums of the column pass for the l2,1 term, by what is measured (``measure``):
#: its loss only, or what the dual residual needs too (D, Y, Y hat: "dy" is <D_i, Y_i>).
_ROW_SUMS = {False: ("dd",), True: ("dd", "dy", "yy", "hy", "hd", "hh")}


def _column_pass(
    data: _Data, sparse, work, Y, low: _LowRank, mean, mu, measure=True, column_sums=True, alpha=1.0
) -> _PassStats:
    r""":func:`_low_rank_pass` for ``L = U diag(gain) U^T M`` by column blocks, measuring
    what ``measure`` asks for in the same way. For the l2,1 term the row norms are
    accumulated, the dual residual is expanded by rows (``Y_new - Y hat = (1 - f_i)(Y +
    mu D)_i - Y hat_i`` with the row factor ``f_i``; its cancellation error, about 1e-8
    relative, does not matter for what it is used for) and the primal residual needs a
    row pass after."""
    U = cast(np.ndarray, low.U)  # kept by the 'columns' form
    A, Ut = U * low.gain, U.T
    n = data.shape[0]
    # above half the side, one product with the n x n projector costs fewer flops than
    # two with the factors (400 x 10,304 at rank 240: 96 ms against 114 ms)
    P = A @ Ut if 2 * low.s.size > n else None
    full = measure is True
    stats = _PassStats(data.shape[1], column_sums, full)
    sums = {key: np.zeros(n) for key in _ROW_SUMS[bool(measure)]}
    for cols in data.columns:
        L, T, S = data.column_block(cols)
        if P is None:
            np.matmul(A, Ut @ work[:, cols], out=L)
        else:
            np.matmul(P, work[:, cols], out=L)
        D = work[:, cols]  # M, less b with a free mean
        if measure:
            np.subtract(D, L, out=T)  # M - L = (M - b) - Z
            T *= mu  # Y hat
        if mean is not None:
            L += mean[cols]
        Xb = data.take(slice(None), cols, S)
        if measure:
            stats.add_dual_block(Xb, T, cols, size=not sparse.rowwise)
        np.subtract(Xb, L, out=D)
        if sparse.rowwise:
            Yc = Y[:, cols]
            pairs = {"dd": (D, D), "dy": (D, Yc), "yy": (Yc, Yc)}
            pairs.update(hy=(T, Yc), hd=(T, D), hh=(T, T))
            for key in sums:
                sums[key] += np.einsum("ij,ij->i", *pairs[key])
            continue
        if full:
            stats.entry = max(stats.entry, sparse.entry_norm(T))
        stats.loss += sparse.loss(D, S)
        stats.primal += _residual(sparse, D, Y[:, cols], mu, L, S, alpha=alpha)
        if measure:
            S -= T  # Y_new - Y hat
            stats.add_next_block(data.take(slice(None), cols, L) if full else None, T, S, cols)
    if sparse.rowwise:
        stats.loss = float(np.sqrt(sums["dd"]).sum())
        if measure:
            _row_dual_residual(sparse, stats, sums, mu, alpha)
        for rows in data.rows:
            T, S, _ = data.row_block(rows)
            stats.primal += _residual(sparse, work[rows], Y[rows], mu, T, S, alpha=alpha)
    return stats


def _row_dual_residual(sparse, stats: _PassStats, sums: dict, mu: float, alpha: float) -> None:
    """The l2,1 column pass's dual residual (and with ``full`` its entry norm) from its
    row sums."""
    stats.size = float(sums["hh"].sum())  # ||Y hat||^2, by rows
    if stats.full:
        stats.entry = float(np.sqrt(sums["hh"].max(initial=0.0)))
    ma = mu * alpha  # the rows of Y + mu alpha D (alpha: the relaxation)
    w2 = np.maximum(sums["yy"] + 2 * ma * sums["dy"] + ma**2 * sums["dd"], 0.0)
    keep = 1.0 - sparse.row_factor(np.sqrt(w2) / mu, mu)  # 1 - f_i
    dual = keep**2 * w2 - 2 * keep * (sums["hy"] + ma * sums["hd"]) + sums["hh"]
    stats.dual = float(np.maximum(dual, 0.0).sum())
    # ||Y_next||^2 = ||Y hat||^2 + 2 <change, Y hat> + ||change||^2: store <change, Y hat>
    stats.size_next = 0.5 * (float((keep**2 * w2).sum()) - stats.size - stats.dual)
    stats.value_next = None  # not measured in this form


# ------------------------------------------------------------ the passes at the end
def _finish_arrays(data: _Data, sparse, out: _ALMOutcome) -> tuple[np.ndarray, np.ndarray]:
    """``S = prox(a D + Y/mu)`` over ``Y`` (``a``: the relaxation ``out.alpha``) and the
    low-rank part ``X - D = L + c`` over ``D``, by row blocks. Returns ``(low_rank,
    sparse)``."""
    for rows in data.rows:
        T, _, _ = data.row_block(rows)
        _relaxed_point(out.work[rows], out.dual[rows], out.mu, out.alpha, out=T)
        sparse.prox_into(T, out.mu, out.dual[rows])
        np.subtract(data.X[rows], out.work[rows], out=out.work[rows])
    return out.work, out.dual
