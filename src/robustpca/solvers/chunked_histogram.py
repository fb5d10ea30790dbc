r"""The counting pass of the chunked order statistics: each column's values counted (and
summed) in the bins of its edges, over one chunk of rows.

:func:`histogram_pass` is the kernel that
:mod:`robustpca.solvers.chunked_order_statistics` and
:mod:`robustpca.solvers.chunked_unimcd` run over the chunks. A value is located among its
column's sorted edges by :class:`EdgeGrid` (a uniform grid of cells over the edges, then
the few edges of the value's cell), for all the columns at once. A refining pass's
edges cover only the bins being split, so most values fall in three bins (the two open
ends and the wide bin between two ranges): those are counted and summed by comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EdgeGrid", "Extremes", "histogram_pass"]

#: Values per sub-block of a counting pass (the per-bin sums are formed once per
#: sub-block, so sub-blocks much larger than the bins keep that cost small; each of the
#: few temporaries of a sub-block is this many floats).
HISTOGRAM_BLOCK_VALUES = 1 << 21


@dataclass(frozen=True)
class Extremes:
    """Each column's smallest and largest values; ``+`` merges two sets of rows."""

    low: np.ndarray
    high: np.ndarray

    def __add__(self, other: Extremes) -> Extremes:
        return Extremes(np.minimum(self.low, other.low), np.maximum(self.high, other.high))


class EdgeGrid:
    """Each column's value located among its sorted ``edges`` (``m x E``, +inf padded) as
    ``np.searchsorted(edges[j], v, side="right")`` locates it, several times faster.

    A uniform grid of ``CELLS_PER_EDGE`` cells an edge spans each column's finite
    edges; a value's cell gives the number of edges in the cells before it, and the few
    edges of its own cell are compared one by one (a binary search where a cell is
    crowded, as a refining pass's clustered edges make some). The cell of ``x`` is
    ``int(clip((x - low) * scale, 0, cells))``, monotone in ``x`` however it rounds, so an
    edge in an earlier cell is below the value and one in a later cell above it: the
    result is exact whatever the rounding."""

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
            cell = self._cells(np.where(finite, edges, 0.0)) - self._cell_offsets(m)
        cell[~finite] = np.where(edges[~finite] < 0, 0, self.cells)  # +inf padding: last
        flat = cell + self._cell_offsets(m)
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

    def _cell_offsets(self, m: int) -> np.ndarray:
        return (self.cells + 1) * np.arange(m)[:, None]

    def _cells(self, V: np.ndarray) -> np.ndarray:
        """Each value's cell, as a position in the flattened ``(m, cells + 1)`` cells."""
        x = V - self.low
        x *= self.scale
        np.clip(x, 0, self.cells, out=x)
        return x.astype(np.intp) + self._cell_offsets(V.shape[0])

    def bins(self, V: np.ndarray) -> np.ndarray:
        """``searchsorted(edges[j], V[j], side="right") + j * (E + 1)`` of the finite
        values ``V`` (``m x rows``): each value's bin among all the columns' bins."""
        where = self.first[self._cells(V)]
        self._settle(where.ravel(), V.ravel(), lambda at: at // V.shape[1])
        return where

    def bins_of(self, values: np.ndarray, column: np.ndarray) -> np.ndarray:
        """:meth:`bins` of the finite ``values`` of the columns ``column`` (flat arrays)."""
        x = values - self.low[column, 0]
        x *= self.scale[column, 0]
        np.clip(x, 0, self.cells, out=x)
        where = self.first[x.astype(np.intp) + column * (self.cells + 1)]
        self._settle(where, values, lambda at: column[at])
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


def histogram_pass(x, rows=None, *, values, edges, shift=None) -> dict:
    """Counts of each column's values in the bins of ``edges`` (m, E) (+inf padded):
    bin ``b`` holds ``edges[b-1] <= v < edges[b]``; each column's extremes. With
    ``shift`` (m,), also the sums of ``v - shift`` and of its square per bin. Each value
    is located among its column's edges (:class:`EdgeGrid`, not a sort of the sub-block)
    and the bins counted and summed by ``bincount``; the result is ``m x (E + 1)``
    numbers per array, whatever the rows. Where most values lie in the two open end
    bins and the widest inner bin (a refining pass's: split bins of two ranges far
    apart), those three are counted and summed by comparisons and only the other
    values are located."""
    m, E = edges.shape
    counts = np.zeros((m, E + 1))
    sums = [np.zeros((m, E + 1)), np.zeros((m, E + 1))] if shift is not None else []
    low, high = np.full(m, np.inf), np.full(m, -np.inf)
    step = max(64, HISTOGRAM_BLOCK_VALUES // max(m, x.shape[1], 1))
    grid = EdgeGrid(edges) if x.shape[0] else None
    compared, dense = _ComparedBins(edges), False
    for a in range(0, max(x.shape[0], 1), step):
        b = min(a + step, x.shape[0])
        V = np.ascontiguousarray(values(x[a:b]).T)  # (m, rows)
        if V.shape[1] == 0 or grid is None:
            continue
        v_low, v_high = V.min(axis=1), V.max(axis=1)
        low, high = np.minimum(low, v_low), np.maximum(high, v_high)
        d = None if shift is None else V - shift[:, None]
        if not (np.isfinite(v_low).all() and np.isfinite(v_high).all()):
            # NaN or infinite values: numpy's order for them
            where = np.concatenate(
                [np.searchsorted(edges[j], V[j], side="right") + j * (E + 1) for j in range(m)]
            )
        elif dense or (inner := compared.inside(V)) is None:
            dense = True  # the chunk's first sub-block decides for the others
            where = grid.bins(V).ravel()
        else:  # most values in the compared bins: locate only the others
            where = grid.bins_of(V[inner], np.nonzero(inner)[0])
            compared.add(counts, d, sums)
            d = None if d is None else d[inner]
        counts += np.bincount(where, minlength=m * (E + 1)).reshape(m, E + 1)
        if d is not None:
            d = d.ravel()
            sums[0] += np.bincount(where, weights=d, minlength=m * (E + 1)).reshape(m, E + 1)
            d *= d
            sums[1] += np.bincount(where, weights=d, minlength=m * (E + 1)).reshape(m, E + 1)
    out: dict[str, Any] = {"counts": counts, "extremes": Extremes(low, high)}
    if shift is not None:
        out.update(s1=sums[0], s2=sums[1])
    return out


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
        self.bounds = [  # (low, high) of each compared bin, and its position
            (np.full(m, -np.inf), edges[:, 0], column * (E + 1)),
            (
                np.where(has_gap, edges[column, gap], np.inf),
                np.where(has_gap, edges[column, np.minimum(gap + 1, E - 1)], np.inf),
                column * (E + 1) + gap + 1,
            ),
            (last, np.full(m, np.inf), column * (E + 1) + finite),
        ]
        self.masks: list[np.ndarray] = []

    def inside(self, V: np.ndarray) -> np.ndarray | None:
        """Where the finite ``V`` (m, rows) lie in none of the compared bins, or None when
        more than a share :data:`SPARSE` of them lie there (the dense path is then
        cheaper); the masks of the compared bins are kept for :meth:`add`."""
        self.masks = [(V >= lo[:, None]) & (V < hi[:, None]) for lo, hi, _ in self.bounds]
        inner = ~(self.masks[0] | self.masks[1] | self.masks[2])
        return inner if np.count_nonzero(inner) <= self.SPARSE * V.size else None

    def add(self, counts: np.ndarray, d: np.ndarray | None, sums: list) -> None:
        """Add the counts of :meth:`inside`'s compared bins to ``counts`` (m, E + 1), and
        the sums of ``d`` (m, rows) and of its square in them to ``sums``."""
        for mask, (_, _, at) in zip(self.masks, self.bounds, strict=True):
            counts.reshape(-1)[at] += np.count_nonzero(mask, axis=1)
            if d is not None:
                sums[0].reshape(-1)[at] += np.einsum("ij,ij->i", d, mask)
                sums[1].reshape(-1)[at] += np.einsum("ij,ij,ij->i", d, d, mask)
