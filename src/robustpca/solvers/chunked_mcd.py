r"""The MCD of robustbase (:mod:`robustpca.solvers.mcd`) over row chunks, in passes.

Everything that :func:`~robustpca.solvers.mcd.minimum_covariance_determinant` does on all
the rows runs in passes over the chunks (one ``dask.compute`` each in the Dask route): the
C-steps of FAST-MCD (Rousseeuw & Van Driessen 1999) on all the data (the mean and scatter
of the ``h`` rows of least distance under each fit, gathered in a bracket guessed from a
sample of the rows and proven by the pass's counts, else found by counting passes:
:mod:`robustpca.solvers.chunked_smallest_subsets`), the reweighting (of the best fit so
far, in the pass of each C-step: no pass of its own once no fit moves), the support.

FAST-MCD's search for starting fits works by design on a random subsample: robustbase's
nested subsets of at most 1,500 rows (``rng.permutation(n)`` from ``random_state``, as in
memory), gathered by index, the starts run in memory on them; below ``2 * NMINI = 600``
rows all the rows are gathered and the MCD runs in memory. Rows are points of ``k``
coordinates given by an affine map of the data (:class:`AffineRows`): the scores of
ROBPCA, or the data themselves.

The scatter of a set of rows is carried as the triangular factor ``R`` of its centred
rows (:class:`QRMoments`, merged like Chan et al.'s update), so that singular values and
ranks are those of an SVD of the rows, as in memory.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .chunked import by_value_blocks, value_runs
from .chunked_moments import QRMoments, scatter_moments
from .chunked_moments import count_of as _count
from .chunked_moments import covariance_of as _covariance
from .chunked_order_statistics import gather_rows
from .chunked_sample import SampleCollector, sample_stride, sample_values
from .chunked_shared import RideAlong
from .chunked_smallest_subsets import Subset, smallest_subsets
from .chunked_unimcd import least_variance_windows
from .exact_fit import AffineHull
from .mcd import (
    NMINI,
    _best_starts,
    _c_step,
    _distances,
    _distinct_best,
    _group_sizes,
    _log_dets,
    _mahalanobis_sq,
    h_alpha_n,
    mcd_consistency,
    mcd_small_sample,
    minimum_covariance_determinant,
    raw_log_det,
    ridged_precisions,
)
from .permutation_head import permutation_head

__all__ = [
    "AffineRows",
    "ChunkedMCD",
    "QRMoments",
    "mcd_chunked",
]


@dataclass(frozen=True)
class AffineRows:
    """Rows as points of ``k`` coordinates: ``(x - origin) @ A - offset`` (``x`` itself
    when ``A`` is None).

    Parameters
    ----------
    origin : ndarray of shape (n_features,) or None, default=None
        Subtracted from the rows first.
    A : ndarray of shape (n_features, k) or None, default=None
        The linear map; None leaves the rows as they are.
    offset : ndarray of shape (k,) or None, default=None
        Subtracted from the mapped rows.
    """

    origin: np.ndarray | None = None
    A: np.ndarray | None = None
    offset: np.ndarray | None = None

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if self.A is None:
            return x
        return by_value_blocks(lambda b: (b - self.origin) @ self.A - self.offset, x)

    def then(self, centre: np.ndarray, rotation: np.ndarray) -> AffineRows:
        """The map followed by ``(z - centre) @ rotation``.

        Parameters
        ----------
        centre : ndarray of shape (k,)
            Subtracted from the mapped rows.
        rotation : ndarray of shape (k, k2)
            Applied after ``centre``.

        Returns
        -------
        AffineRows
            The map to the ``k2`` new coordinates.
        """
        if self.A is None:
            raise ValueError("AffineRows.then needs a linear map A, not None.")
        return AffineRows(self.origin, self.A @ rotation, (self.offset + centre) @ rotation)


@dataclass(frozen=True)
class FitDistances:
    """Squared distances of the rows under ``B`` fits (mcd's ``_distances``), (b, B)."""

    coords: AffineRows
    means: np.ndarray
    precisions: np.ndarray

    def __call__(self, x):
        return by_value_blocks(lambda b: self.of_coords(self.coords(b)), x)

    def of_coords(self, z):
        """The distances of rows already mapped by ``coords``."""
        return _distances(z, self.means, self.precisions).T


def _same_fit(old_mean, old_cov, mean, cov) -> bool:
    """Whether a C-step left a fit's h-subset unchanged: its mean and covariance equal
    to rounding. One row traded for another moves the covariance by about ``1 / h`` of
    its size, far above the rounding of a different summation order."""
    scale = max(float(np.max(np.abs(np.diag(old_cov)))), 1e-300)
    return bool(
        np.max(np.abs(cov - old_cov)) <= 1e-11 * scale
        and np.max(np.abs(mean - old_mean)) <= 1e-11 * (np.sqrt(scale) + np.max(np.abs(old_mean)))
    )


@dataclass(frozen=True)
class ChunkedMCD:
    """The reweighted MCD of rows seen in passes (:class:`~robustpca.solvers.mcd.MCDResult`'s
    estimates); the supports are recipes over chunks: ``support_mask(x, index)``.

    Attributes
    ----------
    location : ndarray of shape (p,)
        The reweighted location.
    covariance : ndarray of shape (p, p)
        The reweighted covariance.
    raw_location : ndarray of shape (p,)
        The raw (h-subset) location.
    raw_covariance : ndarray of shape (p, p)
        The raw covariance, made consistent.
    log_det : float
        Log-determinant of the h-subset's covariance (divisor ``h - 1``): robustbase's
        ``crit``, ``-inf`` on an exact fit.
    h : int
        The size of the h-subset.
    coords : AffineRows
        Maps rows of the data to the ``p`` coordinates the fit is of.
    raw_subset : object or None
        The raw h-subset, as ``raw_subset.member(x, index)`` (a
        :class:`~robustpca.solvers.chunked_smallest_subsets.Subset`, or a window of one
        coordinate); None where every row is used.
    cutoff : float
        The reweighting's cutoff on the raw squared distances.
    reweighted : bool
        Whether the reweighting ran (else the support is the raw subset).
    hull : AffineHull or None, default=None
        On an exact fit, the hull whose rows are the support.
    """

    location: np.ndarray
    covariance: np.ndarray
    raw_location: np.ndarray
    raw_covariance: np.ndarray
    log_det: float
    h: int
    coords: AffineRows
    raw_subset: Subset | None
    cutoff: float
    reweighted: bool
    hull: AffineHull | None = None

    def support_mask(self, x, index) -> np.ndarray:
        """The samples kept by the reweighting (the raw subset when it did not run, the
        rows on its hull on an exact fit).

        Parameters
        ----------
        x : ndarray of shape (n_rows, n_features)
            A row chunk.
        index : ndarray of int of shape (n_rows,)
            The global indices of the rows of ``x`` (read only for the raw subset).

        Returns
        -------
        ndarray of bool of shape (n_rows,)
        """
        if self.hull is not None:
            return self.hull.contains(self.coords(x))
        if not self.reweighted:
            if self.raw_subset is None:
                return np.ones(x.shape[0], dtype=bool)
            return self.raw_subset.member(x, index)
        raw = _RawDistances(self.coords, self.raw_location, self.raw_covariance)
        return raw(x)[:, 0] < self.cutoff


class _Reweighting:
    """FAST-MCD's reweighting of the raw fit ``(location, unscaled)``: the raw
    covariance made consistent, the cutoff, and the parameters of its pass."""

    def __init__(self, coords, location, unscaled, p: int, n: int, h: int, alpha: float):
        self.location, self.unscaled = location, unscaled
        self.covariance = unscaled * mcd_consistency(p, h / n) * mcd_small_sample(p, n, alpha)
        self.cutoff = stats.chi2.ppf(0.975, p)
        values = _RawDistances(coords, location, self.covariance)
        self.params = {"values": values, "cutoff": self.cutoff, "coords": coords, "kind": "scatter"}


@dataclass(frozen=True)
class _RawDistances:
    coords: AffineRows
    location: np.ndarray
    covariance: np.ndarray

    def __call__(self, x):
        return by_value_blocks(lambda b: self.of_coords(self.coords(b)), x)

    def of_coords(self, z):
        """The distances of rows already mapped by ``coords``, (b, 1)."""
        return _mahalanobis_sq(z, self.location, self.covariance)[:, None]


def _moments_below_pass(x, rows=None, *, values, cutoff, coords, kind="qr") -> dict:
    """The moments (``kind`` as in
    :func:`~robustpca.solvers.chunked_smallest_subsets.subset_pass`) of the rows whose
    value is below ``cutoff``."""
    of: Any = QRMoments.of if kind == "qr" else scatter_moments
    total: Any = None
    same = hasattr(values, "of_coords") and values.coords is coords  # one product a block
    for a, b in value_runs(x, 1):
        xb = x[a:b]
        Z = coords(xb)
        V = by_value_blocks(values.of_coords, Z, xb) if same else values(xb)
        part = of(Z[V[:, 0] < cutoff])
        total = part if total is None else total + part
    return {"m": total}


def _in_memory(rows: np.ndarray, alpha, n_starts, rng, coords, n):
    fit = minimum_covariance_determinant(rows, alpha, n_starts=n_starts, random_state=rng)
    chosen = np.flatnonzero(fit.raw_support)
    ordinal = _Ordinal()
    raw = Subset(ordinal, 0, -np.inf, chosen)
    reweighted = fit.support is not fit.raw_support
    cutoff = stats.chi2.ppf(0.975, rows.shape[1])
    return ChunkedMCD(
        fit.location,
        fit.covariance,
        fit.raw_location,
        fit.raw_covariance,
        fit.log_det,
        fit.h,
        coords,
        raw,
        cutoff,
        reweighted and fit.h < n and fit.hull is None,
        fit.hull,
    )


@dataclass(frozen=True)
class _OffHull:
    """Each row's distance beyond the hull's tolerance
    (:class:`~robustpca.solvers.exact_fit.AffineHull`), (b, 1)."""

    coords: AffineRows
    hull: AffineHull

    def __call__(self, x):
        return by_value_blocks(lambda b: self.of_coords(self.coords(b)), x)

    def of_coords(self, z):
        return self.hull.excess(z)[:, None]

    def member(self, x, index) -> np.ndarray:
        """The rows on the hull (as a raw subset: a coordinate plane's rows)."""
        return self(x)[:, 0] <= 0.0


def _exact_fit(run, row_index, coords, hull, subset, h: int, n: int, p: int, alpha: float):
    """robustbase's exact fit on ``hull``: the raw estimates of every row on it, in one
    pass (:func:`~robustpca.solvers.mcd.minimum_covariance_determinant`)."""
    on = run(
        _moments_below_pass,
        row_index,
        values=_OffHull(coords, hull),
        cutoff=np.nextafter(0.0, 1.0),  # an excess of at most 0
        coords=coords,
    )["m"]
    cov = _covariance(on) * mcd_consistency(p, h / n) * mcd_small_sample(p, n, alpha)
    if p == 1:  # rfmcduni's divisor h (minimum_covariance_determinant)
        cov = cov * ((h - 1) / h)
    cutoff = stats.chi2.ppf(0.975, p)
    return ChunkedMCD(on.mean, cov, on.mean, cov, -np.inf, h, coords, subset, cutoff, False, hull)


def _equal_counts_pass(x, rows=None, *, coords, values) -> dict:
    """Per coordinate, the rows equal to ``values`` (NaN: none)."""
    return {"count": (coords(x) == values).sum(axis=0)}


def _coordinate_plane(run, row_index, coords, sample: np.ndarray, h: int):
    """:func:`~robustpca.solvers.exact_fit.coordinate_plane` of all the rows, and the
    passes it took: a coordinate's ``h > n / 2`` equal values fill about that share of a
    random ``sample``, whose most frequent value (in at least a quarter) is counted."""
    n_sample, p = sample.shape
    values = np.full(p, np.nan)
    for j in range(p):
        found, counts = np.unique(sample[:, j], return_counts=True)
        if 4 * counts.max() >= n_sample:
            values[j] = found[np.argmax(counts)]
    if np.isnan(values).all():
        return None, 0
    counts = run(_equal_counts_pass, row_index, coords=coords, values=values)["count"]
    hit = np.flatnonzero(np.asarray(counts) >= h)
    if hit.size == 0:
        return None, 1
    return AffineHull.coordinate(p, int(hit[0]), float(values[hit[0]])), 1


@dataclass(frozen=True)
class _Window:
    """The rows of a window of order statistics of one coordinate: strictly between its
    end values, and the rows ``chosen`` (sorted indices) at those values."""

    coords: AffineRows
    low: float
    high: float
    chosen: np.ndarray

    def member(self, x, index) -> np.ndarray:
        v = self.coords(x)[:, 0]
        return ((v > self.low) & (v < self.high)) | np.isin(index, self.chosen)


def _member_moments_pass(x, rows=None, *, subset, coords) -> dict:
    """The scatter moments of the rows of ``subset``."""
    return {"m": scatter_moments(coords(x)[subset.member(x, rows)])}


def _univariate_mcd(run, row_index, coords, n, alpha, h, pilot_x):
    """robustbase's MCD of one coordinate on ``n >= 600`` rows: the exact h-subset of
    least variance (:func:`~robustpca.solvers.mcd._univariate_mcd_subset`, the middle
    of the least windows) by
    :func:`~robustpca.solvers.chunked_unimcd.least_variance_windows`, its moments, then
    the reweighting: four passes."""
    _, _, found, passes = least_variance_windows(run, row_index, coords, 1, n, h, coords(pilot_x))
    start, head, head_rank, tail, tail_rank = found[0]
    last = start + h - 1
    first_value, last_value = head[start - head_rank, 2], tail[last - tail_rank, 2]
    chosen = []
    for records, rank0 in ((head, head_rank), (tail, tail_rank)):
        ranks = rank0 + np.arange(records.shape[0])
        at_end = (records[:, 2] == first_value) | (records[:, 2] == last_value)
        chosen.append(records[(ranks >= start) & (ranks <= last) & at_end, 3])
    subset = _Window(
        coords, first_value, last_value, np.unique(np.concatenate(chosen)).astype(np.int64)
    )
    raw = run(_member_moments_pass, row_index, subset=subset, coords=coords)["m"]
    passes += 1
    raw_location, raw_cov = raw.mean, _covariance(raw)
    sign, log_det = np.linalg.slogdet(raw_cov)
    if sign <= 0:  # more than h rows at one value
        hull = AffineHull.of(raw_location, raw_cov, h)
        fit = _exact_fit(run, row_index, coords, hull, subset, h, n, 1, alpha)
        return fit, passes + 1
    raw_cov = raw_cov * mcd_consistency(1, h / n) * mcd_small_sample(1, n, alpha)
    raw_cov = raw_cov * ((h - 1) / h)  # robustbase's rfmcduni: the sum of squares / h
    cutoff = stats.chi2.ppf(0.975, 1)
    kept = run(
        _moments_below_pass,
        row_index,
        values=_RawDistances(coords, raw_location, raw_cov),
        cutoff=cutoff,
        coords=coords,
        kind="scatter",
    )["m"]
    passes += 1
    raw_fit = (raw_location, raw_cov, float(log_det), subset, cutoff)
    return _reweighted(kept, raw_fit, h, n, 1, alpha, coords), passes


def _reweighted(kept, raw_fit, h: int, n: int, p: int, alpha: float, coords) -> ChunkedMCD:
    """The MCD from the regular raw fit ``(location, covariance, log_det, subset,
    cutoff)`` and the moments ``kept`` of the rows within its cutoff (the raw fit where
    too few rows are kept, as robustbase)."""
    raw_location, raw_cov, log_det, subset, cutoff = raw_fit
    raw = (raw_location, raw_cov, log_det)
    if _count(kept) <= p:
        return ChunkedMCD(raw_location, raw_cov, *raw, h, coords, subset, cutoff, False)
    covariance = _covariance(kept)
    if _count(kept) != n:
        covariance = (
            covariance
            * mcd_consistency(p, _count(kept) / n)
            * mcd_small_sample(p, n, alpha, reweighted=True)
        )
    return ChunkedMCD(kept.mean, covariance, *raw, h, coords, subset, cutoff, True)


@dataclass(frozen=True)
class _Ordinal:
    def __call__(self, x):
        return np.zeros((x.shape[0], 1))


def subsample_indices(n: int, rng) -> np.ndarray:
    """The rows :func:`mcd_chunked` gathers when its ``rng`` is in the state of ``rng``
    (which is not advanced): robustbase's nested subsample, or every row below 600; a
    caller can gather them in an earlier pass (``prefetched``)."""
    if n < 2 * NMINI:
        return np.arange(n)
    return np.unique(permutation_head(copy.deepcopy(rng), n, sum(_group_sizes(n))))


def _prefetched(prefetched: dict | None, wanted: np.ndarray):
    """The rows ``wanted`` from those gathered earlier, or None if any is missing."""
    if prefetched is None or not all(int(i) in prefetched for i in wanted):
        return None
    return np.array([prefetched[int(i)] for i in wanted])


def mcd_chunked(
    run,
    row_index,
    coords: AffineRows,
    p: int,
    n: int,
    alpha: float,
    *,
    n_starts,
    rng,
    pilot_x,
    max_steps: int = 100,
    n_best: int = 10,
    prefetched: dict | None = None,
    sample: np.ndarray | None = None,
) -> tuple[ChunkedMCD, int]:
    """:func:`~robustpca.solvers.mcd.minimum_covariance_determinant` of the rows
    ``coords(x)`` (``p`` coordinates) of all ``n`` rows (module docstring). The C-steps
    guess their brackets from ``sample`` (rows in ``coords``' space), or from the sample
    their first pass gathers (:class:`~robustpca.solvers.chunked_sample.SampleCollector`).

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    row_index : ndarray or dask.array.Array of shape (n,)
        The global row numbers, given to the runner as ``rows``.
    coords : AffineRows
        Maps rows of the data to their ``p`` coordinates.
    p : int
        The number of coordinates.
    n : int
        The number of rows.
    alpha : float
        The coverage: ``h = h_alpha_n(alpha, n, p)``.
    n_starts : int
        FAST-MCD starts.
    rng : numpy.random.Generator
        Draws the subsample and the starts.
    pilot_x : ndarray of shape (n_pilot, n_features)
        The pilot rows, which set the first bins of the counting passes.
    max_steps : int, default=100
        The most C-steps on all the rows.
    n_best : int, default=10
        The best fits kept from the starts (per group and after merging).
    prefetched : dict or None, default=None
        Rows gathered earlier, by global index (:func:`subsample_indices`).
    sample : ndarray of shape (n_sample, p) or None, default=None
        Rows in ``coords``' space the C-steps guess their brackets from; None: the sample
        their first pass gathers.

    Returns
    -------
    fit : ChunkedMCD
    passes : int
        The passes run.
    """
    h = min(h_alpha_n(alpha, n, p), n)
    passes = 0
    if h >= n:  # robustbase's classical estimate of every row, reweighted as any raw fit
        every = run(_moments_below_pass, row_index, values=_Ordinal(), cutoff=1.0, coords=coords)
        m = every["m"]
        cov = m.covariance()
        sign, log_det = np.linalg.slogdet(cov)
        raw = (m.mean, cov, float(log_det) if sign > 0 else -np.inf)
        if sign <= 0:  # singular: nothing to reweight with (minimum_covariance_determinant)
            return ChunkedMCD(m.mean, cov, *raw, h, coords, None, np.inf, False), 1
        cutoff = stats.chi2.ppf(0.975, p)
        values = _RawDistances(coords, m.mean, cov)
        params = {"values": values, "cutoff": cutoff, "coords": coords, "kind": "scatter"}
        kept = run(_moments_below_pass, row_index, **params)["m"]
        return _reweighted(kept, (*raw, None, cutoff), h, n, p, alpha, coords), 2
    if p == 1 and n >= 2 * NMINI:
        return _univariate_mcd(run, row_index, coords, n, alpha, h, pilot_x)
    if n < 2 * NMINI:
        rows = _prefetched(prefetched, np.arange(n))
        if rows is None:
            rows, passes = gather_rows(run, row_index, np.arange(n)), 1
        rows = coords(rows)
        return _in_memory(rows, alpha, n_starts, rng, coords, n), passes
    if NMINI <= 2 * (p + 1):
        raise NotImplementedError("the chunked MCD needs 2 * (n_features + 1) < 300.")
    sizes = _group_sizes(n)
    fraction = h / n
    h_group = max(p + 1, int(sizes[0] * fraction))
    drawn = permutation_head(rng, n, sum(sizes))
    wanted = np.unique(drawn)
    gathered = _prefetched(prefetched, wanted)
    if gathered is None:
        gathered, passes = gather_rows(run, row_index, wanted), passes + 1
    gathered = coords(gathered)
    plane, used = _coordinate_plane(run, row_index, coords, gathered, h)
    passes += used
    if plane is not None:
        subset = _OffHull(coords, plane)
        return _exact_fit(run, row_index, coords, plane, subset, h, n, p, alpha), passes + 1
    merged = gathered[np.searchsorted(wanted, drawn)]
    bounds = np.cumsum([0, *sizes])
    found = [
        _best_starts(merged[lo:hi], h_group, max(n_starts // len(sizes), 1), n_best, rng)
        for lo, hi in itertools.pairwise(bounds)
    ]
    means = np.concatenate([f[0] for f in found])
    covs = np.concatenate([f[1] for f in found])
    h_merged = max(p + 1, int(merged.shape[0] * fraction))
    for _ in range(2):
        merged_subsets, means, covs = _c_step(merged, means, covs, h_merged)
    top = _distinct_best(merged_subsets, _log_dets(covs), n_best)
    means, covs = means[top], covs[top]

    collect = SampleCollector(run, coords, sample_stride(n, p))
    collect.sample = sample

    def step(means, covs, runner=collect):
        precisions = ridged_precisions(covs)
        values = FitDistances(coords, means, precisions)
        guide = None
        if collect.sample is not None:
            guide = sample_values(FitDistances(AffineRows(), means, precisions), collect.sample)
        return smallest_subsets(
            runner, row_index, coords, values, h, pilot_x, kind="scatter", guide=guide
        )

    subsets, moments, used = step(means, covs)
    passes += used
    means = np.array([m.mean for m in moments])
    covs = np.array([_covariance(m) for m in moments])
    moving = np.arange(means.shape[0])
    runner: RideAlong | None = None
    for _ in range(max_steps - 1):
        # the reweighting of the best fit so far rides along: if no fit moves, it is the
        # final fit's (the same h-subset) and needs no pass of its own
        best = int(np.argmin(_log_dets(covs)))
        ahead = _Reweighting(coords, means[best], covs[best], p, n, h, alpha)
        runner = RideAlong(collect, _moments_below_pass, **ahead.params)
        new_subsets, new_moments, used = step(means[moving], covs[moving], runner)
        passes += used
        same = np.zeros(moving.size, dtype=bool)
        for i, f in enumerate(moving):
            mean, cov = new_moments[i].mean, _covariance(new_moments[i])
            same[i] = _same_fit(means[f], covs[f], mean, cov)
            subsets[f], moments[f], means[f], covs[f] = new_subsets[i], new_moments[i], mean, cov
        if same.all():
            break
        moving = moving[~same]
        runner = None
    if runner is None or runner.result is None:  # out of steps with fits still moving
        best = int(np.argmin(_log_dets(covs)))
        ahead = _Reweighting(coords, means[best], covs[best], p, n, h, alpha)
        kept, passes = run(_moments_below_pass, row_index, **ahead.params)["m"], passes + 1
    else:
        kept = runner.result["m"]
    log_det = raw_log_det(ahead.unscaled)
    if not np.isfinite(log_det):  # an exact fit: the rows on the h-subset's hull
        hull = AffineHull.of(ahead.location, ahead.unscaled, h)
        return _exact_fit(run, row_index, coords, hull, subsets[best], h, n, p, alpha), passes + 1
    raw_fit = (ahead.location, ahead.covariance, log_det, subsets[best], ahead.cutoff)
    return _reweighted(kept, raw_fit, h, n, p, alpha, coords), passes
