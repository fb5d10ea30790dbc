"""R1-PCA with missing entries and an empty mask is R1-PCA: the same weighted
scatter of the *centred* data each step (a mutation takes the scatter of the uncentred
completed data, which pulls the subspace toward the mean)."""

import numpy as np

from robustpca.losses import HuberLoss
from robustpca.solvers.r1_pca import solve_r1_pca, solve_r1_pca_missing


def test_an_empty_mask_gives_the_complete_data_fit():
    rng = np.random.default_rng(0)
    n, d, k = 60, 8, 2
    X = rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) + 0.2 * rng.normal(size=(n, d))
    X[:5] += 6.0 * rng.normal(size=(5, d))
    X += 10.0  # a mean far from 0
    missing = np.zeros((n, d), bool)
    full = solve_r1_pca(X, k, HuberLoss(), rng=np.random.default_rng(0), route="scatter")
    gaps = solve_r1_pca_missing(X, missing, k, HuberLoss(), rng=np.random.default_rng(0))
    np.testing.assert_allclose(gaps.mean, full.mean, atol=1e-10)
    P_full = full.components.T @ full.components
    P_gaps = gaps.components.T @ gaps.components
    np.testing.assert_allclose(P_gaps, P_full, atol=1e-6)
    np.testing.assert_allclose(gaps.info["residuals"], full.info["residuals"], rtol=1e-6, atol=1e-8)
