"""Gaps in solvers/l21_pca.py's missing-entry EM (solve_l21_pca_missing), from mutation testing.

* the completion must be re-centred by its arithmetic mean after each step: on exactly
  rank-k data with gaps, the EM recovers the hidden entries and the full data's mean
  (skipping the re-centring kept the mean of the first median fill and went unnoticed);
* the returned basis is rotated to principal axes (scores uncorrelated, by decreasing
  variance), as for complete data (skipping that rotation went unnoticed).
"""

import numpy as np

from robustpca.solvers.l21_pca import solve_l21_pca_missing
from robustpca.solvers.missing import complete


def _rank2_with_gaps(seed=0, n=60, d=8, rate=0.15):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ (rng.normal(size=(2, d)) * [[4.0], [1.5]]) + 10.0 * rng.normal(
        size=d
    )
    missing = rng.random((n, d)) < rate
    missing[:, 0] = False  # keep every row with enough observed entries
    Xm = np.where(missing, np.nan, X)
    return X, Xm, missing


def test_missing_em_recovers_the_mean_of_exact_low_rank_data():
    X, Xm, missing = _rank2_with_gaps()
    res = solve_l21_pca_missing(
        Xm, missing, 2, rng=np.random.default_rng(0), max_iter=500, tol=1e-12
    )
    np.testing.assert_allclose(res.mean, X.mean(axis=0), atol=1e-4 * np.abs(X).max())
    filled, _ = complete(Xm, missing, res.mean, res.components)
    np.testing.assert_allclose(filled, X, atol=1e-3 * np.abs(X).max())


def test_missing_basis_is_rotated_to_principal_axes():
    X, Xm, missing = _rank2_with_gaps(1)
    noisy = Xm + 0.05 * np.random.default_rng(5).normal(size=X.shape)
    res = solve_l21_pca_missing(
        noisy, missing, 2, rng=np.random.default_rng(0), max_iter=300, tol=1e-12
    )
    filled, _ = complete(noisy, missing, res.mean, res.components)
    Y = (filled - filled.mean(axis=0)) @ res.components.T
    S = Y.T @ Y
    assert S[0, 0] > S[1, 1]
    assert abs(S[0, 1]) < 1e-3 * np.sqrt(S[0, 0] * S[1, 1])
