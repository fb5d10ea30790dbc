"""Skew-adjusted outlyingness at ties of the projections (``solvers/adjusted_boxplot.py``).

On sparse wide tables most rows lie on each hyperplane direction in exact arithmetic,
the median among them. Their deviations from the median used to be rounding, so the
scales and the outlyingness that picks ROBPCA's h-subset were ratios of rounding: the
same data in C and in Fortran order (a pandas frame's ``to_numpy()`` is often the
latter) gave other h-subsets and other flags, and so did the Dask route. Deviations
up to the projections' rounding level now count as ties, as in exact arithmetic.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest

from robustpca import ROBPCA
from robustpca.solvers.adjusted_boxplot import projection_rounding, snap_ties
from robustpca.solvers.outlyingness import AdjustedOutlyingness


def sparse_table(seed: int) -> np.ndarray:
    """200 x 50, a tenth of the entries lognormal, the rest zero (rank 50)."""
    rng = np.random.default_rng(seed)
    return (rng.random((200, 50)) < 0.1) * rng.lognormal(size=(200, 50))


def assert_same_fit(a, b, X, Y=None):
    assert np.array_equal(np.sort(np.asarray(a.h_subset_)), np.sort(np.asarray(b.h_subset_)))
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=1e-9)
    Y = X if Y is None else Y
    np.testing.assert_array_equal(np.asarray(b.predict(Y)), a.predict(X))


@pytest.mark.parametrize("seed", [0, 8])
def test_the_memory_layout_does_not_change_a_skew_fit(seed):
    """C and Fortran order: the same h-subset, eigenvalues and flags (before, 11-18 of
    the 152 h-subset rows differed and up to 5.5% of the flags, at every seed tried)."""
    X = sparse_table(seed)
    a = ROBPCA(n_components=3, skew=True, random_state=0).fit(np.ascontiguousarray(X))
    b = ROBPCA(n_components=3, skew=True, random_state=0).fit(np.asfortranarray(X))
    assert_same_fit(a, b, X)


def test_the_dask_route_gives_the_in_memory_skew_fit_at_ties():
    X = sparse_table(8)
    a = ROBPCA(n_components=3, skew=True, random_state=0).fit(X)
    with dask.config.set(scheduler="synchronous"):
        dX = da.from_array(X, chunks=((60, 1, 100, 39), (50,)))
        b = ROBPCA(n_components=3, skew=True, random_state=0).fit(dX)
        assert_same_fit(a, b, X, dX)


def test_deviations_at_rounding_are_ties():
    rows = np.array([[3.0, 4.0], [0.0, 1.0]])
    level = projection_rounding(rows)
    assert level == pytest.approx(5.0 * np.sqrt(np.finfo(float).eps))
    np.testing.assert_array_equal(
        snap_ties(np.array([-2 * level, -level, 0.5 * level, 2 * level]), level),
        [-2 * level, 0.0, 0.0, 2 * level],
    )
    assert projection_rounding(np.zeros((0, 3))) == 0.0


def test_a_side_without_spread_still_marks_the_rows_beyond_it():
    """Three quarters of the rows tie at the median on one side: that side's scale is
    zero, and in exact arithmetic a row beyond the ties is infinitely outlying there
    (robustbase divides by zero and drops the direction). Its outlyingness is its
    deviation over the ties' rounding, so it grows with the deviation and stays finite;
    the ties themselves are not outlying."""
    model = AdjustedOutlyingness(
        directions=np.eye(1), median=np.zeros(1), upper=np.zeros(1), lower=np.ones(1),
        rounding=1e-9,
    )  # fmt: skip
    ao = model(np.array([[0.0], [5e-10], [1e-3], [2e-3], [-0.5]]))
    np.testing.assert_allclose(ao, [0.0, 0.0, 1e6, 2e6, 0.5])
