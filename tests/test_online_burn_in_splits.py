"""``partial_fit_decompose`` during the burn-in returns the split of the batch it was
given (the start is fitted to every buffered row, and the batch's own rows are split):
for GRASTA ``X = low_rank + sparse`` on the batch, for OR-PCA ``X - low_rank - sparse``
is the clipped residual inside ``[-lambda2_, lambda2_]``, batch after batch, before and
at the end of the burn-in.
"""

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA


def _frames(seed=0, n=150, p=40):
    rng = np.random.default_rng(seed)
    X = np.outer(1 + 0.1 * rng.normal(size=n), 50 + 20 * rng.random(p))
    X += rng.normal(size=X.shape)
    X[rng.random(X.shape) < 0.05] += 30.0
    return X


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA])
def test_burn_in_splits_are_those_of_the_batch_given(cls):
    X = _frames()
    model = cls(1, burn_in=100, batch_size=25, random_state=0)
    for start in range(0, 150, 25):
        batch = X[start : start + 25]
        low, sparse = model.partial_fit_decompose(batch)
        assert low.shape == batch.shape
        rest = batch - low - sparse
        if cls is GRASTA:
            np.testing.assert_allclose(rest, 0.0, atol=1e-9 * np.abs(batch).max())
        else:
            assert np.abs(rest).max() <= model.lambda2_ * (1 + 1e-9)
        # the low-rank part is that of these rows, not of other buffered ones
        assert np.linalg.norm(batch - low) < 0.3 * np.linalg.norm(batch)
