"""``Window.value_at`` and ``Window.value_reaching`` are order statistics of the rows.

The Dask reference statistics (:mod:`robustpca.solvers.chunked_reference`) read their
medians out of a :class:`~robustpca.solvers.contamination_cut.Window` of sorted values
gathered around them. With whole (frequency) weights, a window is a stretch of the sorted
sample with every row repeated its weight's times, so the value at weight position ``p``
(the first whose cumulative weight exceeds ``p``) is the sample's order statistic of index
``p``, and the first value whose cumulative weight reaches ``h`` is the one of index
``h - 1``; positions outside the window are not held (None), never a neighbour's value.
The public routes only ask for positions half a unit away from a whole cumulative weight,
so these exact boundaries were pinned by no test.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers.contamination_cut import Window


def _window(seed: int):
    """A window over the middle of a sample of rows with whole weights, and the sample."""
    rng = np.random.default_rng(seed)
    values = np.sort(rng.choice(np.arange(-20.0, 20.0), size=9, replace=False))
    weights = rng.integers(1, 4, size=values.size).astype(float)
    rows = np.repeat(values, weights.astype(int))
    lo, hi = 2, values.size - 2  # the window holds values[lo:hi]
    below = float(weights[:lo].sum())
    window = Window(
        float(values[lo]),
        float(values[hi - 1]),
        values[lo:hi],
        weights[lo:hi],
        below,
        below,
        float(weights[hi:].sum()),
    )
    return window, rows, below, below + float(weights[lo:hi].sum())


@pytest.mark.parametrize("seed", range(5))
def test_value_at_a_whole_position_is_that_order_statistic(seed):
    window, rows, start, stop = _window(seed)
    for p in range(rows.size):
        got = window.value_at(float(p))
        if start <= p < stop:
            assert got == rows[p]
        else:
            assert got is None


@pytest.mark.parametrize("seed", range(5))
def test_value_reaching_a_whole_weight_is_the_row_before_it(seed):
    window, rows, start, stop = _window(seed)
    for h in range(1, rows.size + 1):
        got = window.value_reaching(float(h))
        if start < h <= stop:
            assert got == rows[h - 1]
        else:
            assert got is None
