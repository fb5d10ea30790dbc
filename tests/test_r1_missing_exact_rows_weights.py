"""R1-PCA with missing entries gives the rows it fits exactly (at most k observed
entries, left out of the iteration) the loss's weight at a zero residual -- Huber's 1/2
inside its cutoff (losses.HuberLoss: "the IRLS weight is 1/2 inside the cutoff") -- not
1."""

import numpy as np

from robustpca.losses import HuberLoss
from robustpca.solvers.r1_pca import solve_r1_pca_missing


def test_rows_fitted_exactly_get_the_weight_of_a_zero_residual():
    rng = np.random.default_rng(0)
    n, d, k = 40, 8, 2
    X = rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) + 0.1 * rng.normal(size=(n, d))
    X[5:8] += 6.0 * rng.normal(size=(3, d))  # a few outliers: weights below 1/2 there
    missing = rng.random((n, d)) < 0.1
    missing[:3] = True
    missing[:3, :k] = False  # k observed entries: fitted exactly
    fit = solve_r1_pca_missing(X, missing, k, HuberLoss(), rng=np.random.default_rng(1))
    residuals = fit.info["residuals"]
    np.testing.assert_array_equal(residuals[:3], 0.0)
    # the loss's weight at r = 0 (Huber: 1/2), as for any other row with residual 0
    expected = HuberLoss().resolve(residuals[3:]).weights(np.zeros(3))
    np.testing.assert_allclose(fit.weights[:3], expected)
    np.testing.assert_allclose(fit.weights[:3], 0.5)
    assert fit.weights.max() <= 0.5 + 1e-12
