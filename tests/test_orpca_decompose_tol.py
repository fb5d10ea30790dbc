"""OnlineRobustPCA's ``tol`` reaches the split of new rows.

"Algorithm 2 stops when every row's low-rank part moves by at most ``tol`` times the
row's norm" holds for ``decompose`` too: with a tiny ``tol`` its split is the exact
minimiser's on the fitted basis, not the default tolerance's.
"""

import numpy as np

from robustpca import OnlineRobustPCA
from robustpca.solvers.orpca import orpca_project
from robustpca.solvers.orpca_start import orpca_initialize


def _stream(seed=0, n=200, p=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * [10.0, 4.0] @ rng.normal(size=(2, p)) + 20.0
    X += rng.normal(size=X.shape)
    X[rng.random(X.shape) < 0.2] += 15.0
    return X


def test_decompose_follows_the_estimators_tol():
    X = _stream()
    model = OnlineRobustPCA(2, tol=1e-12, max_iter=100_000, random_state=0).fit(X)
    s = model._state
    exact = orpca_project(X[:20], s.basis, s.lambda1, s.lambda2, max_iter=100_000, tol=1e-14)
    low = model.decompose(X[:20])[0]
    np.testing.assert_allclose(low, exact.low_rank, rtol=1e-9, atol=1e-9)


def test_burn_in_splits_follow_the_estimators_tol():
    """Within the burn-in the split is that of the start's first update on the buffered
    rows, against the start's basis (``_online_base``: every batch of the burn-in ends
    with the model ``fit`` gives on the rows so far)."""
    X = _stream(2)
    model = OnlineRobustPCA(2, tol=1e-12, max_iter=100_000, burn_in=100, random_state=0)
    low = model.partial_fit_decompose(X[:40])[0]  # within the burn-in: the start's split
    rng = np.random.default_rng(0)
    start, _ = orpca_initialize(X[:40], 2, lambda1=None, lambda2=None, rng=rng, n_iter=1)
    exact = orpca_project(
        X[:40], start.basis, start.lambda1, start.lambda2, max_iter=100_000, tol=1e-14
    )
    np.testing.assert_allclose(low, exact.low_rank, rtol=1e-9, atol=1e-9)
