"""Gaps in solvers/contamination_cut.py (offset_at_cut), from mutation testing.

``predict`` flags ``score < offset_`` and ``offset_at_cut(values, j)`` must leave exactly
``values[:j]`` below it (``contamination_offset`` cuts only between scores distinct beyond
rounding, so adjacent floats reach ``offset_at_cut`` only directly):
* when ``values[j-1]`` and ``values[j]`` are adjacent floats their midpoint rounds to the
  lower one, which must then not be returned (``lower < middle`` relaxed to ``<=`` went
  unnoticed: one row fewer flagged);
* beyond the upper end the offset must lie strictly above the largest value at any
  magnitude (``lower + 1`` instead of ``lower + max(1, |lower|)`` went unnoticed: for
  |scores| of 1e17 and more it equals the largest score and flags one row fewer).
"""

import numpy as np
import pytest

from robustpca.estimators._outlier_api import contamination_offset
from robustpca.solvers.contamination_cut import offset_at_cut


@pytest.mark.parametrize("lower", [1.0, -3.5, 1e10, 0.0])
def test_cut_between_adjacent_floats_keeps_the_lower_one_below(lower):
    upper = np.nextafter(lower, np.inf)
    values = np.array([lower - 1.0, lower, upper, upper + 1.0])
    off = offset_at_cut(values, 2)
    assert values[1] < off <= values[2]
    assert np.count_nonzero(values < off) == 2


def test_contamination_offset_keeps_scores_tied_to_rounding_together():
    """Adjacent floats are one tie: the cut goes at the tie's nearer boundary (the lower
    on equal distance), never between them, and a midpoint stays clear of both."""
    x = -2.0
    scores = np.array([-9.0, x, np.nextafter(x, np.inf), 0.0, 1.0, 2.0])
    off = contamination_offset(scores, 1 / 3)  # 2 of 6 rows: cuts at 1 and 3 equally near
    assert np.count_nonzero(scores < off) == 1
    assert -9.0 < off < x and x - off > 1.0
    apart = scores.copy()
    apart[2] = x * (1 - 1e-9)  # distinct beyond rounding: the cut at 2 exists again
    off = contamination_offset(apart, 1 / 3)
    assert np.count_nonzero(apart < off) == 2


@pytest.mark.parametrize("top", [3.0, -3.0, 1e17, -1e17, 1e300])
def test_offset_beyond_the_end_is_above_every_value(top):
    values = (
        np.array([top - abs(top) - 1.0, top])
        if np.isfinite(top - abs(top) - 1.0)
        else np.array([top])
    )
    off = offset_at_cut(values, values.size)
    assert np.isfinite(off) and off > values[-1]


def test_a_single_row_at_share_one_half_is_flagged_at_any_magnitude():
    for s in (5.0, -1e18, 1e18):
        off = contamination_offset(np.array([s]), 0.5)  # round(0.5) = 1 row
        assert s < off
