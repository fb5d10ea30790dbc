"""After its first gap, an OR-PCA stream keeps its per-feature statistics (Mardani,
Mateos & Giannakis 2015; :mod:`robustpca.solvers.orpca_observed`: a stream "takes them
on at its first missing entry and keeps them from then on"): complete batches that come
later update them too, and every row of the basis stays the minimiser of its feature's
surrogate, ``(A_j + lambda1 I) L_j = B_j``. A complete batch updated through the dense
statistics only would leave the per-feature ones stale for the next gap.
"""

import numpy as np

from robustpca import OnlineRobustPCA


def test_complete_batches_after_a_gap_keep_the_per_feature_statistics():
    rng = np.random.default_rng(0)
    n, p = 400, 20
    X = rng.normal(size=(n, 2)) * [10.0, 4.0] @ rng.normal(size=(2, p)) + 30.0
    X += 0.5 * rng.normal(size=(n, p))
    X[150, 3] = np.nan  # one gap, then complete batches only
    model = OnlineRobustPCA(2, burn_in=100, batch_size=25, random_state=0)
    for start in range(0, n, 25):
        model.partial_fit(X[start : start + 25])
    state = model._state
    assert state.A_rows is not None
    assert state.n_seen == n
    lhs = np.einsum("jkm,jm->jk", state.A_rows + state.lambda1 * np.eye(2), state.basis)
    np.testing.assert_allclose(lhs, state.B, rtol=1e-8, atol=1e-8 * np.abs(state.B).max())
    # the complete rows count for every feature: A_j follows A where nothing is missing
    np.testing.assert_allclose(state.A_rows[0], state.A, rtol=1e-10)
