"""``objective_history_`` holds the *per-row* loss of each
batch (SHARED_ATTRS) also once a stream has missing entries: a stationary stream's
history keeps its level when 1% of the entries go missing."""

import numpy as np

from robustpca import OnlineRobustPCA


def test_history_is_per_row_after_a_gap():
    rng = np.random.default_rng(0)
    n, p = 600, 40
    X = np.outer(20 + rng.normal(size=n), rng.uniform(1, 2, p)) + rng.normal(size=(n, p))
    X[300:][rng.random((300, p)) < 0.01] = np.nan  # gaps from row 300 on
    model = OnlineRobustPCA(1, burn_in=100, random_state=0)
    for start in range(0, n, 50):
        model.partial_fit(X[start : start + 50])
    history = model.objective_history_
    assert model.n_missing_ > 0 and history.size == 11  # the burn-in (2 batches) is one update
    dense, gappy = history[1:5].mean(), history[-4:].mean()  # rows 100-300, 400-600
    assert 0.5 < gappy / dense < 2.0
