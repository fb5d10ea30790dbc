""":class:`robustpca.solvers.missing.MissingPCAProblem` through a fixed ``offset``, on
tall and wide data.

The class documents ``center=False`` as keeping the subspace through ``offset``; PCA-GM
(Oh & Kwak 2016, Algorithm 2) runs on it about its generalized mean. On wide data
(``n < d``) ``solve`` centres the completion by its column means for the Gram route and
must move ``offset`` with it: the step is the weighted PCA of the completion about
``offset``, whichever route the shape takes.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.linalg import WeightedPCAProblem
from robustpca.solvers.missing import MissingPCAProblem


@pytest.mark.parametrize("shape", [(40, 9), (9, 40)])
def test_the_step_is_weighted_pca_about_the_offset(shape):
    """The solution passes through ``offset`` and spans the weighted PCA subspace of
    the current completion about it (the complete-data step, route parity)."""
    n, d = shape
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 3)) @ rng.normal(size=(3, d)) + 4.0
    missing = rng.random((n, d)) < 0.15
    missing[np.arange(n), rng.integers(0, d, n)] = False
    offset = np.nanmedian(np.where(missing, np.nan, X), axis=0) + 0.5
    weights = rng.uniform(0.5, 2.0, n)
    problem = MissingPCAProblem(
        np.where(missing, np.nan, X),
        missing,
        2,
        np.random.default_rng(0),
        center=False,
        offset=offset,
    )
    completion = problem.X.copy()
    sub = problem.solve(weights)
    np.testing.assert_allclose(sub.mean(), offset, rtol=0, atol=1e-12)
    reference = WeightedPCAProblem(
        completion, 2, np.random.default_rng(0), center=False, offset=offset
    ).solve(weights)
    P, Q = sub.basis() @ sub.basis().T, reference.basis() @ reference.basis().T
    np.testing.assert_allclose(P, Q, atol=1e-9)
