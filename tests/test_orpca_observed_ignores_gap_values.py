"""OR-PCA's split and update on the observed entries ignore whatever the gaps hold.

``orpca_project_observed`` and ``orpca_update_observed`` document that the batch's
entries off ``observed`` are ignored, "NaN or any value": a caller with a mask (a sensor
that reports a stale value, a video with a validity mask) may pass the stale values.
The existing tests store NaN at the gaps only, which an implementation that zeroes NaN
(instead of the unobserved entries) also passes.
"""

import numpy as np
import pytest

from robustpca.solvers.orpca import ORPCAState
from robustpca.solvers.orpca_observed import orpca_project_observed, orpca_update_observed


def _batch(rank, seed=0):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(15, rank))
    Z = rng.normal(size=(20, rank)) * 3 @ L.T + rng.normal(size=(20, 15))
    seen = rng.random(Z.shape) > 0.3
    stale = np.where(seen, Z, 1e3 * rng.normal(size=Z.shape))  # garbage at the gaps
    return Z, seen, stale, L


@pytest.mark.parametrize("rank", [1, 2])
def test_split_ignores_the_values_at_the_gaps(rank):
    Z, seen, stale, L = _batch(rank)
    with_nan = orpca_project_observed(np.where(seen, Z, np.nan), seen, L, 0.7, 0.4)
    with_stale = orpca_project_observed(stale, seen, L, 0.7, 0.4)
    np.testing.assert_allclose(with_stale.coefficients, with_nan.coefficients, rtol=1e-12)
    np.testing.assert_allclose(with_stale.sparse, with_nan.sparse, atol=1e-12)
    assert np.all(with_stale.sparse[~seen] == 0)


@pytest.mark.parametrize("rank", [1, 2])
def test_update_ignores_the_values_at_the_gaps(rank):
    Z, seen, stale, L = _batch(rank, seed=1)

    def state():
        return ORPCAState(
            basis=L.copy(), A=np.eye(rank), B=L.copy(), c=1.0, weight=1.0, lambda1=0.7, lambda2=0.4
        )

    a, _, loss_a = orpca_update_observed(state(), np.where(seen, Z, np.nan), seen, forgetting=0.9)
    b, _, loss_b = orpca_update_observed(state(), stale, seen, forgetting=0.9)
    np.testing.assert_allclose(b.basis, a.basis, rtol=1e-12, atol=1e-12)
    assert loss_b == pytest.approx(loss_a, rel=1e-12)
