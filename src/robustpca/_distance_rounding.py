"""The rounding levels of the diagnostics' training distances.

A fit holding every direction of its training rows leaves ODs and score scales that are
rounding, not spread; these levels tell the two apart, in memory
(:func:`robustpca.diagnostics.diagnostic_reference`) and on Dask
(:mod:`robustpca._dask.reference`), so that both routes flag the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._array_api import to_numpy

#: ODs below this fraction of the largest centred norm count as zero (k = rank).
ZERO_OD = float(np.sqrt(np.finfo(np.float64).eps))
#: The rounding of centring on ``mean_``, relative to its norm (``rounding_levels``).
ZERO_SCALE = 64.0 * float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class RoundingLevels:
    """The rounding levels of the training distances (:func:`rounding_levels`)."""

    scale: float  # a score scale at most this is not resolved by the fit: zero
    floor: float  # an OD at most this is zero up to rounding (``od_floor``)
    spanned: float  # training ODs all at most this: they are rounding (no OD cutoff)


def rounding_levels(model, median_norm: float, largest: float) -> RoundingLevels:
    """The rounding levels of the distances from the training rows' median and largest
    centred norms: a typical row's (the median norm; the largest would be a gross
    outlier's, 1e152 in tests/test_input_magnitude.py), the centre's where most rows
    sit at it (an exact fit: their norms are its rounding), and never below the
    rounding of centring on ``mean_`` (64 eps of its norm), which rows of small spread
    about a far centre reach (rank-1 rows at 257 with a spread of 1e-6 had a training
    row flagged by the rounding of its OD).

    A score scale within ``sqrt(eps)`` of the typical norm, a variance within ``eps`` of
    its square, is below what an eigendecomposition of a covariance resolves: a
    component there is null, its scores the angle between its computed axis and the
    training rows' span times their norms (far above ``eps |x|`` when the nonzero
    eigenvalues are spread), and it is left out as rrcov leaves out a zero eigenvalue.
    The level is far below the ``1e-6`` of the largest scale under which the solvers
    already set a component to zero (``linalg.RANK_RTOL`` on the variances)."""
    centre = float(np.linalg.norm(to_numpy(getattr(model, "mean_", 0.0))))
    typical = centre if median_norm <= ZERO_SCALE * centre else median_norm
    # a model whose distances are taken in a truncated embedding (kernel PCA drops the
    # eigenvalues below RANK_RTOL of the largest) resolves nothing below that truncation
    centring = max(ZERO_SCALE * centre, float(getattr(model, "_distance_truncation", 0.0)))
    return RoundingLevels(
        max(ZERO_OD * typical, centring),
        max(ZERO_OD * typical, centring),
        max(ZERO_OD * max(largest, typical), centring),
    )


def score_rounding(scale: np.ndarray, largest: np.ndarray, floor: float) -> np.ndarray:
    """:attr:`DiagnosticReference.score_rounding` from the training rows' ``largest``
    deviations: on a component of zero scale they are rounding (that of the scores of
    an eigendecomposition is about ``sqrt(eps)`` times the spread, not ``eps``), plus
    ``floor``: a later ``transform`` of the same row rounds its products otherwise (the
    BLAS's blocking and the buffers' alignment vary from call to call), so the row
    that set the largest could land just beyond it."""
    return np.where(scale > 0, floor, np.nan_to_num(largest, nan=0.0) + floor)


def span_od(model, k: int, spanned: bool, levels: RoundingLevels) -> float:
    """:attr:`DiagnosticReference.span_od`: the rounding of the training ODs
    (``levels.spanned``) where they are all rounding (``spanned``) and ``k < p``, so that
    a new row off their span is flagged; rrcov's ``k = p`` has no OD at all (inf). ``p``
    is the dimension of the space of the distances (a kernel's feature space's, where
    the model says: ``_distance_dimension``)."""
    p = getattr(model, "_distance_dimension", getattr(model, "n_features_in_", k))
    return levels.spanned if spanned and k < p else np.inf
