"""With every entry observed, the observed route is OR-PCA's split iteration for
iteration.

``orpca_project_observed`` documents the same alternation as ``orpca_project`` (from
the ridge coefficients, with its stopping rule and at most ``max_iter`` iterations),
written differently. The existing parity test runs both to convergence; capped at a few
iterations, the two routes must still stop after the same number of iterations with the
same coefficients. (With one component both find a root from a median start, the
dense one an upper median and the observed one NumPy's: capped iterates differ there,
converged ones agree within ``tol``.)
"""

import numpy as np
import pytest

from robustpca.solvers.orpca import orpca_project
from robustpca.solvers.orpca_observed import orpca_project_observed


@pytest.mark.parametrize("max_iter", [1, 2, 5])
@pytest.mark.parametrize("rank", [2, 3])
def test_both_routes_agree_at_a_capped_iteration_count(max_iter, rank):
    rng = np.random.default_rng(rank)
    L = rng.normal(size=(30, rank)) * 3
    Z = rng.normal(size=(25, rank)) * 2 @ L.T + rng.normal(size=(25, 30))
    Z[rng.random(Z.shape) < 0.3] += 15.0  # many clipped entries: far from converged
    dense = orpca_project(Z, L, 0.5, 0.3, max_iter=max_iter, tol=1e-12)
    seen = np.ones(Z.shape, dtype=bool)
    observed = orpca_project_observed(Z, seen, L, 0.5, 0.3, max_iter=max_iter, tol=1e-12)
    assert observed.n_iter == dense.n_iter == max_iter
    np.testing.assert_allclose(observed.coefficients, dense.coefficients, rtol=1e-9, atol=1e-9)
