r"""The reweighting loops in passes over row chunks: the core of the dask route for tall data.

Every reweighting method of Nie et al. (2014, Algorithm 2) alternates a weighted
closed-form step with a per-sample weight rule. For problem (14),

.. math::
    \min_{b,\; U^\top U = I} \sum_i d_i \lVert (I - UU^\top)(x_i - b) \rVert_2^2
    \;\Rightarrow\; b = \frac{\sum_i d_i x_i}{\sum_i d_i},\quad
    U = \text{top-}k \text{ eigenvectors of } \sum_i d_i (x_i - b)(x_i - b)^\top ,

the step needs only the weighted count, mean and ``d x d`` scatter, which are sums over the
samples. A *pass* visits every chunk of rows once and returns these small sums: at the current
state ``x`` each chunk computes its residual norms ``r_i(x)``, the weights ``d_i = h'(r_i^2)`` of
the loss and its weighted moments, and the runner adds the chunks up. The eigen step then runs in
memory on the ``d x d`` matrix: one pass is one iteration. For accuracy, no scatter is accumulated
about the origin: a chunk's scatter is taken about its own mean in the first pass and about the
current centre afterwards (a shift by less than the data's spread), and chunks are merged by the
pairwise formula of Chan, Golub & LeVeque (:class:`Moments`), so data far from the origin lose
nothing to cancellation.

That fusion needs a *local* weight rule: ``d_i`` must depend on ``r_i`` alone. The rules of R1-PCA
with the median cutoff, of RWL-AN (the ``k`` smallest errors) and of an exactly zero ``epsilon``
(residuals floored at ``1e-12`` times the largest) depend on every residual; their iterations take
two passes, one that brings the ``n`` residual norms back (``8 n`` bytes) for the global rule and
one that forms the moments with the resulting weights (:func:`weights_are_local`).

Wide data (``n_samples < n_features``) take the Gram route instead, as in memory: passes over
blocks of whole columns gather the centred ``n x n`` Gram matrix, on which problem (14) is solved
in memory (:mod:`robustpca.solvers.chunked_gram`, which reuses :class:`Rows`, :func:`combine_parts`
and the sub-block size from here). The per-method solvers built on this module are in
:mod:`robustpca.solvers.chunked_pca` (and :mod:`robustpca.solvers.chunked_gram_pca` for wide data).

A runner is any callable ``run(kernel, rows=None, **params) -> dict`` that applies
``kernel(x_block, rows_block, **params)`` to every chunk and adds the returned dictionaries key by
key (numbers and arrays by ``+``, :class:`Moments` by Chan's formula, :class:`Rows` by
concatenation in chunk order). :class:`NumpyPassRunner` is the in-memory runner;
:mod:`robustpca._dask` provides the dask one, with one ``dask.compute`` per call. Nothing here
imports dask, validates or warns.

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
from typing import Any, cast

import numpy as np

from ..losses import CappedL2Loss, CauchyLoss, HuberLoss, L2pLoss, L21Loss, RobustLoss, WelschLoss
from ..robust_scale import effective_count, is_whole
from ._result import IterationState, StopReason
from .reweighting import ReweightingProgress

__all__ = [
    "ChunkedReweightingResult",
    "Moments",
    "NumpyPassRunner",
    "Rows",
    "by_sub_blocks",
    "combine_parts",
    "gather_stats",
    "minimize_reweighted_chunked",
    "moments_pass",
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

    Merging uses Chan et al.'s pairwise update,
    :math:`S = S_a + S_b + \\frac{w_a w_b}{w_a + w_b}\\,\\delta\\delta^\\top` with
    :math:`\\delta = \\bar x_b - \\bar x_a`, exact in exact arithmetic and free of the
    cancellation of :math:`\\sum w x x^\\top - W \\bar x \\bar x^\\top`.

    Parameters
    ----------
    weight : float
        The total weight :math:`W = \\sum_i w_i`.
    mean : ndarray of shape (n_features,)
        The weighted mean :math:`\\bar x_w`.
    scatter : ndarray of shape (n_features, n_features) or None
        :math:`\\sum_i w_i (x_i - \\bar x_w)(x_i - \\bar x_w)^\\top`; None where only the
        mean is gathered.
    square : float, default=0.0
        :math:`\\sum_i w_i^2`, for :attr:`count`.
    whole : bool, default=True
        Whether every weight is a whole number (frequency weights), for :attr:`count`.
    """

    weight: float
    mean: np.ndarray
    scatter: np.ndarray | None
    square: float = 0.0
    whole: bool = True

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
        square, whole = self.square + other.square, self.whole and other.whole
        return Moments(total, mean, scatter, square, whole)

    @property
    def rms_distance(self) -> float:
        """The rows' root mean squared distance to their mean (0 without a scatter)."""
        total = float(np.trace(self.scatter)) if self.scatter is not None else 0.0
        return float(np.sqrt(max(total, 0.0) / self.weight)) if self.weight > 0 else 0.0

    @property
    def count(self) -> float:
        """:func:`~robustpca.robust_scale.variance_count` of the rows' weights."""
        return effective_count(self.weight, self.square, self.whole)

    def scatter_about(self, center: np.ndarray) -> np.ndarray:
        """:math:`\\sum_i w_i (x_i - c)(x_i - c)^\\top` for a fixed centre.

        Parameters
        ----------
        center : ndarray of shape (n_features,)
            The centre :math:`c`.

        Returns
        -------
        ndarray of shape (n_features, n_features)
        """
        delta = self.mean - center
        scatter = cast(np.ndarray, self.scatter)  # gathered by every caller
        return scatter + self.weight * np.outer(delta, delta)


@dataclass(frozen=True)
class Rows:
    """Per-sample values of consecutive chunks; ``+`` appends (chunk order is kept).

    Parameters
    ----------
    parts : tuple of ndarray
    """

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


#: A chunk is processed in sub-blocks of about this many values (8 MB of float64): the
#: temporaries of a kernel stay small and the allocator reuses them, instead of mapping
#: (and page-faulting) fresh chunk-sized arrays for every chunk.
SUB_BLOCK_VALUES = 1 << 20


def sub_blocks(n_rows: int, n_features: int) -> list[tuple[int, int]]:
    """Row ranges of the sub-blocks of a chunk (at least one, possibly empty).

    Parameters
    ----------
    n_rows, n_features : int
        The chunk's shape.

    Returns
    -------
    list of (int, int)
    """
    size = max(64, SUB_BLOCK_VALUES // max(n_features, 1))
    return [(a, min(a + size, n_rows)) for a in range(0, n_rows, size)] or [(0, 0)]


#: Rows at most of a value block (:func:`value_blocks`).
VALUE_BLOCK_ROWS = 1024
#: Values of a run (:func:`value_runs`) for kernels of elementwise steps on many values a
#: row (ROBPCA's 250 projections): their temporaries stay in cache.
ELEMENTWISE_VALUES = 1 << 18


def value_blocks(x) -> list[tuple[int, int]]:
    """Row ranges of a chunk ``x`` on which per-row values (projections, distances) are
    computed, by every kernel and every pass alike: BLAS may round a row's product
    differently with the shape of the block holding it, and passes that count, gather
    and select rows by the same values must see the same numbers. At most
    :data:`VALUE_BLOCK_ROWS` rows (fewer for wide rows)."""
    size = max(64, min(VALUE_BLOCK_ROWS, SUB_BLOCK_VALUES // max(x.shape[1], 1)))
    n_rows = x.shape[0]
    return [(a, min(a + size, n_rows)) for a in range(0, n_rows, size)] or [(0, 0)]


def value_runs(x, width: int, values: int = SUB_BLOCK_VALUES) -> list[tuple[int, int]]:
    """Runs of consecutive :func:`value_blocks` of ``x`` holding about ``values`` values
    of ``width`` columns each (one block at least), for kernels whose per-block work
    should not be repeated on small blocks. The maps evaluate themselves on value blocks
    (:func:`by_value_blocks`), so a run's values are those of its blocks."""
    bounds = value_blocks(x)
    per = max(1, values // max(width, x.shape[1], 1) // max(bounds[0][1] - bounds[0][0], 1))
    return [
        (bounds[i][0], bounds[min(i + per, len(bounds)) - 1][1]) for i in range(0, len(bounds), per)
    ]


def by_value_blocks(func: Callable[[np.ndarray], np.ndarray], x, like=None) -> np.ndarray:
    """``func(x)`` computed on the :func:`value_blocks` of ``x`` (of ``like``, the rows
    ``x`` was mapped from), its rows in order."""
    bounds = value_blocks(x if like is None else like)
    if len(bounds) == 1:
        return func(x)
    return np.concatenate([func(x[a:b]) for a, b in bounds])


def by_sub_blocks(kernel: Callable[..., dict]) -> Callable[..., dict]:
    """Run a chunk kernel on each sub-block of the chunk and add the results.

    Parameters
    ----------
    kernel : callable
        ``kernel(x, rows=None, **params) -> dict``, as a runner applies it.

    Returns
    -------
    callable
        The kernel by sub-blocks, with the same signature.
    """

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
    square, whole = float(w @ w), bool(np.all(is_whole(w)))
    if xc is None:
        mean = (w @ x) / total
        if not scatter:
            return Moments(total, mean, None, square, whole)
        xs = x - mean
        xs *= np.sqrt(w)[:, None]
        return Moments(total, mean, xs.T @ xs, square, whole)
    shift = (w @ xc) / total
    if not scatter:
        return Moments(total, reference + shift, None, square, whole)
    xc *= np.sqrt(w)[:, None]
    S = xc.T @ xc
    S -= total * np.outer(shift, shift)
    return Moments(total, reference + shift, S, square, whole)


@by_sub_blocks
def moments_pass(x, rows=None, *, check_finite=False, check_weights=False) -> dict:
    """First pass: moments with unit weights (or ``rows`` as sample weights).

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
    rows : ndarray of shape (n_rows,) or None, default=None
        The chunk's sample weights; ``None``: unit weights.
    check_finite, check_weights : bool, default=False
        Raise ``ValueError`` on a chunk holding NaN or infinity (in ``X`` or in the
        weights) or negative weights, so that validation costs no pass of its own.
    """
    if check_finite and not np.isfinite(x).all():
        raise ValueError(
            "Input X contains NaN or infinity; robustpca needs finite data here (a dask "
            "fit takes missing entries on the tall route of PCA and OptimalMeanPCA only)."
        )
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


@by_sub_blocks
def reweight_pass(x, rows=None, *, step, state, loss=None, mode="fused", exact_below=None) -> dict:
    """One chunk of a reweighting pass at ``state``.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
    rows : ndarray of shape (n_rows,) or None, default=None
    step, state
        The step (a :mod:`~robustpca.solvers.chunked_steps` step) and its state.
    loss : RobustLoss or None, default=None
    mode : {"fused", "residuals", "stats"}, default="fused"
        ``'fused'``: residuals, the local ``loss`` weights, their objective and the
        step's statistics with those weights. ``'residuals'``: the residual norms only.
        ``'stats'``: the statistics with the given weights ``rows``.
    exact_below : float or None, default=None
        With ``'fused'``: also count, as ``beyond``, the rows of positive weight whose
        residual exceeds it (the loop's exact-fit test).
    """
    aux = step.prepare(x, state)
    if mode == "residuals":
        return {"residuals": Rows((step.residuals(aux, state),))}
    if mode == "fused":
        r = step.residuals(aux, state)
        w = loss.weights(r)
        out = {"objective": float(loss.rho(r).sum()), "positive": int(np.count_nonzero(w > 0))}
        if exact_below is not None:
            out["beyond"] = int(np.count_nonzero((w > 0) & (r > exact_below)))
    else:
        w, out = np.asarray(rows, dtype=np.float64), {}
    out["stats"] = step.stats(aux, state, w)
    return out


def rows_block(x, *, step, state, loss, which: str, scale: float = 1.0) -> np.ndarray:
    """Residual norms or weights of one chunk; for a local weight rule only
    (:func:`weights_are_local`).

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A chunk of rows.
    step, state
        The step (a :mod:`~robustpca.solvers.chunked_steps` step) and its state.
    loss : RobustLoss
        The loss whose weights are wanted.
    which : {"residuals", "weights"}
        The residual norms, or ``scale`` times the loss's weights.
    scale : float, default=1.0
        Multiplies the weights.

    Returns
    -------
    ndarray of shape (n_rows,)
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

    Parameters
    ----------
    loss : RobustLoss
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
    """A pass gathering ``step``'s statistics at ``state`` for the in-memory ``weights``.

    Parameters
    ----------
    run : callable
        The pass runner.
    step, state
        The step (a :mod:`~robustpca.solvers.chunked_steps` step) and its state.
    weights : ndarray of shape (n_samples,)
        The weights of every row.

    Returns
    -------
    object
        The sum of the chunks' ``step.stats``.
    """
    return run(reweight_pass, weights, step=step, state=state, mode="stats")["stats"]


@dataclass(frozen=True)
class ChunkedReweightingResult:
    """Outcome of :func:`minimize_reweighted_chunked`.

    Attributes
    ----------
    solution, loss
        The last state, and the concrete loss at it (``loss.resolve(residuals)``).
    residuals, weights : ndarray of shape (n_samples,) or None
        At ``solution`` for a global weight rule, whose loop brings them back anyway;
        ``None`` for a local one (recompute them chunk by chunk with :func:`rows_block`).
    objective, n_iter, converged, stop_reason
        As in :class:`~robustpca.solvers.ReweightingResult`.
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
    exact_below: float | None = None,
) -> ChunkedReweightingResult:
    """:func:`~robustpca.solvers.minimize_reweighted` with the data seen in passes.

    The same iteration, objective and stopping rules (zero weights, callback, zero objective,
    relative objective change at most ``tol``), step for step: iteration ``t`` solves the
    weighted step from the statistics of the weights ``d^{(t)}``, then one pass at the new
    state gives the objective and, for a local rule, the statistics of ``d^{(t+1)}``. For a
    global rule that pass brings the residuals back, the weights are formed in memory and a
    second pass (only when the loop goes on) gathers their statistics.

    Parameters
    ----------
    run : callable
        The pass runner (see the module docstring).
    step : chunked_steps.WeightedPCAStep or chunked_steps.SubspaceIterationStep
        ``prepare``/``residuals``/``stats`` per chunk and ``solve`` in memory.
    loss : RobustLoss
    state : object
        The state that ``step.prepare`` uses before the first solve (a reference only
        for :class:`~.chunked_steps.WeightedPCAStep`; the starting ``U`` of R1-PCA).
    initial_stats : callable
        Returns the statistics of the initial weights (a pass, or the first pass's
        moments for uniform weights).
    initial_weights : ndarray, optional
        Given to ``callback`` as the weights of iteration 1, when they are in memory.
    max_iter, tol, callback, state_view, exact_below
        As in :func:`~robustpca.solvers.minimize_reweighted`. ``state.weights`` is the
        weight vector for a global rule and ``None`` for a local one.

    Returns
    -------
    ChunkedReweightingResult
    """
    local = weights_are_local(loss)
    stats, positive, used = initial_stats, True, initial_weights
    progress = ReweightingProgress(tol, callback)
    r = weights = None
    concrete = loss
    for iteration in range(1, max_iter + 1):
        if not positive:
            progress.stop(StopReason.ALL_CAPPED)
            break
        state = step.solve(stats(), state)
        if local:
            fused = {"loss": loss, "mode": "fused", "exact_below": exact_below}
            out = run(reweight_pass, step=step, state=state, **fused)
            value, positive = out["objective"], out["positive"] > 0
            stats, next_used = partial(_given, out["stats"]), None
            exact = positive and out.get("beyond", 1) == 0
        else:
            r = run(reweight_pass, step=step, state=state, mode="residuals")["residuals"].values
            concrete = loss.resolve(r)
            value = float(concrete.rho(r).sum())
            weights = concrete.weights(r)
            positive = bool(np.any(weights > 0))
            stats, next_used = partial(gather_stats, run, step, state, weights), weights
            exact = exact_below is not None and positive
            exact = exact and bool(np.all(r[weights > 0] <= exact_below))
        progress.record(value)
        view = partial(IterationState.from_view, iteration, value, used, state, state_view)
        if progress.should_stop(iteration, view):
            break
        if exact:  # as minimize_reweighted: every row weighed next is fitted exactly
            progress.stop(StopReason.EXACT)
            break
        used = next_used
    return ChunkedReweightingResult(
        solution=state, residuals=r, weights=weights, loss=concrete, **progress.outcome()
    )
