"""Algorithm 2's stopping rule with several components is per row.

``orpca_project`` (and ``orpca_project_observed``) document: "Stops when every row's
low-rank part changes by at most ``tol`` times the row's norm". In a large batch a rule
on the batch's norm (or on any single row) would stop while most rows still move by far
more than their own tolerance: the last iteration must have moved each row's low-rank
part by at most ``tol`` times that row's norm, and each row is then about as close to
the exact minimiser as when it is projected alone.
"""

import numpy as np
import pytest

from robustpca.solvers.orpca import orpca_project
from robustpca.solvers.orpca_observed import orpca_project_observed


def _batch(n=1000, p=50, seed=0):
    rng = np.random.default_rng(seed)
    L = np.linalg.qr(rng.normal(size=(p, 2)))[0] * 10
    Z = rng.normal(size=(n, 2)) * 5 @ L.T + rng.normal(size=(n, p))
    Z[rng.random(Z.shape) < 0.1] += 20.0
    return Z, L


def _project(route, Z, L, **kw):
    if route == "dense":
        return orpca_project(Z, L, 100.0, 2.0, **kw)
    return orpca_project_observed(Z, np.ones(Z.shape, dtype=bool), L, 100.0, 2.0, **kw)


@pytest.mark.parametrize("route", ["dense", "observed"])
def test_the_last_iteration_moved_every_row_by_at_most_its_tolerance(route):
    Z, L = _batch()
    tol = 1e-4
    done = _project(route, Z, L, tol=tol, max_iter=200)
    assert 1 < done.n_iter < 200  # stopped by the rule
    before = _project(route, Z, L, tol=tol, max_iter=done.n_iter - 1)
    moved = np.linalg.norm((done.coefficients - before.coefficients) @ L.T, axis=1)
    assert np.all(moved <= tol * np.linalg.norm(Z, axis=1))


@pytest.mark.parametrize("route", ["dense", "observed"])
def test_rows_of_a_large_batch_are_as_accurate_as_alone(route):
    Z, L = _batch()
    tol = 1e-4
    batch = _project(route, Z, L, tol=tol).coefficients
    exact = _project(route, Z, L, tol=1e-14, max_iter=100_000).coefficients
    error = np.linalg.norm((batch - exact) @ L.T, axis=1) / np.linalg.norm(Z, axis=1)
    assert error.max() <= 2 * tol
