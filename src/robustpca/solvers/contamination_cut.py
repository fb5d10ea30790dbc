"""Where ``contamination`` cuts the training scores, in memory and on Dask.

A float ``contamination`` flags the rows of the largest outlyingness whose weight is
nearest ``contamination`` times the total (:func:`contamination_target`); the offset is
put between the last row kept and the first flagged (:func:`offset_at_cut`). Values
that agree to rounding are one tie (:func:`resolved_gaps`), so that the labels do not
depend on the order of a sum or on the route that computed the scores. On Dask
the cut is found in a :class:`Window` of the sorted values gathered around it
(:func:`offset_from_window`; :mod:`robustpca.solvers.chunked_reference`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robust_scale import is_whole

__all__ = [
    "TIE_RTOL",
    "Window",
    "contamination_target",
    "offset_at_cut",
    "offset_from_window",
    "resolved_gaps",
    "whole_weights",
]

#: Relative difference up to which two scores count as tied: far above the rounding of
#: a score computed by other sums (the Dask and in-memory routes differ by about 1e-13),
#: far below the spacing of distinct rows' scores.
TIE_RTOL = 1e-10


def resolved_gaps(values: np.ndarray) -> np.ndarray:
    """Whether each pair of neighbours of the sorted ``values`` differs by more than
    rounding (:data:`TIE_RTOL` of the larger magnitude); equal infinities tie.

    Parameters
    ----------
    values : ndarray of shape (m,)
        Sorted values.

    Returns
    -------
    ndarray of shape (max(m - 1, 0),), dtype bool
        Entry ``i``: ``values[i]`` and ``values[i + 1]`` are distinct.
    """
    lower, upper = values[:-1], values[1:]
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.maximum(np.abs(lower), np.abs(upper))
        return np.where(np.isfinite(scale), upper - lower > TIE_RTOL * scale, upper > lower)


@dataclass(frozen=True)
class Window:
    """The values some row has in one window, sorted (ends included), with their
    weights, and the weight and count of the rows below it and the count above it.

    Parameters
    ----------
    low, high : float
        The window's ends.
    values : ndarray of shape (m,)
        The values in it, sorted.
    weights : ndarray of shape (m,)
        Their weights.
    below : float
        The weight of the rows below ``low``.
    n_below, n_above : float
        The numbers of rows below ``low`` and above ``high``.
    """

    low: float
    high: float
    values: np.ndarray
    weights: np.ndarray
    below: float
    n_below: float
    n_above: float

    def value_at(self, position: float) -> float | None:
        """The value at a weight position (the first whose cumulative weight exceeds
        it), or None when the window does not hold it.

        Parameters
        ----------
        position : float
            A cumulative weight from the lowest row.

        Returns
        -------
        float or None
        """
        cum = self.below + np.cumsum(self.weights)
        if position < self.below or not cum.size or position >= cum[-1]:
            return None
        return float(self.values[np.searchsorted(cum, position, side="right")])

    def value_reaching(self, half: float) -> float | None:
        """The first value whose cumulative weight reaches ``half`` (the weighted median of
        :mod:`robustpca.solvers.likelihood`), or None when the window does not hold it.

        Parameters
        ----------
        half : float
            Half the total weight.

        Returns
        -------
        float or None
        """
        cum = self.below + np.cumsum(self.weights)
        if not self.below < half or not cum.size or not cum[-1] >= half:
            return None
        return float(self.values[np.searchsorted(cum, half, side="left")])


def contamination_target(share: float, total: float, whole: bool = True) -> float:
    """The weight of the rows that ``contamination=share`` flags: ``share * total``,
    rounded half up where ``whole``.

    Parameters
    ----------
    share, total : float
        The ``contamination`` and the total weight of the rows.
    whole : bool, default=True
        Every weight is whole: a count of rows, as if each were repeated its weight's times.
    """
    return float(np.floor(share * total + 0.5)) if whole else float(share * total)


def whole_weights(w) -> bool:
    """Whether every weight is a whole number (frequency weights; NaN and infinity are
    not).

    Parameters
    ----------
    w : ndarray or dask.array.Array of shape (n_samples,)
        The weights (a dask array costs one pass).

    Returns
    -------
    bool
    """
    whole = is_whole(w)
    return bool(whole.all().compute() if hasattr(whole, "compute") else np.all(whole))


def offset_from_window(window: Window, target: float) -> float | None:
    r"""``contamination_offset`` (:mod:`robustpca.estimators._outlier_api`) of the values
    from the window around the cut, or None when the window does not prove the cut:
    the cut nearest ``target`` (:func:`contamination_target`) between values distinct
    beyond rounding (:func:`resolved_gaps`; the lower on a tie), at a finite value or
    the end, and the values either side of it. Values of no weight (rows of weight 0)
    are no cuts, as if dropped.

    Parameters
    ----------
    window : Window
        The values gathered around the cut.
    target : float
        The weight of the rows to flag (:func:`contamination_target`).

    Returns
    -------
    float or None
    """
    values, index = np.unique(window.values, return_inverse=True)
    weights = np.bincount(index, weights=window.weights, minlength=values.size)
    values, weights = values[weights > 0], weights[weights > 0]
    cum = window.below + np.concatenate([[0.0], np.cumsum(weights)])
    # the first value's cut is checked against the rows below the window further down
    distinct = np.concatenate([[True], resolved_gaps(values)])
    cuts = [i for i in range(values.size) if np.isfinite(values[i]) and distinct[i]]
    if window.n_above == 0:
        cuts.append(values.size)  # the end: every row flagged
    if not cuts:
        return None
    gaps = np.array([abs(cum[i] - target) for i in cuts])
    pick = int(np.argmin(gaps))
    j, chosen = cuts[pick], cum[cuts[pick]]
    # no cut below the window may be as near: one nearer the target precedes it here
    if window.n_below > 0 and not any(cum[i] < chosen and cum[i] <= target for i in cuts[:pick]):
        return None
    # no cut above may be nearer: this one or a later one passes the target
    if window.n_above > 0 and not (
        chosen > target or any(cum[i] > target for i in cuts[pick + 1 :])
    ):
        return None
    if j == 0 and window.n_below > 0:
        return None  # the value below the cut lies outside
    return offset_at_cut(values, j)


def offset_at_cut(values: np.ndarray, j: int) -> float:
    """The offset between the sorted ``values[j - 1]`` and ``values[j]`` (their
    midpoint where it lies strictly above the lower one), so that the first ``j`` are
    below it; finite beyond either end.

    Parameters
    ----------
    values : ndarray of shape (m,)
        Distinct values, sorted.
    j : int
        The cut, in ``[0, m]``: the values below it.

    Returns
    -------
    float
    """
    lower = float(values[j - 1]) if j > 0 else -np.inf
    if j == values.size:
        return _beyond(lower, 1.0) if np.isfinite(lower) else 0.0
    upper = float(values[j])
    if not np.isfinite(lower):
        return _beyond(upper, -1.0)
    middle = 0.5 * lower + 0.5 * upper
    return float(middle) if lower < middle <= upper else upper


def _beyond(value: float, sign: float) -> float:
    """A finite value past ``value`` on the side of ``sign`` (+1 above, -1 below): a step
    of ``max(1, |value|)``, or half-way to the largest float where that step overflows."""
    out = value + sign * max(1.0, abs(value))
    if np.isfinite(out):
        return float(out)
    return float(0.5 * value + sign * 0.5 * np.finfo(np.float64).max)
