r"""Exact order statistics of per-row values over row chunks, by counting passes.

The rrcov family needs order statistics of values computed row by row (projections on
directions, distances under fits): the ``h``-th smallest outlyingness or distance, the
windows of the univariate MCD, medians. Over data seen only in passes they are found
exactly without bringing the rows to the client:

1. **bins from a pilot**: the values of a few thousand rows (a fixed pseudo-random
   pilot, :func:`pilot_indices`, gathered once) give each column's bin edges, so that
   the bins hold about ``n / pilot`` rows each whatever the distribution;
2. **counting passes** (:func:`~robustpca.solvers.chunked_histogram.histogram_pass`) count the
   values of every column in its bins, located by a grid of cells over the edges
   (``EdgeGrid``), vectorised over all the columns at once (and, for the univariate MCD, add
   the values and their squares per bin); a bin still too full for the client is split into
   equal-width bins between its smallest and largest value and counted again;
3. **a gathering pass** brings back only the values (and the rows) inside the bin that
   holds each wanted rank, with what is below it summed in the same pass.

The pilot only sets the bins: the results are the exact order statistics of all rows,
whatever rows it draws. rrcov's ``unimcd`` over the chunks, which these passes serve, is
:mod:`robustpca.solvers.chunked_unimcd`.

**Radix selection** (:func:`radix_select`) needs no pilot and no bins to refine: doubles
order as unsigned integer keys (:func:`order_keys`), and a pass counts, per wanted rank,
the values that share the key bits fixed so far by their next bits, until the bins
holding the ranks hold at most a budget of values, which one pass gathers, or every bit
is fixed (the value is then known without gathering: ties cost passes, never transfers).
Its kernels (:func:`radix_count`, :func:`radix_gather`) run inside a caller's pass
(GoDec's, :mod:`robustpca.solvers.chunked_godec`) or in :func:`radix_pass` over a state
runner's chunks (:mod:`robustpca.solvers.chunked_state`), as :func:`column_medians` does:
the exact column medians of the data, the centre of
``PrincipalComponentPursuit(center='median')`` on a dask array.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .chunked import ELEMENTWISE_VALUES, Rows, value_runs
from .chunked_histogram import histogram_pass

__all__ = [
    "Selected",
    "bracket_ranks",
    "column_medians",
    "gather_pass",
    "gather_rows",
    "gather_rows_pass",
    "median_of",
    "median_ranks",
    "order_keys",
    "pilot_indices",
    "radix_count",
    "radix_gather",
    "radix_level_one",
    "radix_pass",
    "radix_select",
    "select_ranks",
]

#: Rows of the pilot whose values set the bins (at most; a 64th of smaller data).
PILOT_ROWS = 4096
#: The pilot's seed: a constant, so that the pilot never draws from ``random_state``.
PILOT_SEED = 41
#: Values (over all columns) one pass gathers at most; fuller bins are split and counted again.
GATHER_BUDGET = 1 << 21
#: A bin that is split becomes this many equal-width bins.
REFINE_BINS = 512
#: Rounds of splitting at most; then the bins are gathered as they are.
MAX_SPLITS = 4


def pilot_indices(n: int) -> np.ndarray:
    """Sorted distinct row indices of the pilot, so that a bin holds about 64 rows or more.

    Parameters
    ----------
    n : int
        Number of rows; the pilot has about ``min(PILOT_ROWS, n / 64)`` (one at least).
    """
    size = max(1, min(PILOT_ROWS, n // 64))
    drawn = np.random.default_rng(PILOT_SEED).integers(0, n, size=size)
    return np.unique(drawn)


def gather_rows_pass(x, rows=None, *, wanted: np.ndarray) -> dict:
    """The rows of a chunk that are wanted, as ``[index, x...]`` records.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
    rows : ndarray of shape (n_rows,)
        The chunk's global row indices.
    wanted : ndarray of int
        The wanted global indices, sorted.
    """
    at = np.searchsorted(wanted, rows)
    at = np.minimum(at, max(wanted.size - 1, 0))
    keep = wanted[at] == rows if wanted.size else np.zeros(rows.shape[0], dtype=bool)
    record = np.column_stack([rows[keep].astype(np.float64), x[keep]])
    return {"rows": Rows((record,))}


def gather_rows(run, row_index, wanted: np.ndarray, *, also=None) -> np.ndarray:
    """The rows ``wanted``, in that order, by one pass.

    Parameters
    ----------
    run : callable
        A row runner ``run(kernel, rows, **params) -> dict``.
    row_index : ndarray or dask.array.Array of shape (n_samples,)
        The global row numbers, chunked like the rows: the ``rows`` of the passes.
    wanted : ndarray of int
        Sorted distinct row indices.
    also : object, optional
        Not used.
    """
    out = run(gather_rows_pass, row_index, wanted=np.asarray(wanted, dtype=np.int64))
    records = out["rows"].values
    order = np.argsort(records[:, 0], kind="stable")
    return records[order, 1:]


def gather_pass(x, rows=None, *, values, low, high, payload=False) -> dict:
    """Records ``[column, range, value, index(, x...)]`` of the values in any of the ranges
    ``low[j, r] <= v < high[j, r]``, and ``below[j, r]``, the number of values under ``low``.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
    rows : ndarray of shape (n_rows,)
        The chunk's global row indices (the records' ``index``).
    values : callable
        Maps rows of ``x`` to their values, an array of shape ``(n_rows, m)``.
    low, high : ndarray of shape (m, R)
        Included lower and excluded upper ends of each column's ``R`` ranges.
    payload : bool, default=False
        Append the row of ``x`` to each record.
    """
    m, R = low.shape
    parts = []
    below = np.zeros((m, R))
    for a, b in value_runs(x, m, ELEMENTWISE_VALUES):
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
    """Per column ``j`` and wanted rank ``r``: ``low <= v_(r) < high``, ``below`` values under
    ``low``, ``inside`` in it; ``exact`` its value where it holds one distinct value (else NaN)."""

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
        bounds = np.concatenate([[-np.inf], e, [np.inf]])  # no edge: one bin, all values
        low[j], high[j] = bounds[b], bounds[b + 1]
        same = extremes.low[j] == extremes.high[j]  # a constant column
        exact[j] = np.where(same, extremes.low[j], np.nan)
    return bins, Brackets(low, high, below, inside, exact)


def bracket_ranks(
    run, row_index, values, ranks, pilot_values, budget: int | None = None
) -> tuple[Brackets, int]:
    """Counting passes until the bins holding the wanted ranks hold at most ``budget``
    values together. Returns the brackets and the passes run.

    Parameters
    ----------
    run, row_index
        As for :func:`gather_rows`.
    values : callable
        Maps rows of the data to their values, an array of shape ``(n_rows, m)``.
    ranks : ndarray of shape (m, q)
        The wanted 0-based ranks of each column.
    pilot_values : ndarray of shape (n_pilot, m)
        The values of the pilot rows (:func:`pilot_indices`), which set the bins.
    budget : int or None, default=None
        ``None`` is :data:`GATHER_BUDGET`.
    """
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
        if load <= (GATHER_BUDGET if budget is None else budget):
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
    """The values at the wanted ranks of each column, exactly, and the passes run: one when
    brackets from the pilot's quantiles (:func:`guess_brackets`) hold every wanted rank (its
    counts tell), else counting passes and a gathering pass unless each bracket holds one value.

    Parameters
    ----------
    run, row_index, values, ranks, pilot_values
        As for :func:`bracket_ranks`.
    """
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


# ------------------------------------------------------------------ radix selection
#: Counters per counting pass of :func:`radix_select` (all ranks); sets the digits' width.
COUNTERS = 1 << 22
_SIGN = np.uint64(1 << 63)


def _key_bits(signed: bool) -> int:
    """Bits to select on: non-negative doubles have their sign bit clear."""
    return 64 if signed else 63


def order_keys(V: np.ndarray, signed: bool = False) -> np.ndarray:
    """``uint64`` keys that order as the doubles ``V``.

    Parameters
    ----------
    V : ndarray of float64
    signed : bool, default=False
        ``False`` (``V`` non-negative): its bit patterns. ``True``: those with the sign bit
        set for non-negative values, every bit flipped for negative ones (``-0.0`` as 0).
    """
    if not signed:  # in native byte order: a big-endian array's view would not order
        return np.asarray(V, dtype=np.float64).view(np.uint64)
    keys = np.add(V, 0.0, dtype=np.float64).view(np.uint64)  # a copy; -0.0 + 0.0 = 0.0
    flip = (keys >> np.uint64(63)) * np.uint64((1 << 63) - 1)
    flip |= _SIGN
    keys ^= flip
    return keys


def _values_of_keys(keys: np.ndarray, signed: bool) -> np.ndarray:
    """The doubles of :func:`order_keys`' keys."""
    keys = np.asarray(keys, dtype=np.uint64)
    if signed:
        keys = np.where(keys & _SIGN, keys ^ _SIGN, ~keys)
    return keys.view(np.float64)


def radix_level_one(q: int, m: int, signed: bool = False) -> dict:
    """The first counting step of :func:`radix_select` (``count`` of :func:`radix_count`).

    Parameters
    ----------
    q, m : int
        Wanted ranks per column, and columns.
    signed : bool, default=False
        Whether the values may be negative (:func:`order_keys`).
    """
    bits = int(np.clip(np.log2(max(COUNTERS // max(q * m, 1), 2)), 4, 16))
    prefix = np.zeros((q, m), np.uint64)
    return {"prefix": prefix, "shift": _key_bits(signed) - bits, "bits": bits, "signed": signed}


def radix_count(V, *, prefix, shift, bits, signed=False) -> np.ndarray:
    """Per wanted rank and column: the counts of the next ``bits`` bits of the keys of ``V`` that
    share its prefix (ranks sharing their prefixes, as the two middle ones mostly do, count once).

    Parameters
    ----------
    V : ndarray of shape (n_rows, m)
        A chunk's values.
    prefix : ndarray of uint64 of shape (q, m)
        The key bits fixed so far, per wanted rank and column.
    shift, bits : int
        The lowest bit counted, and how many bits.
    signed : bool, default=False
        Whether the values may be negative (:func:`order_keys`).
    """
    keys, m = order_keys(V, signed), prefix.shape[1]
    digit = ((keys >> np.uint64(shift)) & np.uint64((1 << bits) - 1)).astype(np.intp)
    digit += np.arange(m)[None, :] << bits
    size, length = (m, 1 << bits), m << bits
    unique, inverse = np.unique(prefix, axis=0, return_inverse=True)
    if shift + bits >= 64:  # no bits above the digits: the prefixes are all 0
        rows = [np.bincount(digit.ravel(), minlength=length).reshape(size)] * len(unique)
    else:
        high = keys >> np.uint64(shift + bits)
        rows = [np.bincount(digit[high == p], minlength=length).reshape(size) for p in unique]
    return np.stack(rows)[np.reshape(inverse, -1)]


def _records(W, mask, slot, index):
    row, col = np.nonzero(mask)
    cols = [np.full(row.size, slot), col, W[row, col], np.full(row.size, index)]
    return np.column_stack(cols).astype(np.float64)


def radix_gather(V, index, *, prefix, shift, signed=False) -> Rows:
    """Records ``[slot, column, value, index]`` of the values of ``V`` in the final bins.

    Parameters
    ----------
    V, prefix, signed
        As for :func:`radix_count`; ``prefix`` holds the bins' key bits.
    index : int
        The chunk's index, which breaks ties by position.
    shift : int
        Number of key bits below the prefix.
    """
    W = np.add(V, 0.0, dtype=np.float64) if signed else V  # -0.0 as 0.0, as its key
    keys = order_keys(W, signed) >> np.uint64(shift)
    return Rows((np.concatenate([_records(W, keys == p, s, index) for s, p in enumerate(prefix)]),))


@dataclass
class Selected:
    """Values at the wanted ranks, the counts below and equal to them, the chunks' ties.

    Attributes
    ----------
    values, below, equal : ndarray of shape (q, m)
        Per wanted rank and column: the value, the numbers of values below and equal.
    chunk_equal : dict or None
        ``{chunk index: values equal}`` for one wanted value whose bin was gathered.
    """

    values: np.ndarray
    below: np.ndarray
    equal: np.ndarray
    chunk_equal: dict | None


def radix_select(visit, ranks, counts, spec, *, budget: int = GATHER_BUDGET) -> Selected:
    """The values at the wanted ranks of each column, exactly.

    Parameters
    ----------
    visit : callable
        ``visit(count=...)`` runs a pass giving :func:`radix_count`'s ``'counts'``,
        ``visit(gather=...)`` one giving :func:`radix_gather`'s ``'gathered'`` records.
    ranks : ndarray of int of shape (q, m)
        The wanted 0-based ascending ranks of each column.
    counts : ndarray of shape (q, m, 2**bits) or None
        First counts made with ``spec`` by a pass already run (``None``: by ``visit``).
    spec : dict
        The first counting step (:func:`radix_level_one`).
    budget : int, default=GATHER_BUDGET
        Values the final bins may hold together for one pass to gather them.
    """
    prefix, shift, bits = spec["prefix"].copy(), spec["shift"], spec["bits"]
    signed = spec.get("signed", False)
    below = np.zeros(ranks.shape, np.int64)
    while True:
        if counts is None:
            count = {"prefix": prefix, "shift": shift, "bits": bits, "signed": signed}
            counts = visit(count=count)["counts"]
        cum = np.concatenate([np.zeros((*ranks.shape, 1)), np.cumsum(counts, axis=2)], axis=2)
        b = np.empty(ranks.shape, np.int64)
        for s, j in np.ndindex(*ranks.shape):
            b[s, j] = np.searchsorted(cum[s, j], ranks[s, j] - below[s, j], side="right") - 1
        inside = np.take_along_axis(counts, b[:, :, None], axis=2)[:, :, 0]
        below += np.take_along_axis(cum, b[:, :, None], axis=2)[:, :, 0].astype(np.int64)
        prefix = (prefix << np.uint64(bits)) | b.astype(np.uint64)
        counts = None
        if shift == 0:
            values = _values_of_keys(prefix, signed)
            return Selected(values, below, inside.astype(np.int64), None)
        if inside.sum() <= budget:
            break
        bits = min(bits, shift)
        shift -= bits
    gather = {"prefix": prefix, "shift": shift, "signed": signed}
    got = selected_from_records(visit(gather=gather)["gathered"].values, ranks, below)
    assert got is not None  # the bins hold the ranks
    return got


def selected_from_records(records, ranks, below) -> Selected | None:
    """The values at ``ranks`` from records ``[slot, column, value, chunk]`` holding all
    the values of a range of each column, with ``below`` values under it; None where a
    rank lies outside its range."""
    q, m = ranks.shape
    records = records[np.lexsort((records[:, 2], records[:, 1], records[:, 0]))]
    key = records[:, 0].astype(np.intp) * m + records[:, 1].astype(np.intp)
    bounds = np.searchsorted(key, np.arange(q * m + 1))
    at, size = (ranks - below).ravel().astype(np.intp), np.diff(bounds)
    if np.any(at < 0) or np.any(at >= size):
        return None
    values = records[bounds[:-1] + at, 2]
    repeated = np.repeat(values, size)
    less = np.add.reduceat(records[:, 2] < repeated, bounds[:-1])
    equal = np.add.reduceat(records[:, 2] == repeated, bounds[:-1]).astype(np.int64)
    chunk_equal = None
    if q * m == 1:
        chunks, n_eq = np.unique(records[records[:, 2] == values[0], 3], return_counts=True)
        chunk_equal = dict(zip(chunks.astype(int).tolist(), n_eq.tolist(), strict=True))
    shape = ranks.shape
    return Selected(
        values.reshape(shape), below + less.reshape(shape), equal.reshape(shape), chunk_equal
    )


def median_ranks(n: int) -> np.ndarray:
    """The 0-based ranks whose values' mean is the median of ``n`` values (NumPy's).

    Parameters
    ----------
    n : int
        Number of values: one middle rank for odd ``n``, two for even ``n``.
    """
    return np.array([(n - 1) // 2] if n % 2 else [n // 2 - 1, n // 2])


def median_of(values: np.ndarray) -> np.ndarray:
    """The medians as :func:`numpy.median` forms them (the mean of two middle values).

    Parameters
    ----------
    values : ndarray of shape (1, m) or (2, m)
        The values at :func:`median_ranks` (rows: ranks) of each column.
    """
    return values[0] if len(values) == 1 else (values[0] + values[1]) / 2


def radix_pass(x, state, *, count=None, gather=None):
    """A state runner's kernel: the radix counts or records of the chunk's own values.

    Parameters
    ----------
    x : ndarray of shape (n_rows, m)
    state : object
        The chunk's state, returned as it is.
    count, gather : dict or None, default=None
        Parameters of :func:`radix_count` and :func:`radix_gather` (chunk index 0), whose
        results go under ``'counts'`` and ``'gathered'``.
    """
    part: dict[str, Any] = {}
    if count is not None:
        part["counts"] = radix_count(x, **count)
    if gather is not None:
        part["gathered"] = radix_gather(x, 0, **gather)
    return state, part


def column_medians(run, n: int, d: int, counts=None, spec=None, *, budget=GATHER_BUDGET):
    """The column medians, exactly :func:`numpy.median`'s, by :func:`radix_select`: a
    counting pass until the bins holding the middle ranks are small enough to gather
    (often one more pass after the first counts), nothing ``n``-sized sent to the caller.

    Parameters
    ----------
    run : callable
        A state runner (:mod:`~robustpca.solvers.chunked_state`) over the data.
    n, d : int
        Numbers of rows and of columns.
    counts : ndarray or None, default=None
        First counts made with ``spec`` in an earlier pass (``None``: a pass here).
    spec : dict or None, default=None
        ``radix_level_one(len(median_ranks(n)), d, signed=True)``, with ``counts``.
    budget : int, default=GATHER_BUDGET
        As for :func:`radix_select`.
    """
    ranks = np.repeat(median_ranks(n)[:, None], d, axis=1)
    if counts is None:
        spec = radix_level_one(ranks.shape[0], d, signed=True)
        counts = run(radix_pass, count=spec)["counts"]

    def visit(**step):
        return run(radix_pass, **step)

    return median_of(radix_select(visit, ranks, counts, spec, budget=budget).values)
