"""``offset_at_cut`` beyond either end overflowed for values past half the float range
(found by the mutation audit of the detector API).

``offset_at_cut`` documents an offset "finite beyond either end", and
``contamination_offset`` one that is "Always finite". Beyond the ends the offset steps
``max(1, |v|)`` away from the end value ``v``: for ``|v|`` above about 8.99e307 (half of
float64's largest) the step overflowed, and the cut below every row (a share whose count
rounds to zero) or above every row came out as -inf or +inf. ``predict`` then compared
with an infinite ``offset_``, and ``decision_function`` was infinite for every row.
``tests/test_contamination_cut_offset_edges.py`` checks the upper end up to 1e300 only.
(At float64's largest magnitude itself no finite value lies beyond, so the test stays
below it.)
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.estimators._outlier_api import contamination_offset
from robustpca.solvers.contamination_cut import offset_at_cut


@pytest.mark.parametrize("end", [1e308, 1.7e308, -1e308, -1.7e308])
def test_offsets_beyond_either_end_are_finite_at_any_magnitude(end):
    values = np.array(sorted([end, np.copysign(1.0, end)]))
    below, above = offset_at_cut(values, 0), offset_at_cut(values, values.size)
    assert np.isfinite(below) and below < values[0]
    assert np.isfinite(above) and above > values[-1]


def test_contamination_offset_is_finite_when_no_row_is_flagged():
    scores = np.linspace(-1.7e308, -1.6e308, 10)  # 0.01 of 10 rows rounds to none
    offset = contamination_offset(scores, 0.01)
    assert np.isfinite(offset)
    assert np.count_nonzero(scores < offset) == 0
