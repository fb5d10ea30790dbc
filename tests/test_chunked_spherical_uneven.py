"""Spherical PCA in passes over uneven row chunks against the in-memory solver
(mutation audit of ``solvers/chunked_spherical.py``).

:func:`~robustpca.solvers.chunked_spherical.solve_spherical_pca_chunked` is
:func:`~robustpca.solvers.spherical.solve_spherical_pca` step for step; the chunks
here are uneven, with a chunk of a single row, and the data take the paths the
parity tables rarely do: a spatial median at a data point (Vardi & Zhang's test), rows
equally near the iterate (the nearest row by index), rows inside the distance floor.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_spherical import Nearest, solve_spherical_pca_chunked
from robustpca.solvers.spherical import solve_spherical_pca

SIZES = [23, 1, 40, 6, 30]


def _runner(X):
    run = NumpyPassRunner(X, chunk_rows=X.shape[0])
    run.bounds = list(pairwise(np.cumsum([0, *SIZES]).tolist()))
    return run


def _generic(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_t(3, size=(sum(SIZES), 4)) * np.array([4.0, 2.0, 1.0, 0.3]) + 10.0
    X[:6] += 40.0  # a few outliers
    return X


def _median_at_a_row(seed=1):
    """45 of the 100 rows at the centre of the others: the spatial median is that data
    point; the row of the one-row chunk lies 1e-6 from it, inside the distance floor
    (0.0023), so it is not sphered."""
    rng = np.random.default_rng(seed)
    X = rng.standard_t(3, size=(sum(SIZES), 4)) * np.array([4.0, 2.0, 1.0, 0.3]) + 2.0
    X[20:65] = 2.0
    X[SIZES[0]] = 2.0 + np.array([1e-6, 0.0, 0.0, 0.0])
    return X


def _assert_same(got, expected):
    assert got.rank == expected.rank and got.n_iter == expected.n_iter
    np.testing.assert_allclose(got.mean, expected.mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.eigenvalues, expected.eigenvalues, rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(
        got.sphere_eigenvalues, expected.sphere_eigenvalues, rtol=1e-8, atol=1e-14
    )
    P = got.components.T @ got.components
    Q = expected.components.T @ expected.components
    np.testing.assert_allclose(P, Q, atol=1e-8)
    # the axes in the same order (sorted by decreasing robust eigenvalue)
    np.testing.assert_allclose(
        np.abs(np.sum(got.components * expected.components, axis=1)), 1.0, atol=1e-8
    )


@pytest.mark.parametrize("scale_on", ["data", "sphere"])
@pytest.mark.parametrize("make", [_generic, _median_at_a_row], ids=["generic", "at-a-row"])
def test_chunked_spherical_pca_is_the_in_memory_one(make, scale_on):
    """Same centre, iterations, rank, robust eigenvalues (squared MADs of the scores on
    the chosen scale, axes sorted by them) and sphere eigenvalues (over ``n - 1``)."""
    X = make()
    n, p = X.shape
    got, passes = solve_spherical_pca_chunked(_runner(X), np.arange(n), n, p, scale_on=scale_on)
    _assert_same(got, solve_spherical_pca(X, scale_on=scale_on))
    assert passes > 0


def test_spatial_median_at_a_row_is_that_row():
    """45 of the 100 rows at one point: that point is the spatial median (Vardi and
    Zhang's test on the pull of the other rows), returned exactly, not an iterate near
    it."""
    X = _median_at_a_row()
    n, p = X.shape
    got, _ = solve_spherical_pca_chunked(_runner(X), np.arange(n), n, p)
    np.testing.assert_array_equal(got.mean, X[30])


@pytest.mark.parametrize(
    ("order", "centre"), [((0, 1, 2, 3), 1.0), ((1, 0, 2, 3), 0.0), ((1, 2, 0, 3), 0.0)]
)
def test_collinear_rows_whose_spatial_medians_tie(order, centre):
    """Rows 0, 0, 1 and 3 on a line: every point of [0, 1] is a spatial median. The
    coordinatewise median 0.5 is equally near the rows at 0 and at 1, and the nearest
    row is the one of smaller index; both pass Vardi and Zhang's test with equality
    (pull 2 for two rows at 0, pull 1 for one row at 1), so the result is the row that
    comes first, as in memory, over chunks of 1, 2 and 1 rows."""
    X = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [3.0, 0.0]])[list(order)]
    run = NumpyPassRunner(X, chunk_rows=4)
    run.bounds = [(0, 1), (1, 3), (3, 4)]
    got, _ = solve_spherical_pca_chunked(run, np.arange(4), 4, 2)
    expected = solve_spherical_pca(X)
    np.testing.assert_array_equal(expected.mean, [centre, 0.0])
    np.testing.assert_array_equal(got.mean, expected.mean)
    np.testing.assert_allclose(got.eigenvalues, expected.eigenvalues, rtol=1e-12)


def test_nearest_keeps_the_nearer_row_then_the_smaller_index():
    """:class:`Nearest` adds by the smaller distance, ties by the smaller row index,
    whatever the order the chunks are added in."""
    a = Nearest(1.0, 7.0, np.zeros(2))
    b = Nearest(1.0, 3.0, np.ones(2))
    c = Nearest(0.5, 9.0, np.full(2, 2.0))
    assert (a + b).index == 3.0 and (b + a).index == 3.0
    assert (a + c).index == 9.0 and (c + b).index == 9.0
