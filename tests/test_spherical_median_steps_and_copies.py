"""Spherical PCA: the spatial median's step budget, its result at a sample, the rank of
equal rows, and a centre that does not alias the data.

Mutation audit of ``solvers/spherical.py`` and ``solvers/chunked_spherical.py``: one
Weiszfeld step fewer than ``max_iter``, skipping Vardi and Zhang's test once ``max_iter``
runs out, returning the centre as a view of ``X``, and a non-zero rank for a sphered
spectrum of zeros (in memory or in passes) all left the suite passing.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import SphericalPCA
from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_spherical import solve_spherical_pca_chunked
from robustpca.solvers.spherical import solve_spherical_pca, spatial_median


def weiszfeld(X, centre, steps):
    """``steps`` plain Weiszfeld steps (weights ``1 / ||x_i - m||``; no sample near)."""
    for _ in range(steps):
        w = 1.0 / np.linalg.norm(X - centre, axis=1)
        centre = (w / w.sum()) @ X
    return centre


@pytest.mark.parametrize("max_iter", [1, 2, 5])
def test_max_iter_is_the_number_of_weiszfeld_steps(max_iter):
    """Stopped by ``max_iter`` (a tolerance it cannot meet), the spatial median is the
    ``max_iter``-th Weiszfeld iterate from the coordinatewise median, and ``n_iter`` says
    so."""
    X = np.random.default_rng(7).standard_t(3, size=(40, 3)) * np.array([3.0, 1.0, 0.5])
    centre, _, n_iter = spatial_median(X, delta=1e-14, max_iter=max_iter)
    assert n_iter == max_iter
    np.testing.assert_allclose(centre, weiszfeld(X, np.median(X, axis=0), max_iter), rtol=1e-12)


def test_a_sample_at_the_median_is_returned_when_max_iter_runs_out():
    """Two rows at the origin, which is the spatial median (the pull of the other five
    rows there is about 1.97 <= 2), while rrcov's start is (1, 0): however few steps
    ``max_iter`` allows, the result is that sample exactly, not the last iterate."""
    X = np.array([[0.0, 0.0], [0, 0], [1, 1], [2, 3], [3, 1], [-1, -1], [1, -2]])
    np.testing.assert_array_equal(np.median(X, axis=0), [1.0, 0.0])
    for max_iter in (1, 2):
        centre, _, n_iter = spatial_median(X, max_iter=max_iter)
        assert n_iter == max_iter
        np.testing.assert_array_equal(centre, [0.0, 0.0])


def test_a_centre_at_a_sample_does_not_alias_the_data():
    """Where the spatial median is a sample, ``mean_`` is a copy of it: changing the
    training array after ``fit`` must not move the fitted centre."""
    X = np.array([[0.0, 0], [1, 0], [-1, 0], [0, 1], [0, -1], [0, 0], [5, 5]])
    result = solve_spherical_pca(X)
    np.testing.assert_array_equal(result.mean, [0.0, 0.0])
    assert not np.shares_memory(result.mean, X)
    model = SphericalPCA(n_components=1).fit(X)
    np.testing.assert_array_equal(model.mean_, [0.0, 0.0])
    X[:] = 7.0
    np.testing.assert_array_equal(model.mean_, [0.0, 0.0])


def test_equal_rows_have_rank_zero_in_memory_and_in_passes():
    """Every row at the centre: the sphered rows are all 0, their rank is 0, with no
    axis and no eigenvalue, in memory and over row chunks alike."""
    X = np.tile([1.0, -2.0, 3.0], (6, 1))
    expected = solve_spherical_pca(X)
    run = NumpyPassRunner(X, chunk_rows=6)
    run.bounds = [(0, 2), (2, 3), (3, 6)]
    got, _ = solve_spherical_pca_chunked(run, np.arange(6), 6, 3)
    for result in (expected, got):
        assert result.rank == 0
        assert result.components.shape == (0, 3)
        assert result.eigenvalues.size == 0 and result.sphere_eigenvalues.size == 0
        np.testing.assert_array_equal(result.mean, X[0])
