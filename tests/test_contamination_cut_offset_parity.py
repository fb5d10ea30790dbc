"""The cut that ``contamination`` makes, in memory and from a Dask window, at its edges.

* Infinite scores (rows infinitely far out) are no cut: no finite offset lies below
  them, so both routes flag them even where the share rounds to none, and
  ``offset_from_window`` on a window holding every value gives exactly
  ``contamination_offset``'s finite offset;
* weights of which *any* is fractional are no frequency weights: the target is ``c``
  times their total, unrounded (``contamination_offset``'s docstring: rounded half up
  only "where every weight is whole"), which moves the cut when the fractional weight
  sits among the flagged rows;
* a window of the sorted scores proves the cut or declines (None), never gives another
  offset: every contiguous window of a small sample, including those that lie wholly
  below the cut, where the nearest cut inside the window is not the nearest overall.
  (``test_dask_detector.py``'s hypothesis test draws such windows only by chance.)
* beyond the upper end the offset is strictly above the largest score also when that
  score is 0 (a row at the centre, on the subspace), and finite when every score is
  infinite.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.estimators._outlier_api import contamination_offset
from robustpca.solvers.contamination_cut import (
    Window,
    contamination_target,
    offset_at_cut,
    offset_from_window,
    whole_weights,
)


def _whole_window(values, weights):
    order = np.argsort(values, kind="stable")
    v, w = np.asarray(values, float)[order], np.asarray(weights, float)[order]
    return Window(float(v[0]), float(v[-1]), v, w, 0.0, 0.0, 0.0)


def test_infinite_scores_are_no_cut_on_either_route():
    scores = np.array([-np.inf, -np.inf, -3.0, -2.0, -1.5, -1.0, -0.5, -0.4, -0.3, -0.2])
    w = np.ones(scores.size)
    offset = contamination_offset(scores, 0.01)  # 0.1 row rounds to none
    assert np.isfinite(offset)
    assert np.count_nonzero(scores < offset) == 2  # the infinite rows, flagged
    target = contamination_target(0.01, float(w.sum()), whole_weights(w))
    assert offset_from_window(_whole_window(scores, w), target) == offset


def test_one_fractional_weight_makes_the_target_unrounded():
    scores = -np.arange(10.0, 0.0, -1.0)  # -10 .. -1
    w = np.ones(10)
    w[0] = 0.5  # the most outlying row weighs half: cumulative 0.5, 1.5, 2.5, ...
    assert not whole_weights(w)
    # 0.25 of 9.5 is 2.375: nearest 2.5 (three rows); rounded to 2 it would be 1.5 (two)
    offset = contamination_offset(scores, 0.25, w)
    assert np.count_nonzero(scores < offset) == 3
    target = contamination_target(0.25, float(w.sum()), whole_weights(w))
    assert offset_from_window(_whole_window(scores, w), target) == offset


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("share", [0.05, 0.2, 0.35, 0.5])
def test_every_window_proves_the_exact_cut_or_declines(share, weighted):
    v = np.array([-9.0, -8.0, -8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -3.0, -2.0, -1.0, -0.5])
    w = np.arange(1.0, 13.0) % 3 + 1 if weighted else np.ones(v.size)
    exact = contamination_offset(v, share, w)
    target = contamination_target(share, float(w.sum()), whole_weights(w))
    edges = [0, *(i for i in range(1, v.size) if v[i] > v[i - 1]), v.size]  # between ties
    for a in edges[:-1]:
        for b in edges[edges.index(a) + 1 :]:
            window = Window(
                float(v[a]),
                float(v[b - 1]),
                v[a:b],
                w[a:b],
                float(w[:a].sum()),
                float(a),
                float(v.size - b),
            )
            got = offset_from_window(window, target)
            assert got is None or got == exact, (a, b)
            if (a, b) == (0, v.size):
                assert got == exact


def test_offsets_beyond_the_ends_at_zero_and_at_infinity():
    assert offset_at_cut(np.array([-1.0, 0.0]), 2) > 0.0
    scores = np.full(4, -np.inf)
    offset = contamination_offset(scores, 0.25)
    assert np.isfinite(offset)
    assert np.count_nonzero(scores < offset) == 4  # no finite offset separates them
