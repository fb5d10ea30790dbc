r"""The duality gaps of the convex ALM solvers of :mod:`robustpca.solvers.alm`.

Two gaps, both relative and both from weak duality for a multiplier scaled into the dual
feasible set (:func:`robustpca.solvers.alm.duality_gap`):

* the *cheap gap* (:func:`_cheap_gap`) from the sums that pass (3) of an iteration
  measures (:class:`robustpca.solvers.alm_blocks._PassStats`), without an SVD: it only
  decides when the certified gap is worth computing;
* the *certified gap* (:func:`_gap`) of the multiplier the fit would return, never
  formed: its blocks are made from the loop's two arrays, and its spectral norm is the
  top eigenvalue of its Gram matrix. For PCP, where that misses the target, also the
  gap of a better dual point made from it (:func:`_refined_gap`: its singular values
  above 1 clipped, then its entries, in rounds while they can reach the target), the
  smallest of them: on video shapes and on the occluded AT&T faces the primal is near
  its optimum long before the multiplier is, so these better dual points end the loop
  sooner (``docs/design-notes/pcp.md``).

The loop that calls them is in :mod:`robustpca.solvers.alm`, the passes whose arrays and
sums they read in :mod:`robustpca.solvers.alm_blocks`.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla

from ..linalg import _syrk_upper, eigh_index_range, single_blas_thread
from .alm_blocks import _Data, _multiplier_into, _PassStats, _relaxed_point
from .alm_types import _ALMOutcome, _Problem

#: The certified gap runs on one BLAS thread: its Gram matrix is accumulated by SciPy's
#: ``syrk`` between NumPy's operations on the blocks, and the two OpenBLAS libraries'
#: threads then fight over the cores ("More than one BLAS thread" in
#: docs/performance.md; docs/design-notes/pcp.md). PCP on wide data is the exception
#: where its column blocks are as wide as its side (``_numpy_grams``): its Gram matrices
#: are then NumPy's products of whole column blocks, so only its eigensolvers (SciPy's)
#: run on one thread.
CERTIFICATE_ONE_THREAD = True
#: Rounds of alternating projections of PCP's refined certificate at most
#: (:func:`_refined_gap`); each costs about an iteration, and the later ones gain less.
REFINE_ROUNDS = 4
#: Bytes of a panel of column blocks summed into a certificate's Gram matrix by one
#: ``syrk`` (:class:`_GramSum`).
PANEL_BYTES = 8 << 20


# --------------------------------------------------------- the cheap gap
def _cheap_gap(problem: _Problem, stats: _PassStats, objective: float, n: int) -> float:
    r"""A relative duality gap from the sums of pass (3), without an SVD.

    Two dual points, the better gap of the two:

    * :math:`\hat Y = \mu_k(M - L_{k+1})` is a subgradient of the low-rank term at
      :math:`L_{k+1}` (the optimality condition of the ``L`` step), so its spectral norm
      is at most the nuclear weight ``w`` (1 for PCP, :math:`\gamma` otherwise): the SVT
      leaves the singular values of :math:`M - L_{k+1}` at :math:`\min(\sigma_i,
      \tau)`. Only its entry (row) norm, from the pass, scales it into the dual set.
    * :math:`Y_{k+1}` is a subgradient of the sparse term at :math:`S_{k+1}`, so its
      entry (row) norm is at most 1 (:math:`\lambda` for PCP), and
      :math:`\lVert Y_{k+1}\rVert_2 \le w + \lVert Y_{k+1} - \hat Y\rVert_F`, the
      dual residual.

    With a free mean each is first centred (which cannot raise its spectral norm; the
    entry norm is bounded by the triangle inequality). Exact up to the accuracy of the
    SVT step; used only to decide when the certified gap
    (:func:`robustpca.solvers.alm_blocks._gap`, with the exact spectral norm) is worth
    computing.
    """
    if objective <= 0:
        return 0.0
    sparse = problem.sparse
    rowwise = sparse.rowwise
    w = sparse.gamma if rowwise else 1.0
    cap = 1.0 if rowwise else sparse.lam  # entry norm of Y_{k+1}

    def spread(colsum):  # value correction and entry-norm growth of the centring
        if not problem.free_mean:
            return 0.0, 0.0
        ybar = colsum / n
        grow = np.sqrt(ybar @ ybar) if rowwise else np.abs(ybar).max(initial=0.0)
        return float(ybar @ stats.xsum), float(grow)

    shift, grow = spread(stats.colsum)
    best = (stats.value - shift) / max(1.0, sparse.dual_norm(w, stats.entry + grow))
    if stats.value_next is not None:
        shift, grow = spread(stats.colsum + stats.colsum_next)
        two = w + float(np.sqrt(stats.dual))
        value = stats.value + stats.value_next - shift
        best = max(best, value / max(1.0, sparse.dual_norm(two, cap + grow)))
    return (objective - best) / objective


# ------------------------------------------- the certified gap, at the end of a fit
def _final_blocks(sparse, out: _ALMOutcome, rows, cols, Yk, S, factor=None):
    """A block of the final multiplier ``Y_k = mu (A - prox(A))``, ``A = a D + Y/mu``,
    into ``Yk`` (``a``: the relaxation ``out.alpha``; ``S``: scratch, left holding ``mu
    A``); ``factor``: the l2,1 row factor of whole rows when the block has only some
    columns."""
    D, Y = out.work[rows, cols], out.dual[rows, cols]
    return _multiplier_into(sparse, D, Y, out.mu, out.alpha, S, Yk, factor)


def _final_dual(data: _Data, sparse, out: _ALMOutcome) -> np.ndarray:
    """The final multiplier as a new array."""
    Yk = np.empty(data.shape)
    for rows in data.rows:
        _final_blocks(sparse, out, rows, slice(None), Yk[rows], data.row_block(rows)[0])
    return Yk


def _gap(
    data: _Data, problem: _Problem, out: _ALMOutcome, objective: float, target: float = 0.0
) -> float:
    """:func:`robustpca.solvers.alm.duality_gap` of the final multiplier, which is never
    formed: its blocks are made from ``(D, Y)`` in one pass for PCP, up to three
    otherwise (column sums and l2,1 row scalings; the inner product with ``X - c`` and
    the entry norm; the Gram matrix of the short side, whose top eigenvalue gives
    ``||Y||_2`` to about machine precision). On one BLAS thread
    (:data:`CERTIFICATE_ONE_THREAD`), except PCP on wide data in blocks of ``n`` columns
    or more, whose Gram matrices are NumPy's products (:func:`_numpy_grams`; no SciPy
    BLAS between them: on every thread).
    ``target``: the gap the loop stops on; PCP's refined certificate
    (:func:`_refined_gap`) is computed where the plain one is above it (``0``: wherever
    the multiplier's spectral norm exceeds 1, as for the gap a fit reports when it did
    not stop on its certificate)."""
    with single_blas_thread(CERTIFICATE_ONE_THREAD and not _numpy_grams(data, problem.sparse)):
        return _blockwise_gap(data, problem, out, objective, target)


def _numpy_grams(data: _Data, sparse) -> bool:
    """Whether the certificate's Gram matrices are NumPy's products of column blocks
    (PCP on wide data with blocks of at least ``n`` columns), on every BLAS thread; else
    SciPy's ``syrk`` into the upper triangle in place, on one. NumPy's product of a block
    with its transpose fills both triangles of a new ``n x n`` matrix, then added: with
    blocks narrower than ``n`` those ``n^2`` operations outweigh the product."""
    n, d = data.shape
    return n < d and not sparse.rowwise and data.columns[0].stop >= n


def _add_gram(G: np.ndarray, B: np.ndarray, numpy_products: bool) -> np.ndarray:
    """``G + B B^T`` (its upper triangle at least), in place where it can."""
    if numpy_products:
        G += B @ B.T
        return G
    return _syrk_upper(G, B.T, trans=1)


class _GramSum:
    """``sum B B^T`` over the ``n x w`` column blocks ``B`` of wide data, upper triangle.

    Where the blocks are narrower than ``n`` (and not NumPy's products,
    :func:`_numpy_grams`), they are gathered into panels of up to ``PANEL_BYTES`` (at
    most an eighth of the data, at most ``n`` columns) before each ``syrk``: an update of
    rank ``w`` reads and writes all of the ``n x n`` matrix, which outweighs its flops
    where ``w`` is far below ``n``."""

    def __init__(self, data: _Data, numpy_products: bool):
        n, d = data.shape
        self.G = np.zeros((n, n), order="F")
        self.numpy_products = numpy_products
        panel = min(n, d // 8, PANEL_BYTES // (8 * n))
        wide_enough = numpy_products or panel < 2 * data.columns[0].stop
        self.panel = None if wide_enough else np.empty((panel, n))  # the blocks' rows
        self.fill = 0

    def add(self, B: np.ndarray) -> None:
        if self.panel is None:
            self.G = _add_gram(self.G, B, self.numpy_products)
            return
        w = B.shape[1]
        if self.fill + w > len(self.panel):
            self._flush()
        self.panel[self.fill : self.fill + w] = B.T
        self.fill += w

    def _flush(self) -> None:
        if self.fill and self.panel is not None:
            self.G = _syrk_upper(self.G, self.panel[: self.fill].T, trans=0)
            self.fill = 0

    def result(self) -> np.ndarray:
        self._flush()
        return self.G


def _top_eigenvalue(G: np.ndarray) -> float:
    """The largest eigenvalue of the symmetric ``G`` from its upper triangle (SciPy's
    LAPACK, on one BLAS thread: :data:`CERTIFICATE_ONE_THREAD`)."""
    with single_blas_thread(CERTIFICATE_ONE_THREAD):
        top = eigh_index_range(G, len(G) - 1, len(G) - 1, eigvals_only=True, lower=False)
    return float(top[0])


def _blockwise_gap(
    data: _Data, problem: _Problem, out: _ALMOutcome, objective: float, target: float
) -> float:
    if objective <= 0:
        return 0.0
    (n, d), sparse = data.shape, problem.sparse
    wide = n < d  # the Gram matrix of the short side (a square one by row blocks)
    factor = np.ones((n, 1)) if sparse.rowwise else None  # the l2,1 row factor
    total = np.zeros(d)
    for rows in data.rows if problem.free_mean or (wide and sparse.rowwise) else ():
        Yk, S, T = data.row_block(rows)
        _final_blocks(sparse, out, rows, slice(None), Yk, S)
        total += Yk.sum(axis=0)
        if factor is not None:  # the row scaling of prox(a D + Y/mu), for the column blocks
            _relaxed_point(out.work[rows], out.dual[rows], out.mu, out.alpha, out=T)
            factor[rows] = sparse.row_factor(np.linalg.norm(T, axis=-1, keepdims=True), out.mu)
    ybar = total / n if problem.free_mean else np.zeros(d)
    value = entry = 0.0
    # G's upper triangle by syrk in place (numpy's Yk^T Yk rewrote all of G: 2.8x slower),
    # or for PCP on wide data all of it by numpy's Yk Yk^T of the column blocks
    G = np.zeros((0, 0) if wide else (d, d), order="F")  # wide: from grams
    grams = _GramSum(data, _numpy_grams(data, sparse)) if wide else None
    by_columns = wide and not sparse.rowwise  # all of it from column blocks
    for rows in () if by_columns else data.rows:
        Yk, S, T = data.row_block(rows)
        _final_blocks(sparse, out, rows, slice(None), Yk, S)
        if problem.free_mean:
            Yk -= ybar
        value += float(np.vdot(data.take(rows, slice(None), T), Yk))
        entry = max(entry, sparse.entry_norm(Yk))
        if not wide:
            G = _syrk_upper(G, Yk.T, trans=0)  # += Yk^T Yk
    for cols in data.columns if wide else ():
        Yk, S, T = data.column_block(cols)
        _final_blocks(sparse, out, slice(None), cols, Yk, S, factor)
        if problem.free_mean:
            Yk -= ybar[cols]
        if by_columns:
            value += float(np.vdot(data.take(slice(None), cols, T), Yk))
            entry = max(entry, sparse.entry_norm(Yk))
        grams.add(Yk)  # type: ignore[union-attr]
    if grams is not None:
        G = grams.result()
    two = float(np.sqrt(max(_top_eigenvalue(G), 0.0)))
    gap = (objective - value / max(1.0, sparse.dual_norm(two, entry))) / objective
    if sparse.rowwise or two <= 1.0 or gap <= target:
        return gap
    return min(gap, _refined_gap(data, sparse, out, objective, G, wide, target))


def _clipped_spectrum(G: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    r"""The operator :math:`P = I + E\operatorname{diag}(c)E^\top`,
    :math:`c = 1/\sigma - 1`, that clips at 1 the singular values of a matrix whose Gram
    matrix is ``G`` (upper triangle), as ``(E, c)``: :math:`E` the eigenvectors of the
    eigenvalues :math:`\sigma^2 > 1`. None when there are none. LAPACK's ``syevr`` for
    those eigenpairs; where it fails (on a tight cluster,
    :func:`robustpca.linalg.eigh_index_range`), all of them by ``syevd``."""
    with single_blas_thread(CERTIFICATE_ONE_THREAD):
        try:
            lam, E = sla.eigh(
                G, lower=False, check_finite=False, subset_by_value=(1.0, np.inf), driver="evr"
            )
        except np.linalg.LinAlgError:
            lam, E = sla.eigh(G, lower=False, check_finite=False, driver="evd")
    keep = lam > 1.0
    if not keep.any():
        return None
    return np.ascontiguousarray(E[:, keep]), 1.0 / np.sqrt(lam[keep]) - 1.0


def _clip_into(E: np.ndarray, c: np.ndarray, Yk: np.ndarray, out: np.ndarray, wide: bool):
    """``P Yk`` (``wide``) or ``Yk P`` into ``out``, with ``P`` of :func:`_clipped_spectrum`:
    by its ``m`` eigenvectors (``4 m`` flops an entry) where ``m`` is below half the
    side, else by ``P`` formed (``2 side`` flops an entry). NumPy's products only (see
    :func:`_gap`)."""
    m, side = E.shape[1], E.shape[0]
    if 2 * m >= side:
        P = (E * c) @ E.T
        P[np.diag_indices_from(P)] += 1.0
        return np.matmul(P, Yk, out=out) if wide else np.matmul(Yk, P, out=out)
    if wide:
        np.matmul(E, c[:, None] * (E.T @ Yk), out=out)
    else:
        np.matmul((Yk @ E) * c, E.T, out=out)
    out += Yk
    return out


def _refined_gap(
    data: _Data, sparse, out: _ALMOutcome, objective: float, G, wide, target: float = 0.0
) -> float:
    r"""PCP's certified gap of better dual points: rounds of alternating projections of
    the multiplier onto the two balls of the dual set.

    :math:`Y_k` is entrywise feasible (:math:`|y_{ij}| \le \lambda`), but its spectral
    norm exceeds 1 until the end, and scaling all of it by :math:`1/\lVert Y_k\rVert_2`
    (:func:`robustpca.solvers.alm.duality_gap`) loses a share
    :math:`1 - 1/\lVert Y_k\rVert_2` of the dual value however few singular values are
    above 1. A round clips those singular values to 1 (the projection onto the spectral
    ball, :func:`_clipped_spectrum`, from the eigenpairs of the last Gram matrix
    ``G``), then the entries to :math:`[-\lambda, \lambda]` (the projection onto the
    other ball), and scales the result by its exact spectral norm (from its own Gram
    matrix): a dual feasible point, so by weak duality a certified gap again. Each round
    costs one more pass over the blocks and a Gram matrix (about an iteration), so the
    rounds go on only while they can still reach ``target``: while the gap of the
    unscaled point, which the scaling's loss cannot lower, is below it
    (``REFINE_ROUNDS`` at most). The smallest gap is returned.
    """
    clips: list = []
    best = np.inf
    for _ in range(REFINE_ROUNDS):
        clip = _clipped_spectrum(G)
        if clip is None:  # the last point was inside the spectral ball already
            break
        clips.append(clip)
        value, G = _projected_pass(data, sparse, out, clips, wide)
        two = float(np.sqrt(max(_top_eigenvalue(G), 0.0)))
        best = min(best, (objective - value / max(1.0, two)) / objective)
        reachable = target > 0 and (objective - value) / objective <= target
        if best <= target or not reachable:
            break
    return best


def _projected_pass(data: _Data, sparse, out: _ALMOutcome, clips: list, wide: bool):
    """One pass over the blocks of the final multiplier, each projected by the rounds of
    ``clips`` in turn (spectral clip, then entry clip): the dual value ``<X - c, Z>`` of
    the result ``Z`` and its Gram matrix (upper triangle), which is never formed."""
    d, value = data.shape[1], 0.0
    Z = np.zeros((0, 0) if wide else (d, d), order="F")  # wide: from grams
    grams = _GramSum(data, _numpy_grams(data, sparse)) if wide else None
    for block in data.columns if wide else data.rows:
        rows, cols = (slice(None), block) if wide else (block, slice(None))
        Yk, S, T = data.column_block(block) if wide else data.row_block(block)
        _final_blocks(sparse, out, rows, cols, Yk, S)
        for E, c in clips:  # ping-pong between the two scratch blocks
            _clip_into(E, c, Yk, S, wide)
            np.clip(S, -sparse.lam, sparse.lam, out=S)
            Yk, S = S, Yk
        value += float(np.vdot(data.take(rows, cols, T), Yk))
        if grams is not None:
            grams.add(Yk)
        else:
            Z = _syrk_upper(Z, Yk.T, trans=0)
    return value, Z if grams is None else grams.result()


def duality_gap(X: np.ndarray, Y: np.ndarray, objective: float, dual_norm, free_mean=False):
    r"""Relative gap between a primal value and the dual value of a scaled multiplier.

    The three problems are :math:`\min f(L) + g(X - L)` with norms ``f``, ``g``; their
    dual is :math:`\max \langle X, Y\rangle` over :math:`f^*(Y) \le 1`,
    :math:`g^*(Y) \le 1` (and :math:`Y^\top 1 = 0` with a free mean). ``Y`` is made
    feasible (centred, then divided by ``max(1, dual_norm(Y))``), so by weak duality
    ``(objective - <X, Y>) / objective`` is a certified upper bound on the relative
    suboptimality of ``objective`` (it is never negative beyond rounding).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data of the problem (centred where the problem centres it).
    Y : ndarray of shape (n_samples, n_features)
        A multiplier (the ALM's), made feasible here.
    objective : float
        The primal value to certify.
    dual_norm : callable
        ``dual_norm(Y)``: the larger of :math:`f^*` and :math:`g^*` as norms, e.g. the
        larger of the spectral norm and the largest entry over ``lam`` for PCP.
    free_mean : bool, default=False
        Whether the problem has a free mean (CRPCA-OM): ``Y`` is centred first.

    Returns
    -------
    float
    """
    if objective <= 0:
        return 0.0
    if free_mean:
        Y = Y - Y.mean(axis=0)
    value = float(np.vdot(X, Y)) / max(1.0, dual_norm(Y))
    return (objective - value) / objective
