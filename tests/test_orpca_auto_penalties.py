"""OR-PCA's 'auto' penalties, as the estimator's Notes define them.

``lambda2 = sigma_hat`` and ``lambda1 = sigma_hat sqrt(p)``, with ``sigma_hat`` (``scale_``)
the MAD scale (consistent at the normal distribution, factor 1.4826) of the burn-in
rows' residual from the start's subspace: on a low-rank stream with Gaussian noise and a
minority of gross entries it is the noise's standard deviation. ``random_state`` only
seeds the sample of entries that sets the scale where the burn-in holds more than 50,000
of them: on a smaller burn-in the fit does not depend on it.
"""

import numpy as np
import pytest

from robustpca import OnlineRobustPCA
from robustpca.solvers.orpca_start import orpca_initialize


def _stream(sigma, gross=0.02, seed=0, n=300, p=80):
    rng = np.random.default_rng(seed)
    level = 100 + 30 * rng.random(p)
    X = np.outer(1 + 0.1 * rng.normal(size=n), level) + sigma * rng.normal(size=(n, p))
    X[rng.random(X.shape) < gross] += 60.0
    return X


@pytest.mark.parametrize("gross", [0.0, 0.02])
def test_auto_penalties_are_the_noise_scale(gross):
    X = _stream(2.0, gross)
    model = OnlineRobustPCA(1, burn_in=100, random_state=0).fit(X)
    assert model.scale_ == pytest.approx(2.0, rel=0.15)
    assert model.lambda2_ == model.scale_
    assert model.lambda1_ == pytest.approx(model.scale_ * np.sqrt(X.shape[1]), rel=1e-12)


def test_a_small_burn_in_does_not_depend_on_random_state():
    X = _stream(1.0)
    a = OnlineRobustPCA(1, burn_in=100, random_state=0).fit(X)
    b = OnlineRobustPCA(1, burn_in=100, random_state=123).fit(X)
    assert a.scale_ == b.scale_
    np.testing.assert_array_equal(a.components_, b.components_)


def test_a_start_on_zero_rows_has_positive_penalties():
    """``robust_residual_scale`` is 1.0 on zero data ("any positive value serves"): the
    start of a clip whose burn-in is black frames must not get zero penalties (a zero
    lambda2 makes every residual sparse)."""
    state, scale = orpca_initialize(
        np.zeros((40, 30)), 1, lambda1=None, lambda2=None, rng=np.random.default_rng(0)
    )
    assert scale > 0
    assert state.lambda1 > 0 and state.lambda2 > 0
