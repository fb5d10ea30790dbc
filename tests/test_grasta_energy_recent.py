"""GRASTA orders its components by the *recent* energy of
the data (``GrastaState.energy`` decays by ``ENERGY_DECAY`` per vector): after a long
stretch in which a second direction carries the signal, it comes first, whatever an
early burst along the first direction carried."""

import numpy as np

from robustpca import GRASTA


def test_components_follow_the_recent_energy():
    rng = np.random.default_rng(0)
    p = 60
    Q = np.linalg.qr(rng.normal(size=(p, 2)))[0]
    a, b = Q[:, 0], Q[:, 1]
    n_early, n_late = 150, 1500
    # early: a burst along a (100 times b); late: b carries 10 times a
    early = np.outer(100 * rng.normal(size=n_early), a) + np.outer(rng.normal(size=n_early), b)
    late = np.outer(rng.normal(size=n_late), a) + np.outer(10 * rng.normal(size=n_late), b)
    X = np.vstack([early, late]) + 0.01 * rng.normal(size=(n_early + n_late, p))
    model = GRASTA(n_components=2, subsample=1.0, burn_in=20, random_state=0)
    for start in range(0, X.shape[0], 50):
        model.partial_fit(X[start : start + 50])
    # the span is right either way; the order is what the energy decides
    assert np.linalg.norm(model.components_ @ Q) > 0.99 * np.sqrt(2)
    assert abs(model.components_[0] @ b) > 0.95
