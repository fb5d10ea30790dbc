r"""rrcov's ``unimcd`` (the univariate MCD) of per-row values over row chunks, in passes.

:func:`univariate_mcd_chunked` is :func:`~robustpca.solvers.outlyingness.univariate_mcd` of every
column of ``values(x)`` at once (ROBPCA's projections on its directions, its orthogonal distances)
over data seen only in passes, those of :mod:`robustpca.solvers.chunked_order_statistics`: the
window of ``h`` contiguous order statistics of least variance is located by bounds on the binned
sums (a set's sum of squares lies between that of any subset and of any superset) and settled on
the values gathered around it; then come the ``h``-th scaled residual and the reweighted sums. The
results are exact whatever the bins, which only decide how many values are gathered.

Where the pilot's bins hold too many rows to gather, a refining pass counts only the window's
candidate bins, split into at most :data:`REFINE_BINS_PER_COLUMN` bins a column, merged into the
client's histogram: a pass brings back at most about :data:`PASS_BINS` bins per chunk (or the
pilot's bins for a few columns), whatever the rows.

The large sample from which the C-steps guess their brackets is in
:mod:`robustpca.solvers.chunked_sample`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .chunked import ELEMENTWISE_VALUES, value_runs
from .chunked_histogram import histogram_pass
from .chunked_order_statistics import (
    GATHER_BUDGET,
    MAX_SPLITS,
    _gathered_by_column,
    _padded,
    gather_pass,
    pilot_edges,
    select_ranks,
)

__all__ = [
    "PASS_BINS",
    "REFINE_BINS_PER_COLUMN",
    "least_variance_windows",
    "reweighted_sums_pass",
    "univariate_mcd_chunked",
]

#: A refining pass splits a column's candidate bins into about this many bins in all (in
#: proportion to their counts, two at least each), so that its per-chunk result is at most
#: about this many bins a column whatever the rows per bin.
REFINE_BINS_PER_COLUMN = 1024
#: The first counting pass bins each column by its pilot values, thinned to at most
#: ``max(REFINE_BINS_PER_COLUMN, PASS_BINS // columns)`` edges: with many columns (250
#: directions) its per-chunk result stays as small as a refining pass's.
PASS_BINS = 1 << 18


@dataclass(frozen=True)
class _Scaled:
    """``(values(x) - centre)**2 / var`` per column, as ``univariate_mcd`` forms ``res``."""

    values: Any
    centre: np.ndarray
    var: np.ndarray

    def __call__(self, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            res = (self.values(x) - self.centre) ** 2 / self.var
        return np.where(np.isfinite(res), res, 0.0)


def reweighted_sums_pass(x, rows=None, *, values, centre, var, factor, cutoff) -> dict:
    """Count, sum and sum of squares about ``centre`` of the values kept by unimcd's
    reweighting, ``res / factor < cutoff``.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    rows : ndarray or None, default=None
        The chunk's row numbers; unused.
    values : callable
        Maps rows of ``x`` to their values, of shape ``(n_rows, m)``.
    centre : ndarray of shape (m,)
        The raw location, about which the sums are taken.
    var : ndarray of shape (m,)
        The raw variance: ``res = (v - centre)**2 / var``.
    factor : ndarray of shape (m,)
        The consistency factor that divides ``res``.
    cutoff : float
        A value is kept where ``res / factor < cutoff``.

    Returns
    -------
    dict
        ``"count"``, ``"s1"`` and ``"s2"``, each of shape ``(m,)``: per column, the values
        kept, the sum of their ``v - centre`` and of its square.
    """
    m = centre.shape[0]
    count, s1, s2 = np.zeros(m), np.zeros(m), np.zeros(m)
    for a, b in value_runs(x, m, ELEMENTWISE_VALUES):
        V = values(x[a:b])
        with np.errstate(divide="ignore", invalid="ignore"):
            res = (V - centre) ** 2 / var
            res = res / factor
        keep = res < cutoff
        d = np.where(keep, V - centre, 0.0)
        count += keep.sum(axis=0)
        s1 += d.sum(axis=0)
        s2 += (d * d).sum(axis=0)
    return {"count": count, "s1": s1, "s2": s2}


def _with_part(cnt, s1, s2, m, low, high):
    """Bounds on the sum of squares of ``cnt`` values (sums ``s1``, ``s2``) and ``m`` more in
    ``[low, high]``, whose own sum of squares is in ``[0, m (high - low)^2 / 4]``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(cnt > 0, s1 / np.maximum(cnt, 1), 0.0)
        own = np.where(cnt > 0, s2 - s1 * mean, 0.0)
        pull = np.where(cnt + m > 0, cnt * m / np.maximum(cnt + m, 1), 0.0)
    near = np.maximum(np.maximum(low - mean, mean - high), 0.0)
    far = np.maximum(np.abs(low - mean), np.abs(high - mean))
    lower = own + pull * near * near
    upper = own + m * (high - low) ** 2 / 4.0 + pull * far * far
    return lower, upper


def _full_bins(cum, c1, c2, a, s_lo, h):
    """The bins ``C`` (``a + 1 .. hi_c - 1``) every window from bin ``a`` holds whole: ``hi_c``,
    their count, mean and sum of squares (alone a lower bound on those windows')."""
    nb = cum.size - 1
    lo_c = np.minimum(a + 1, nb - 1)
    first_e = np.minimum(np.searchsorted(cum, s_lo + h - 1, side="right") - 1, nb - 1)
    hi_c = np.maximum(first_e, lo_c)
    nc = cum[hi_c] - cum[lo_c]
    s1c, s2c = c1[hi_c] - c1[lo_c], c2[hi_c] - c2[lo_c]
    with np.errstate(divide="ignore", invalid="ignore"):
        mc = np.where(nc > 0, s1c / np.maximum(nc, 1), 0.0)
    ssc = np.where(nc > 0, s2c - s1c * mc, 0.0)
    return hi_c, nc, mc, ssc


def _start_bin_lower(cum, c1, c2, bounds, a, s_lo, s_hi, h):
    """A lower bound on the sum of squares of every window starting in bin ``a``.

    A window from rank ``s`` (``s_lo <= s <= s_hi``) is the full bins ``C`` between bin ``a`` and
    the bins of its last ranks, the ``t = cum[a + 1] - s`` values of bin ``a`` from ``s`` on and
    the ``u = h - |C| - t`` others from the last bins (``[L_e, U_e]``). Its sum of squares
    ``ss(C) + ss(rest) + between`` is bounded below term by term (two groups at least ``L_e - U_a``
    apart; a mean within the mixed bounds) by :func:`_bound_at`, which counts every value of the
    window: the bound meets the sum as the bins narrow to single values.

    Minimised over the integer ``t`` of the bin's range in closed form: for ``t <= h - |C|`` the
    bound is a quadratic in ``t`` on each piece of the mean's distance (zero, or one of two linear
    functions), and beyond it grows with ``t``, so its least value is at the integers next to the
    range's ends, the pieces' ends or their vertices: a few points for every bin at once, whatever
    the rows a bin holds."""
    nb = cum.size - 1
    last_e = np.minimum(np.searchsorted(cum, s_hi + h - 1, side="right") - 1, nb - 1)
    hi_c, nc, mc, ssc = _full_bins(cum, c1, c2, a, s_lo, h)
    La, Ua = bounds[a], bounds[a + 1]
    Le, Ue = bounds[hi_c], bounds[last_e + 1]
    t0 = np.minimum(cum[a + 1] - s_hi, h)
    t1 = np.minimum(cum[a + 1] - s_lo, h)
    K = h - nc  # t + u while u > 0
    gap2 = np.maximum(Le - Ua, 0.0) ** 2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        P = np.where(K > 0, nc * K / (nc + K), 0.0)  # the pull while u > 0
        # near = max(A1 + B1 t, A2 + B2 t, 0) while u > 0
        A1, B1 = Le - mc, (La - Le) / K
        A2, B2 = mc - Ue, (Ue - Ua) / K
        points = [t0, t1, K, -A1 / B1, -A2 / B2, (A2 - A1) / (B1 - B2)]
        for A, B in ((A1, B1), (A2, B2)):  # each quadratic piece's vertex
            points.append((gap2 + 2 * P * A * B) / (2 * gap2 / K - 2 * P * B * B))
    t = np.stack(points, axis=1)
    t = np.clip(np.where(np.isfinite(t), t, t0[:, None]), t0[:, None], t1[:, None])
    t = np.concatenate([np.floor(t), np.ceil(t)], axis=1)  # the integers about each
    t = np.clip(t, t0[:, None], t1[:, None])
    bound = _bound_at(t, nc[:, None], mc[:, None], ssc[:, None], La[:, None], Ua[:, None],
                      Le[:, None], Ue[:, None], h)  # fmt: skip
    return bound.min(axis=1) if bound.size else np.zeros(0)


def _bound_at(t, nc, mc, ssc, La, Ua, Le, Ue, h):
    """The lower bound on the sum of squares of a window with ``t`` values in its start
    bin (``[La, Ua]``), the full bins ``C`` (``nc`` values, mean ``mc``, sum of squares
    ``ssc``) and ``u = h - nc - t`` values in its last bins (``[Le, Ue]``)."""
    u = np.maximum(h - nc - t, 0.0)
    total = t + u
    gap = np.maximum(Le - Ua, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = np.where(total > 0, t * u / np.maximum(total, 1), 0.0) * gap**2
        lo_mean = np.where(total > 0, (t * La + u * Le) / total, 0.0)
        hi_mean = np.where(total > 0, (t * Ua + u * Ue) / total, 0.0)
        pull = np.where(total > 0, nc * total / (nc + total), 0.0)
    near = np.maximum(np.maximum(lo_mean - mc, mc - hi_mean), 0.0)
    return ssc + inner + pull * near * near


def _window_candidates(counts, s1, s2, bounds, n: int, h: int):
    """Start bins that can hold the least-variance window of ``h`` ranks.

    ``bounds`` (bins + 1) are the bins' value limits (shifted like ``s1``). A lower bound: the
    ranks every window from bin ``a`` holds (full bins, then part of a last bin); an upper bound:
    the window from the bin's first rank. A bin is kept when its lower bound is within rounding of
    the least upper bound."""
    cum = np.concatenate([[0.0], np.cumsum(counts)])
    c1 = np.concatenate([[0.0], np.cumsum(s1)])
    c2 = np.concatenate([[0.0], np.cumsum(s2)])
    nb = counts.size
    first = cum[:-1]
    a = np.flatnonzero((counts > 0) & (first <= n - h))
    s_lo = first[a]
    s_hi = np.minimum(cum[a + 1] - 1, n - h)

    def span(lo_rank, last_rank):
        """Full bins from the first starting at or after ``lo_rank`` up to the bin
        holding ``last_rank``, and the part of that bin up to ``last_rank``."""
        b0 = np.minimum(np.searchsorted(cum[:-1], lo_rank, side="left"), nb - 1)
        end = np.minimum(np.searchsorted(cum, last_rank, side="right") - 1, nb - 1)
        end = np.maximum(end, b0)
        m = np.maximum(last_rank + 1 - np.maximum(cum[end], lo_rank), 0.0)
        cnt = cum[end] - cum[b0]
        return _with_part(cnt, c1[end] - c1[b0], c2[end] - c2[b0], m, bounds[end], bounds[end + 1])

    _, upper = span(s_lo, s_lo + h - 1)
    best = upper.min()
    margin = 1e-9 * max(abs(best), 1e-300) + 1e-13 * float(np.abs(c2[-1]))
    # the full bins' sum of squares is below the bound: bins it already rules out are not
    # bounded over each of their start ranks (the same candidates, far fewer bins)
    maybe = _full_bins(cum, c1, c2, a, s_lo, h)[3] <= best + margin
    lower = _start_bin_lower(cum, c1, c2, bounds, a[maybe], s_lo[maybe], s_hi[maybe], h)
    keep = a[maybe][lower <= best + margin]
    return int(keep.min()), int(keep.max()), cum


@dataclass(frozen=True)
class _Column:
    """One column's histogram: sorted ``edges``, and per bin (``edges.size + 1``) the
    count and the sums of ``v - shift`` and of its square."""

    edges: np.ndarray
    counts: np.ndarray
    s1: np.ndarray
    s2: np.ndarray

    @classmethod
    def of(cls, hist: dict, j: int, edges: np.ndarray) -> _Column:
        nb = edges.size + 1
        return cls(edges, hist["counts"][j, :nb], hist["s1"][j, :nb], hist["s2"][j, :nb])


def _split_plan(column: _Column, heavy, low: float, high: float):
    """The bins of ``heavy`` to split (more than one value, a positive width), their new
    inner edges (:data:`REFINE_BINS_PER_COLUMN` in all, in proportion to the counts) and
    the edges a refining pass counts in: those and the split bins' own finite edges."""
    e, counts = column.edges, column.counts
    bounds = np.concatenate([[low], e, [high]])
    split = [b for b in sorted(heavy) if counts[b] > 1 and bounds[b + 1] > bounds[b]]
    total = max(sum(counts[b] for b in split), 1.0)
    inner, local = [], []
    for b in split:
        pieces = max(2, int(REFINE_BINS_PER_COLUMN * counts[b] / total))
        inner.append(np.linspace(bounds[b], bounds[b + 1], pieces + 1)[1:-1])
        local += [inner[-1], e[max(b - 1, 0) : b], e[b : b + 1]]
    local_edges = np.unique(np.concatenate(local)) if local else np.empty(0)
    return np.asarray(split, dtype=np.intp), inner, local_edges


def _fresh(plans: list, columns: list) -> np.ndarray:
    """The bins of a refining pass over each plan's edges that :func:`_merged` reads
    (those inside the split bins), padded as :func:`_padded` pads the edges."""
    E = max(1, max(plan[2].size for plan in plans))
    wanted = np.zeros((len(plans), E + 1), dtype=bool)
    for j, ((split, _, local_edges), col) in enumerate(zip(plans, columns, strict=True)):
        lower = np.concatenate([[-np.inf], local_edges])
        wanted[j, : lower.size] = np.isin(np.searchsorted(col.edges, lower, "right"), split)
    return wanted


def _merged(column: _Column, split, inner, local_edges, local: _Column) -> _Column:
    """``column`` with its bins ``split`` replaced by the refining pass's (``local``, counted in
    ``local_edges``): what one pass over all the edges would count."""
    edges = np.unique(np.concatenate([column.edges, *inner]))
    lower = np.concatenate([[-np.inf], edges])  # each new bin's lower edge
    old = np.searchsorted(column.edges, lower, side="right")
    new = np.searchsorted(local_edges, lower, side="right")
    fresh = np.isin(old, split)
    pairs = ((local.counts, column.counts), (local.s1, column.s1), (local.s2, column.s2))
    parts = [np.where(fresh, mine[new], theirs[old]) for mine, theirs in pairs]
    return _Column(edges, *parts)


def least_variance_windows(
    run, row_index, values, m, n, h, pilot_values, first=False, histograms=None
):
    """For each column, the window of ``h`` contiguous order statistics of least sum of squares
    (unimcd's: the middle of windows tied within a relative 1e-12): its mean and variance (divisor
    ``h - 1``), start rank and gathered records ``[column, range, value, index]`` of the start and
    end ranges with their first ranks; and the passes (two, one more per refinement).

    Parameters
    ----------
    run, row_index, values, m, n, h, pilot_values
        As for :func:`univariate_mcd_chunked`.
    first : bool, default=False
        Take the first least window, as :func:`~robustpca.solvers.mcd._univariate_mcd_subset`.
    histograms : list or None, default=None
        Receives the columns' final histograms and extremes.
    """
    shift = np.median(pilot_values, axis=0)
    most = max(REFINE_BINS_PER_COLUMN, PASS_BINS // max(m, 1))
    edge_lists = [e[:: max(1, -(-e.size // most))] for e in pilot_edges(pilot_values)]
    hist = run(histogram_pass, row_index, values=values, edges=_padded(edge_lists), shift=shift)
    passes = 1
    columns = [_Column.of(hist, j, e) for j, e in enumerate(edge_lists)]
    ext = hist["extremes"]
    for split_round in range(MAX_SPLITS + 1):
        ranges, heavy = [], []
        load = 0.0
        for j, col in enumerate(columns):
            bounds = np.concatenate([[ext.low[j]], col.edges, [ext.high[j]]]) - shift[j]
            a_lo, a_hi, cum = _window_candidates(col.counts, col.s1, col.s2, bounds, n, h)
            start_last = min(cum[a_hi + 1] - 1, n - h)
            b_lo = int(np.searchsorted(cum, cum[a_lo] + h - 1, side="right") - 1)
            b_hi = int(np.searchsorted(cum, start_last + h - 1, side="right") - 1)
            ranges.append((a_lo, a_hi, b_lo, b_hi, cum))
            bins = set(range(a_lo, a_hi + 1)) | set(range(b_lo, b_hi + 1))
            load += sum(col.counts[b] for b in bins)
            heavy.append(bins)
        if load <= GATHER_BUDGET or split_round == MAX_SPLITS:
            break
        plans = [
            _split_plan(col, heavy[j], ext.low[j], ext.high[j]) for j, col in enumerate(columns)
        ]
        if not any(plan[0].size for plan in plans):
            break
        local_edges = [plan[2] for plan in plans]
        hist = run(
            histogram_pass,
            row_index,
            values=values,
            edges=_padded(local_edges),
            shift=shift,
            wanted=_fresh(plans, columns),
        )
        passes += 1
        columns = [
            _merged(col, split, inner, local, _Column.of(hist, j, local))
            for j, (col, (split, inner, local)) in enumerate(zip(columns, plans, strict=True))
        ]
    if histograms is not None:
        histograms += [columns, ext]
    low, high = np.full((m, 2), np.inf), np.full((m, 2), -np.inf)
    for j, (a_lo, a_hi, b_lo, b_hi, _) in enumerate(ranges):
        e = np.concatenate([[-np.inf], columns[j].edges, [np.inf]])
        low[j] = e[a_lo], e[b_lo]
        high[j] = e[a_hi + 1], e[b_hi + 1]
    got = run(gather_pass, row_index, values=values, low=low, high=high)
    passes += 1
    groups = _gathered_by_column(got["gathered"].values, m, 2)
    init_mean, init_var = np.zeros(m), np.zeros(m)
    found: list = []
    for j, (a_lo, a_hi, b_lo, _, cum) in enumerate(ranges):
        c1 = np.concatenate([[0.0], np.cumsum(columns[j].s1)])
        c2 = np.concatenate([[0.0], np.cumsum(columns[j].s2)])
        start = groups[j][0][:, 2] - shift[j]
        end = groups[j][1][:, 2] - shift[j]
        # sums of the ranks below each rank of the two gathered ranges
        p1 = c1[a_lo] + np.concatenate([[0.0], np.cumsum(start)])
        p2 = c2[a_lo] + np.concatenate([[0.0], np.cumsum(start * start)])
        q1 = c1[b_lo] + np.concatenate([[0.0], np.cumsum(end)])
        q2 = c2[b_lo] + np.concatenate([[0.0], np.cumsum(end * end)])
        j0 = int(cum[a_lo])
        starts = np.arange(j0, int(min(cum[a_hi + 1] - 1, n - h)) + 1)
        i_s = starts - j0
        i_e = starts + h - int(cum[b_lo])
        sums = q1[i_e] - p1[i_s]
        ss = (q2[i_e] - p2[i_s]) - sums * sums / h
        ss_min = ss.min()
        ties = ss <= ss_min + 1e-12 * max(abs(ss_min), 1e-300)
        tied = np.flatnonzero(ties)
        window = int(np.argmin(ss)) if first else tied[(tied.size + 1) // 2 - 1]
        found.append((j0 + window, groups[j][0], j0, groups[j][1], int(cum[b_lo])))
        init_mean[j] = shift[j] + sums[window] / h
        init_var[j] = ss_min / (h - 1)
    return init_mean, init_var, found, passes


def univariate_mcd_chunked(run, row_index, values, m: int, n: int, h: int, pilot_values):
    """rrcov's ``unimcd`` of each of the ``m`` columns of ``values`` over all rows.

    Equal to :func:`~robustpca.solvers.outlyingness.univariate_mcd` of the ``n x m`` values to
    rounding (the same window, ties of sums of squares within a relative 1e-12 included, the same
    reweighting), in four passes: the binned sums, the values around the window, the ``h``-th
    scaled residual (in brackets from the window's histogram, :func:`residual_brackets`), the
    reweighted sums (more where a bin must be split or a bracket misses). Returns
    ``(location, scale, passes)``.

    Parameters
    ----------
    run : callable
    row_index : ndarray or dask.array.Array of shape (n,)
        The global row numbers, given to the runner as ``rows``.
    values : callable
        Maps rows of the data to their values, of shape ``(n_rows, m)``.
    m, n, h : int
        The columns of ``values``, the rows, and the window's size (the MCD's ``h``).
    pilot_values : ndarray of shape (n_pilot, m)
        The pilot rows' values, which set the first bins and the shift of their sums.
    """
    pilot_values = np.asarray(pilot_values, dtype=np.float64)
    passes = 0
    if h >= n:
        shift = np.median(pilot_values, axis=0)
        centre, var = shift, np.ones(m)
        out = run(
            reweighted_sums_pass,
            row_index,
            values=values,
            centre=centre,
            var=var,
            factor=np.ones(m),
            cutoff=np.inf,
        )
        cnt = out["count"]
        loc = shift + out["s1"] / cnt
        spread = (out["s2"] - out["s1"] ** 2 / cnt) / max(n - 1, 1)
        return loc, np.sqrt(np.maximum(spread, 0.0)), 1
    held: list = []
    init_mean, init_var, _, used = least_variance_windows(
        run, row_index, values, m, n, h, pilot_values, histograms=held
    )
    passes += used
    scaled = _Scaled(values, init_mean, init_var)
    kth, more = _hth_residual(run, row_index, scaled, held, h, n)
    if kth is None:
        pilot_res = scaled_pilot(pilot_values, init_mean, init_var)
        kth, extra = select_ranks(run, row_index, scaled, np.full((m, 1), h - 1), pilot_res)
        more += extra
    passes += more
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = kth[:, 0] / stats.chi2.ppf(h / n, 1)
    out = run(
        reweighted_sums_pass,
        row_index,
        values=values,
        centre=init_mean,
        var=init_var,
        factor=factor,
        cutoff=stats.chi2.ppf(0.975, 1),
    )
    passes += 1
    cnt = out["count"]
    location = init_mean + out["s1"] / np.maximum(cnt, 1)
    spread = (out["s2"] - out["s1"] ** 2 / np.maximum(cnt, 1)) / np.maximum(cnt - 1, 1)
    degenerate = ~(init_var > 0)
    location = np.where(degenerate, init_mean, location)
    scale = np.where(degenerate, 0.0, np.sqrt(np.maximum(spread, 0.0)))
    return location, scale, passes


def residual_brackets(column: _Column, low: float, high: float, centre, var, h: int):
    """Bounds ``[r_lo, r_hi]`` on the ``h``-th smallest scaled residual ``(v - centre)**2 / var``
    of a column from its histogram (values in ``[low, high]``), and the count of values in the bins
    that may hold residuals in them. A bin's residuals lie between those of its edges (monotone in
    ``v`` on each side of the centre, rounding included), or from 0 where it holds the centre: at
    most ``h - 1`` lie below the ``h``-th smallest bin minimum, at least ``h`` at or below the
    ``h``-th smallest maximum."""
    bounds = np.concatenate([[low], column.edges, [high]])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = (bounds - centre) ** 2 / var
    lo, hi = r[:-1], r[1:]
    rmin = np.where((bounds[:-1] <= centre) & (centre <= bounds[1:]), 0.0, np.minimum(lo, hi))
    rmax = np.maximum(lo, hi)
    full = column.counts > 0
    counts, rmin, rmax = column.counts[full], rmin[full], rmax[full]

    def hth(edge):
        order = np.argsort(edge, kind="stable")
        at = np.searchsorted(np.cumsum(counts[order]), h, side="left")
        return edge[order][min(at, order.size - 1)]

    r_lo, r_hi = hth(rmin), hth(rmax)
    load = float(np.sum(counts[(rmax >= r_lo) & (rmin <= r_hi)]))
    return r_lo, r_hi, load


def _hth_residual(run, row_index, scaled: _Scaled, held: list, h: int, n: int):
    """The ``h``-th smallest scaled residual of each column by one gathering pass in the brackets
    of :func:`residual_brackets` (its counts prove that each holds it), or ``(None, 0)`` where the
    histograms are unusable (a zero or unknown variance) or the brackets hold too many values."""
    columns, ext = held
    m = len(columns)
    if not (np.all(np.isfinite(scaled.var)) and np.all(scaled.var > 0)):
        return None, 0
    low, high, total = np.zeros((m, 1)), np.zeros((m, 1)), 0.0
    for j, col in enumerate(columns):
        r_lo, r_hi, load = residual_brackets(
            col, ext.low[j], ext.high[j], scaled.centre[j], scaled.var[j], h
        )
        if not (np.isfinite(r_lo) and np.isfinite(r_hi)):
            return None, 0
        low[j], high[j], total = r_lo, np.nextafter(r_hi, np.inf), total + load
    if total > GATHER_BUDGET:
        return None, 0
    got = run(gather_pass, row_index, values=scaled, low=low, high=high)
    groups = _gathered_by_column(got["gathered"].values, m, 1)
    kth = np.empty((m, 1))
    for j in range(m):
        below, inside = got["below"][j, 0], groups[j][0]
        if not below <= h - 1 < below + inside.shape[0]:
            return None, 1  # not proven: the counting passes find it
        kth[j, 0] = inside[int(h - 1 - below), 2]
    return kth, 1


def scaled_pilot(pilot_values, centre, var):
    """The pilot's ``(v - centre)**2 / var`` (finite), for the bins of that selection."""
    with np.errstate(divide="ignore", invalid="ignore"):
        res = (pilot_values - centre) ** 2 / var
    return np.where(np.isfinite(res), res, 0.0)
