"""``forgetting_factor`` also acts on a stream with
missing entries (its per-feature statistics decay by beta per sample, as the dense
statistics do): with forgetting the basis follows a rotating subspace, without it lags."""

import numpy as np

from robustpca import OnlineRobustPCA


def rotating_stream(seed, n=1200, d=40, speed=np.pi / 1200, gross_frac=0.03, noise=0.5):
    rng = np.random.default_rng(seed)
    a, b = np.linalg.qr(rng.normal(size=(d, 2)))[0].T
    angles = speed * np.arange(n)
    directions = np.cos(angles)[:, None] * a + np.sin(angles)[:, None] * b
    X = (20 + rng.normal(size=(n, 1))) * directions
    X += np.where(rng.random((n, d)) < gross_frac, 15.0, 0.0) + noise * rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.1] = np.nan  # 10% of the entries missing
    return X, directions


def test_rotating_subspace_is_followed_with_missing_entries():
    X, directions = rotating_stream(0)
    tracked = OnlineRobustPCA(1, forgetting_factor=0.95, batch_size=10, burn_in=50, random_state=0)
    frozen = OnlineRobustPCA(1, forgetting_factor=1.0, batch_size=10, burn_in=50, random_state=0)
    lags = []
    for start in range(0, X.shape[0], 10):
        tracked.partial_fit(X[start : start + 10])
        frozen.partial_fit(X[start : start + 10])
        if start >= 600:
            u = directions[start + 9]
            lags.append([1 - (model.components_[0] @ u) ** 2 for model in (tracked, frozen)])
    lags = np.array(lags)
    assert tracked.n_missing_ > 0
    assert lags[:, 0].max() < 0.03  # within 10 degrees of the moving truth throughout
    assert lags[-1, 1] > 5 * lags[-1, 0]  # without forgetting the basis lags behind
