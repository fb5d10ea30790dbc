"""measures_from_counts takes NumPy integer counts (sums of masks) as Python ints: the
sums of two int32 counts of a long stream overflowed (a RuntimeWarning, and a
negative denominator)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.metrics import measures_from_counts


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64])
def test_counts_near_the_int32_limit_give_the_exact_measures(dtype):
    big = dtype(2**31 - 10)
    m = measures_from_counts(big, big, dtype(0), dtype(2**31 - 10))
    assert m["precision"] == 0.5 and m["recall"] == 1.0 and m["specificity"] == 0.5
    assert m["pwc"] == pytest.approx(100.0 / 3.0)


def test_numpy_and_python_counts_give_the_same_measures():
    counts = (3, 1, 2, 4)
    assert measures_from_counts(*map(np.int16, counts)) == measures_from_counts(*counts)
