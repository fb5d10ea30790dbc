r"""The adjusted boxplot of projections (the skew-adjusted outlyingness): its fences
(Hubert & Vandervieren 2008), and ties of the projections up to rounding.

The rows of a hyperplane's subset, and duplicate rows, project to one value in exact
arithmetic; the BLAS rounds them apart by an amount that depends on the rows' places and
the memory layout. Where such ties hold a direction's median (sparse tables), its scales
and the outlyingness would be ratios of that rounding, and a fit of the same data in C
or Fortran order would pick other h-subsets. Deviations from the median within the
projections' rounding bound count as ties, as in exact arithmetic, in memory
(:func:`~.outlyingness.fit_adjusted_outlyingness`) and in passes
(:mod:`~.chunked_skew`). Nothing here validates or warns.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PROJECTION_ROUNDING", "adjusted_fences", "projection_rounding", "snap_ties"]

#: :func:`projection_rounding` relative to the rows' largest norm.
PROJECTION_ROUNDING = float(np.sqrt(np.finfo(np.float64).eps))


def projection_rounding(rows: np.ndarray) -> float:
    r"""The rounding level of the projections of rows like ``rows`` on the hyperplane
    normals: :math:`\sqrt{\epsilon} \max_i \lVert x_i \rVert`.

    Past a dot product's error bound, the rows' coordinates and the normals (solves
    with subsets of them, possibly ill-conditioned) carry their own rounding, which
    exceeds that bound by orders of magnitude (``docs/design-notes/rrcov-family.md``).

    Parameters
    ----------
    rows : ndarray of shape (n_rows, n_features)
        The rows projected (their medcouple sample, the same on both routes).

    Returns
    -------
    float
    """
    if rows.size == 0:
        return 0.0
    largest = float(np.sqrt(np.max(np.einsum("ij,ij->i", rows, rows))))
    return PROJECTION_ROUNDING * largest


def snap_ties(deviations: np.ndarray, rounding: float) -> np.ndarray:
    """The deviations from the median with those of at most ``rounding`` set to 0.

    Parameters
    ----------
    deviations : ndarray
        Projections minus their direction's median.
    rounding : float
        :func:`projection_rounding`.

    Returns
    -------
    ndarray of the shape of ``deviations``
    """
    return np.where(np.abs(deviations) <= rounding, 0.0, deviations)


def adjusted_fences(q1, q3, mc) -> tuple[np.ndarray, np.ndarray]:
    r"""The adjusted boxplot's fences (Hubert & Vandervieren 2008) for quartiles and
    medcouples: :math:`Q_3 + 1.5\, e^{3 MC} IQR` and :math:`Q_1 - 1.5\, e^{-4 MC} IQR`
    for :math:`MC \ge 0`, the exponents swapped and signs kept for :math:`MC < 0`.

    Parameters
    ----------
    q1, q3, mc : ndarray of shape (m,)
    """
    iqr = q3 - q1
    up_exp = np.where(mc >= 0, 3.0 * mc, 4.0 * mc)
    lo_exp = np.where(mc >= 0, -4.0 * mc, -3.0 * mc)
    return q3 + 1.5 * iqr * np.exp(up_exp), q1 - 1.5 * iqr * np.exp(lo_exp)
