r"""The reweighting loops in passes over row chunks: the optimisation core of the dask route.

Every reweighting method of Nie et al. (2014, Algorithm 2) alternates a weighted
closed-form step with a per-sample weight rule. For problem (14),

.. math::
    \min_{b,\; U^\top U = I} \sum_i d_i \lVert (I - UU^\top)(x_i - b) \rVert_2^2
    \;\Rightarrow\; b = \frac{\sum_i d_i x_i}{\sum_i d_i},\quad
    U = \text{top-}k \text{ eigenvectors of } \sum_i d_i (x_i - b)(x_i - b)^\top ,

the step needs only the weighted count, mean and ``d x d`` scatter, which are sums over
the samples. A *pass* visits every chunk of rows once and returns these small sums: at the
current state ``x`` each chunk computes its residual norms ``r_i(x)``, the weights
``d_i = h'(r_i^2)`` of the loss and its weighted moments, and the runner adds the
chunks up. The eigen step then runs in memory on the ``d x d`` matrix: one pass is one
iteration. For accuracy, no scatter is accumulated about the origin: a chunk's scatter is
taken about its own mean in the first pass and about the current centre afterwards
(a shift by less than the data's spread), and chunks are merged by the pairwise formula
of Chan, Golub & LeVeque (:class:`Moments`), so data far from the origin lose nothing to
cancellation.

That fusion needs a *local* weight rule: ``d_i`` must depend on ``r_i`` alone. The
rules of R1-PCA with the median cutoff, of RWL-AN (the ``k`` smallest errors) and of an
exactly zero ``epsilon`` (residuals floored at ``1e-12`` times the largest) depend on
every residual; their iterations take two passes, one that brings the ``n`` residual
norms back (``8 n`` bytes) for the global rule and one that forms the moments with the
resulting weights (:func:`weights_are_local`).

Wide data (``n_samples < n_features``) take the Gram route instead, as in memory: a
column runner (:class:`NumpyColumnRunner`, or the dask one) passes over blocks of whole
columns, :class:`GramPasses` gathers the centred ``n x n`` Gram matrix in one pass, and
:class:`GramWeightedPCA` solves problem (14) on it in memory, reaching back to the data
only for explicit residuals and for the final ``d``-dimensional basis and mean.

A runner is any callable ``run(kernel, rows=None, **params) -> dict`` that applies
``kernel(x_block, rows_block, **params)`` to every chunk and adds the returned
dictionaries key by key (numbers and arrays by ``+``, :class:`Moments` by Chan's formula,
:class:`Rows` by concatenation in chunk order). :class:`NumpyPassRunner` is the in-memory
runner; :mod:`robustpca._dask` provides the dask one, with one ``dask.compute`` per call.
Nothing here imports dask, validates or warns.

References
----------
F. Nie, J. Yuan and H. Huang, "Optimal Mean Robust Principal Component Analysis",
ICML 2014, problems (13)-(16), Algorithms 1-2.
T. F. Chan, G. H. Golub and R. J. LeVeque, "Updating formulae and a pairwise algorithm
for computing sample variances", COMPSTAT 1982.

Examples
--------
Weighted moments of 10 rows gathered in chunks of 3 equal those of the whole array:

>>> import numpy as np
>>> from robustpca.solvers.chunked import NumpyPassRunner, moments_pass
>>> X = np.random.default_rng(0).normal(size=(10, 4)) + 1e6
>>> m = NumpyPassRunner(X, chunk_rows=3)(moments_pass)["moments"]
>>> Xc = X - X.mean(axis=0)
>>> bool(np.allclose(m.mean, X.mean(axis=0)) and np.allclose(m.scatter, Xc.T @ Xc))
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial, wraps
from typing import Any

import numpy as np
from scipy import linalg as sla

from ..linalg import (
    SMALL_GRAM,
    WarmStartEigh,
    cholesky_qr,
    complete_orthonormal,
    gram_step,
    positive_eigen_mask,
    single_blas_thread,
    top_eigh,
)
from ..losses import CappedL2Loss, CauchyLoss, HuberLoss, L2pLoss, L21Loss, RobustLoss, WelschLoss
from ._result import IterationState, StopReason, relative_change

__all__ = [
    "ChunkedReweightingResult",
    "GramPasses",
    "GramSubspace",
    "GramWeightedPCA",
    "Moments",
    "NumpyColumnRunner",
    "NumpyPassRunner",
    "Rows",
    "SubspaceIterationStep",
    "SubspaceState",
    "WeightedPCAStep",
    "by_sub_blocks",
    "column_pass",
    "combine_parts",
    "gather_stats",
    "gram_pass",
    "minimize_reweighted_chunked",
    "moments_pass",
    "recentred_gram",
    "reweight_pass",
    "rows_block",
    "sub_blocks",
    "weights_are_local",
]

PassRunner = Callable[..., dict]


# --------------------------------------------------------------------------- reductions
@dataclass(frozen=True)
class Moments:
    """Weighted count, mean and centred scatter of a set of rows; ``+`` merges two sets.

    ``scatter`` is :math:`\\sum_i w_i (x_i - \\bar x_w)(x_i - \\bar x_w)^\\top` (``None``
    when only the mean is gathered). Merging uses Chan et al.'s pairwise update,
    :math:`S = S_a + S_b + \\frac{w_a w_b}{w_a + w_b}\\,\\delta\\delta^\\top` with
    :math:`\\delta = \\bar x_b - \\bar x_a`, exact in exact arithmetic and free of the
    cancellation of :math:`\\sum w x x^\\top - W \\bar x \\bar x^\\top`.
    """

    weight: float
    mean: np.ndarray
    scatter: np.ndarray | None

    def __add__(self, other: Moments) -> Moments:
        if other.weight == 0:
            return self
        if self.weight == 0:
            return other
        total = self.weight + other.weight
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.weight / total)
        scatter = None
        if self.scatter is not None:
            scatter = self.scatter + other.scatter
            scatter += np.outer(delta, delta) * (self.weight * other.weight / total)
        return Moments(total, mean, scatter)

    def scatter_about(self, center: np.ndarray) -> np.ndarray:
        """:math:`\\sum_i w_i (x_i - c)(x_i - c)^\\top` for a fixed centre ``c``."""
        delta = self.mean - center
        return self.scatter + self.weight * np.outer(delta, delta)


@dataclass(frozen=True)
class Rows:
    """Per-sample values of consecutive chunks; ``+`` appends (chunk order is kept)."""

    parts: tuple[np.ndarray, ...]

    def __add__(self, other: Rows) -> Rows:
        return Rows(self.parts + other.parts)

    @property
    def values(self) -> np.ndarray:
        """The values of every sample, in row order."""
        return np.concatenate(self.parts) if self.parts else np.empty(0)


def combine_parts(*parts: dict) -> dict:
    """Add the per-chunk dictionaries of a pass key by key, left to right."""
    out = dict(parts[0])
    for part in parts[1:]:
        for key, value in part.items():
            out[key] = out[key] + value
    return out


class NumpyPassRunner:
    """The in-memory runner: a pass is a loop over row slices of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    chunk_rows : int
        Rows per chunk.

    Attributes
    ----------
    n_passes : int
        Passes run so far.
    """

    def __init__(self, X: np.ndarray, chunk_rows: int):
        self.X = X
        self.bounds = [
            (i, min(i + chunk_rows, X.shape[0])) for i in range(0, X.shape[0], chunk_rows)
        ]
        self.n_passes = 0

    def __call__(self, kernel: Callable[..., dict], rows=None, **params) -> dict:
        self.n_passes += 1
        parts = [
            kernel(self.X[a:b], None if rows is None else np.asarray(rows)[a:b], **params)
            for a, b in self.bounds
        ]
        return combine_parts(*parts)


class NumpyColumnRunner:
    """The in-memory runner of the wide route: a pass is a loop over blocks of columns.

    ``run(kernel, cols=None, also=None, **params)`` applies ``kernel(X[:, a:b],
    cols[a:b], **params)`` to every block of ``chunk_cols`` whole columns (``cols``:
    per-feature values, split like the columns) and adds the results; ``also`` is
    returned under the key ``'also'`` (the dask runner computes it in the same call).
    """

    def __init__(self, X: np.ndarray, chunk_cols: int):
        self.X = X
        d = X.shape[1]
        self.bounds = [(j, min(j + chunk_cols, d)) for j in range(0, d, chunk_cols)]
        self.n_passes = 0

    def __call__(self, kernel: Callable[..., dict], cols=None, *, also=None, **params) -> dict:
        self.n_passes += 1
        parts = [
            kernel(self.X[:, a:b], None if cols is None else cols[a:b], **params)
            for a, b in self.bounds
        ]
        out = combine_parts(*parts)
        if also is not None:
            out["also"] = np.asarray(also)
        return out


#: A chunk is processed in sub-blocks of about this many values (8 MB of float64): the
#: temporaries of a kernel stay small and the allocator reuses them, instead of mapping
#: (and page-faulting) fresh chunk-sized arrays for every chunk.
SUB_BLOCK_VALUES = 1 << 20


def sub_blocks(n_rows: int, n_features: int) -> list[tuple[int, int]]:
    """Row ranges of the sub-blocks of a chunk (at least one, possibly empty)."""
    size = max(64, SUB_BLOCK_VALUES // max(n_features, 1))
    return [(a, min(a + size, n_rows)) for a in range(0, n_rows, size)] or [(0, 0)]


def by_sub_blocks(kernel: Callable[..., dict]) -> Callable[..., dict]:
    """Run a chunk kernel on each sub-block of the chunk and add the results."""

    @wraps(kernel)
    def run_by_sub_blocks(x, rows=None, **params) -> dict:
        bounds = sub_blocks(*x.shape)
        if len(bounds) == 1:
            return kernel(x, rows, **params)
        return combine_parts(
            *(kernel(x[a:b], None if rows is None else rows[a:b], **params) for a, b in bounds)
        )

    return run_by_sub_blocks


def block_moments(x, w, *, scatter=True, reference=None, xc=None) -> Moments:
    r"""Moments of one (sub-)block of rows with weights ``w``.

    Without ``xc`` the block is centred on its own weighted mean (two-pass formula).
    With ``xc = x - reference`` (the current centre, close to the new weighted mean),
    ``xc`` is overwritten: :math:`S = \sum_i w_i x_{c,i} x_{c,i}^\top - W s s^\top`
    with the small shift :math:`s = \sum_i w_i x_{c,i} / W`, which saves a copy; the
    subtracted term is small because the reference is near the mean.
    """
    total = float(w.sum())
    if total == 0:
        d = (x if xc is None else xc).shape[1]
        return Moments(0.0, np.zeros(d), np.zeros((d, d)) if scatter else None)
    if xc is None:
        mean = (w @ x) / total
        if not scatter:
            return Moments(total, mean, None)
        xs = x - mean
        xs *= np.sqrt(w)[:, None]
        return Moments(total, mean, xs.T @ xs)
    shift = (w @ xc) / total
    if not scatter:
        return Moments(total, reference + shift, None)
    xc *= np.sqrt(w)[:, None]
    S = xc.T @ xc
    S -= total * np.outer(shift, shift)
    return Moments(total, reference + shift, S)


@by_sub_blocks
def moments_pass(x, rows=None, *, check_finite=False, check_weights=False) -> dict:
    """First pass: moments with unit weights (or ``rows`` as sample weights).

    ``check_finite`` / ``check_weights`` raise ``ValueError`` on a chunk holding NaN or
    infinity (in ``X`` or in the weights) or negative weights, so that validation costs
    no pass of its own.
    """
    if check_finite and not np.isfinite(x).all():
        raise ValueError("Input X contains NaN or infinity; robustpca needs finite data.")
    if rows is None:
        w = np.ones(x.shape[0])
    else:
        w = np.asarray(rows, dtype=np.float64)
        if check_weights:
            if not np.isfinite(w).all():
                raise ValueError("sample_weight contains NaN or infinity.")
            if np.any(w < 0):
                raise ValueError("sample_weight must be non-negative; negative weights were given.")
    return {"moments": block_moments(x, w)}


# --------------------------------------------------------------------------- steps
@dataclass(frozen=True)
class SubspaceState:
    """An iterate of the weighted-PCA step: centre, usable basis (d, r <= k), eigenvalues."""

    mean: np.ndarray
    basis: np.ndarray
    eigvals: np.ndarray


@dataclass(frozen=True)
class WeightedPCAStep:
    """Problem (14) of Nie et al. (2014) in passes (RPCA-OM, PCA-GM, RWL-AN, PCA).

    Parameters
    ----------
    n_components : int
        ``k``; 0 with ``location_only`` (a weighted mean, Algorithm 1 of Oh & Kwak).
    center : ndarray or None
        A fixed centre (PCA-GM's :math:`m_G`); ``None`` estimates the weighted mean.
    location_only : bool
        Gather the weighted mean only (no scatter, no subspace).
    zero_rtol : float
        Residual norms at most ``zero_rtol * ||x_i - b||`` are set to 0 (RWL-AN).
    """

    n_components: int
    center: np.ndarray | None = None
    location_only: bool = False
    zero_rtol: float = 0.0

    def prepare(self, x, state: SubspaceState):
        return x - state.mean

    def residuals(self, xc, state: SubspaceState) -> np.ndarray:
        U = state.basis
        R = xc - (xc @ U) @ U.T if U.shape[1] else xc
        r = np.sqrt(np.einsum("ij,ij->i", R, R))
        if self.zero_rtol:
            r[r <= self.zero_rtol * np.sqrt(np.einsum("ij,ij->i", xc, xc))] = 0.0
        return r

    def stats(self, xc, state: SubspaceState, w) -> Moments:
        """Weighted moments of the chunk (``xc`` from :meth:`prepare` is overwritten)."""
        return block_moments(None, w, scatter=not self.location_only, reference=state.mean, xc=xc)

    def solve(self, moments: Moments, previous: SubspaceState | None = None) -> SubspaceState:
        d = moments.mean.shape[0]
        if self.location_only:
            return SubspaceState(moments.mean, np.empty((d, 0)), np.empty(0))
        if self.center is None:
            mean, S = moments.mean, moments.scatter
        else:
            mean, S = self.center, moments.scatter_about(self.center)
        vals, vecs = top_eigh(0.5 * (S + S.T), self.n_components)
        usable = positive_eigen_mask(vals)
        return SubspaceState(mean, vecs[:, usable], vals[usable])


def _orth_qr(A: np.ndarray) -> np.ndarray:
    """Q factor of ``A`` with a non-negative diagonal of R (as R1-PCA's solver)."""
    Q, R = np.linalg.qr(A)
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs[None, :]


@dataclass(frozen=True)
class SubspaceIterationStep:
    r"""R1-PCA's step (Ding et al. 2006): :math:`U \leftarrow \mathrm{orth}(C_w U)`.

    The state is ``U`` (d, r); the pass gathers :math:`C_w U = \sum_i w_i (x_i - \bar x)
    (x_i - \bar x)^\top U` (d, r), and the residuals are
    :math:`\sqrt{\lVert x_i - \bar x\rVert^2 - \lVert U^\top (x_i - \bar x)\rVert^2}`,
    the formula of :func:`~robustpca.solvers.solve_r1_pca`'s scatter route.
    """

    mean: np.ndarray

    def prepare(self, x, U):
        xc = x - self.mean
        return xc, xc @ U

    def residuals(self, aux, U) -> np.ndarray:
        xc, proj = aux
        r2 = np.einsum("ij,ij->i", xc, xc) - np.einsum("ij,ij->i", proj, proj)
        return np.sqrt(np.maximum(r2, 0.0))

    def stats(self, aux, U, w) -> np.ndarray:
        xc, proj = aux
        return xc.T @ (w[:, None] * proj)

    def solve(self, CwU: np.ndarray, previous: np.ndarray) -> np.ndarray:
        return previous if previous.shape[1] == 0 else _orth_qr(CwU)


@by_sub_blocks
def reweight_pass(x, rows=None, *, step, state, loss=None, mode="fused") -> dict:
    """One chunk of a reweighting pass at ``state``.

    ``mode='fused'``: residuals, the local ``loss`` weights, their objective and the
    step's statistics with those weights. ``'residuals'``: the residual norms only.
    ``'stats'``: the statistics with the given weights ``rows``.
    """
    aux = step.prepare(x, state)
    if mode == "residuals":
        return {"residuals": Rows((step.residuals(aux, state),))}
    if mode == "fused":
        r = step.residuals(aux, state)
        w = loss.weights(r)
        out = {"objective": float(loss.rho(r).sum()), "positive": int(np.count_nonzero(w > 0))}
    else:
        w, out = np.asarray(rows, dtype=np.float64), {}
    out["stats"] = step.stats(aux, state, w)
    return out


def rows_block(x, *, step, state, loss, which: str, scale: float = 1.0) -> np.ndarray:
    """Residual norms (``which='residuals'``) or ``scale *`` weights of one chunk.

    Only for a local weight rule (:func:`weights_are_local`).
    """
    parts = []
    for a, b in sub_blocks(*x.shape):
        r = step.residuals(step.prepare(x[a:b], state), state)
        parts.append(r if which == "residuals" else loss.weights(r) * scale)
    return np.concatenate(parts)


def weights_are_local(loss: RobustLoss) -> bool:
    """Whether ``loss.weights(r)[i]`` depends on ``r[i]`` alone (one pass per iteration).

    False for a scale re-estimated from all residuals (Huber/Cauchy ``threshold=None``,
    Welsch ``kernel_width=None``), for ``epsilon=0`` (zero residuals are floored relative
    to the largest) and for any loss not listed here (such as RWL-AN's).
    """
    if isinstance(loss, L2pLoss) and loss.p == 2:
        return True
    if isinstance(loss, (L21Loss, L2pLoss, CappedL2Loss)):
        return loss.epsilon > 0
    if isinstance(loss, (HuberLoss, CauchyLoss)):
        return loss.threshold is not None
    if isinstance(loss, WelschLoss):
        return loss.kernel_width is not None
    return False


# --------------------------------------------------------------------------- the loop
def _given(value):
    return value


def gather_stats(run: PassRunner, step, state, weights: np.ndarray):
    """A pass gathering ``step``'s statistics at ``state`` for the in-memory ``weights``."""
    return run(reweight_pass, weights, step=step, state=state, mode="stats")["stats"]


@dataclass(frozen=True)
class ChunkedReweightingResult:
    """Outcome of :func:`minimize_reweighted_chunked`.

    ``residuals`` and ``weights`` (at ``solution``) are arrays for a global weight rule,
    whose loop brings them back anyway, and ``None`` for a local one (recompute them
    chunk by chunk with :func:`rows_block` and ``loss``). ``loss`` is the concrete loss
    at the solution (``loss.resolve(residuals)``).
    """

    solution: Any
    residuals: np.ndarray | None
    weights: np.ndarray | None
    loss: RobustLoss
    objective: np.ndarray
    n_iter: int
    converged: bool
    stop_reason: str


def minimize_reweighted_chunked(
    run: PassRunner,
    step,
    loss: RobustLoss,
    state: Any,
    initial_stats: Callable[[], Any],
    *,
    initial_weights: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-6,
    callback: Callable[[int, IterationState], bool | None] | None = None,
    state_view: Callable[[Any], tuple[Callable | None, Callable | None]] | None = None,
) -> ChunkedReweightingResult:
    """:func:`~robustpca.solvers.minimize_reweighted` with the data seen in passes.

    The same iteration, objective and stopping rules (zero weights, callback, zero
    objective, relative objective change at most ``tol``), step for step: iteration ``t``
    solves the weighted step from the statistics of the weights ``d^{(t)}``, then one
    pass at the new state gives the objective and, for a local rule, the statistics of
    ``d^{(t+1)}``. For a global rule that pass brings the residuals back, the weights are
    formed in memory and a second pass (only when the loop goes on) gathers their
    statistics.

    Parameters
    ----------
    run : callable
        The pass runner (see the module docstring).
    step : WeightedPCAStep or SubspaceIterationStep
        ``prepare``/``residuals``/``stats`` per chunk and ``solve`` in memory.
    loss : RobustLoss
    state : object
        The state that ``step.prepare`` uses before the first solve (a reference only
        for :class:`WeightedPCAStep`; the starting ``U`` of R1-PCA).
    initial_stats : callable
        Returns the statistics of the initial weights (a pass, or the first pass's
        moments for uniform weights).
    initial_weights : ndarray, optional
        Given to ``callback`` as the weights of iteration 1, when they are in memory.
    max_iter, tol, callback, state_view
        As in :func:`~robustpca.solvers.minimize_reweighted`. ``state.weights`` is the
        weight vector for a global rule and ``None`` for a local one.

    Returns
    -------
    ChunkedReweightingResult
    """
    local = weights_are_local(loss)
    stats, positive, used = initial_stats, True, initial_weights
    history: list[float] = []
    stop_reason, converged = StopReason.MAX_ITER, False
    r = weights = None
    concrete = loss
    for iteration in range(1, max_iter + 1):
        if not positive:
            stop_reason, converged = StopReason.ALL_CAPPED, True
            break
        state = step.solve(stats(), state)
        if local:
            out = run(reweight_pass, step=step, state=state, loss=loss, mode="fused")
            value, positive = out["objective"], out["positive"] > 0
            stats, next_used = partial(_given, out["stats"]), None
        else:
            r = run(reweight_pass, step=step, state=state, mode="residuals")["residuals"].values
            concrete = loss.resolve(r)
            value = float(concrete.rho(r).sum())
            weights = concrete.weights(r)
            positive = bool(np.any(weights > 0))
            stats, next_used = partial(gather_stats, run, step, state, weights), weights
        history.append(value)
        if callback is not None:
            comps, mean = state_view(state) if state_view is not None else (None, None)
            if callback(iteration, IterationState(iteration, value, used, comps, mean)):
                stop_reason = StopReason.CALLBACK
                break
        used = next_used
        if value == 0.0:
            stop_reason, converged = StopReason.EXACT, True
            break
        if iteration > 1 and relative_change(history[-2], value) <= tol:
            stop_reason, converged = StopReason.TOLERANCE, True
            break
    return ChunkedReweightingResult(
        solution=state,
        residuals=r,
        weights=weights,
        loss=concrete,
        objective=np.asarray(history),
        n_iter=len(history),
        converged=converged,
        stop_reason=stop_reason,
    )


# --------------------------------------------------------------------------- wide data
# The wide route (n_samples < n_features) passes over blocks of *whole columns*: a block
# holds every sample of a few features, so it centres its columns on their own means and
# everything it returns is exact for those features. Every d-dimensional quantity of the
# Gram route of WeightedPCAProblem lies in ``center0 + row space of X0`` (``X0 = X - 1
# center0^T``, ``center0`` the column means): a point is ``center0 + X0^T a`` and a basis
# ``X0^T M`` for ``n``-dimensional coefficients, so the passes ship only ``a``/``M``.


def _column_slices(n_rows: int, n_cols: int, minimum: int = 16) -> list[slice]:
    """Column ranges of the sub-blocks of a column block (temporaries of about 8 MB)."""
    size = max(minimum, SUB_BLOCK_VALUES // max(n_rows, 1))
    return [slice(a, min(a + size, n_cols)) for a in range(0, n_cols, size)] or [slice(0, 0)]


def gram_pass(x, cols=None, *, check_finite=False) -> dict:
    """First pass of the wide route: column means and the centred ``n x n`` Gram.

    The block is centred on its own column means (exact: the block has every sample)
    by sub-blocks of about 8 MB, widened to float64, whose products are added by BLAS
    ``syrk`` into the upper triangle only (half the flops; the lower triangle stays 0,
    so partial sums add up, and :meth:`GramPasses.first_pass` mirrors the sum once).
    """
    if check_finite and not np.isfinite(x).all():
        raise ValueError("Input X contains NaN or infinity; robustpca needs finite data.")
    n, w = x.shape
    mean = x.mean(axis=0, dtype=np.float64)
    G = np.zeros((n, n), order="F")
    syrk = sla.blas.get_blas_funcs("syrk", (G,))
    slices = _column_slices(n, w, minimum=256)
    buffer = np.empty(n * (slices[0].stop - slices[0].start))
    for s in slices:
        B = buffer[: n * (s.stop - s.start)].reshape(n, s.stop - s.start)
        np.subtract(x[:, s], mean[s], out=B)
        G = syrk(1.0, B.T, beta=1.0, c=G, trans=1, lower=0, overwrite_c=1)  # += B B^T
    return {"gram": G, "center": Rows((mean,))}


def column_pass(x, cols=None, *, mode, M=None, point=None, T=None, proj=None) -> dict:
    r"""One block of whole columns, centred on its column means (``B = X0`` restricted).

    ``mode='products'``: the block's rows of :math:`X_0^\top M` (concatenated by the
    runner into ``d x m``). The other modes work with the centred samples
    :math:`x_i - b` for :math:`b = c_0 + X_0^\top` ``point`` (``point=None``:
    :math:`b = c_0`) and a basis :math:`U` given as ``cols`` (explicit ``d x k``, split
    like the columns) or as :math:`X_0^\top M T`: ``'project'`` returns
    :math:`(X - 1b^\top) U` and :math:`U^\top U`; ``'residuals'`` returns the squared
    norms of :math:`(x_i - b) - U\,\mathrm{proj}_i` (formed explicitly, as
    :func:`~robustpca.linalg.subspace_sq_residuals` does) and of :math:`x_i - b`.
    """
    n, w = x.shape
    mean = x.mean(axis=0, dtype=np.float64)
    if mode == "products":
        out = np.empty((w, M.shape[1]))
        for s in _column_slices(n, w):
            out[s] = (x[:, s] - mean[s]).T @ M
        return {"products": Rows((out,))}
    k = cols.shape[1] if cols is not None else (T.shape[1] if T is not None else M.shape[1])
    acc_proj, acc_utu = np.zeros((n, k)), np.zeros((k, k))
    r2, sq = np.zeros(n), np.zeros(n)
    for s in _column_slices(n, w):
        B = x[:, s] - mean[s]
        U = cols[s] if cols is not None else (B.T @ M if T is None else (B.T @ M) @ T)
        if point is not None:
            B -= (B.T @ point)[None, :]
        if mode == "project":
            acc_proj += B @ U
            acc_utu += U.T @ U
        else:
            sq += np.einsum("ij,ij->i", B, B)
            B -= proj @ U.T
            r2 += np.einsum("ij,ij->i", B, B)
    if mode == "project":
        return {"proj": acc_proj, "utu": acc_utu}
    return {"r2": r2, "sq": sq}


def recentred_gram(G: np.ndarray, a: np.ndarray) -> np.ndarray:
    r"""The Gram matrix about :math:`c_0 + X_0^\top a` from the one about :math:`c_0`.

    :math:`(I - 1a^\top) G (I - a1^\top)`, without forming an ``n x n`` centring matrix.
    """
    if not np.any(a):
        return G
    g = G @ a
    out = G - g[:, None]
    out -= g[None, :]
    out += a @ g
    return out


def _orthonormaliser(utu: np.ndarray) -> np.ndarray:
    """``T`` with ``(VT)^T (VT) = I`` from ``V^T V`` (Cholesky, eigh when singular)."""
    k = utu.shape[0]
    if k == 0:
        return np.eye(0)
    try:
        L = np.linalg.cholesky(0.5 * (utu + utu.T))
        return np.linalg.solve(L, np.eye(k)).T  # U = V L^{-T}, as cholesky_qr
    except np.linalg.LinAlgError:
        vals, vecs = np.linalg.eigh(0.5 * (utu + utu.T))
        keep = positive_eigen_mask(vals)
        return vecs[:, keep] / np.sqrt(vals[keep])[None, :]


class GramPasses:
    """The wide route's access to ``X``: passes over blocks of whole columns.

    ``run`` is a column runner (:class:`NumpyColumnRunner` or the dask one).
    :meth:`first_pass` brings back the column means ``center`` (``d``) and the centred
    Gram matrix ``gram`` (``n x n``); afterwards every pass ships ``n``-sized
    coefficients and brings back ``n``-sized results, except :meth:`products`
    (``d x m``, the basis and mean of a solution).
    """

    def __init__(self, run: PassRunner):
        self.run = run
        self.gram: np.ndarray | None = None
        self.center: np.ndarray | None = None

    @property
    def n_samples(self) -> int:
        return self.gram.shape[0]

    @property
    def trace(self) -> float:
        """:math:`\\sum_i \\lVert x_i - c_0\\rVert^2` (the trace of the Gram matrix)."""
        return float(np.trace(self.gram))

    def first_pass(self, also=None):
        """The Gram pass (checks that ``X`` is finite); returns ``also``, computed with it."""
        out = self.run(gram_pass, check_finite=True, **({} if also is None else {"also": also}))
        upper = out["gram"]
        self.gram = np.ascontiguousarray(upper + np.triu(upper, 1).T)
        self.center = out["center"].values
        return out.get("also")

    def products(self, M: np.ndarray) -> np.ndarray:
        """:math:`X_0^\\top M` (``d x m``), one pass."""
        return self.run(column_pass, mode="products", M=M)["products"].values

    def project(self, U: np.ndarray) -> np.ndarray:
        """:math:`X_0 U` for an explicit ``d x k`` matrix ``U``, one pass."""
        return self.run(column_pass, U, mode="project")["proj"]

    def sq_residuals(self, point, M=None, U=None) -> tuple[np.ndarray, np.ndarray]:
        r"""Explicit squared residuals :math:`\lVert (I - UU^\top)(x_i - b)\rVert^2` and norms.

        Returns them and :math:`\lVert x_i - b\rVert^2`, for
        :math:`b = c_0 + X_0^\top` ``point``. With coefficients ``M``, :math:`U` is
        :math:`X_0^\top M` orthonormalised as by ``cholesky_qr`` (its ``k x k`` Gram
        :math:`M^\top G M` and the projections :math:`(I - 1\,\mathrm{point}^\top) G M T`
        come from the Gram matrix), and one pass forms the residual vectors block by
        block. An explicit ``d x k`` ``U`` takes two passes (projections, residuals).
        """
        if U is None:
            GM = self.gram @ M
            T = _orthonormaliser(M.T @ GM)
            proj = GM @ T
            if point is not None:
                proj -= (point @ proj)[None, :]
            out = self.run(column_pass, mode="residuals", M=M, point=point, T=T, proj=proj)
        else:
            proj = self.run(column_pass, U, mode="project", point=point)["proj"]
            out = self.run(column_pass, U, mode="residuals", point=point, proj=proj)
        return out["r2"], out["sq"]


class GramSubspace:
    """A solution of :class:`GramWeightedPCA`: residuals in memory, basis and mean by a pass.

    Mirrors :class:`~robustpca.linalg.WeightedSubspace`; :meth:`basis` and :meth:`mean`
    share one :meth:`GramPasses.products` pass (run on first use, then kept).
    """

    def __init__(self, problem, weights, offset_coef, eigvals, coef, sq_norms, residual_sq):
        self._problem = problem
        self.weights = weights
        self._offset_coef = offset_coef
        self.eigvals = eigvals
        self.coef = coef
        self.sq_norms = sq_norms
        self._residual_sq = residual_sq
        self._dense = None
        self.explicit = False  # whether the residuals were formed explicitly (a pass)

    def residuals(self) -> np.ndarray:
        return np.sqrt(self._residual_sq)

    def _materialise(self):
        if self._dense is None:
            p = self._problem
            M = np.column_stack(
                [p.basis_coef(self._offset_coef, self.coef), p.mean_coef(self._offset_coef)]
            )
            P = p.passes.products(M)
            self._dense = cholesky_qr(P[:, :-1]), p.passes.center + P[:, -1]
        return self._dense

    def explicit_residuals(self) -> np.ndarray:
        """The residual norms formed explicitly: those of the solve if they were, else
        one :meth:`GramPasses.sq_residuals` pass (with the unpadded basis)."""
        if self.explicit:
            return self.residuals()
        p = self._problem
        M = p.basis_coef(self._offset_coef, self.coef)
        return np.sqrt(np.clip(p.passes.sq_residuals(self.mean_coef, M=M)[0], 0.0, None))

    @property
    def mean_coef(self) -> np.ndarray:
        """``a`` with ``mean() = center + X0^T a``."""
        return self._problem.mean_coef(self._offset_coef)

    def mean(self) -> np.ndarray:
        return self._materialise()[1].copy()

    def basis(self) -> np.ndarray:
        p = self._problem
        return complete_orthonormal(self._materialise()[0], p.n_components, p.rng)


class GramWeightedPCA:
    r"""The Gram route of :class:`~robustpca.linalg.WeightedPCAProblem` on a pass's Gram.

    Problem (14) of Nie et al. (2014) for weights :math:`d`, solved in memory on the
    ``n x n`` matrix: with :math:`c = d / 1^\top d`, the eigenvectors :math:`V` of
    :math:`D^{1/2} G_c D^{1/2}` give :math:`U = X_c^\top D^{1/2} V \Lambda^{-1/2}` and
    the residuals come from :math:`G_c`. The same arithmetic as ``_solve_gram``, step
    for step (warm-started eigensolver, single BLAS thread for small ``n``), including
    its safeguard: in an iteration with an extreme weight or a residual below
    ``SUSPICIOUS_RTOL`` of its norm the residuals are formed explicitly, here by two
    passes (:meth:`GramPasses.sq_residuals`).

    ``reference`` is the coefficient :math:`a_0` of the point the data are centred on,
    :math:`c_0 + X_0^\top a_0` (the ``reference_weights`` or ``offset`` of
    ``WeightedPCAProblem``); ``center=False`` keeps that point as the fixed centre.
    """

    def __init__(self, passes: GramPasses, n_components, rng, *, center=True, reference=None):
        n = passes.n_samples
        self.passes = passes
        self.n_components = n_components
        self.rng = rng
        self.with_mean = center
        self.reference = np.zeros(n) if reference is None else np.asarray(reference, float)
        self.G = recentred_gram(passes.gram, self.reference)
        self._Gcc = np.empty_like(self.G)
        self._K = np.empty_like(self.G)
        self._eigh = WarmStartEigh(n_components)

    @property
    def n_samples(self) -> int:
        return self.G.shape[0]

    def mean_coef(self, c: np.ndarray) -> np.ndarray:
        """Coefficient of the mean :math:`b` of a solution (``c``: its offset coefficient)."""
        return c if self.with_mean else self.reference

    def basis_coef(self, c: np.ndarray, coef: np.ndarray) -> np.ndarray:
        r""":math:`M` with :math:`X_0^\top M = X_r^\top (C - c\,1^\top C)`.

        :math:`X_r = X - 1 b_r^\top` is ``X`` centred on the reference point.
        """
        N = coef - np.outer(c, coef.sum(axis=0))
        return N - np.outer(self.reference, N.sum(axis=0))

    def solve(self, weights: np.ndarray) -> GramSubspace:
        """Solve problem (14) of Nie et al. (2014) for the given weights."""
        with single_blas_thread(self.n_samples <= SMALL_GRAM):
            return self._solve(weights)

    def _solve(self, w: np.ndarray) -> GramSubspace:
        step = gram_step(self.G, w, self._eigh, self.with_mean, self._Gcc, self._K)
        c, vals, coef, sq, r2 = step.c, step.eigvals, step.coef, step.sq, step.r2
        explicit = step.suspicious
        if explicit:
            r2, _ = self.passes.sq_residuals(self.mean_coef(c), M=self.basis_coef(c, coef))
        r2 = np.clip(r2, 0.0, sq)
        sub = GramSubspace(self, w, c, vals, coef, sq, r2)
        sub.explicit = explicit
        return sub
