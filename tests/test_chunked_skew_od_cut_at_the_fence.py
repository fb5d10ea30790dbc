"""Skewed ROBPCA's OD cut where the ODs tie at the fence (an edge-case discrepancy
found by the mutation audit; this test FAILS on the current code).

In memory (``solvers.robpca.solve_robpca``, as rrcov) the rows kept after the skewed OD
cutoff are ``od <= max(skewed_cutoff(od), od_rounding)``; where no OD lies strictly
below the fence, ``skewed_cutoff`` is the fence itself and the rows AT the fence are
kept. The chunked route (``chunked_skew._skew_od_moments``) keeps ``od < fence``, finds
none, and then keeps every row ("rrcov keeps them all"), the rows above the fence
included.
"""

from __future__ import annotations

import numpy as np

from robustpca.robust_scale import skewed_cutoff
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_skew import _skew_od_moments


class _First:
    def __call__(self, x):
        return x[:, :1]


class _Columns:
    def __call__(self, x):
        return x


def test_rows_at_the_fence_are_kept_and_those_above_are_not():
    """80 of 100 ODs equal (quartiles equal: the fence is that value, none below it),
    20 above: the in-memory rule keeps the 80."""
    rng = np.random.default_rng(0)
    od = np.concatenate([np.full(80, 1.0), rng.uniform(1.5, 3.0, 20)])
    rng.shuffle(od)
    X = np.column_stack([od, rng.normal(size=100)])
    run = NumpyPassRunner(X, chunk_rows=30)
    kept, _ = _skew_od_moments(run, np.arange(100), _First(), _Columns(), 100, od[:, None], X, 0.0)
    expected = od <= max(skewed_cutoff(od), 0.0)
    assert expected.sum() == 80
    assert kept.count == 80
