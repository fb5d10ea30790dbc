"""A ``mu_max`` below ``mu`` in the observed-entries ALM.

:func:`robustpca.solvers.alm.solve_pcp` never lowers the penalty under its start: a cap
below ``mu`` is raised to ``mu`` (a fixed penalty, ADMM). :func:`robustpca.solvers.
alm_observed.solve_observed` documents its parameters "as in" the complete-data solver
and, with every entry observed, runs the same iterations (``tests/test_alm_observed.py``
checks the default penalties): with such a cap the two must still agree, iteration by
iteration, rather than the observed route shrinking the penalty to the cap.
"""

from __future__ import annotations

import numpy as np

from robustpca.solvers.alm import solve_pcp
from robustpca.solvers.alm_observed import solve_observed


def test_a_cap_below_the_start_keeps_the_penalty_as_on_complete_data():
    rng = np.random.default_rng(0)
    L = rng.normal(size=(50, 3)) @ rng.normal(size=(3, 30))
    X = L + np.where(rng.random(L.shape) < 0.05, 10.0 * rng.normal(size=L.shape), 0.0)
    lam, mu = 1.0 / np.sqrt(50), 0.05
    kwargs = {"lam": lam, "mu": mu, "mu_max": mu / 100, "max_iter": 25, "tol": 1e-12}
    everything = np.ones(X.shape, dtype=bool)
    masked = solve_observed(X, everything, rng=np.random.default_rng(0), **kwargs)
    full = solve_pcp(X, gap_tol=None, rng=np.random.default_rng(0), **kwargs)
    np.testing.assert_allclose(masked.objective, full.objective, rtol=1e-8)
