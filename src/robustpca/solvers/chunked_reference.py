r"""The reference statistics of the outlier diagnostics over row chunks, exactly.

:func:`~robustpca.diagnostics.diagnostic_reference` takes medians and MADs over all the
training rows: of each score column (the "scores" rule), of :math:`OD^{2/3}`, of the
rows' centred norms, then of :math:`SD^{2/3}` under the score centre and scales; a float
``contamination`` needs an order statistic of the training ``score_samples``. Over data
seen only in passes (:mod:`robustpca.solvers.chunked`'s runners) they are found
exactly, without bringing the rows to the client, by a **stage** of passes per round of
statistics (:func:`exact_statistics`):

1. a **counting pass** (:func:`histogram_pass`) weighs each column's values in bins
   whose edges are the values of a fixed pilot of rows
   (:func:`~robustpca.solvers.chunked_order_statistics.pilot_indices`); an edge is a
   bin of its own, so a value shared by many rows costs nothing to locate. Bins too
   full for one gathering are split evenly and counted again (rarely);
2. a **gathering pass** (:func:`gather_pass`) brings back the values inside the
   *windows* that the counts prove to hold the wanted order statistics, with the weight
   below each window. For a median and MAD together the windows are the median's bin
   and the two ranges where :math:`c \pm MAD` can lie for any centre :math:`c` in that
   bin (bounded from the counts), so both come from the same two passes.

Data of at most :data:`SMALL_ROWS` rows skip the counting: one pass gathers the whole
columns. Either way the statistics are the order statistics of the same values
(positions by cumulative weight, as the weighted medians of
:mod:`robustpca.diagnostics`, which with unit weights are NumPy's), so they equal the
in-memory ones to rounding; where a window's check fails the column is gathered whole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robust_scale import MAD_CONSTANT, effective_count, is_whole, median_positions
from .chunked import Rows, sub_blocks
from .contamination_cut import Window, contamination_target, offset_from_window

__all__ = [
    "Summary",
    "exact_statistics",
    "gather_pass",
    "histogram_pass",
]

#: Data of at most this many rows are gathered whole (one pass a stage, no counting).
SMALL_ROWS = 1 << 16
#: At most this many values are gathered by one pass; fuller windows are split first.
GATHER_BUDGET = 1 << 20
#: A bin that is split becomes this many equal-width bins.
REFINE_BINS = 256
#: Rounds of splitting at most; then the windows are gathered as they are.
MAX_SPLITS = 3
#: The kinds of statistic a column may want.
KINDS = (None, "median", "lower_median", "median_mad", "offset")
_EPS = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class Summary:
    """Per column: weight, count of rows with positive weight, sum of squared weights,
    extremes of their values, their weighted mean and centred sum of squares (merged by
    Chan's formula), and whether every weight is a whole number.

    Parameters
    ----------
    weight, count, square, low, high, mean, m2 : ndarray of shape (m,)
    whole : ndarray of bool of shape (m,)
    """

    weight: np.ndarray
    count: np.ndarray
    square: np.ndarray
    low: np.ndarray
    high: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    whole: np.ndarray

    @classmethod
    def of(cls, V: np.ndarray, W: np.ndarray) -> Summary:
        """The summary of one chunk's values; rows of weight 0 count nowhere.

        Parameters
        ----------
        V : ndarray of shape (n_rows, n_columns)
            The chunk's values of each column (the distances of its rows).
        W : ndarray of shape (n_rows, n_columns)
            Their weights.

        Returns
        -------
        Summary
        """
        keep = W > 0
        w = np.where(keep, W, 0.0)
        weight = w.sum(axis=0)
        finite = np.where(keep, V, 0.0)
        # columns of squared distances of huge data overflow to inf (their spread is not
        # needed then; the order statistics are counted on the values themselves)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            mean = np.where(weight > 0, (w * finite).sum(axis=0) / np.maximum(weight, 1e-300), 0.0)
            m2 = (w * (finite - mean) ** 2).sum(axis=0)
        low = np.where(keep, V, np.inf).min(axis=0, initial=np.inf)
        high = np.where(keep, V, -np.inf).max(axis=0, initial=-np.inf)
        whole = np.all(is_whole(w), axis=0)
        count = keep.sum(axis=0).astype(np.float64)
        return cls(weight, count, (w * w).sum(axis=0), low, high, mean, m2, whole)

    def variance_count(self, column: int) -> float:
        """:func:`~robustpca.robust_scale.variance_count` of a column's weights.

        Parameters
        ----------
        column : int
            The column.

        Returns
        -------
        float
        """
        weight, square = float(self.weight[column]), float(self.square[column])
        return effective_count(weight, square, bool(self.whole[column]))

    def __add__(self, other: Summary) -> Summary:
        total = self.weight + other.weight
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(total > 0, other.weight / np.where(total > 0, total, 1.0), 0.0)
        with np.errstate(invalid="ignore", over="ignore"):
            delta = other.mean - self.mean
            mean = self.mean + delta * share
            m2 = self.m2 + other.m2 + delta * delta * self.weight * share
        return Summary(
            total,
            self.count + other.count,
            self.square + other.square,
            np.minimum(self.low, other.low),
            np.maximum(self.high, other.high),
            mean,
            m2,
            self.whole & other.whole,
        )


def _values(columns, x, rows):
    V, W = columns(x, rows)
    return np.asarray(V, dtype=np.float64), np.asarray(W, dtype=np.float64)


def histogram_pass(x, rows=None, *, columns, edges) -> dict:
    """Weights (and row counts) of each column's values in the bins of its ``edges``: bin
    ``2i + 1`` holds the value ``edges[i]``, bin ``2i`` the open interval below it; rows of
    zero weight are counted, not weighed. And the :class:`Summary` of the columns.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
    rows : ndarray of shape (n_rows,) or None, default=None
        Its part of the runner's per-row array (the sample weights), given to ``columns``.
    columns : callable
        ``columns(x, rows) -> (V, W)``, as in :func:`exact_statistics`.
    edges : list of ndarray
        Each column's edges, sorted and distinct.
    """
    m = len(edges)
    size = 2 * max((e.size for e in edges), default=0) + 1
    weights, counts = np.zeros((m, size)), np.zeros((m, size))
    summary = None
    for a, b in sub_blocks(x.shape[0], max(x.shape[1], m)):
        V, W = _values(columns, x[a:b], None if rows is None else rows[a:b])
        part = Summary.of(V, W)
        summary = part if summary is None else summary + part
        for j, e in enumerate(edges):
            keep = W[:, j] >= 0
            v = V[keep, j]
            ids = np.searchsorted(e, v, side="left") + np.searchsorted(e, v, side="right")
            span = 2 * e.size + 1
            weights[j, :span] += np.bincount(ids, weights=W[keep, j], minlength=span)
            counts[j, :span] += np.bincount(ids, minlength=span)
    return {"weights": weights, "counts": counts, "summary": summary}


def gather_pass(x, rows=None, *, columns, low, high) -> dict:
    """For each column ``j`` and window ``r``: the weight and the number of rows below
    ``low``, above ``high`` and at either end, and the records ``[j, r, value, weight]``
    strictly inside. Rows of negative weight are left out everywhere.

    Parameters
    ----------
    x, rows, columns
        As in :func:`histogram_pass`.
    low, high : ndarray of shape (m, R)
        The ends of the windows, ``low[j, r] <= high[j, r]``; NaN: no window.
    """
    m, R = low.shape
    below, n_below = np.zeros((m, R)), np.zeros((m, R))
    at_low, at_high, n_above = np.zeros((m, R)), np.zeros((m, R)), np.zeros((m, R))
    n_low, n_high = np.zeros((m, R)), np.zeros((m, R))
    parts, summary = [], None
    for a, b in sub_blocks(x.shape[0], max(x.shape[1], m)):
        V, W = _values(columns, x[a:b], None if rows is None else rows[a:b])
        part = Summary.of(V, W)
        summary = part if summary is None else summary + part
        for j, r in zip(*np.nonzero(~np.isnan(low)), strict=True):
            keep = W[:, j] >= 0
            v, w = V[keep, j], W[keep, j]
            lo, hi = low[j, r], high[j, r]
            under = v < lo
            below[j, r] += w[under].sum()
            n_below[j, r] += np.count_nonzero(under)
            n_above[j, r] += np.count_nonzero(v > hi)
            on_low, on_high = v == lo, (v == hi) & (hi > lo)
            at_low[j, r] += w[on_low].sum()
            n_low[j, r] += np.count_nonzero(on_low)
            at_high[j, r] += w[on_high].sum()
            n_high[j, r] += np.count_nonzero(on_high)
            inside = (v > lo) & (v < hi)
            if inside.any():
                count = int(np.count_nonzero(inside))
                parts.append(
                    np.column_stack(
                        [np.full(count, j), np.full(count, r), v[inside], w[inside]]
                    ).astype(np.float64)
                )
    merged = np.concatenate(parts) if parts else np.empty((0, 4))
    return {
        "below": below,
        "n_below": n_below,
        "n_above": n_above,
        "at_low": at_low,
        "at_high": at_high,
        "n_low": n_low,
        "n_high": n_high,
        "records": Rows((merged,)),
        "summary": summary,
    }


def _windows(got: dict, low, high) -> dict:
    """The gathered :class:`Window` of every ``(j, r)``."""
    records = got["records"].values.reshape(-1, 4)
    out = {}
    for j, r in zip(*np.nonzero(~np.isnan(low)), strict=True):
        mine = records[(records[:, 0] == j) & (records[:, 1] == r)]
        mine = mine[np.argsort(mine[:, 2], kind="stable")]
        lo, hi = float(low[j, r]), float(high[j, r])
        values, weights = [mine[:, 2]], [mine[:, 3]]
        if got["n_low"][j, r] > 0:
            values.insert(0, np.array([lo]))
            weights.insert(0, got["at_low"][j, r : r + 1])
        if got["n_high"][j, r] > 0:
            values.append(np.array([hi]))
            weights.append(got["at_high"][j, r : r + 1])
        out[(j, r)] = Window(
            lo,
            hi,
            np.concatenate(values),
            np.concatenate(weights),
            float(got["below"][j, r]),
            float(got["n_below"][j, r]),
            float(got["n_above"][j, r]),
        )
    return out


def _median(window: Window, total: float) -> float | None:
    a, b = (window.value_at(q) for q in median_positions(total))
    if a is None or b is None:
        return None
    return 0.5 * (a + b)


def _deviation_median(centre: float, lower: Window, upper: Window | None, total: float):
    r"""The median of :math:`|v - c|` from the windows around :math:`c \mp s` (``upper``
    None: ``lower`` is one window holding both), or None when they do not prove it."""
    if upper is None:
        values, weights = lower.values, lower.weights
        between, start = 0.0, -np.inf
        stop = min(lower.high - centre, centre - lower.low)
    elif not lower.high < upper.low:  # overlapping windows: to be gathered as one
        return None
    else:
        values = np.concatenate([lower.values, upper.values])
        weights = np.concatenate([lower.weights, upper.weights])
        between = upper.below - lower.below - float(lower.weights.sum())
        start = max(upper.low - centre, centre - lower.high)
        stop = min(upper.high - centre, centre - lower.low)
    finite = [abs(v) for v in (centre, lower.low, lower.high) if np.isfinite(v)]
    if upper is not None:
        finite += [abs(v) for v in (upper.low, upper.high) if np.isfinite(v)]
    margin = 16.0 * _EPS * max(finite, default=0.0)
    start = start + margin if start > 0 else 0.0
    stop = stop - margin
    deviations = np.abs(values - centre)
    order = np.argsort(deviations, kind="stable")
    d, cum = deviations[order], between + np.cumsum(weights[order])
    out = []
    for q in median_positions(total):
        if start > 0 and between + weights[deviations <= start].sum() > q:
            return None
        i = int(np.searchsorted(cum, q, side="right"))
        if i >= d.size or d[i] > stop or d[i] < start:
            return None
        out.append(float(d[i]))
    return 0.5 * (out[0] + out[1])


# --------------------------------------------------------------------------- windows
@dataclass(frozen=True)
class _Bins:
    """One column's counting pass: edges, weights and counts of its ``2E + 1`` bins."""

    edges: np.ndarray
    weights: np.ndarray
    counts: np.ndarray

    @property
    def cum(self) -> np.ndarray:
        return np.concatenate([[0.0], np.cumsum(self.weights)])

    def bin_of(self, position: float) -> int:
        found = int(np.searchsorted(self.cum[1:], position, side="right"))
        return min(found, self.weights.size - 1)

    def bounds(self, b: int) -> tuple[float, float]:
        """The values a bin spans (an edge's own bin: that value)."""
        e = self.edges
        if b % 2:
            return float(e[b // 2]), float(e[b // 2])
        i = b // 2
        return (float(e[i - 1]) if i > 0 else -np.inf), (float(e[i]) if i < e.size else np.inf)

    def weight_below(self, y: np.ndarray, strict: bool) -> tuple[np.ndarray, np.ndarray]:
        """Bounds on the weight of values ``< y`` (``strict``) or ``<= y``."""
        e, cum = self.edges, self.cum
        i = np.searchsorted(e, y, side="left")
        exact = (i < e.size) & (e[np.minimum(i, max(e.size - 1, 0))] == y) if e.size else i < 0
        lo, hi = cum[2 * i], cum[2 * i + 1]
        at = np.where(strict, cum[2 * i + 1], cum[np.minimum(2 * i + 2, cum.size - 1)])
        return np.where(exact, at, lo), np.where(exact, at, hi)


def _median_bins(bins: _Bins, total: float) -> tuple[int, int]:
    qa, qb = median_positions(total)
    return bins.bin_of(qa), bins.bin_of(qb)


def _mad_ranges(bins: _Bins, cl: float, ch: float, total: float):
    r"""Ranges ``[cl - s_hi, ch - s_lo]`` and ``[cl + s_lo, ch + s_hi]`` that hold
    :math:`c \mp MAD` for any centre ``c`` in ``[cl, ch]``, from the bins' weights."""
    e = bins.edges
    grid = np.unique(np.abs(np.concatenate([[0.0], e - cl, e - ch])))
    grid = grid[np.isfinite(grid)]
    lo_pos, hi_pos = median_positions(total)
    at_least = bins.weight_below(cl + grid, strict=False)[0] - bins.weight_below(ch - grid, True)[1]
    at_most = bins.weight_below(ch + grid, strict=False)[1] - bins.weight_below(cl - grid, True)[0]
    above = grid[at_least > hi_pos]
    s_hi = float(above.min()) if above.size else np.inf
    below = grid[at_most <= lo_pos]
    s_lo = float(below.max()) if below.size else 0.0
    widen = (
        16.0 * _EPS * max(abs(cl) if np.isfinite(cl) else 0.0, abs(ch) if np.isfinite(ch) else 0.0)
    )
    s_hi, s_lo = s_hi + widen + 4 * _EPS * s_hi, max(s_lo - widen - 4 * _EPS * s_lo, 0.0)
    with np.errstate(invalid="ignore"):
        return (cl - s_hi, ch - s_lo), (cl + s_lo, ch + s_hi)


def _offset_bins(bins: _Bins, total: float, share: float, whole: bool) -> tuple[int, int]:
    """The bins around the cut: the target's, widened to a bin of positive weight and
    rows on either side (or the ends)."""
    b = bins.bin_of(contamination_target(share, total, whole))
    first, last = b, b
    while first > 0:
        first -= 1
        if bins.weights[first] > 0:
            break
    while last < bins.weights.size - 1:
        last += 1
        if bins.weights[last] > 0:
            break
    return first, last


def _plan(kind, bins: _Bins | None, total: float, share: float, whole: bool = True):
    """The windows ``[(low, high), ...]`` (up to three) of one column's statistic."""
    if kind is None:
        return []
    if bins is None:  # gathered whole
        return [(-np.inf, np.inf)] * (2 if kind == "median_mad" else 1)
    if kind == "offset":
        a, b = _offset_bins(bins, total, share, whole)
        return [(bins.bounds(a)[0], bins.bounds(b)[1])]
    if kind == "lower_median":  # the bin where the cumulative weight reaches half
        found = int(np.searchsorted(bins.cum[1:], 0.5 * total, side="left"))
        a, b = sorted((min(found, bins.weights.size - 1), bins.bin_of(0.5 * total)))
        return [(bins.bounds(a)[0], bins.bounds(b)[1])]
    a, b = _median_bins(bins, total)
    cl, ch = bins.bounds(a)[0], bins.bounds(b)[1]
    if kind == "median":
        return [(cl, ch)]
    (l1, h1), (l2, h2) = _mad_ranges(bins, cl, ch, total)
    if not h1 < l2:  # overlapping: one window
        return [(cl, ch), (min(l1, cl), max(h2, ch))]
    return [(cl, ch), (l1, h1), (l2, h2)]


def _load(bins: _Bins, windows) -> tuple[float, set]:
    """Rows the windows would gather (open bins inside them) and those bins."""
    e = bins.edges
    load, heavy = 0.0, set()
    for lo, hi in windows:
        a = int(np.searchsorted(e, lo, side="left")) * 2 if np.isfinite(lo) else 0
        b = int(np.searchsorted(e, hi, side="right")) * 2 if np.isfinite(hi) else 2 * e.size
        for i in range(a, b + 1, 2):
            load += bins.counts[i]
            if bins.counts[i] > 1:
                heavy.add(i)
    return load, heavy


def _split(bins: _Bins, heavy: set, low: float, high: float) -> np.ndarray:
    extra = [bins.edges]
    for b in heavy:
        lo, hi = bins.bounds(b)
        lo, hi = (low if not np.isfinite(lo) else lo), (high if not np.isfinite(hi) else hi)
        if np.isfinite(lo) and np.isfinite(hi) and hi > lo:
            extra.append(np.linspace(lo, hi, REFINE_BINS + 1))
    edges = np.unique(np.concatenate(extra))
    return edges[np.isfinite(edges)]


# --------------------------------------------------------------------------- stages
def _resolve(kind, windows: dict, j: int, total: float, share: float, whole: bool):
    if kind in ("median", "median_mad") and not total > 0:  # no row: no median (NaN)
        return np.nan if kind == "median" else (np.nan, np.nan)
    if kind == "offset":
        return offset_from_window(windows[(j, 0)], contamination_target(share, total, whole))
    if kind == "lower_median":
        return windows[(j, 0)].value_reaching(0.5 * total) if total > 0 else 0.0
    centre = _median(windows[(j, 0)], total)
    if centre is None or kind == "median":
        return centre
    upper = windows.get((j, 2))
    mad = _deviation_median(centre, windows[(j, 1)], upper, total)
    return None if mad is None else (centre, MAD_CONSTANT * mad)


def exact_statistics(
    run, rows, columns, kinds, n: int, *, pilot=None, share: float = 0.0, whole: bool = True
):
    """Each column's statistic over all rows, exactly; ``(results, summary, passes)``.

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`~robustpca.solvers.chunked`).
    rows : array-like of shape (n,) or None
        The per-row array the runner hands out with the chunks: sample weights or None.
    columns : callable
        ``columns(x, w) -> (V, W)``: the ``m`` columns of a block (``w``: its part of
        ``rows``) and their weights (0: left out of the statistics; below 0: entirely).
    kinds : sequence of {None, "median", "median_mad", "lower_median", "offset"}
        Per column: None (the summary only), the median, ``(median, MAD)`` (MAD times 1.4826), the
        first value whose cumulative weight reaches half the total (the weighted median of
        :mod:`~.likelihood`; 0 without weight) or the ``contamination_offset`` at ``share``.
        A median (and MAD) of a column with no weight is NaN: callers test the count.
    n : int
    pilot : tuple of (ndarray, ndarray or None) or None, default=None
        ``(pilot_x, pilot_w)``: rows whose values give the bins (above :data:`SMALL_ROWS`).
    share : float, default=0.0
    whole : bool, default=True
        Every weight is a whole number (:func:`~.contamination_cut.contamination_target`).
    """
    m = len(kinds)
    passes = 0
    bins: list = [None] * m
    summary = None
    if n > SMALL_ROWS and pilot is not None and any(kinds):
        V, W = _values(columns, *pilot)
        edges = [np.unique(V[(W[:, j] >= 0) & np.isfinite(V[:, j]), j]) for j in range(m)]
        for split in range(MAX_SPLITS + 1):
            hist = run(histogram_pass, rows, columns=columns, edges=edges)
            passes += 1
            summary = hist["summary"]
            bins = [
                _Bins(e, hist["weights"][j, : 2 * e.size + 1], hist["counts"][j, : 2 * e.size + 1])
                for j, e in enumerate(edges)
            ]
            plans = [_plan(kinds[j], bins[j], summary.weight[j], share, whole) for j in range(m)]
            loads = [_load(bins[j], plans[j]) for j in range(m)]
            if sum(load for load, _ in loads) <= GATHER_BUDGET or split == MAX_SPLITS:
                break
            edges = [
                _split(bins[j], loads[j][1], summary.low[j], summary.high[j]) for j in range(m)
            ]
    results: list = [None] * m
    pending = [j for j in range(m) if kinds[j] is not None]
    for _ in range(2):  # the planned windows, then whole columns where a check failed
        if not pending:
            break
        windows_of = {
            j: _plan(kinds[j], bins[j], _total(summary, j), share, whole) for j in pending
        }
        low, high = np.full((m, 3), np.nan), np.full((m, 3), np.nan)
        for j, plan in windows_of.items():
            for r, (lo, hi) in enumerate(plan):
                low[j, r], high[j, r] = lo, hi
        got = run(gather_pass, rows, columns=columns, low=low, high=high)
        passes += 1
        summary = got["summary"]
        windows = _windows(got, low, high)
        for j in pending:
            results[j] = _resolve(kinds[j], windows, j, summary.weight[j], share, whole)
        pending = [j for j in pending if results[j] is None]
        bins = [None] * m  # a failed window: the whole column next
    if summary is None:  # no statistic wanted: the summary alone
        got = run(gather_pass, rows, columns=columns, low=np.full((m, 1), np.nan),
                  high=np.full((m, 1), np.nan))  # fmt: skip
        passes += 1
        summary = got["summary"]
    if pending:  # pragma: no cover - whole columns always resolve
        raise RuntimeError(f"the order statistics of columns {pending} were not found")
    return results, summary, passes


def _total(summary, j: int) -> float:
    return 0.0 if summary is None else float(summary.weight[j])
