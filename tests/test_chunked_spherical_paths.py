"""Chunked spherical PCA against the in-memory solver on the paths the parity tables
miss: a chunk of several value runs, most rows at the start, a single row within the
floor, a sample found only after the steps stop, and the floor of an even row count.

Mutation audit of ``solvers/chunked_spherical.py``. A chunk is split into value runs
(:func:`~robustpca.solvers.chunked.value_runs`) only when it holds more than about
2**20 values in blocks of wide rows, which no test reached: keeping the nearest row of
the last run only, numbering it from the run instead of the chunk, and keeping the
sphered moments of the last run only all left the suite passing. So did treating a row
exactly at a floor of 0 as far (in the Weiszfeld pass or the sphering), Vardi and
Zhang's test only with two rows within the floor, testing the farthest row after the
steps stop (or no row), and the floor from the lower middle distance of an even count.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from robustpca.solvers.chunked import NumpyPassRunner, value_runs
from robustpca.solvers.chunked_spherical import (
    _Sphered,
    solve_spherical_pca_chunked,
    sphered_pass,
    weiszfeld_pass,
)
from robustpca.solvers.spherical import solve_spherical_pca

from .test_spherical_covariance import MEDIAN_AT_A_SAMPLE as TEN_ROWS


def both_routes(X, cuts, **kwargs):
    """The in-memory fit of ``X`` and the chunked one over chunks cut at ``cuts``."""
    n, p = X.shape
    run = NumpyPassRunner(X, chunk_rows=n)
    run.bounds = list(pairwise(cuts))
    expected = solve_spherical_pca(X, **kwargs)
    got, _ = solve_spherical_pca_chunked(run, np.arange(n), n, p, **kwargs)
    return expected, got


N, P = 130, 16384  # runs of 64, 64 and 2 rows


@pytest.fixture(scope="module")
def wide():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(N, P))
    centre = rng.normal(size=P) * 0.01
    x[70] = centre + 1e-3  # the nearest row, in the middle run
    return x, centre


def test_the_chunk_holds_several_value_runs(wide):
    """The premise: this chunk is split into three runs."""
    x, _ = wide
    assert value_runs(x, 1) == [(0, 64), (64, 128), (128, 130)]


def test_weiszfeld_pass_sums_every_run(wide):
    """One Weiszfeld step's sums over the chunk are those of all its rows (rrcov's
    weights ``1 / d``), and the nearest row is found over every run, with its row
    number in the data (``rows`` offset by 1,000 here, as for a later chunk)."""
    x, centre = wide
    d = np.linalg.norm(x - centre, axis=1)
    eps = 1e-3 * float(np.median(d))
    out = weiszfeld_pass(x, np.arange(N) + 1000, centre=centre, eps=eps)
    w = np.where(d <= eps, eps, 1.0 / d)
    np.testing.assert_allclose(out["total"], w.sum(), rtol=1e-12)
    np.testing.assert_allclose(out["weighted"], w @ x, rtol=1e-10, atol=1e-12)
    assert out["close"] == int(np.sum(d <= eps))
    nearest = out["nearest"]
    assert nearest.index == 1070.0 and nearest.distance == d[70]
    np.testing.assert_array_equal(nearest.row, x[70])


def test_sphered_pass_merges_every_run(wide):
    """The moments of the sphered rows of the chunk: all ``N`` of them, their mean, and
    a factor whose ``R^T R`` is their centred scatter."""
    x, centre = wide
    sphered = _Sphered(centre, 0.0)
    qr = sphered_pass(x, None, sphered=sphered)["qr"]
    Y = sphered(x)
    assert qr.count == N
    np.testing.assert_allclose(qr.mean, Y.mean(axis=0), atol=1e-15)
    Yc = Y - Y.mean(axis=0)
    # the scatter's action on a few directions (the P x P matrix is too large to form)
    V = np.random.default_rng(0).normal(size=(P, 3))
    np.testing.assert_allclose(qr.R.T @ (qr.R @ V), Yc.T @ (Yc @ V), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("scale_on", ["data", "sphere"])
def test_most_rows_at_the_start_as_in_memory(scale_on):
    """Six of ten rows at the coordinatewise median: the median distance, hence the
    floor, is 0, and those rows are at the floor, neither weighted by ``1 / d`` nor
    sphered; that point is the spatial median, in memory and in passes."""
    rng = np.random.default_rng(5)
    X = np.repeat([[1.0, 2.0, 3.0]], 10, axis=0)
    X[[0, 3, 5, 9]] += rng.normal(size=(4, 3))
    with np.errstate(all="raise"):
        expected, got = both_routes(X, [0, 3, 4, 10], scale_on=scale_on)
    np.testing.assert_array_equal(expected.mean, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(got.mean, expected.mean)
    assert got.rank == expected.rank and got.n_iter == expected.n_iter
    np.testing.assert_allclose(got.eigenvalues, expected.eigenvalues, rtol=1e-10, atol=1e-15)


def test_a_sample_found_after_the_steps_stop_as_in_memory():
    """Two rows at the origin, the spatial median (pull about 1.97 <= 2), on a scale
    (0.01) where the floor ``eps`` (about 1e-5) is far below the stopping step
    ``delta * sqrt(p)`` (about 1.4e-3): the steps stop before an iterate comes within
    the floor, and Vardi and Zhang's test on the row nearest the last iterate returns
    the sample, in memory and in passes alike."""
    X = 0.01 * np.array([[0.0, 0.0], [0, 0], [1, 1], [2, 3], [3, 1], [-1, -1], [1, -2]])
    expected, got = both_routes(X, [0, 3, 4, 7])
    np.testing.assert_array_equal(expected.mean, [0.0, 0.0])
    np.testing.assert_array_equal(got.mean, expected.mean)
    assert got.n_iter == expected.n_iter


@pytest.mark.parametrize("X", [TEN_ROWS, TEN_ROWS[[4, 1, 7, 0, 9, 2, 8, 3, 6, 5]]])
def test_a_single_row_within_the_floor_stops_the_passes_as_in_memory(X):
    """The ten-row table of ``test_spherical_covariance.py``, whose row ``[1.519, 1.088,
    0.991]`` is the spatial median: one row within the floor is enough for Vardi and
    Zhang's test, which ends rrcov's circling steps at the same iteration in passes as
    in memory, with that row as the centre."""
    expected, got = both_routes(X, [0, 4, 5, 10])
    np.testing.assert_array_equal(expected.mean, [1.519, 1.088, 0.991])
    assert expected.n_iter < 50
    np.testing.assert_array_equal(got.mean, expected.mean)
    assert got.n_iter == expected.n_iter


def test_the_floor_is_the_median_distance_of_an_even_number_of_rows():
    """Ten rows: the floor is ``delta`` times the mean of the 5th and 6th distances
    (NumPy's median), not the 5th alone. Four rows at the origin (the start and the
    spatial median) and one 2e-4 from it: the floor, about 7e-4, takes that row in (it
    is not sphered); the 5th distance alone (2e-4) would give 2e-7 and sphere it."""
    X = np.array(
        [[0.0, 0.0]] * 4
        + [[2e-4, 0.0], [1.0, 1.0], [2.0, -1.0], [1.0, 2.0], [-1.0, 1.5], [-1.5, -2.0]]
    )
    expected, got = both_routes(X, [0, 3, 7, 10])
    np.testing.assert_array_equal(expected.mean, [0.0, 0.0])
    np.testing.assert_array_equal(got.mean, expected.mean)
    np.testing.assert_allclose(got.sphere_eigenvalues, expected.sphere_eigenvalues, rtol=1e-10)
    np.testing.assert_allclose(got.eigenvalues, expected.eigenvalues, rtol=1e-10)
