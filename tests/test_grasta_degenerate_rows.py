"""GRASTA on rows its fit cannot use: a row with no entry observed, and features whose
loadings are zero (a region that was dark during the burn-in).

A row with no entry observed (a dropped frame) carries no evidence: the stream passes
over it, and its low-rank part is the model's typical row (the stream's background;
``_online_base``, "Rows with no observed entry"), its sparse part zero. (It was zero, a
fit of nothing presented as the background.) A region of a video that is black during
the burn-in gets zero loadings; once it is lit, a subsample that falls in it has
``U_Omega = 0``, which the ADMM's small ridge turns into zero weights (no step), not a
singular solve.
"""

import numpy as np

from robustpca import GRASTA


def _frames(seed=0, n=200, p=100):
    rng = np.random.default_rng(seed)
    level = 1 + rng.random(p)
    return np.outer(1 + 0.05 * rng.normal(size=n), level) + 0.01 * rng.normal(size=(n, p))


def test_a_row_with_no_entry_observed_has_the_typical_low_rank_part():
    X = _frames()
    X[150] = np.nan
    model = GRASTA(1, subsample=0.5, burn_in=50, random_state=0)
    parts = [model.partial_fit_decompose(X[s : s + 25]) for s in range(0, 200, 25)]
    low = np.concatenate([p[0] for p in parts])
    sparse = np.concatenate([p[1] for p in parts])
    assert np.all(sparse[150] == 0)
    # the background of its neighbours (frames vary by 5% in brightness), not zero
    assert np.linalg.norm(low[150] - low[149]) < 0.15 * np.linalg.norm(low[149])
    assert np.isfinite(low).all() and np.isfinite(model.components_).all()


def test_a_region_dark_during_the_burn_in_and_lit_afterwards():
    X = _frames()
    X[:100, 10:] = 0.0  # zero loadings there after the burn-in
    model = GRASTA(1, subsample=0.03, burn_in=100, random_state=0)
    for s in range(0, 200, 20):
        low, sparse = model.partial_fit_decompose(X[s : s + 20])
        assert np.isfinite(low).all() and np.isfinite(sparse).all()
    assert np.isfinite(model.components_).all()
