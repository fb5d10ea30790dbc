"""A float ``contamination`` does not split scores that tie up to rounding.

Rows that tie in exact arithmetic (those that set a skewed cutoff score exactly -1;
duplicated rows scored in different row blocks) come out a few ulps apart in one route
and equal in another. The cut used to go between any two distinct floats, so
``offset_`` could sit one ulp from a training score and the labels depended on rounding:
``ROBPCA(2, skew=True, contamination=0.05)`` flagged other rows in memory than on Dask
(every score agreeing to 1e-13). Scores within ``TIE_RTOL`` of each other now form one
tie, in memory (``contamination_offset``) and in the Dask windows
(``offset_from_window``) alike.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bench_outliers as bench
from robustpca import ROBPCA
from robustpca.estimators._outlier_api import contamination_offset
from robustpca.solvers.contamination_cut import TIE_RTOL, resolved_gaps

from .test_lifecycle_audit import _exact_offset


def _clearance(scores: np.ndarray, offset: float) -> float:
    """The distance from the offset to the nearest score, relative to the offset."""
    return float(np.min(np.abs(scores - offset)) / max(abs(offset), 1.0))


def test_resolved_gaps_groups_rounding_and_equal_infinities():
    x = -1.0
    values = np.array([-np.inf, -np.inf, -5.0, x, np.nextafter(x, 0), x * (1 - 1e-8), np.inf])
    np.testing.assert_array_equal(resolved_gaps(values), [False, True, True, False, True, True])
    assert resolved_gaps(np.array([1.0])).size == 0


@pytest.mark.parametrize("seed", [0, 3])
def test_skewed_cutoff_rows_are_labelled_alike_in_memory_and_on_dask(seed):
    """The case of the Dask audit: the rows that set the skewed cutoffs score -1, two
    of them one ulp apart in memory and equal on Dask; 5% of 40 rows is two."""
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(seed).gamma(2.0, size=(40, 60))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the skewed fit warns of its small sample
        memory = ROBPCA(2, skew=True, contamination=0.05, random_state=0).fit(X)
        lazy = ROBPCA(2, skew=True, contamination=0.05, random_state=0).fit(
            da.from_array(X, chunks=(10, 60))
        )
    np.testing.assert_array_equal(memory.predict(X), lazy.predict(X))
    assert memory.offset_ == pytest.approx(lazy.offset_, rel=1e-12)
    assert _clearance(memory.score_samples(X), memory.offset_) > TIE_RTOL / 4


def test_a_real_table_cut_at_its_skewed_cutoff_keeps_the_offset_clear_of_every_row(adbench):
    """ADBench's Cardiotocography (median/MAD scaled): two rows set a skewed cutoff and
    score -1 up to rounding, 80th and 81st in order; a share that flags 80 rows used to
    put the offset between them, one ulp from a training score."""
    X = bench.scale_columns(bench.load_table("7_Cardiotocography", adbench)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ROBPCA(n_components=0.95, skew=True, random_state=0).fit(X)
    scores = np.sort(model.score_samples(X))
    assert scores[79] == pytest.approx(-1.0, rel=1e-12)
    assert scores[80] == pytest.approx(-1.0, rel=1e-12)
    share = 80 / X.shape[0]
    offset = contamination_offset(scores, share)
    assert _clearance(scores, offset) > TIE_RTOL / 4
    assert np.count_nonzero(scores < offset) in (79, 81)  # the tie stays whole
    model.set_params(contamination=share)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X)
    assert model.offset_ == offset


_LEVELS = st.lists(st.integers(-40, 40), min_size=2, max_size=30)


@settings(max_examples=60, deadline=None)
@given(
    levels=_LEVELS,
    jitter=st.lists(st.floats(-1.0, 1.0), min_size=30, max_size=30),
    share=st.sampled_from([0.05, 0.1, 0.2, 1 / 3, 0.5]),
)
def test_labels_do_not_move_with_rounding_of_the_scores(levels, jitter, share):
    """Scores on a grid of distinct levels (ties included), each moved by up to 1e-13 of
    itself: the rows flagged are those of the exact scores, in memory and on the Dask
    route's windows."""
    exact = np.array(levels, dtype=float) / 8.0 - 0.3
    rounded = exact * (1.0 + 1e-13 * np.array(jitter[: exact.size]))
    flagged = exact < contamination_offset(exact, share)
    np.testing.assert_array_equal(rounded < contamination_offset(rounded, share), flagged)


@pytest.mark.parametrize("counting", [False, True])
def test_the_dask_windows_cut_where_memory_cuts_on_near_ties(counting, monkeypatch):
    """``offset_from_window`` groups near ties as ``contamination_offset`` does, at the
    window's inside cuts and by both the gathering and the counting passes."""
    rng = np.random.default_rng(5)
    base = -rng.permutation(np.repeat(np.arange(12.0), 5))  # 12 levels of 5 rows each
    s = base * (1.0 + 1e-14 * rng.standard_normal(base.size))
    w = np.ones(s.size)
    for share in (0.1, 0.2, 0.3, 0.5):
        got = _exact_offset(s, w, share, monkeypatch, counting)
        assert got == contamination_offset(s, share)
        assert np.count_nonzero(s < got) % 5 == 0  # whole levels only
