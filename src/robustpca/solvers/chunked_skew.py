r"""Skew-adjusted ROBPCA (Hubert, Rousseeuw & Verdonck 2009) over row chunks, in passes.

:func:`solve_robpca_skew_chunked` is the ``skew=True`` branch of
:func:`~robustpca.solvers.robpca.solve_robpca` step for step, with the data seen only in
passes (each one ``dask.compute`` in the Dask route):

1. **first pass** (:func:`~robustpca.solvers.chunked_rrcov.first_pass`): the mean and
   triangular factor of the rows, and, gathered by index, the pilot rows that set the
   bins of the counting passes, the rows whose medcouples stand for all
   (:func:`~robustpca.solvers.outlyingness.medcouple_rows`: every row up to
   ``MEDCOUPLE_ROWS``, a random sample of that many above) and the rows of the random
   subsets that the hyperplanes are likely to be drawn through (the first draw of each
   adjusted outlyingness, for every ``k`` the second may have);
2. **the adjusted outlyingness** (:func:`adjusted_outlyingness_chunked`): the
   hyperplanes through the subsets drawn as in memory
   (:func:`~robustpca.solvers.outlyingness.hyperplane_normals`; a subset whose rows were
   not gathered costs a pass, and the rows of affine leverage one that sparse data hold,
   :func:`~robustpca.solvers.outlyingness.forced_rows`, one pass at the first singular
   subset), the exact medians and quartiles of the projections on
   every direction (:func:`~robustpca.solvers.chunked_order_statistics.select_ranks`),
   the medcouples of the sample's projections, and one pass for the most extreme
   projections inside the fences; then the ``h`` least outlying rows, their mean and
   factor (:func:`~robustpca.solvers.chunked_smallest_subsets.smallest_subsets`);
3. **the orthogonal distances' cutoff** (when ``k`` is below the rank): their exact
   quartiles, the sample's medcouple, and the moments of the rows below the fence in
   one pass;
4. **the adjusted outlyingness in k dimensions**, as in step 2, and the mean and
   covariance of its ``h`` least outlying rows.

The estimates equal the in-memory fit's to rounding: both draw the same subsets and the
same sample from the same generator, and the medians and quartiles are order statistics
of all rows, interpolated as NumPy does (:func:`quantile_ranks`, :func:`quantiles_of`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from .adjusted_boxplot import projection_rounding, snap_ties
from .chunked import ELEMENTWISE_VALUES, Rows, value_blocks, value_runs
from .chunked_histogram import Extremes
from .chunked_mcd import AffineRows, _moments_below_pass
from .chunked_moments import QRMoments
from .chunked_order_statistics import gather_rows, pilot_indices, select_ranks
from .chunked_rrcov import (
    OrthogonalDistance,
    Projections,
    ROBPCAChunkedResult,
    _Counter,
    class_pca_of,
    first_pass,
)
from .chunked_smallest_subsets import smallest_subsets
from .mcd import h_alpha_n, sorted_eigh
from .outlyingness import (
    AdjustedOutlyingness,
    adjusted_fences,
    affine_leverage,
    draw_subsets,
    forced_rows,
    hyperplane_normals,
    medcouple_rows,
    scatter_whitening,
    unit_normals,
)
from .robpca import SkewModel, _resolve_k, od_rounding

__all__ = [
    "AdjustedRows",
    "adjusted_outlyingness_chunked",
    "quantile_ranks",
    "quantiles_of",
    "skewed_cutoffs_chunked",
    "solve_robpca_skew_chunked",
]

#: The quantiles of the adjusted boxplot: the median and the quartiles.
_LEVELS = (0.25, 0.5, 0.75)


def quantile_ranks(n: int, levels=_LEVELS) -> np.ndarray:
    """The 0-based ranks whose values NumPy's ``quantile`` (type 7) interpolates at each
    level: ``floor((n - 1) q)`` and the next (at most ``n - 1``), a pair per level.

    Parameters
    ----------
    n : int
        The number of values.
    levels : sequence of float, default=(0.25, 0.5, 0.75)
        The quantile levels, in [0, 1].

    Returns
    -------
    ndarray of shape (2 * len(levels),)
    """
    out = []
    for q in levels:
        virtual = n * q + (1.0 - q) - 1.0  # NumPy's _compute_virtual_index (alpha = beta = 1)
        below = float(np.floor(virtual))
        out += [below, min(below + 1.0, n - 1.0)]
    return np.array(out)


def quantiles_of(values: np.ndarray, n: int, levels=_LEVELS) -> np.ndarray:
    """NumPy's ``quantile`` (type 7, its arithmetic) at ``levels`` from the values at
    :func:`quantile_ranks` of ``n`` values, per row of ``values``.

    Parameters
    ----------
    values : array-like of shape (m, 2 * len(levels))
        The values at the ranks of :func:`quantile_ranks`, a pair per level.
    n : int
        The number of values the quantiles are of.
    levels : sequence of float, default=(0.25, 0.5, 0.75)
        The quantile levels, as given to :func:`quantile_ranks`.

    Returns
    -------
    ndarray of shape (m, len(levels))
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.empty((values.shape[0], len(levels)))
    for j, q in enumerate(levels):
        virtual = n * q + (1.0 - q) - 1.0
        t = virtual - np.floor(virtual)
        a, b = values[:, 2 * j], values[:, 2 * j + 1]
        diff = b - a
        out[:, j] = np.where(t >= 0.5, b - diff * (1.0 - t), a + diff * t)  # NumPy's _lerp
    return out


def median_of_pair(values: np.ndarray, n: int) -> np.ndarray:
    """NumPy's ``median`` from the values at ranks ``(n - 1) // 2`` and ``n // 2``."""
    values = np.asarray(values, dtype=np.float64)
    if n % 2:
        return values[:, 0].copy()
    return (values[:, 0] + values[:, 1]) / 2.0


@dataclass(frozen=True)
class AdjustedRows:
    """The adjusted outlyingness of the rows' coordinates ``coords(x)``, (b, 1), formed by
    blocks of rows so that its temporaries do not grow with the chunk.

    Parameters
    ----------
    coords : AffineRows
        Maps rows of the data to the coordinates the model was fitted on.
    model : AdjustedOutlyingness
        The fitted directions and fences.
    """

    coords: AffineRows
    model: AdjustedOutlyingness

    def __call__(self, x):
        out = np.zeros((x.shape[0], 1))
        for a, b in value_blocks(x):
            out[a:b, 0] = self.model(self.coords(x[a:b]))
        return out


def fence_pass(
    x, rows=None, *, projections, median, upper_fence, lower_fence, rounding=0.0
) -> dict:
    """Per direction, the least centred projection above the lower fence and the largest
    below the upper one (robustbase's ``y.lo`` and ``y.up`` before their signs), with the
    deviations up to ``rounding`` as ties (:func:`~.adjusted_boxplot.snap_ties`)."""
    m = median.size
    low, high = np.full(m, np.inf), np.full(m, -np.inf)
    for a, b in value_runs(x, m, ELEMENTWISE_VALUES):
        Y = snap_ties(projections(x[a:b]) - median, rounding)
        high = np.maximum(high, np.where(Y < upper_fence, Y, -np.inf).max(axis=0, initial=-np.inf))
        low = np.minimum(low, np.where(Y > lower_fence, Y, np.inf).min(axis=0, initial=np.inf))
    return {"inside": Extremes(low, high)}


def forced_rows_pass(x, rows=None, *, coords, mean, whitening, n) -> dict:
    """The global indices of the rows whose coordinates ``coords(x)`` have affine
    leverage one (:func:`~robustpca.solvers.outlyingness.forced_rows`)."""
    parts = [np.empty(0)]
    for a, b in value_blocks(x):
        leverage = affine_leverage(coords(x[a:b]), mean, whitening, n)
        parts.append(rows[a:b][forced_rows(leverage)].astype(np.float64))
    return {"forced": Rows((np.concatenate(parts),))}


class RowSource:
    """Rows by global index: those gathered already, the others by one pass a call."""

    def __init__(self, run, row_index, rows_at: dict, count: _Counter):
        self.run, self.row_index, self.rows_at, self.count = run, row_index, rows_at, count

    def __call__(self, indices: np.ndarray) -> np.ndarray:
        flat = np.asarray(indices, dtype=np.int64).ravel()
        missing = np.unique([i for i in flat.tolist() if i not in self.rows_at])
        if missing.size:
            got = gather_rows(self.run, self.row_index, missing.astype(np.int64))
            self.count.add(1)
            self.rows_at.update(zip(missing.tolist(), got, strict=True))
        return np.array([self.rows_at[i] for i in flat.tolist()]).reshape(*np.shape(indices), -1)


def _first_draw(n: int, dim: int, n_directions: int, rng) -> np.ndarray:
    """The rows of the first batch of subsets :func:`hyperplane_normals` draws from
    ``rng`` (not advanced) for data of ``dim`` coordinates."""
    batch = min(2 * n_directions + 8, max(100, dim) * n_directions)
    return draw_subsets(copy.deepcopy(rng), batch, n, dim).ravel()


def adjusted_outlyingness_chunked(
    run, row_index, coords: AffineRows, dim: int, n: int, *, source: RowSource, sample, pilot_x,
    n_directions: int, rng, moments: QRMoments,
) -> tuple[AdjustedOutlyingness, int]:  # fmt: skip
    """:func:`~robustpca.solvers.outlyingness.fit_adjusted_outlyingness` of the rows'
    ``dim`` coordinates ``coords(x)``, and the passes run.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    row_index : ndarray or dask.array.Array of shape (n,)
        The global row numbers, given to the runner as ``rows``.
    coords : AffineRows
        Maps rows of the data to their ``dim`` coordinates.
    dim : int
        The number of coordinates.
    n : int
        The number of rows.
    source : RowSource
        The rows by global index (those of the drawn subsets, the sample's).
    sample : ndarray of int
        The rows whose medcouples stand for all (all rows up to ``MEDCOUPLE_ROWS``).
    pilot_x : ndarray of shape (n_pilot, n_features)
        The pilot rows, which set the first bins of the counting passes.
    n_directions : int
        The hyperplane directions wanted.
    rng : numpy.random.Generator
        Draws the subsets behind the directions.
    moments : QRMoments
        Those of all rows, for the forced rows (one pass, only at a singular subset).
    """
    from ..robust_scale import medcouple_columns

    def fetch(rows):
        raw = source(rows)
        return coords(raw.reshape(-1, raw.shape[-1])).reshape(*rows.shape, dim)

    def forced():
        A = coords.A if coords.A is not None else np.eye(dim)
        whitening = scatter_whitening(moments.R @ A, n)
        mean = coords(moments.mean[None, :])[0]
        out = run(forced_rows_pass, row_index, coords=coords, mean=mean, whitening=whitening, n=n)
        source.count.add(1)
        return np.sort(out["forced"].values.astype(np.intp))

    sample_x = coords(source(sample))
    rounding = projection_rounding(sample_x)  # as in memory: the sample's largest norm
    before = source.count.n
    B = hyperplane_normals((n, dim), fetch, n_directions, rng, forced)
    B = unit_normals(B, float(np.mean(np.abs(sample_x))))
    projections = Projections(coords, B.T)
    passes = source.count.n - before
    m = B.shape[1]
    if m == 0:
        empty = np.zeros(0)
        return AdjustedOutlyingness(B, empty, empty, empty, rounding), passes
    ranks = np.concatenate([quantile_ranks(n), [(n - 1) // 2, n // 2]])
    values, used = select_ranks(
        run, row_index, projections, np.tile(ranks, (m, 1)), projections(pilot_x)
    )
    passes += used
    median = median_of_pair(values[:, 6:], n)
    # snapping is monotone: the order statistics of the snapped deviations are snapped
    q1, _, q3 = quantiles_of(snap_ties(values[:, :6] - median[:, None], rounding), n).T
    mc = medcouple_columns(snap_ties(sample_x @ projections.directions.T - median, rounding))
    upper_fence, lower_fence = adjusted_fences(q1, q3, mc)
    inside = run(
        fence_pass,
        row_index,
        projections=projections,
        median=median,
        upper_fence=upper_fence,
        lower_fence=lower_fence,
        rounding=rounding,
    )["inside"]
    return AdjustedOutlyingness(B, median, inside.high, -inside.low, rounding), passes + 1


def _skew_od_moments(run, row_index, od, scores, n, sample_od, pilot_x, least):
    """The moments of the rows within the skewed OD cutoff (``od <= cutoff``, the largest
    OD below the fence: every row below the fence, or those at it when none is below, as
    :func:`~robustpca.robust_scale.skewed_cutoff` gives) or at most ``least`` (the ODs'
    rounding, :func:`~robustpca.solvers.robpca.od_rounding`), and the passes run."""
    from ..robust_scale import medcouple, skewed_fence

    values, passes = select_ranks(run, row_index, od, quantile_ranks(n)[None, :], od(pilot_x))
    q1, _, q3 = quantiles_of(values, n)[0]
    fence = skewed_fence(q1, q3, medcouple(sample_od[:, 0]))
    cutoff = max(fence, np.nextafter(least, np.inf))
    kept = run(_moments_below_pass, row_index, values=od, cutoff=cutoff, coords=scores)["m"]
    if kept.count == 0:  # no OD below the fence: the cutoff is the fence (a quartile's tie)
        cutoff = np.nextafter(max(fence, least), np.inf)
        kept = run(_moments_below_pass, row_index, values=od, cutoff=cutoff, coords=scores)["m"]
        passes += 1
    return kept, passes + 1


def skewed_cutoffs_chunked(run, row_index, values, n: int, sample_values, pilot_values):
    """rrcov's skewed cutoffs (:func:`~robustpca.robust_scale.skewed_cutoff`) of each
    column of ``values`` over all ``n`` rows: the largest value below the fence of the
    exact quartiles and the medcouple of ``sample_values`` (the fence itself where no
    value is below it), and the passes run.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    row_index : ndarray or dask.array.Array of shape (n,)
        The global row numbers, given to the runner as ``rows``.
    values : callable
        Maps rows of the data to their values, of shape ``(n_rows, m)``.
    n : int
        The number of rows.
    sample_values : ndarray of shape (n_sample, m)
        The values of the rows whose medcouples stand for all.
    pilot_values : ndarray of shape (n_pilot, m)
        The pilot rows' values, which set the first bins of the counting passes.
    """
    from ..robust_scale import medcouple, skewed_fence

    m = sample_values.shape[1]
    ranks = np.tile(quantile_ranks(n), (m, 1))
    at, passes = select_ranks(run, row_index, values, ranks, pilot_values)
    quartiles = quantiles_of(at, n)
    fences = np.array(
        [skewed_fence(q1, q3, medcouple(sample_values[:, j])) for j, (q1, _, q3) in
         enumerate(quartiles)]
    )  # fmt: skip
    inside = run(
        fence_pass,
        row_index,
        projections=values,
        median=np.zeros(m),
        upper_fence=fences,
        lower_fence=np.full(m, np.inf),
    )["inside"]
    return np.where(np.isfinite(inside.high), inside.high, fences), passes + 1


def _prefetch(n: int, p: int, kmax: int, n_directions: int, skew_rng) -> tuple:
    """The sample and the rows of the first subsets drawn when the scores have the
    rank ``min(n - 1, p)`` and the second step any ``k`` up to ``kmax``."""
    ahead = copy.deepcopy(skew_rng)
    sample = medcouple_rows(n, ahead)
    dim = max(min(n - 1, p), 1)
    rows = [_first_draw(n, dim, n_directions, ahead)]
    draw_subsets(ahead, min(2 * n_directions + 8, max(100, dim) * n_directions), n, dim)
    rows += [_first_draw(n, k, n_directions, ahead) for k in range(1, min(kmax, dim) + 1)]
    return (np.arange(n) if sample is None else sample), np.concatenate(rows)


def solve_robpca_skew_chunked(
    run,
    row_index,
    n: int,
    p: int,
    n_components="auto",
    *,
    alpha: float | None = None,
    kmax: int = 10,
    max_directions: int = 250,
    rng: np.random.Generator,
    direction_rng: np.random.Generator | None = None,
) -> ROBPCAChunkedResult:
    """Skew-adjusted ROBPCA of the ``n x p`` rows seen by ``run`` (module docstring): the
    estimates of :func:`~robustpca.solvers.robpca.solve_robpca` with ``skew=True`` and
    the same arguments.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    row_index : ndarray or dask.array.Array of shape (n,)
        The global index of the rows, split like them: the runner's ``rows``.
    n : int
        The number of rows.
    p : int
        The number of features.
    n_components : int, float in (0, 1) or "auto", default="auto"
        ``k``, as for ``solve_robpca``.
    alpha : float or None, default=None
        Coverage, with rrcov's two conventions (as for ``solve_robpca``).
    kmax : int, default=10
        The largest ``k``.
    max_directions : int, default=250
        The hyperplane directions of each adjusted outlyingness.
    rng : numpy.random.Generator
        Draws the directions and the medcouples' sample when ``direction_rng`` is None.
    direction_rng : numpy.random.Generator or None, default=None
        Draws the directions and the medcouples' sample.

    Returns
    -------
    ROBPCAChunkedResult
    """
    count = _Counter()
    skew_rng = direction_rng if direction_rng is not None else rng
    pilot = pilot_indices(n)
    sample, subset_rows = _prefetch(n, p, kmax, max_directions, skew_rng)
    wanted = np.unique(np.concatenate([pilot, sample, subset_rows]))
    out = run(first_pass, row_index, wanted=wanted)
    count.add(1)
    records = out["rows"].values
    rows_at = {int(i): r for i, r in zip(records[:, 0], records[:, 1:], strict=True)}
    source = RowSource(run, row_index, rows_at, count)
    pilot_x = source(pilot)
    full = class_pca_of(out["qr"])
    rank = full.rank
    if rank == 0:
        empty = np.zeros(0)
        return ROBPCAChunkedResult(
            np.zeros((0, p)), full.center, empty, 0, 0, n, empty, None, None, None, count.n,
            pilot_x,
        )  # fmt: skip
    scores = AffineRows(full.center, full.loadings, np.zeros(rank))
    kmax = max(min(int(kmax), rank), 1)
    auto = not isinstance(n_components, int | np.integer)
    k_given = kmax if auto else min(int(n_components), kmax)
    if alpha is None:
        h = min(h_alpha_n(0.75, n, kmax), n)
    else:
        h = min(h_alpha_n(alpha, n, k_given), n)
    drawn = medcouple_rows(n, skew_rng)  # as in memory: the sample first
    first, used = adjusted_outlyingness_chunked(
        run, row_index, scores, rank, n, source=source, sample=sample, pilot_x=pilot_x,
        n_directions=max_directions, rng=skew_rng, moments=out["qr"],
    )  # fmt: skip
    count.add(used)
    outl = AdjustedRows(scores, first)
    (h_subset,), (moments,), used = smallest_subsets(run, row_index, scores, outl, h, pilot_x)
    count.add(used)
    sub = class_pca_of(moments)
    initial_eigenvalues = sub.eigenvalues  # the h-subset's (rrcov's eig0)
    kmax = min(sub.rank, kmax)
    k = _resolve_k(n_components, sub.eigenvalues, kmax, sub.rank) if auto else k_given
    if k != rank:
        k = min(sub.rank, k)
        od = OrthogonalDistance(scores, sub.center, sub.loadings[:, :k], power=1.0)
        kept, used = _skew_od_moments(
            run, row_index, od, scores, n, od(source(sample)), pilot_x, od_rounding(sub)
        )
        count.add(used)
        sub = class_pca_of(kept)
        k = min(sub.rank, k)
    k = min(k, sub.rank)  # the h-subset may have a lower rank than a k given as the rank
    origin = full.center + sub.center @ full.loadings.T
    if k == 0:  # the h-subset is one point: no scores to model, its rows the support
        empty = np.zeros(0)
        return ROBPCAChunkedResult(
            np.zeros((0, p)), origin, empty, 0, rank, h, initial_eigenvalues, outl, h_subset,
            h_subset.member, count.n, pilot_x, medcouple_rows=drawn,
        )  # fmt: skip
    X2 = scores.then(sub.center, sub.loadings[:, :k])
    model, used = adjusted_outlyingness_chunked(
        run, row_index, X2, k, n, source=source, sample=sample, pilot_x=pilot_x,
        n_directions=max_directions, rng=skew_rng, moments=out["qr"],
    )  # fmt: skip
    count.add(used)
    ao = AdjustedRows(X2, model)
    (kept_subset,), (kept,), used = smallest_subsets(run, row_index, X2, ao, h, pilot_x)
    count.add(used)
    values, rot2, _ = sorted_eigh(_covariance(kept, k))  # a classical covariance: PSD
    projected = sub.loadings[:, :k]
    rot = full.loadings @ projected
    centre = full.center + (sub.center + kept.mean @ projected.T) @ full.loadings.T
    return ROBPCAChunkedResult(
        components=(rot @ rot2).T,
        mean=centre,
        eigenvalues=values,
        n_components=values.size,
        rank=rank,
        h=h,
        initial_eigenvalues=initial_eigenvalues,
        outlyingness=outl,
        h_subset=h_subset,
        support=kept_subset.member,
        n_passes=count.n,
        pilot_rows=pilot_x,
        adjusted=SkewModel(origin, rot, model),
        medcouple_rows=drawn,
        n_directions=(first.directions.shape[1], model.directions.shape[1]),
    )


def _covariance(moments: QRMoments, k: int) -> np.ndarray:
    """The sample covariance (divisor ``count - 1``) of the rows behind ``moments``."""
    R = moments.R
    scatter = R.T @ R if R.shape[0] else np.zeros((k, k))
    return scatter / max(moments.count - 1.0, 1.0)
