"""OnlineRobustPCA from a burn-in of zero rows (a clip that starts on black frames, a
sensor that reports zeros before it warms up): the start scales its directions by the
singular values of the burn-in, all zero, and from ``L = 0`` OR-PCA's own updates stay
there (every coefficient is zero, so ``A`` and ``B`` get nothing). It kept ``L = 0`` for
ever and split every later row as all sparse, while ``components_`` showed the random
completion of the zero basis. The first batch with signal now starts the model again
(a bug found by the mutation audit of the online estimators). GRASTA, whose steps leave
a zero start, learns the background on the same stream.
"""

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA


def _fade_in(n=600, p=30, black=40, seed=0):
    rng = np.random.default_rng(seed)
    background = 100 + 50 * rng.random(p)
    X = np.outer(1 + 0.05 * rng.normal(size=n), background) + rng.normal(size=(n, p))
    X[:black] = 0.0
    return X, background


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA])
def test_a_stream_that_starts_on_zero_rows_learns_the_background(cls):
    X, background = _fade_in()
    model = cls(1, burn_in=40, batch_size=20, random_state=0)
    for start in range(0, X.shape[0], 20):
        low, _ = model.partial_fit_decompose(X[start : start + 20])
    last = X[-20:]
    assert np.linalg.norm(last - low) < 0.05 * np.linalg.norm(last)
    cosine = abs(model.components_[0] @ background) / np.linalg.norm(background)
    assert cosine > 0.99
