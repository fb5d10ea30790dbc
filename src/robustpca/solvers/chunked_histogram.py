r"""The counting pass of the chunked order statistics: each column's values counted (and
summed) in the bins of its edges, over one chunk of rows.

:func:`histogram_pass` is the kernel that
:mod:`robustpca.solvers.chunked_order_statistics` and
:mod:`robustpca.solvers.chunked_unimcd` run over the chunks. A value is located among its
column's sorted edges by :class:`EdgeGrid` (a uniform grid of cells over the edges, then
the few edges of the value's cell), for a group of columns at a time, so that the
group's temporaries and its part of the grid stay in cache. A refining pass's
edges cover only the bins being split, so most values fall in three bins (the two open
ends and the wide bin between two ranges): those are counted and summed by comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .chunked import value_blocks

__all__ = ["EdgeGrid", "Extremes", "histogram_pass"]

#: Rows of values counted together (value blocks joined up to this many rows, so that a
#: group of columns holds many values however few rows a value block has).
HISTOGRAM_ROWS = 4096
#: Values per group of columns of a sub-block, located and counted together (their
#: temporaries, about this many floats each, and their part of the grid stay in cache).
HISTOGRAM_GROUP_VALUES = 1 << 16


@dataclass(frozen=True)
class Extremes:
    """Each column's smallest and largest values; ``+`` merges two sets of rows.

    Parameters
    ----------
    low, high : ndarray of shape (m,)
        Each column's smallest and largest value.
    """

    low: np.ndarray
    high: np.ndarray

    def __add__(self, other: Extremes) -> Extremes:
        return Extremes(np.minimum(self.low, other.low), np.maximum(self.high, other.high))


class EdgeGrid:
    """Each column's value located among its sorted ``edges`` as
    ``np.searchsorted(edges[j], v, side="right")`` locates it, several times faster.

    A uniform grid of ``CELLS_PER_EDGE`` cells an edge spans each column's finite
    edges; a value's cell gives the number of edges in the cells before it, and the few
    edges of its own cell are compared one by one (a binary search where a cell is
    crowded, as a refining pass's clustered edges make some). The cell of ``x`` is
    ``int(clip((x - low) * scale, 0, cells))``, monotone in ``x`` however it rounds, so an
    edge in an earlier cell is below the value and one in a later cell above it: the
    result is exact whatever the rounding.

    Parameters
    ----------
    edges : ndarray of shape (m, E)
        Each column's sorted edges, a row per column, padded with +inf.
    """

    CELLS_PER_EDGE = 4
    #: Edges of a value's cell compared one by one before a binary search takes over.
    COMPARISONS = 3

    def __init__(self, edges: np.ndarray) -> None:
        m, E = edges.shape
        finite = np.isfinite(edges)
        last = np.maximum(finite.sum(axis=1) - 1, 0)
        any_finite = finite.any(axis=1)
        self.low = np.where(any_finite, edges[:, 0], 0.0)[:, None]
        width = np.where(any_finite, edges[np.arange(m), last], 0.0)[:, None] - self.low
        self.cells = self.CELLS_PER_EDGE * E
        with np.errstate(divide="ignore", over="ignore"):
            scale = np.where(width > 0, self.cells / np.where(width > 0, width, 1.0), 0.0)
        self.scale = np.where(np.isfinite(scale), scale, 0.0)
        with np.errstate(invalid="ignore", over="ignore"):
            cell = self._cells(np.where(finite, edges, 0.0)) - self._cell_offsets(0, m)
        cell[~finite] = np.where(edges[~finite] < 0, 0, self.cells)  # +inf padding: last
        flat = cell + self._cell_offsets(0, m)
        counts = np.bincount(flat.ravel(), minlength=m * (self.cells + 1))
        before = np.cumsum(counts) - counts  # edges in the earlier cells, over all columns
        # a cell's first edge, as a position in the flattened (m, E + 1) edges
        self.first = (
            before
            - np.repeat(np.arange(m) * E, self.cells + 1)
            + np.repeat(np.arange(m) * (E + 1), self.cells + 1)
        )
        self.edges = np.concatenate([edges, np.full((m, 1), np.inf)], axis=1)
        self.padded = self.edges.ravel()

    def _cell_offsets(self, start: int, m: int) -> np.ndarray:
        return (self.cells + 1) * np.arange(start, start + m)[:, None]

    def _cells(self, V: np.ndarray, start: int = 0) -> np.ndarray:
        """Each value of the columns ``start, start + 1, ...`` (the rows of ``V``) in its
        cell, as a position in the flattened ``(m, cells + 1)`` cells."""
        at = slice(start, start + V.shape[0])
        x = V - self.low[at]
        x *= self.scale[at]
        np.clip(x, 0, self.cells, out=x)
        return x.astype(np.intp) + self._cell_offsets(start, V.shape[0])

    def bins(self, V: np.ndarray, start: int = 0) -> np.ndarray:
        """``searchsorted(edges[j], V[i], side="right") + i * (E + 1)``, ``j = start + i``:
        each value's bin among the bins of the columns ``start .. start + g - 1``.

        Parameters
        ----------
        V : ndarray of shape (g, n_values)
            Finite values, a row per column.
        start : int, default=0
            The column of the first row of ``V``.

        Returns
        -------
        ndarray of shape (g, n_values)
        """
        where = self.first[self._cells(V, start)]
        self._settle(where.ravel(), V.ravel(), lambda at: start + at // V.shape[1])
        where -= start * self.edges.shape[1]
        return where

    def bins_of(self, values: np.ndarray, column: np.ndarray, start: int = 0) -> np.ndarray:
        """:meth:`bins` of values given with their columns, as flat arrays.

        Parameters
        ----------
        values : ndarray of shape (n_values,)
            Finite values.
        column : ndarray of int of shape (n_values,)
            Each value's column, counted from ``start``.
        start : int, default=0
            The first column of the group the bins are numbered in.

        Returns
        -------
        ndarray of shape (n_values,)
        """
        column = column + start
        x = values - self.low[column, 0]
        x *= self.scale[column, 0]
        np.clip(x, 0, self.cells, out=x)
        where = self.first[x.astype(np.intp) + column * (self.cells + 1)]
        self._settle(where, values, lambda at: column[at])
        where -= start * self.edges.shape[1]
        return where

    def _settle(self, flat: np.ndarray, values: np.ndarray, column_of) -> None:
        """From each value's cell's first edge (``flat``, moved in place) to its bin."""
        step = self.padded[flat] <= values  # an edge of the value's own cell or a later one
        flat += step
        more = np.flatnonzero(step)
        for _ in range(self.COMPARISONS):
            more = more[self.padded[flat[more]] <= values[more]]
            flat[more] += 1
        if more.size:  # crowded cells (a refining pass's edges): a binary search
            column = column_of(more)
            for j in np.unique(column):
                at = more[column == j]
                found = np.searchsorted(self.edges[j], values[at], side="right")
                flat[at] = found + j * self.edges.shape[1]


def histogram_pass(x, rows=None, *, values, edges, shift=None, wanted=None) -> dict:
    """Counts of each column's values in the bins of ``edges``: bin ``b`` holds
    ``edges[b-1] <= v < edges[b]``; each column's extremes; with ``shift``, also the sums
    of ``v - shift`` and of its square per bin. Each value
    is located among its column's edges (:class:`EdgeGrid`, not a sort of the sub-block)
    and the bins counted and summed by ``bincount``; the result is ``m x (E + 1)``
    numbers per array, whatever the rows. Where most values lie in the two open end
    bins and the widest inner bin (a refining pass's: split bins of two ranges far
    apart), those three are counted and summed by comparisons and only the other
    values are located. The columns are taken a group at a time
    (:data:`HISTOGRAM_GROUP_VALUES` values).

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    rows : ndarray of shape (n_rows,) or None, default=None
        The chunk's row indices; unused.
    values : callable
        Maps rows of ``x`` to their values, an array of shape ``(n_rows, m)``.
    edges : ndarray of shape (m, E)
        Each column's sorted bin edges, padded with +inf.
    shift : ndarray of shape (m,) or None, default=None
        With it, also sum ``v - shift`` and its square per bin.
    wanted : ndarray of bool of shape (m, E + 1) or None, default=None
        The bins whose counts and sums the caller reads (a refining pass reads only the
        pieces of the bins it splits). The three compared bins are then counted and
        summed only where wanted (0 elsewhere); the other bins are counted in full.

    Returns
    -------
    dict
        ``counts`` of shape (m, E + 1), ``extremes`` (:class:`Extremes`) and, with
        ``shift``, the sums ``s1`` and ``s2`` of shape (m, E + 1).
    """
    m, E = edges.shape
    counts = np.zeros((m, E + 1))
    sums = [np.zeros((m, E + 1)), np.zeros((m, E + 1))] if shift is not None else []
    low, high = np.full(m, np.inf), np.full(m, -np.inf)
    if x.shape[0] == 0:
        return _result(counts, sums, low, high)
    bounds = value_blocks(x)
    per = max(1, HISTOGRAM_ROWS // max(bounds[0][1] - bounds[0][0], 1))
    runs = [bounds[i : i + per] for i in range(0, len(bounds), per)]
    width = max(1, HISTOGRAM_GROUP_VALUES // (runs[0][-1][1] - runs[0][0][0]))
    groups = [slice(j, min(j + width, m)) for j in range(0, m, width)]
    grid, compared = EdgeGrid(edges), _ComparedBins(edges)
    dense = [False] * len(groups)
    for run in runs:
        start = run[0][0]
        VT = np.empty((m, run[-1][1] - start))  # the run's values, a column a row
        for a, b in run:
            VT[:, a - start : b - start] = values(x[a:b]).T
        for i, at in enumerate(groups):
            Vg = VT[at]  # (group, rows), contiguous
            v_low, v_high = Vg.min(axis=1), Vg.max(axis=1)
            low[at], high[at] = np.minimum(low[at], v_low), np.maximum(high[at], v_high)
            v, by = Vg, None if shift is None else shift[at, None]  # values, their shifts
            if not (np.isfinite(v_low).all() and np.isfinite(v_high).all()):
                # NaN or infinite values: numpy's order for them
                where = np.concatenate(
                    [
                        np.searchsorted(edges[j], Vg[j - at.start], side="right")
                        + (j - at.start) * (E + 1)
                        for j in range(at.start, at.stop)
                    ]
                )
            elif dense[i] or (inner := compared.inside(Vg, at)) is None:
                dense[i] = True  # the group's first sub-block decides for the others
                where = grid.bins(Vg, at.start).ravel()
            else:  # most values in the compared bins: locate only the others
                flat = np.flatnonzero(inner)
                column = flat // Vg.shape[1]
                v = Vg.ravel()[flat]
                where = grid.bins_of(v, column, at.start)
                by = None if shift is None else shift[at.start + column]
                part = None if wanted is None else wanted[at]
                compared.add(Vg, counts[at], shift, [s[at] for s in sums], part)
            d = None if shift is None else v - by
            _add_bins(where, d, counts[at], [s[at] for s in sums])
    return _result(counts, sums, low, high)


def _result(counts, sums, low, high) -> dict:
    out: dict[str, Any] = {"counts": counts, "extremes": Extremes(low, high)}
    if sums:
        out.update(s1=sums[0], s2=sums[1])
    return out


def _add_bins(where: np.ndarray, d, counts: np.ndarray, sums: list) -> None:
    """Add the counts of the flat bins ``where`` to ``counts`` (g, E + 1) and, unless
    ``d`` is None, the sums of ``d`` and of its square in them to ``sums``."""
    size = counts.size
    counts += np.bincount(where, minlength=size).reshape(counts.shape)
    if d is not None:
        d = d.ravel()
        sums[0] += np.bincount(where, weights=d, minlength=size).reshape(counts.shape)
        d *= d
        sums[1] += np.bincount(where, weights=d, minlength=size).reshape(counts.shape)


class _ComparedBins:
    """Each column's two open end bins (below its first edge, from its last finite edge
    on) and its widest inner bin (a refining pass's gap between the split bins of two
    ranges), which comparisons count and sum without locating the values among the
    edges."""

    #: Values located among the edges at most, as a share of a sub-block's, for the
    #: comparisons to replace locating all of them.
    SPARSE = 0.25

    def __init__(self, edges: np.ndarray) -> None:
        m, E = edges.shape
        finite = (edges < np.inf).sum(axis=1)  # the top bin's number
        column = np.arange(m)
        last = np.where(finite > 0, edges[column, np.maximum(finite - 1, 0)], np.inf)
        with np.errstate(invalid="ignore"):
            widths = np.where(np.arange(E - 1) < (finite - 1)[:, None], np.diff(edges), -1.0)
        gap = np.argmax(widths, axis=1) if E > 1 else np.zeros(m, dtype=np.intp)
        has_gap = finite >= 2
        self.bounds = [  # (low, high) of each compared bin, and its number
            (np.full(m, -np.inf), edges[:, 0], np.zeros(m, dtype=np.intp)),
            (
                np.where(has_gap, edges[column, gap], np.inf),
                np.where(has_gap, edges[column, np.minimum(gap + 1, E - 1)], np.inf),
                gap + 1,
            ),
            (last, np.full(m, np.inf), finite),
        ]
        self.columns = slice(0, m)

    def inside(self, V: np.ndarray, columns: slice) -> np.ndarray | None:
        """Where the finite ``V`` (g, rows) of the ``columns`` lie in none of the
        compared bins, or None when more than a share :data:`SPARSE` of them lie there
        (the dense path is then cheaper)."""
        self.columns = columns
        (_, first, _), (gap_lo, gap_hi, _), (last, _, _) = self.bounds
        inner = (V >= first[columns, None]) & (V < last[columns, None])
        inner &= (V < gap_lo[columns, None]) | (V >= gap_hi[columns, None])
        return inner if np.count_nonzero(inner) <= self.SPARSE * V.size else None

    def add(self, V, counts: np.ndarray, shift, sums: list, wanted=None) -> None:
        """Add the counts of the compared bins of :meth:`inside`'s columns (their values
        ``V``, g x rows) to ``counts`` (g, E + 1) and, with ``shift``, the sums of
        ``V - shift`` and of its square in them to ``sums``; only the bins ``wanted``
        (g, E + 1) marks, when given."""
        rows = np.arange(counts.shape[0])
        d = None
        for lo, hi, number in self.bounds:
            at = (rows, number[self.columns])
            if wanted is not None and not wanted[at].any():
                continue
            mask = (V >= lo[self.columns, None]) & (V < hi[self.columns, None])
            counts[at] += np.count_nonzero(mask, axis=1)
            if shift is not None:
                d = V - shift[self.columns, None] if d is None else d
                sums[0][at] += np.einsum("ij,ij->i", d, mask)
                sums[1][at] += np.einsum("ij,ij,ij->i", d, d, mask)
