"""The public ``duality_gap`` against closed forms.

``duality_gap(X, Y, f, dual_norm, free_mean)`` centres ``Y`` by its column means when the
problem has a free mean (the dual constraint ``Y^T 1 = 0``) and divides it by
``max(1, dual_norm(Y))`` -- never multiplies it up.
"""

import numpy as np
import pytest

from robustpca.solvers.alm import duality_gap


def _pcp_norm(lam):
    return lambda Y: max(np.linalg.norm(Y, 2), np.abs(Y).max() / lam)


def test_free_mean_centres_the_columns_of_the_multiplier():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 4))
    Y = 0.01 * rng.normal(size=(7, 4)) + np.array([1.0, -2.0, 0.5, 3.0]) * 0.01
    seen = []

    def norm(Z):
        seen.append(Z.copy())
        return 0.5  # inside the dual ball: no scaling

    f = 10.0
    gap = duality_gap(X, Y, f, norm, free_mean=True)
    Yc = Y - Y.mean(axis=0)
    np.testing.assert_allclose(seen[-1].sum(axis=0), 0.0, atol=1e-15)
    np.testing.assert_allclose(seen[-1], Yc, rtol=0, atol=1e-15)
    assert gap == pytest.approx((f - np.vdot(X, Yc)) / f, rel=1e-12)


def test_a_point_inside_the_dual_ball_is_not_scaled_up():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 5))
    Y = 0.05 * np.sign(X)  # <X, Y> > 0, dual norm below 1 for lam = 0.5
    lam = 0.5
    assert _pcp_norm(lam)(Y) < 1
    f = 20.0
    gap = duality_gap(X, Y, f, _pcp_norm(lam))
    assert gap == pytest.approx((f - np.vdot(X, Y)) / f, rel=1e-12)


def test_a_point_outside_is_scaled_onto_the_ball():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(6, 5))
    Y = 3.0 * rng.normal(size=(6, 5))
    lam = 0.7
    scale = _pcp_norm(lam)(Y)
    assert scale > 1
    f = 50.0
    gap = duality_gap(X, Y, f, _pcp_norm(lam))
    assert gap == pytest.approx((f - np.vdot(X, Y) / scale) / f, rel=1e-12)
