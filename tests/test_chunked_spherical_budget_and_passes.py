"""Chunked spherical PCA: an empty chunk, the ``max_iter`` budget, and the count of
passes it reports.

Mutation audit of ``solvers/chunked_spherical.py``: dropping the Weiszfeld pass's guard
for an empty run (a dask array may have an empty chunk), one step fewer than
``max_iter``, an ``n_iter`` of 0 when ``max_iter`` runs out, and leaving the helper
steps' passes (medians, Vardi and Zhang's test) out of the count it returns all left
the suite passing.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from robustpca.solvers.chunked import NumpyPassRunner
from robustpca.solvers.chunked_spherical import solve_spherical_pca_chunked
from robustpca.solvers.spherical import solve_spherical_pca, spatial_median


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_t(3, size=(60, 4)) * np.array([4.0, 2.0, 1.0, 0.3])


def _runner(X, sizes):
    run = NumpyPassRunner(X, chunk_rows=X.shape[0])
    run.bounds = list(pairwise(np.cumsum([0, *sizes]).tolist()))
    return run


@pytest.mark.parametrize("sizes", [[17, 0, 1, 30, 12], [0, 60], [60, 0]])
def test_an_empty_chunk_changes_nothing(sizes):
    """Chunks with an empty one: the in-memory result (centre, iterations, eigenvalues)."""
    X = _data()
    got, _ = solve_spherical_pca_chunked(_runner(X, sizes), np.arange(60), 60, 4)
    expected = solve_spherical_pca(X)
    assert got.n_iter == expected.n_iter and got.rank == expected.rank
    np.testing.assert_allclose(got.mean, expected.mean, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got.eigenvalues, expected.eigenvalues, rtol=1e-10)


@pytest.mark.parametrize("max_iter", [1, 2, 4])
def test_max_iter_is_the_in_memory_step_budget(max_iter):
    """Stopped by ``max_iter`` (a ``delta`` it cannot meet), the passes take as many
    Weiszfeld steps as :func:`spatial_median` with that ``max_iter``: the same centre,
    and ``n_iter == max_iter``."""
    X = _data()
    got, _ = solve_spherical_pca_chunked(
        _runner(X, [25, 1, 34]), np.arange(60), 60, 4, delta=1e-14, max_iter=max_iter
    )
    centre, _, n_iter = spatial_median(X, delta=1e-14, max_iter=max_iter)
    assert got.n_iter == n_iter == max_iter
    np.testing.assert_allclose(got.mean, centre, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("X", [_data(), np.repeat(_data()[:5], [30, 1, 1, 1, 27], axis=0)])
def test_the_reported_passes_are_the_runners_calls(X):
    """The second value returned is the number of passes run, helper steps (medians,
    Vardi and Zhang's test) included: each is one call of the runner (a
    ``dask.compute`` in the Dask route)."""
    run = _runner(X, [20, 1, X.shape[0] - 21])
    calls = []

    def counting(kernel, rows, **params):
        calls.append(kernel)
        return run(kernel, rows, **params)

    _, passes = solve_spherical_pca_chunked(counting, np.arange(X.shape[0]), *X.shape)
    assert passes == len(calls)
