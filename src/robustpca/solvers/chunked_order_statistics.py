r"""Exact order statistics of per-row values over row chunks, by counting passes.

The rrcov family needs order statistics of values computed row by row (projections on
directions, distances under fits): the ``h``-th smallest outlyingness or distance, the
windows of the univariate MCD, medians. Over data seen only in passes they are found
exactly without bringing the rows to the client:

1. **bins from a pilot**: the values of a few thousand rows (a fixed pseudo-random
   pilot, :func:`pilot_indices`, gathered once) give each column's bin edges, so that
   the bins hold about ``n / pilot`` rows each whatever the distribution;
2. **counting passes** (:func:`histogram_pass`) count the values of every column in
   its bins, vectorised over all the columns at once (and, for the univariate MCD, add
   the values and their squares per bin); a bin still too full for the client is split
   into equal-width bins between its smallest and largest value and counted again;
3. **a gathering pass** brings back only the values (and the rows) inside the bin that
   holds each wanted rank, with what is below it summed in the same pass.

The pilot only sets the bins: the results are the exact order statistics of all rows,
whatever rows it draws. :func:`univariate_mcd_chunked` is rrcov's ``unimcd``
(:func:`~robustpca.solvers.outlyingness.univariate_mcd`) in five passes: the window of
``h`` contiguous order statistics of least variance is located by bounds on the binned
sums (a set's sum of squares lies between that of any subset and of any superset) and
settled on the values gathered around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .chunked import Rows, sub_blocks

__all__ = [
    "Extremes",
    "bracket_ranks",
    "gather_pass",
    "gather_rows",
    "gather_rows_pass",
    "histogram_pass",
    "pilot_indices",
    "select_ranks",
    "univariate_mcd_chunked",
]

#: Rows of the pilot whose values set the bins (at most; a 64th of smaller data).
PILOT_ROWS = 4096
#: The pilot's seed: a constant, so that the pilot never draws from ``random_state``.
PILOT_SEED = 41
#: At most this many values (over all columns) are gathered by one pass; bins holding
#: more are split and counted again first.
GATHER_BUDGET = 1 << 21
#: A bin that is split becomes this many equal-width bins.
REFINE_BINS = 512
#: Values per sub-block of a counting pass (the per-bin sums are formed once per
#: sub-block, so sub-blocks much larger than the bins keep that cost small).
HISTOGRAM_BLOCK_VALUES = 1 << 22
#: Rounds of splitting at most; then the bins are gathered as they are.
MAX_SPLITS = 4


def pilot_indices(n: int) -> np.ndarray:
    """Sorted distinct row indices of the pilot: about ``min(PILOT_ROWS, n / 64)`` rows
    (one at least), so that a bin holds about 64 rows or more."""
    size = max(1, min(PILOT_ROWS, n // 64))
    drawn = np.random.default_rng(PILOT_SEED).integers(0, n, size=size)
    return np.unique(drawn)


@dataclass(frozen=True)
class Extremes:
    """Each column's smallest and largest values; ``+`` merges two sets of rows."""

    low: np.ndarray
    high: np.ndarray

    def __add__(self, other: Extremes) -> Extremes:
        return Extremes(np.minimum(self.low, other.low), np.maximum(self.high, other.high))


def _blocks(x, width: int):
    return sub_blocks(x.shape[0], max(width, x.shape[1]))


def gather_rows_pass(x, rows=None, *, wanted: np.ndarray) -> dict:
    """The rows of ``x`` whose global index (``rows``) is in the sorted ``wanted``,
    as ``[index, x...]`` records."""
    at = np.searchsorted(wanted, rows)
    at = np.minimum(at, max(wanted.size - 1, 0))
    keep = wanted[at] == rows if wanted.size else np.zeros(rows.shape[0], dtype=bool)
    record = np.column_stack([rows[keep].astype(np.float64), x[keep]])
    return {"rows": Rows((record,))}


def gather_rows(run, row_index, wanted: np.ndarray, *, also=None) -> np.ndarray:
    """The rows ``wanted`` (sorted distinct indices), in that order, by one pass."""
    out = run(gather_rows_pass, row_index, wanted=np.asarray(wanted, dtype=np.int64))
    records = out["rows"].values
    order = np.argsort(records[:, 0], kind="stable")
    return records[order, 1:]


def histogram_pass(x, rows=None, *, values, edges, shift=None) -> dict:
    """Counts of each column's values in the bins of ``edges`` (m, E) (+inf padded):
    bin ``b`` holds ``edges[b-1] <= v < edges[b]``; each column's extremes. With
    ``shift`` (m,), also the sums of ``v - shift`` and of its square per bin. Each
    sub-block's columns are sorted once and the edges located in them."""
    m, E = edges.shape
    counts = np.zeros((m, E + 1))
    s1, s2 = np.zeros((m, E + 1)), np.zeros((m, E + 1))
    low, high = np.full(m, np.inf), np.full(m, -np.inf)
    step = max(64, HISTOGRAM_BLOCK_VALUES // max(m, x.shape[1], 1))
    for a in range(0, max(x.shape[0], 1), step):
        b = min(a + step, x.shape[0])
        V = np.sort(values(x[a:b]), axis=0).T  # (m, rows), each column sorted
        size = V.shape[1]
        if size == 0:
            continue
        low, high = np.minimum(low, V[:, 0]), np.maximum(high, V[:, -1])
        pos = np.empty((m, E + 2), dtype=np.intp)
        pos[:, 0], pos[:, -1] = 0, size
        for j in range(m):
            pos[j, 1:-1] = np.searchsorted(V[j], edges[j], side="left")
        counts += np.diff(pos, axis=1)
        if shift is not None:
            d = V - shift[:, None]
            zero = np.zeros((m, 1))
            c1 = np.concatenate([zero, np.cumsum(d, axis=1)], axis=1)
            c2 = np.concatenate([zero, np.cumsum(d * d, axis=1)], axis=1)
            s1 += np.diff(np.take_along_axis(c1, pos, axis=1), axis=1)
            s2 += np.diff(np.take_along_axis(c2, pos, axis=1), axis=1)
    out: dict[str, Any] = {"counts": counts, "extremes": Extremes(low, high)}
    if shift is not None:
        out.update(s1=s1, s2=s2)
    return out


def gather_pass(x, rows=None, *, values, low, high, payload=False) -> dict:
    """Records ``[column, range, value, index(, x...)]`` of the values in any of the
    ranges ``low[j, r] <= v < high[j, r]`` (``low``, ``high`` of shape (m, R)), and
    ``below[j, r]``, the number of values under ``low[j, r]``."""
    m, R = low.shape
    parts = []
    below = np.zeros((m, R))
    for a, b in _blocks(x, m):
        V = values(x[a:b])
        for r in range(R):
            below[:, r] += np.count_nonzero(V < low[:, r], axis=0)
            row, col = np.nonzero((V >= low[:, r]) & (V < high[:, r]))
            if not row.size:
                continue
            cols = [col, np.full(row.size, r), V[row, col], rows[a:b][row]]
            record = np.column_stack(cols).astype(np.float64)
            if payload:
                record = np.column_stack([record, x[a:b][row]])
            parts.append(record)
    width = 4 + (x.shape[1] if payload else 0)
    merged = np.concatenate(parts) if parts else np.empty((0, width))
    return {"gathered": Rows((merged,)), "below": below}


def _padded(edge_lists: list[np.ndarray]) -> np.ndarray:
    E = max(1, max(e.size for e in edge_lists))
    out = np.full((len(edge_lists), E), np.inf)
    for j, e in enumerate(edge_lists):
        out[j, : e.size] = e
    return out


def pilot_edges(pilot_values: np.ndarray) -> list[np.ndarray]:
    """Each column's distinct finite pilot values: the first bin edges."""
    return [np.unique(c[np.isfinite(c)]) for c in np.asarray(pilot_values).T]


def _split(edge_lists, counts, extremes, wanted_bins):
    """Edges with the bins ``wanted_bins[j]`` (sets of bin numbers) split evenly
    between their edges (the column's extremes for the two open end bins)."""
    new = []
    for j, e in enumerate(edge_lists):
        bounds = np.concatenate([[extremes.low[j]], e, [extremes.high[j]]])
        extra = []
        for b in wanted_bins[j]:
            lo, hi = bounds[b], bounds[b + 1]
            if counts[j, b] > 1 and hi > lo:
                extra.append(np.linspace(lo, hi, REFINE_BINS + 1)[1:-1])
        new.append(np.unique(np.concatenate([e, *extra])) if extra else e)
    return new


@dataclass(frozen=True)
class Brackets:
    """For each column ``j`` and wanted rank ``r``: ``low <= v_(r) < high``, with
    ``below`` values under ``low`` and ``inside`` values in the bracket; where the
    bracket holds one distinct value, ``exact`` is it (else NaN)."""

    low: np.ndarray
    high: np.ndarray
    below: np.ndarray
    inside: np.ndarray
    exact: np.ndarray


def _bins_of(edge_lists, counts, extremes, ranks):
    m, q = ranks.shape
    low, high = np.full((m, q), -np.inf), np.full((m, q), np.inf)
    below, inside, exact = np.zeros((m, q)), np.zeros((m, q)), np.full((m, q), np.nan)
    bins = np.zeros((m, q), dtype=np.intp)
    for j, e in enumerate(edge_lists):
        cum = np.concatenate([[0.0], np.cumsum(counts[j, : e.size + 1])])
        b = np.searchsorted(cum, ranks[j], side="right") - 1
        bins[j] = b
        below[j], inside[j] = cum[b], counts[j, b]
        low[j] = np.where(b > 0, e[np.maximum(b - 1, 0)], -np.inf)
        high[j] = np.where(b < e.size, e[np.minimum(b, e.size - 1)], np.inf)
        same = extremes.low[j] == extremes.high[j]  # a constant column
        exact[j] = np.where(same, extremes.low[j], np.nan)
    return bins, Brackets(low, high, below, inside, exact)


def bracket_ranks(run, row_index, values, ranks, pilot_values) -> tuple[Brackets, int]:
    """Counting passes until the bins holding the wanted ``ranks`` (m, q), 0-based,
    hold at most :data:`GATHER_BUDGET` values together. Returns the brackets and the
    passes run."""
    ranks = np.asarray(ranks, dtype=np.float64)
    edge_lists = pilot_edges(pilot_values)
    passes = 0
    for _ in range(MAX_SPLITS + 1):
        out = run(histogram_pass, row_index, values=values, edges=_padded(edge_lists))
        passes += 1
        counts, extremes = out["counts"], out["extremes"]
        bins, brackets = _bins_of(edge_lists, counts, extremes, ranks)
        pending = np.isnan(brackets.exact)
        load = sum(
            counts[j, b] for j in range(ranks.shape[0]) for b in set(bins[j][pending[j]].tolist())
        )
        if load <= GATHER_BUDGET:
            break
        edge_lists = _split(
            edge_lists,
            counts,
            extremes,
            [set(bins[j][pending[j]].tolist()) for j in range(len(bins))],
        )
    return brackets, passes


def _gathered_by_column(records: np.ndarray, m: int, R: int):
    """Gathered records split by column and range, each sorted by (value, index)."""
    order = np.lexsort((records[:, 3], records[:, 2], records[:, 1], records[:, 0]))
    records = records[order]
    key = records[:, 0].astype(np.intp) * R + records[:, 1].astype(np.intp)
    bounds = np.searchsorted(key, np.arange(m * R + 1))
    return [
        [records[bounds[j * R + r] : bounds[j * R + r + 1]] for r in range(R)] for j in range(m)
    ]


def select_ranks(run, row_index, values, ranks, pilot_values) -> tuple[np.ndarray, int]:
    """The values of the 0-based ``ranks`` (m, q) of each column, exactly, and the
    passes run: one when brackets guessed from the pilot's quantiles
    (:func:`guess_brackets`) hold every wanted rank (the pass's counts tell), else
    counting passes, then one gathering pass unless every bracket holds a single
    value."""
    ranks = np.asarray(ranks, dtype=np.float64)
    n = int(row_index.shape[0]) if hasattr(row_index, "shape") else None
    passes = 0
    guessed = guess_brackets(pilot_values, ranks, n)
    if guessed is not None:
        low, high = guessed
        got = run(gather_pass, row_index, values=values, low=low, high=high)
        passes += 1
        groups = _gathered_by_column(got["gathered"].values, *ranks.shape)
        below = got["below"]
        inside = np.array([[g.shape[0] for g in col] for col in groups]).reshape(ranks.shape)
        if np.all((below <= ranks) & (ranks < below + inside)):
            values_at = np.empty(ranks.shape)
            for j, r in np.ndindex(*ranks.shape):
                values_at[j, r] = groups[j][r][int(ranks[j, r] - below[j, r]), 2]
            return values_at, passes
    brackets, used = bracket_ranks(run, row_index, values, ranks, pilot_values)
    passes += used
    out = brackets.exact.copy()
    pending = np.isnan(out)
    if pending.any():
        low = np.where(pending, brackets.low, np.inf)
        high = np.where(pending, brackets.high, -np.inf)
        got = run(gather_pass, row_index, values=values, low=low, high=high)
        passes += 1
        groups = _gathered_by_column(got["gathered"].values, *ranks.shape)
        for j, r in zip(*np.nonzero(pending), strict=True):
            inside = groups[j][r][:, 2]
            out[j, r] = inside[int(ranks[j, r] - brackets.below[j, r])]
    return out, passes


#: A guessed bracket spans this many standard errors of the pilot's quantile each side.
GUESS_Z = 4.0


def guess_brackets(pilot_values, ranks, n):
    """Brackets ``[low, high)`` (shaped like ``ranks``) around each wanted rank from the
    pilot's order statistics, wide enough to hold it with high probability; None where
    the pilot is too small or the brackets would hold more rows than one pass gathers."""
    pilot_values = np.asarray(pilot_values, dtype=np.float64)
    P = pilot_values.shape[0]
    if n is None or P < 64:
        return None
    q = (ranks + 0.5) / n
    spread = GUESS_Z * np.sqrt(q * (1 - q) * P) + 2
    lo = np.floor(q * P - spread).astype(np.intp)
    hi = np.ceil(q * P + spread).astype(np.intp)
    if float(np.sum((np.minimum(hi, P) - np.maximum(lo, 0)) / P * n)) > GATHER_BUDGET:
        return None
    ordered = np.sort(pilot_values, axis=0)
    cols = np.arange(ranks.shape[0])[:, None]
    low = np.where(lo >= 0, ordered[np.clip(lo, 0, P - 1), cols], -np.inf)
    high = np.where(hi < P, ordered[np.clip(hi, 0, P - 1), cols], np.inf)
    return low, high


# --------------------------------------------------------------------------- unimcd
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
    reweighting, ``res / factor < cutoff``."""
    m = centre.shape[0]
    count, s1, s2 = np.zeros(m), np.zeros(m), np.zeros(m)
    for a, b in _blocks(x, m):
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


def _ss_of(cnt, s1, s2):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(cnt > 0, s2 - s1 * s1 / np.maximum(cnt, 1), 0.0)


def _with_part(cnt, s1, s2, m, low, high):
    """Bounds on the sum of squares of a set of ``cnt`` values (sums ``s1``, ``s2``)
    joined by ``m`` values known only to lie in ``[low, high]``: the part's own sum of
    squares lies in ``[0, m (high - low)^2 / 4]`` and its mean in ``[low, high]``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(cnt > 0, s1 / np.maximum(cnt, 1), 0.0)
        own = np.where(cnt > 0, s2 - s1 * mean, 0.0)
        pull = np.where(cnt + m > 0, cnt * m / np.maximum(cnt + m, 1), 0.0)
    near = np.maximum(np.maximum(low - mean, mean - high), 0.0)
    far = np.maximum(np.abs(low - mean), np.abs(high - mean))
    lower = own + pull * near * near
    upper = own + m * (high - low) ** 2 / 4.0 + pull * far * far
    return lower, upper


def _start_bin_lower(cum, c1, c2, bounds, a, s_lo, s_hi, h):
    """:func:`_start_bin_lower_block` by blocks of start bins, about 2**20 (bin, offset)
    pairs each: a bin holds about ``n / 4096`` ranks, so all bins at once would take a
    dozen arrays of about ``n / 2`` floats."""
    T = s_hi - s_lo
    width = int(T.max()) + 1 if T.size else 1
    step = max(1, (1 << 20) // width)
    parts = [
        _start_bin_lower_block(cum, c1, c2, bounds, a[i : i + step], s_lo[i : i + step],
                               s_hi[i : i + step], h)
        for i in range(0, max(a.size, 1), step)
    ]  # fmt: skip
    return np.concatenate(parts) if parts else np.zeros(0)


def _start_bin_lower_block(cum, c1, c2, bounds, a, s_lo, s_hi, h):
    """A lower bound on the sum of squares of every window starting in bin ``a``.

    A window from ``s_hi - t`` (``0 <= t <= T = s_hi - s_lo``) is the full bins ``C``
    between bin ``a`` and the bins of its last ranks, ``t`` values of bin ``a`` and
    the ``u`` others from the last bins (``[L_e, U_e]``). Its sum of squares is
    ``ss(C) + ss(rest) + between``, bounded below term by term (two groups at least
    ``L_e - U_a`` apart; a mean within the mixed bounds), minimised over ``t``."""
    nb = cum.size - 1
    lo_c = np.minimum(a + 1, nb - 1)
    first_e = np.minimum(np.searchsorted(cum, s_lo + h - 1, side="right") - 1, nb - 1)
    last_e = np.minimum(np.searchsorted(cum, s_hi + h - 1, side="right") - 1, nb - 1)
    hi_c = np.maximum(first_e, lo_c)  # C: bins lo_c .. hi_c - 1
    nc = cum[hi_c] - cum[lo_c]
    s1c, s2c = c1[hi_c] - c1[lo_c], c2[hi_c] - c2[lo_c]
    with np.errstate(divide="ignore", invalid="ignore"):
        mc = np.where(nc > 0, s1c / np.maximum(nc, 1), 0.0)
    ssc = np.where(nc > 0, s2c - s1c * mc, 0.0)
    T = s_hi - s_lo
    base_u = np.maximum(s_lo + h - np.maximum(cum[hi_c], cum[lo_c]), 0.0)  # end values at t = T
    La, Ua = bounds[a], bounds[a + 1]
    Le, Ue = bounds[hi_c], bounds[last_e + 1]
    gap = np.maximum(Le - Ua, 0.0)
    steps = np.arange(int(T.max()) + 1 if T.size else 1)[None, :]
    t = np.minimum(steps, T[:, None])
    u = base_u[:, None] + (T[:, None] - t)
    total = t + u
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = np.where(total > 0, t * u / np.maximum(total, 1), 0.0) * gap[:, None] ** 2
        lo_mean = np.where(total > 0, (t * La[:, None] + u * Le[:, None]) / total, 0.0)
        hi_mean = np.where(total > 0, (t * Ua[:, None] + u * Ue[:, None]) / total, 0.0)
        pull = np.where(total > 0, nc[:, None] * total / (nc[:, None] + total), 0.0)
    near = np.maximum(np.maximum(lo_mean - mc[:, None], mc[:, None] - hi_mean), 0.0)
    bound = ssc[:, None] + inner + pull * near * near
    return bound.min(axis=1)


def _window_candidates(counts, s1, s2, bounds, n: int, h: int):
    """Start bins that can hold the least-variance window of ``h`` ranks.

    ``bounds`` (bins + 1) are the bins' value limits (shifted like ``s1``). Every window
    from bin ``a`` holds the ranks every such window holds (full bins, then part of a
    last bin): a lower bound; the window from the bin's first rank is full bins and part
    of a last bin: an upper bound. A bin is kept when its lower bound is within rounding
    of the least upper bound."""
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
    lower = _start_bin_lower(cum, c1, c2, bounds, a, s_lo, s_hi, h)
    best = upper.min()
    margin = 1e-9 * max(abs(best), 1e-300) + 1e-13 * float(np.abs(c2[-1]))
    keep = a[lower <= best + margin]
    return int(keep.min()), int(keep.max()), cum


def least_variance_windows(run, row_index, values, m, n, h, pilot_values, first=False):
    """For each column, the window of ``h`` contiguous order statistics of least sum of
    squares (unimcd's: the middle of windows tied within a relative 1e-12; ``first``:
    the first least one, as :func:`~robustpca.solvers.mcd._univariate_mcd_subset`).

    Returns its mean and variance (divisor ``h - 1``) per column, per column the start
    rank and the gathered records ``[column, range, value, index]`` of the start and end
    ranges with their first ranks, and the passes (two: binned sums, gathered values)."""
    passes = 0
    shift = np.median(pilot_values, axis=0)
    edge_lists = pilot_edges(pilot_values)
    for _ in range(MAX_SPLITS + 1):
        hist = run(histogram_pass, row_index, values=values, edges=_padded(edge_lists), shift=shift)
        passes += 1
        ranges, heavy = [], []
        load = 0.0
        for j, e in enumerate(edge_lists):
            nb = e.size + 1
            counts = hist["counts"][j, :nb]
            ext = hist["extremes"]
            bounds = np.concatenate([[ext.low[j]], e, [ext.high[j]]]) - shift[j]
            a_lo, a_hi, cum = _window_candidates(
                counts, hist["s1"][j, :nb], hist["s2"][j, :nb], bounds, n, h
            )
            start_last = min(cum[a_hi + 1] - 1, n - h)
            b_lo = int(np.searchsorted(cum, cum[a_lo] + h - 1, side="right") - 1)
            b_hi = int(np.searchsorted(cum, start_last + h - 1, side="right") - 1)
            ranges.append((a_lo, a_hi, b_lo, b_hi, cum))
            bins = set(range(a_lo, a_hi + 1)) | set(range(b_lo, b_hi + 1))
            load += sum(counts[b] for b in bins)
            heavy.append(bins)
        if load <= GATHER_BUDGET:
            break
        edge_lists = _split(edge_lists, hist["counts"], hist["extremes"], heavy)
    low, high = np.full((m, 2), np.inf), np.full((m, 2), -np.inf)
    for j, (a_lo, a_hi, b_lo, b_hi, _) in enumerate(ranges):
        e = np.concatenate([[-np.inf], edge_lists[j], [np.inf]])
        low[j] = e[a_lo], e[b_lo]
        high[j] = e[a_hi + 1], e[b_hi + 1]
    got = run(gather_pass, row_index, values=values, low=low, high=high)
    passes += 1
    groups = _gathered_by_column(got["gathered"].values, m, 2)
    init_mean, init_var = np.zeros(m), np.zeros(m)
    found: list = []
    for j, (a_lo, a_hi, b_lo, _, cum) in enumerate(ranges):
        nb = edge_lists[j].size + 1
        c1 = np.concatenate([[0.0], np.cumsum(hist["s1"][j, :nb])])
        c2 = np.concatenate([[0.0], np.cumsum(hist["s2"][j, :nb])])
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

    Equal to :func:`~robustpca.solvers.outlyingness.univariate_mcd` of the ``n x m``
    values, to rounding (the same window, ties of sums of squares within a relative
    1e-12 included, the same reweighting), in five passes: the binned sums, the values
    around the window, the binned scaled residuals, the ``h``-th of them, the
    reweighted sums (more where a bin must be split). Returns ``(location, scale,
    passes)``.
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
    init_mean, init_var, _, used = least_variance_windows(
        run, row_index, values, m, n, h, pilot_values
    )
    passes += used
    scaled = _Scaled(values, init_mean, init_var)
    pilot_res = scaled_pilot(pilot_values, init_mean, init_var)
    kth, more = select_ranks(run, row_index, scaled, np.full((m, 1), h - 1), pilot_res)
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


def scaled_pilot(pilot_values, centre, var):
    """The pilot's ``(v - centre)**2 / var`` (finite), for the bins of that selection."""
    with np.errstate(divide="ignore", invalid="ignore"):
        res = (pilot_values - centre) ** 2 / var
    return np.where(np.isfinite(res), res, 0.0)
