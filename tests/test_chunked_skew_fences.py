"""The fences and cutoffs of skewed ROBPCA over uneven row chunks (mutation audit of
``solvers/chunked_skew.py``).

Values exactly at a fence, a column with no value below its fence and orthogonal
distances at their rounding level: the cases where a strict or a non-strict comparison,
or a missing floor, changes what the chunked route keeps. The references are the
in-memory rules (robustbase's ``y.up``/``y.lo``, ``robust_scale.skewed_cutoff``, the OD
cut of ``solvers.robpca.solve_robpca``).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from robustpca.robust_scale import skewed_cutoff
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_skew import _skew_od_moments, fence_pass, skewed_cutoffs_chunked

#: Uneven row chunks of the 100 rows below, one of a single row.
SIZES = [31, 1, 45, 23]


def _runner(X):
    run = NumpyPassRunner(X, chunk_rows=X.shape[0])
    run.bounds = list(pairwise(np.cumsum([0, *SIZES]).tolist()))
    return run


class _Columns:
    def __call__(self, x):
        return x


class _First:
    def __call__(self, x):
        return x[:, :1]


def test_fence_pass_excludes_values_at_the_fences():
    """Per column, the largest centred value strictly below the upper fence and the
    least strictly above the lower one (robustbase's ``y.up`` and ``y.lo``, the
    in-memory ``fit_adjusted_outlyingness``); values equal to a fence are out, and the
    chunk of one row holds one of them."""
    rng = np.random.default_rng(0)
    Y = rng.integers(-6, 7, size=(sum(SIZES), 2)).astype(float)
    Y[SIZES[0], :] = [4.0, -5.0]  # the one-row chunk: at the fences
    median = np.array([0.5, -0.5])
    upper, lower = np.array([3.5, 5.5]), np.array([-3.5, -4.5])
    out = _runner(Y)(fence_pass, projections=_Columns(), median=median,
                     upper_fence=upper, lower_fence=lower)["inside"]  # fmt: skip
    centred = Y - median
    expected_high = np.where(centred < upper, centred, -np.inf).max(axis=0)
    expected_low = np.where(centred > lower, centred, np.inf).min(axis=0)
    np.testing.assert_array_equal(out.high, expected_high)
    np.testing.assert_array_equal(out.low, expected_low)
    assert np.all(out.high < upper) and np.all(out.low > lower)


def test_skewed_cutoffs_at_and_without_a_value_below_the_fence():
    """``skewed_cutoff`` per column over the chunks: an integer column of medcouple 0
    (quartiles 4 and 6: the fence is ``q3 + 1.5 IQR = 9``) holding values exactly at
    its fence, which are not below it; a constant column, with no value below its
    fence, whose cutoff is the fence itself."""
    rng = np.random.default_rng(1)
    n = sum(SIZES)
    skewed = np.concatenate([rng.integers(4, 7, 80), [0.0] * 10, [9.0] * 6, [12.0] * 4])
    rng.shuffle(skewed)
    V = np.column_stack([skewed, np.full(n, 2.5)])
    got, _ = skewed_cutoffs_chunked(_runner(V), np.arange(n), _Columns(), n, V, V[::3])
    expected = [skewed_cutoff(V[:, 0]), skewed_cutoff(V[:, 1])]
    assert expected[1] == 2.5
    np.testing.assert_array_equal(got, expected)


def test_od_cut_keeps_the_rows_at_the_od_rounding():
    """Most orthogonal distances at their rounding level (below ``least``, the ODs'
    rounding) and a fence below some of them: the in-memory cut keeps every row with
    ``od <= max(skewed_cutoff(od), least)``, so all the rounding ODs, not only those
    below the fence."""
    rng = np.random.default_rng(2)
    n = sum(SIZES)
    rounding = [rng.uniform(0.0, 1e-12, 78), rng.uniform(5e-10, 8e-10, 6)]
    od = np.concatenate([*rounding, rng.uniform(1.0, 2.0, 16)])
    rng.shuffle(od)
    X = np.column_stack([od, rng.normal(size=n)])
    least = 1e-9
    assert skewed_cutoff(od) < od[od < least].max()  # the fence cuts the rounding ODs
    kept, _ = _skew_od_moments(
        _runner(X), np.arange(n), _First(), _Columns(), n, od[:, None], X, least
    )
    expected = od <= max(skewed_cutoff(od), least)
    assert kept.count == expected.sum() == 84
    np.testing.assert_allclose(kept.mean, X[expected].mean(axis=0), rtol=1e-12)
