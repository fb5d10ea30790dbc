r"""Online robust PCA by stochastic optimisation (OR-PCA; Feng, Xu & Yan 2013).

OR-PCA minimises the stable PCP problem (their problem (2))

.. math:: \min_{X, E}\ \tfrac12\lVert Z - X - E\rVert_F^2 + \lambda_1\lVert X\rVert_*
          + \lambda_2\lVert E\rVert_1

through the factored nuclear norm
:math:`\lVert X\rVert_* = \min_{X = LR^\top} \tfrac12(\lVert L\rVert_F^2 + \lVert R\rVert_F^2)`,
which makes the loss separable over the samples (problem (3)): with a basis
:math:`L \in \mathbb R^{p\times r}`, each sample :math:`z` costs

.. math:: \ell(z, L) = \min_{r, e}\ \tfrac12\lVert z - Lr - e\rVert_2^2
          + \tfrac{\lambda_1}{2}\lVert r\rVert_2^2 + \lambda_2\lVert e\rVert_1 .

Algorithm 1 reveals the samples one at a time: it projects each on the current basis
(Algorithm 2, alternating :math:`r \leftarrow (L^\top L + \lambda_1 I)^{-1}L^\top(z - e)`
and :math:`e \leftarrow \mathcal S_{\lambda_2}(z - Lr)`), accumulates
:math:`A \leftarrow A + rr^\top` and :math:`B \leftarrow B + (z - e)r^\top`, and updates the
basis to the minimiser of the surrogate

.. math:: g_t(L) = \frac1t\Big[\tfrac12\operatorname{tr}\big(L^\top(A_t + \lambda_1 I)L\big)
          - \operatorname{tr}(L^\top B_t) + c_t\Big],

an upper bound of the empirical loss :math:`f_t(L) = \frac1t\sum_i \ell(z_i, L) +
\frac{\lambda_1}{2t}\lVert L\rVert_F^2` that it converges with (their Theorem 1; :math:`c_t`
collects the terms free of :math:`L`).

What this module does differently, and why:

* **Batches as matrix products.** A batch of ``b`` samples is projected on the basis at
  the batch's start all at once, as two products with ``r`` columns per inner iteration
  (:func:`orpca_project`); the statistics then take the whole batch (``b = 1`` is the
  paper's algorithm).
* **One component: a root.** With rank one, each row's coefficient is the root of an
  increasing scalar function, bracketed by regula falsi (:func:`_project_rank_one`):
  the alternation crawls where many entries are clipped and stops far from the minimiser.
* **Exact basis step.** The paper's Algorithm 3 sweeps the columns of :math:`L` once
  (block-coordinate descent, warm-started); the surrogate is a quadratic with the
  closed-form minimiser :math:`L = B(A + \lambda_1 I)^{-1}`, an ``r x r`` solve, which we
  take instead.
* **Forgetting.** :math:`A, B, c` and the count ``t`` decay by a factor :math:`\beta` per
  sample (:math:`\beta = 1`: the paper), so that the basis follows a drifting subspace
  over a window of about :math:`1/(1 - \beta)` samples.
* **Start.** The first batch gives the initial basis (:mod:`.orpca_start`): its
  per-feature median and the top directions of what the median leaves, refined by a
  few alternations of problem (3) on the batch, so the first frames of a video are
  separated by a background already (a random start, as in the paper, takes hundreds of
  samples to reach one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from ..linalg.work_space import reusable, work_space
from ..robust_scale import _nan_median

__all__ = [
    "MAD_CONSTANT",
    "ORPCAState",
    "OrpcaStep",
    "orpca_loss",
    "orpca_low_rank",
    "orpca_project",
    "orpca_update",
]

#: Consistency constant of the median absolute deviation at the normal distribution.
MAD_CONSTANT = 1.4826
#: At most this many features of each row enter the median start of a rank-one
#: projection (:func:`_median_start`): a start needs no more.
START_SAMPLE = 1024


@dataclass
class ORPCAState:
    r"""The O(p r) state of OR-PCA: the basis and the accumulated statistics.

    Attributes
    ----------
    basis : ndarray of shape (n_features, n_components)
        :math:`L`, in the data's floating dtype.
    A : ndarray of shape (n_components, n_components)
        :math:`\sum_i \beta^{t-i} r_i r_i^\top` (float64).
    B : ndarray of shape (n_features, n_components)
        :math:`\sum_i \beta^{t-i} (z_i - e_i) r_i^\top` (float64).
    c : float
        :math:`\sum_i \beta^{t-i}\big(\tfrac12\lVert z_i - e_i\rVert^2 + \tfrac{\lambda_1}{2}
        \lVert r_i\rVert^2 + \lambda_2\lVert e_i\rVert_1\big)`: the surrogate's constant.
    weight : float
        :math:`\sum_i \beta^{t-i}`, the discounted count (``t`` when :math:`\beta = 1`).
    lambda1, lambda2 : float
        The penalties, in the data's units.
    n_seen : int
        Samples processed.
    A_rows : ndarray of shape (n_features, n_components, n_components) or None
        :math:`A_j = \sum_i \beta^{t-i}\omega_{ij} r_i r_i^\top`, feature by feature,
        once a missing entry has been seen (:mod:`.orpca_observed`); None before.
    """

    basis: np.ndarray
    A: np.ndarray
    B: np.ndarray
    c: float
    weight: float
    lambda1: float
    lambda2: float
    n_seen: int = 0
    A_rows: np.ndarray | None = None

    def surrogate(self, basis: np.ndarray | None = None) -> float:
        r""":math:`g_t(L)` per unit of weight.

        Parameters
        ----------
        basis : ndarray of shape (n_features, n_components) or None, default=None
            :math:`L`; None: the state's.
        """
        L = np.asarray(self.basis if basis is None else basis, dtype=np.float64)
        if self.A_rows is None:
            quad = 0.5 * float(np.sum(L * (L @ self.A)))
        else:  # feature by feature (:mod:`.orpca_observed`)
            quad = 0.5 * float(np.einsum("jk,jkm,jm->", L, self.A_rows, L))
        quad += 0.5 * self.lambda1 * float(np.sum(L * L))
        value = quad - float(np.sum(L * self.B)) + self.c
        return value / self.weight if self.weight > 0 else value


@dataclass(frozen=True)
class OrpcaStep:
    """What one batch's projection returns: coefficients, the two parts, the loss terms.

    The split is computed with the basis of the batch's start (Algorithm 1: :math:`r_t,
    e_t` from :math:`L_{t-1}`).

    Attributes
    ----------
    coefficients : ndarray of shape (n_samples, n_components)
        The rows' coefficients :math:`r_i`.
    low_rank : ndarray of shape (n_samples, n_features) or None
        ``coefficients @ basis.T``, the batch's low-rank part; None from a projection
        asked for the residual instead (:func:`orpca_project`).
    sparse : ndarray of shape (n_samples, n_features) or None
        The batch's sparse part :math:`E`; None where ``low_rank`` is.
    clipped : ndarray of shape (n_samples, n_features)
        ``z - e - low_rank``, the residual inside :math:`[-\\lambda_2, \\lambda_2]`.
    n_iter : int
        The inner iterations run.
    residual : ndarray of shape (n_samples, n_features) or None
        ``z - low_rank = sparse + clipped``, from a projection asked for it; else None.
    """

    coefficients: np.ndarray
    low_rank: np.ndarray | None
    sparse: np.ndarray | None
    clipped: np.ndarray
    n_iter: int
    residual: np.ndarray | None = None

    def parts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low_rank, sparse)``, which a projection asked for the residual has not."""
        if self.low_rank is None or self.sparse is None:
            raise ValueError("this projection gave the residual, not the two parts.")
        return self.low_rank, self.sparse


def _ridge_operators(basis: np.ndarray, lambda1: float):
    """``P = (L'L + lambda1 I)^{-1} L'`` (r x p) and ``H = (P L)'`` (r x r), in the
    basis's dtype: the ridge step is ``r = P (z - e)``."""
    L = basis.astype(np.float64)
    gram = L.T @ L
    G = gram + lambda1 * np.eye(gram.shape[0])
    if not lambda1 > 0:  # positive definite only through the ridge: a small one
        G = G + np.eye(G.shape[0]) * max(np.trace(gram), 1.0) * 1e-12
    P = sla.solve(G, L.T, assume_a="pos", check_finite=False)
    H = (P @ L).T
    return P.astype(basis.dtype), H.astype(basis.dtype)


def _outer(R: np.ndarray, Lt: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = R @ Lt`` for ``r`` columns: a broadcast product for one column (NumPy's
    ``matmul`` with an inner dimension of one does not reach BLAS and is ten times
    slower), ``matmul`` into ``out`` otherwise."""
    if R.shape[1] == 1:
        return np.multiply(R, Lt, out=out)
    return np.matmul(R, Lt, out=out)


def _right(C: np.ndarray, P: np.ndarray) -> np.ndarray:
    """``C @ P.T`` for the ``r`` rows of ``P``, one matrix-vector product per row: for a
    few columns OpenBLAS's single-precision ``gemm`` is several times slower than its
    ``gemv`` on the same data."""
    out = np.empty((C.shape[0], P.shape[0]), dtype=np.result_type(C, P))
    for j in range(P.shape[0]):
        np.matmul(C, P[j], out=out[:, j])
    return out


def _left(R: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``C.T @ R`` (p, r) in float64, one vector-matrix product per column of ``R``."""
    out = np.empty((C.shape[1], R.shape[1]))
    for j in range(R.shape[1]):
        out[:, j] = np.ascontiguousarray(R[:, j]) @ C
    return out


def _median_start(Z: np.ndarray, u: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """A robust start for one component: each row's median of ``z_j / u_j`` over a
    regular grid of at most :data:`START_SAMPLE` features, those whose ``|u_j|`` is at
    least half the grid's median (a ratio over a small loading is mostly noise); the
    least absolute deviations fit of the row on ``u`` when every ``u_j`` is equal. With
    ``weights`` (0 at the gaps), over the observed features (0 where none is)."""
    step = max(1, Z.shape[1] // START_SAMPLE)
    u_grid = u[::step]
    size = np.abs(u_grid)
    ok = size >= 0.5 * float(np.median(size))
    ok &= size > 0
    if not ok.any():
        return np.zeros(Z.shape[0])
    ratio = Z[:, ::step][:, ok] / u_grid[ok]
    if weights is not None:
        ratio = np.where(weights[:, ::step][:, ok] > 0, ratio, np.nan)
        start = _nan_median(ratio, axis=1).astype(np.float64)
        return np.where(np.isnan(start), 0.0, start)
    half = ratio.shape[1] // 2
    return np.partition(ratio, half, axis=1)[:, half].astype(np.float64)


def _project_rank_one(
    Z: np.ndarray,
    basis: np.ndarray,
    lambda1: float | np.ndarray,
    lambda2: float,
    max_iter: int,
    tol: float,
    buf: np.ndarray | None = None,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    r"""The coefficients (b, 1) of problem (3) for one component, and the evaluations run.

    With one column :math:`l`, each row's coefficient is the root of the continuous,
    increasing :math:`\phi(r) = \lambda_1 r - l^\top\psi(z - lr)` (``psi`` the clipping
    at :math:`\pm\lambda_2`), whose slope :math:`\lambda_1 + \sum_{|z_j - l_jr| <
    \lambda_2} l_j^2` lies in :math:`(0, M]`, :math:`M = \lVert l\rVert^2 + \lambda_1`.
    Algorithm 2's alternation is the step :math:`r - \phi(r)/M`, which never crosses the
    root but crawls where many entries are clipped (its rate is their share of
    :math:`\lVert l\rVert^2`). Here: a median start (:func:`_median_start`), that step
    once, secant steps until the root is bracketed, then the Illinois form of regula
    falsi, which keeps the bracket and converges superlinearly. A row stops once its
    low-rank part is within ``tol`` times its norm of the exact one: a bracket twice
    that wide (its midpoint is returned), or :math:`|\phi(r)|` at most
    :math:`\lambda_1` times that distance (the slope is at least :math:`\lambda_1`).
    Shorter steps are lengthened to it, as in Brent's method (at a kink, a short step
    need not mean a near root, so Algorithm 2's rule would stop early). Each evaluation
    runs on the rows still moving: a row's result does not depend on the batch.
    ``lambda1`` may be one value per row. ``buf`` (like ``Z``, or None) is the work
    space. ``weights`` (like ``Z``, 1 where observed and 0 at the gaps, where ``Z`` is
    0), when given: the sums run over each row's observed entries (:mod:`.orpca_observed`).
    """
    dtype = Z.dtype
    buf = np.empty_like(Z) if buf is None else buf
    b = Z.shape[0]
    u = np.ascontiguousarray(basis[:, 0])
    u64 = u.astype(np.float64)
    norm_sq = float(u64 @ u64)
    if not norm_sq > 0:  # no basis: phi(r) = lambda1 r
        return np.zeros((b, 1), dtype=dtype), 0
    ridge = np.broadcast_to(np.asarray(lambda1, dtype=np.float64), (b,))
    lo, hi = dtype.type(-lambda2), dtype.type(lambda2)
    # the stopping distance in r: the low-rank part within tol times the row's norm
    step_tol = tol * np.sqrt(np.einsum("ij,ij->i", Z, Z, dtype=np.float64) / norm_sq)

    def phi(rows: np.ndarray, r: np.ndarray) -> np.ndarray:
        whole, work = rows.size == b, buf[: rows.size]
        np.multiply(r.astype(dtype)[:, None], u, out=work)
        np.subtract(Z if whole else Z[rows], work, out=work)
        if weights is not None:
            np.multiply(work, weights if whole else weights[rows], out=work)
        np.clip(work, lo, hi, out=work)
        return ridge[rows] * r - _right(work, u[None, :])[:, 0].astype(np.float64)

    out = _median_start(Z, u, weights)
    rows, r = np.arange(b), out.copy()  # the rows still moving, and their iterates
    left, f_left = np.full(b, -np.inf), np.full(b, -np.inf)  # phi < 0 there
    right, f_right = np.full(b, np.inf), np.full(b, np.inf)  # phi >= 0 there
    last = np.zeros(b, dtype=np.int8)  # the end replaced last: -1 left, 1 right
    r_prev, f_prev = np.full(b, np.nan), np.full(b, np.nan)
    n_eval = 0
    while rows.size and n_eval < max_iter:
        f = phi(rows, r)
        n_eval += 1
        below = f < 0
        side = np.where(below, -1, 1).astype(np.int8)
        # Illinois: the same end replaced twice halves the other end's value
        again = side == last
        fr = np.where(again & below, 0.5 * f_right, f_right)
        fl = np.where(again & ~below, 0.5 * f_left, f_left)
        lf, fl = np.where(below, r, left), np.where(below, f, fl)
        rt, fr = np.where(below, right, r), np.where(below, fr, f)
        bracketed = np.isfinite(lf) & np.isfinite(rt)
        with np.errstate(divide="ignore", invalid="ignore"):
            secant = (f - f_prev) / (r - r_prev)  # NaN at the first evaluation
            falsi = lf - fl * (rt - lf) / (fr - fl)
        slope_max = norm_sq + ridge[rows]
        slope = np.where(secant > 0, np.minimum(secant, slope_max), slope_max)
        new = np.where(bracketed, falsi, r - f / slope)
        new = np.where(np.isfinite(new), new, r)  # a flat stretch (lambda1 = 0) ends here
        tol_r = step_tol[rows]
        move = new - r
        short = np.abs(move) < tol_r  # lengthened to tol_r, towards the root
        mid = np.where(bracketed, 0.5 * (lf + rt), np.where(below, np.inf, -np.inf))
        new = np.where(short & below, np.minimum(r + tol_r, mid), new)
        new = np.where(short & ~below, np.maximum(r - tol_r, mid), new)
        # phi's slope is at least lambda1: |phi(r)| <= lambda1 tol_r puts r that close
        exact = np.abs(f) <= ridge[rows] * tol_r
        narrow = bracketed & (rt - lf <= 2 * tol_r)
        out[rows] = np.where(exact, r, np.where(narrow, mid, new))
        keep = ~(exact | narrow)
        rows = rows[keep]
        left, f_left, right, f_right = lf[keep], fl[keep], rt[keep], fr[keep]
        last, r_prev, f_prev, r = side[keep], r[keep], f[keep], new[keep]
    return out.astype(dtype)[:, None], n_eval


def orpca_project(
    Z: np.ndarray,
    basis: np.ndarray,
    lambda1: float,
    lambda2: float,
    *,
    max_iter: int = 20,
    tol: float = 1e-4,
    work: np.ndarray | None = None,
    residual: bool = False,
    out: np.ndarray | None = None,
) -> OrpcaStep:
    r"""Algorithm 2 on every row of ``Z`` at once: coefficients and sparse part.

    Alternates :math:`R \leftarrow (Z - E)P^\top` with :math:`P = (L^\top L +
    \lambda_1 I)^{-1}L^\top` and :math:`E \leftarrow \mathcal S_{\lambda_2}(Z - RL^\top)`
    from the ridge coefficients of ``Z``, written on the clipped residual
    :math:`C = Z - E - RL^\top` (so :math:`R \leftarrow RH + CP^\top`): two products with
    ``r`` columns and two passes over the batch per iteration. Rows without clipped
    entries are exact after the first iteration. With one component the same minimiser
    is found as the root of a scalar function (:func:`_project_rank_one`).

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The batch (not modified).
    basis : ndarray of shape (n_features, n_components)
        :math:`L`.
    lambda1 : float
        :math:`\lambda_1`, the ridge on the coefficients.
    lambda2 : float
        :math:`\lambda_2`, the l1 penalty of the sparse part.
    max_iter : int, default=20
        The most iterations (with one component: evaluations of the scalar function).
    tol : float, default=1e-4
        Stops when every row's low-rank part changes by at most ``tol`` times the row's
        norm (the paper's criterion on :math:`r`, taken on :math:`Lr`). With one
        component, each row stops when its low-rank part is within that distance of the
        exact minimiser's (:func:`_project_rank_one`).
    work : ndarray or None, default=None
        An array of ``Z``'s shape and dtype for the work space, returned as ``clipped``
        (a stream passes the last batch's, so that no new batch-sized memory is touched).
    residual : bool, default=False
        Give ``Z - low_rank`` instead of the two parts (a stream that thresholds the
        residual needs neither: two batch-sized arrays fewer).
    out : ndarray or None, default=None
        Written over with the residual where it is an array of ``Z``'s shape and dtype.
    """
    R, buf, n_iter = _coefficients(Z, basis, lambda1, lambda2, max_iter, tol, work)
    Lt = np.ascontiguousarray(basis.T)
    bound = Z.dtype.type(lambda2)
    if residual:
        into = reusable(out, Z)
        if into is not None and np.shares_memory(into, buf):  # one array for both
            into = None
        D = _outer(R, Lt, work_space(Z.shape, Z.dtype) if into is None else into)
        np.subtract(Z, D, out=D)
        np.clip(D, -bound, bound, out=buf)
        return OrpcaStep(R, None, None, buf, n_iter, D)
    low = _outer(R, Lt, np.empty_like(Z))
    sparse = np.subtract(Z, low)
    np.clip(sparse, -bound, bound, out=buf)  # the final clipped residual
    sparse -= buf
    return OrpcaStep(R, low, sparse, buf, n_iter)


def orpca_low_rank(coefficients: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """The low-rank part ``coefficients @ basis.T`` of a projection, as
    :func:`orpca_project` forms it (the same products, so the same values).

    Parameters
    ----------
    coefficients : ndarray of shape (n_samples, n_components)
    basis : ndarray of shape (n_features, n_components)
    """
    out = np.empty((coefficients.shape[0], basis.shape[0]), dtype=coefficients.dtype)
    return _outer(coefficients, np.ascontiguousarray(basis.T), out)


def orpca_clipped(
    Z: np.ndarray,
    basis: np.ndarray,
    lambda1: float,
    lambda2: float,
    *,
    max_iter: int = 20,
    tol: float = 1e-4,
    work: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`orpca_project`'s coefficients and clipped residual only (what a basis
    update needs), without the two parts: one batch-sized array instead of three
    (``work``, as in :func:`orpca_project`)."""
    R, buf, _ = _coefficients(Z, basis, lambda1, lambda2, max_iter, tol, work)
    _outer(R, np.ascontiguousarray(basis.T), buf)
    np.subtract(Z, buf, out=buf)
    bound = Z.dtype.type(lambda2)
    np.clip(buf, -bound, bound, out=buf)
    return R, buf


def _coefficients(
    Z: np.ndarray,
    basis: np.ndarray,
    lambda1: float,
    lambda2: float,
    max_iter: int,
    tol: float,
    work: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Problem (3)'s coefficients for every row of ``Z``, a batch-sized work array (its
    content undefined: ``work`` where it is one of ``Z``'s shape and dtype) and the
    iterations run."""
    dtype = Z.dtype
    lo, hi = dtype.type(-lambda2), dtype.type(lambda2)
    buf = reusable(work, Z)
    buf = work_space(Z.shape, Z.dtype) if buf is None else buf
    if basis.shape[1] == 1:
        R, n_iter = _project_rank_one(Z, basis, lambda1, lambda2, max_iter, tol, buf)
    else:
        R, n_iter = _alternate(Z, basis, lambda1, lo, hi, max_iter, tol, buf)
    return R, buf, n_iter


def _alternate(
    Z, basis, lambda1, lo, hi, max_iter: int, tol: float, buf: np.ndarray | None = None
) -> tuple[np.ndarray, int]:
    """Algorithm 2's alternation (:func:`orpca_project`): the coefficients and the
    iterations run (``buf``, like ``Z``, or None: the work space)."""
    buf = np.empty_like(Z) if buf is None else buf
    P, H = _ridge_operators(basis, lambda1)
    Lt = np.ascontiguousarray(basis.T)
    P = np.ascontiguousarray(P)
    gram = (basis.T @ basis).astype(np.float64)
    R = _right(Z, P)
    row_sq = np.einsum("ij,ij->i", Z, Z, dtype=np.float64)
    limit = (tol * tol) * row_sq
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (n_iter is returned)
        _outer(R, Lt, buf)
        np.subtract(Z, buf, out=buf)
        np.clip(buf, lo, hi, out=buf)
        R_new = R @ H + _right(buf, P)
        delta = (R_new - R).astype(np.float64)
        R = R_new
        if np.all(np.einsum("ij,jk,ik->i", delta, gram, delta) <= limit):
            break
    return R, n_iter


def orpca_loss(
    step: OrpcaStep,
    basis: np.ndarray,
    lambda1: float,
    lambda2: float,
    CtR: np.ndarray | None = None,
):
    r"""The per-batch sums of the surrogate's constant,
    :math:`\sum_i \tfrac12\lVert z_i - e_i\rVert^2 + \tfrac{\lambda_1}{2}\lVert r_i\rVert^2 +
    \lambda_2\lVert e_i\rVert_1`, and of the loss at the projection's basis,
    :math:`\sum_i \ell(z_i, L)` (with :math:`z_i - e_i - Lr_i` the clipped residual).
    :math:`\lVert e_i\rVert_1` is read off :math:`\langle E, C\rangle/\lambda_2`, since
    :math:`C = \pm\lambda_2` with the sign of :math:`E` wherever :math:`E \ne 0`.

    Parameters
    ----------
    step : OrpcaStep
        The batch's projection.
    basis : ndarray of shape (n_features, n_components)
        :math:`L`, the projection's basis.
    lambda1 : float
        :math:`\lambda_1` of the projection.
    lambda2 : float
        :math:`\lambda_2` of the projection.
    CtR : ndarray of shape (n_features, n_components) or None, default=None
        :math:`C^\top R`, which the update computes anyway: it saves a pass over the batch.
    """
    R = step.coefficients.astype(np.float64)
    gram = (basis.T @ basis).astype(np.float64)
    C = step.clipped
    if CtR is None:
        CtR = _left(step.coefficients, C)
    low_sq = float(np.sum((R @ gram) * R))
    cross = float(np.sum(basis.astype(np.float64) * CtR))
    clip_sq = float(np.vdot(C, C))
    if step.residual is None:
        E = step.parts()[1]
        if lambda2 > 0:
            l1 = float(np.vdot(E, C)) / lambda2
        else:
            l1 = float(np.abs(E).sum(dtype=np.float64))
    elif lambda2 > 0:  # <E, C> = <D - C, C> with D = E + C the residual
        l1 = (float(np.vdot(step.residual, C)) - clip_sq) / lambda2
    else:  # no clipping: E = D
        l1 = float(np.abs(step.residual).sum(dtype=np.float64))
    ridge = 0.5 * lambda1 * float(np.sum(R * R))
    constant = 0.5 * (low_sq + 2.0 * cross + clip_sq) + ridge + lambda2 * l1
    loss = 0.5 * clip_sq + ridge + lambda2 * l1
    return constant, loss


def orpca_update(
    state: ORPCAState,
    Z: np.ndarray,
    *,
    forgetting: float = 1.0,
    max_iter: int = 20,
    tol: float = 1e-4,
    work: np.ndarray | None = None,
    residual: bool = False,
    out: np.ndarray | None = None,
) -> tuple[ORPCAState, OrpcaStep, float]:
    r"""One step of Algorithm 1 on the batch ``Z``: project, accumulate, update the basis.

    The batch is split with the current basis (:func:`orpca_project`); then
    :math:`A \leftarrow \beta^b A + R^\top R`, :math:`B \leftarrow \beta^b B + (Z - E)^\top R`
    (with :math:`Z - E = RL^\top + C`, one product), and :math:`L \leftarrow
    B(A + \lambda_1 I)^{-1}`, the surrogate's minimiser. ``state`` is updated in place
    and returned with the batch's :class:`OrpcaStep` and its loss
    :math:`\sum_i \ell(z_i, L_{t-1})`.

    Parameters
    ----------
    state : ORPCAState
        Updated in place.
    Z : ndarray of shape (n_samples, n_features)
        The batch.
    forgetting : float, default=1.0
        :math:`\beta`, the decay of the statistics per sample (1: the paper's).
    max_iter : int, default=20
        As in :func:`orpca_project`.
    tol : float, default=1e-4
        As in :func:`orpca_project`.
    work : ndarray or None, default=None
        As in :func:`orpca_project`.
    residual : bool, default=False
        As in :func:`orpca_project`.
    out : ndarray or None, default=None
        As in :func:`orpca_project`.
    """
    L = state.basis
    step = orpca_project(
        Z,
        L,
        state.lambda1,
        state.lambda2,
        max_iter=max_iter,
        tol=tol,
        work=work,
        residual=residual,
        out=out,
    )
    R = step.coefficients.astype(np.float64)
    decay = forgetting ** Z.shape[0]
    RtR = R.T @ R
    CtR = _left(step.coefficients, step.clipped)
    constant, loss = orpca_loss(step, L, state.lambda1, state.lambda2, CtR)
    state.A = decay * state.A + RtR
    state.B = decay * state.B + L.astype(np.float64) @ RtR + CtR
    state.c = decay * state.c + constant
    state.weight = decay * state.weight + Z.shape[0]
    state.n_seen += Z.shape[0]
    # the stream's dtype: float64 once a batch was (as IncrementalPCA's)
    state.basis = basis_step(state.A, state.B, state.lambda1).astype(np.result_type(L, Z))
    return state, step, loss


def basis_step(A: np.ndarray, B: np.ndarray, lambda1: float) -> np.ndarray:
    r"""The minimiser :math:`B(A + \lambda_1 I)^{-1}` of the surrogate (float64)."""
    G = A + lambda1 * np.eye(A.shape[0])
    if not lambda1 > 0:  # positive definite only through the ridge: a small one
        G = G + np.eye(G.shape[0]) * max(np.trace(A), 1.0) * 1e-12
    return sla.solve(G, B.T, assume_a="pos", check_finite=False).T
