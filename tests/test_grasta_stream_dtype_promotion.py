"""A GRASTA stream started on float32 batches becomes float64 once float64 batches come.

The incremental estimators' rule (as ``IncrementalPCA``'s): a stream stays float64 once
it saw float64. GRASTA's basis takes the stream's dtype at its periodic
re-orthonormalisation (every 100 samples); the existing test starts on float64 and adds
a float32 batch, where keeping the basis's own dtype would pass as well.
"""

import numpy as np

from robustpca import GRASTA


def test_a_float32_start_followed_by_float64_batches_ends_float64():
    rng = np.random.default_rng(0)
    X = np.outer(1 + 0.1 * rng.normal(size=300), 5 + rng.random(20))
    X += 0.05 * rng.normal(size=(300, 20))
    model = GRASTA(random_state=0, burn_in=0).partial_fit(X[:90].astype(np.float32))
    assert model.components_.dtype == np.float32
    for start in range(90, 300, 30):
        model.partial_fit(X[start : start + 30])  # float64, past the 100th sample
    assert model.components_.dtype == np.float64
    low, _ = model.decompose(X[:5])
    assert low.dtype == np.float64
