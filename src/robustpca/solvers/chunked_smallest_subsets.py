r"""The ``h`` rows of least value in each column of per-row values, over row chunks, and
their moments: the h-subsets of the chunked C-steps.

A C-step of FAST-MCD (Rousseeuw & Van Driessen 1999) keeps the ``h`` rows of least
distance under a fit and takes their mean and scatter; over chunks seen only in passes
(:mod:`robustpca.solvers.chunked_mcd`, ROBPCA's C-steps and its h-subset in
:mod:`robustpca.solvers.chunked_rrcov` and :mod:`robustpca.solvers.chunked_skew`),
:func:`smallest_subsets` does so for several fits (columns of ``values``) at once. A pass
(:func:`subset_pass`) takes the moments of the rows below a bracket around the ``h``-th
smallest value and gathers the rows inside it; its counts prove that the bracket holds
that value. The bracket is guessed from the pilot's quantiles or from a large sample's
values (:mod:`robustpca.solvers.chunked_sample`), else found by counting passes
(:mod:`robustpca.solvers.chunked_order_statistics`): the subsets are exact whatever the
guess. A subset is a recipe over chunks (:class:`Subset`), never a mask of all the rows.

The scatter is carried as the triangular factor of the centred rows
(:class:`~robustpca.solvers.chunked_moments.QRMoments`, merged like Chan et al.'s update)
or as :class:`~robustpca.solvers.chunked.Moments` (``kind``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .chunked import Rows, by_value_blocks, value_runs
from .chunked_moments import QRMoments, scatter_moments
from .chunked_moments import count_of as _count
from .chunked_order_statistics import (
    GATHER_BUDGET,
    _gathered_by_column,
    bracket_ranks,
    guess_brackets,
)
from .chunked_sample import sample_brackets

__all__ = ["Subset", "smallest_subsets", "subset_pass"]


@dataclass(frozen=True)
class Subset:
    """Rows whose value (column ``column`` of ``values``) is below ``low``, and the rows
    ``chosen`` (sorted indices) from the bracket above it.

    Parameters
    ----------
    values : callable
        Maps rows of the data to their values, of shape ``(n_rows, B)``.
    column : int
        The column of ``values`` the subset is of.
    low : float
        Every row whose value is below it is in the subset.
    chosen : ndarray of int
        The sorted global indices of the subset's rows from the bracket at or above
        ``low``.
    """

    values: Any
    column: int
    low: float
    chosen: np.ndarray

    def member(self, x, index, cache=None) -> np.ndarray:
        """Whether each row of ``x`` (global indices ``index``) is in the subset.

        Parameters
        ----------
        x : ndarray of shape (n_rows, n_features)
            A row chunk.
        index : ndarray of int of shape (n_rows,)
            The global indices of the rows of ``x``.
        cache : dict or None, default=None
            Shares the values of one block between subsets (keyed by ``values``).

        Returns
        -------
        ndarray of bool of shape (n_rows,)
        """
        if cache is None:
            cache = {}
        key = id(self.values)
        if key not in cache:
            cache[key] = self.values(x)
        v = cache[key][:, self.column]
        return (v < self.low) | np.isin(index, self.chosen)


def subset_pass(x, rows=None, *, values, coords, low, high, kind="qr") -> dict:
    """Per column ``f`` of ``values``: the moments of the rows below ``low[f]``
    (:class:`~robustpca.solvers.chunked_moments.QRMoments`, or
    :class:`~robustpca.solvers.chunked.Moments` for ``kind="scatter"``) and the records
    ``[f, 0, value, index, coords...]`` of the rows in ``[low[f], high[f])``.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    rows : ndarray of int of shape (n_rows,)
        The chunk's global row numbers (needed, despite the default).
    values : callable
        Maps rows of ``x`` to their values, of shape ``(n_rows, B)``. Distances under
        the map ``coords`` itself (an ``of_coords`` method and ``values.coords is
        coords``) are computed from the coordinates, one product a block.
    coords : callable
        Maps rows of ``x`` to the ``k`` coordinates whose moments are taken.
    low, high : ndarray of shape (B,)
        Each column's bracket ``[low, high)``.
    kind : {"qr", "scatter"}, default="qr"
        The moments: :class:`~robustpca.solvers.chunked_moments.QRMoments` or
        :class:`~robustpca.solvers.chunked.Moments`.

    Returns
    -------
    dict
        ``"m0"``, ``"m1"``, ... the moments of each column's rows below ``low``, and
        ``"records"``: :class:`~robustpca.solvers.chunked.Rows` of ``4 + k`` floats a
        row.
    """
    B = low.shape[0]
    of = QRMoments.of if kind == "qr" else scatter_moments
    moments: list = [None] * B
    parts = []
    # distances under the same map read its coordinates (one product a block, not two)
    same = hasattr(values, "of_coords") and values.coords is coords
    for a, b in value_runs(x, B):
        xb, ib = x[a:b], rows[a:b]
        Z = coords(xb)
        V = by_value_blocks(values.of_coords, Z, xb) if same else values(xb)
        for f in range(B):
            v = V[:, f]
            part = of(Z[v < low[f]])
            moments[f] = part if moments[f] is None else moments[f] + part
            inside = (v >= low[f]) & (v < high[f])
            if inside.any():
                cols = [np.full(inside.sum(), f), np.zeros(inside.sum()), v[inside], ib[inside]]
                parts.append(np.column_stack([*cols, Z[inside]]))
    out: dict[str, Any] = {f"m{f}": moments[f] for f in range(B)}
    width = 4 + coords(x[:0]).shape[1]
    out["records"] = Rows((np.concatenate(parts) if parts else np.empty((0, width)),))
    return out


def _guess(pilot: np.ndarray, h: int, n: int | None, rows: int):
    """One bracket per column around the ``h``-th smallest value
    (:func:`~robustpca.solvers.chunked_order_statistics.guess_brackets`), or None, also
    where the pilot says they would hold more than ``rows`` rows."""
    guessed = guess_brackets(pilot, np.full((pilot.shape[1], 1), h - 1), n)
    if guessed is None or n is None:
        return None
    low, high = guessed[0][:, 0], guessed[1][:, 0]
    share = np.mean((pilot >= low) & (pilot < high), axis=0)
    return (low, high) if float(np.sum(share)) * n <= rows else None


def _subsets_from(out, groups, values, h, below, low, kind):
    of = QRMoments.of if kind == "qr" else scatter_moments
    subsets, moments = [], []
    for f in range(low.shape[0]):
        need = int(h - below[f])
        taken = groups[f][0][:need]
        moments.append(out[f"m{f}"] + of(taken[:, 4:]))
        subsets.append(Subset(values, f, float(low[f]), np.sort(taken[:, 3]).astype(np.int64)))
    return subsets, moments


def smallest_subsets(run, row_index, coords, values, h: int, pilot_x, kind="qr", guide=None):
    """The ``h`` rows of smallest value in each column of ``values`` (ties by row
    index, as a stable sort) and their moments (``kind``: :func:`subset_pass`).

    One pass when a bracket guessed from the pilot's quantiles (:func:`_guess`) holds
    the ``h``-th value of every column and its rows are few enough to gather (the
    counts of that pass tell); otherwise counting passes, then one gathering pass. A
    gathered row is ``4 + k`` floats: the rows gathered are at most
    ``4 GATHER_BUDGET / (4 + k)``, so that the records stay within the budget's bytes;
    twice that for brackets guessed from ``guide``, the values of a large sample
    (:func:`~robustpca.solvers.chunked_sample.sample_brackets`).

    Parameters
    ----------
    run : callable
        The pass runner (:mod:`robustpca.solvers.chunked`).
    row_index : ndarray or dask.array.Array of shape (n,)
        The global row numbers, given to the runner as ``rows``.
    coords : callable
        Maps rows of the data to the ``k`` coordinates whose moments are gathered (an
        :class:`~robustpca.solvers.chunked_mcd.AffineRows`).
    values : callable
        Maps rows of the data to their values, of shape ``(n_rows, B)``.
    h : int
        The size of each subset.
    pilot_x : ndarray of shape (n_pilot, n_features)
        The pilot rows, which set the guessed brackets and the first bins.
    kind : {"qr", "scatter"}, default="qr"
        The moments: :class:`~robustpca.solvers.chunked_moments.QRMoments` or
        :class:`~robustpca.solvers.chunked.Moments`.
    guide : ndarray of shape (n_sample, B) or None, default=None
        The values of a large sample, from which the brackets are guessed.

    Returns
    -------
    subsets : list of Subset
        Each column's subset, as a recipe over chunks.
    moments : list of QRMoments or Moments
        Each subset's moments.
    passes : int
        The passes run.
    """
    pilot = values(pilot_x)
    B = pilot.shape[1]
    n = None if not hasattr(row_index, "shape") else int(row_index.shape[0])
    rows = GATHER_BUDGET * 4 // (4 + coords(pilot_x[:1]).shape[1])
    passes = 0
    if guide is not None and n is not None:
        guessed = sample_brackets(guide, h, n, 2 * rows)
    else:
        guessed = _guess(pilot, h, n, rows)
    if guessed is not None:
        low, high = guessed
        out = run(
            subset_pass, row_index, values=values, coords=coords, low=low, high=high, kind=kind
        )
        passes += 1
        groups = _gathered_by_column(out.pop("records").values, B, 1)
        below = np.array([_count(out[f"m{f}"]) for f in range(B)])
        inside = np.array([groups[f][0].shape[0] for f in range(B)])
        if np.all((below <= h - 1) & (h - 1 < below + inside)):
            subsets, moments = _subsets_from(out, groups, values, h, below, low, kind)
            return subsets, moments, passes
    ranks = np.full((B, 1), h - 1)
    brackets, used = bracket_ranks(run, row_index, values, ranks, pilot, budget=rows)
    passes += used
    low, high = brackets.low[:, 0], brackets.high[:, 0]
    out = run(subset_pass, row_index, values=values, coords=coords, low=low, high=high, kind=kind)
    passes += 1
    groups = _gathered_by_column(out.pop("records").values, B, 1)
    subsets, moments = _subsets_from(out, groups, values, h, brackets.below[:, 0], low, kind)
    return subsets, moments, passes
