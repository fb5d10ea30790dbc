"""R1-PCA's Gram route is scale equivariant for huge data: its M = C^T G C grows
as the fourth power of the data's scale and is divided by a unit first (a mutation drops
that, so M overflows at 1e100)."""

import numpy as np

from robustpca.losses import HuberLoss
from robustpca.solvers.r1_pca import solve_r1_pca


def test_gram_route_components_do_not_depend_on_the_scale():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(15, 2)) @ rng.normal(size=(2, 40)) + 0.1 * rng.normal(size=(15, 40))
    X[0] += 5.0
    base = solve_r1_pca(X, 2, HuberLoss(), rng=np.random.default_rng(0), route="gram", max_iter=20)
    for scale in (1e100, 1e-100):
        big = solve_r1_pca(
            scale * X, 2, HuberLoss(), rng=np.random.default_rng(0), route="gram", max_iter=20
        )
        assert np.all(np.isfinite(big.components))
        P0 = base.components.T @ base.components
        P1 = big.components.T @ big.components
        np.testing.assert_allclose(P1, P0, atol=1e-8)
