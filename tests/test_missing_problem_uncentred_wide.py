"""``MissingPCAProblem(center=False)`` without ``offset`` on wide data (found by the
mutation audit of the missing-values solvers; no estimator builds such a problem: they
pass ``offset``).

The class documents ``center=False`` as keeping the subspace through ``offset``, the
origin by default (as :class:`~robustpca.linalg.WeightedPCAProblem`). On wide data
(``n < d``) :meth:`MissingPCAProblem.solve` centres the completion by its column means
before the Gram route and shifts ``offset`` by them, but only when ``offset`` is given:
without it the weighted PCA ran through the origin of the *shifted* data, i.e. through
the column means, and the solution's ``mean()`` was those means instead of 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers.missing import MissingPCAProblem


@pytest.mark.parametrize("shape", [(30, 8), (8, 30)])
def test_uncentred_problem_passes_through_the_origin_on_both_routes(shape):
    """No offset and an explicit zero offset are the same uncentred problem, tall or
    wide: the fitted mean is the origin and the subspaces agree."""
    n, d = shape
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d)) + 5.0
    missing = rng.random((n, d)) < 0.1
    default = MissingPCAProblem(X, missing, 2, np.random.default_rng(0), center=False)
    zero = MissingPCAProblem(
        X, missing, 2, np.random.default_rng(0), center=False, offset=np.zeros(d)
    )
    a, b = default.solve(np.ones(n)), zero.solve(np.ones(n))
    np.testing.assert_allclose(a.mean(), 0.0, atol=1e-12)
    np.testing.assert_allclose(a.basis() @ a.basis().T, b.basis() @ b.basis().T, atol=1e-10)
