"""Loss objects: weights are the supergradients h'(r^2) = rho'(r) / (2 r)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.losses import (
    CappedL2Loss,
    CauchyLoss,
    HuberLoss,
    L2pLoss,
    L21Loss,
    make_loss,
)

LOSSES = [
    L21Loss(1e-6),
    L2pLoss(0.5, 1e-6),
    L2pLoss(1.5, 0.0),
    CappedL2Loss(3.0, 1e-6),
    HuberLoss(2.0),
    CauchyLoss(2.0),
]


@settings(max_examples=100, deadline=None)
@given(r=st.floats(0.05, 20.0), index=st.integers(0, len(LOSSES) - 1))
def test_weights_are_derivative_of_rho_in_r_squared(r, index):
    loss = LOSSES[index]
    if isinstance(loss, CappedL2Loss) and abs(r - loss.threshold) < 1e-3:
        return  # the kink
    if isinstance(loss, HuberLoss) and abs(r - loss.threshold) < 1e-3:
        return
    s, h = r * r, 1e-6 * r * r
    numeric = loss.rho(np.array([np.sqrt(s + h)])) - loss.rho(np.array([np.sqrt(s - h)]))
    numeric = numeric[0] / (2 * h)
    np.testing.assert_allclose(loss.weights(np.array([r]))[0], numeric, rtol=1e-5, atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(r=st.floats(0.0, 1e3), p=st.floats(0.1, 2.0))
def test_concavity_in_r_squared_tangent_upper_bound(r, p):
    """h(t) <= h(s) + h'(s)(t - s): the inequality behind Theorem 1."""
    loss = L2pLoss(p, 1e-3)
    for t in (0.0, 0.5 * r, 2 * r + 1):
        lhs = loss.rho(np.array([t]))[0]
        rho_r, w_r = loss.rho(np.array([r]))[0], loss.weights(np.array([r]))[0]
        rhs = rho_r + w_r * (t * t - r * r)
        rounding = 1e-12 * (abs(rho_r) + w_r * (t * t + r * r)) + 1e-15
        assert lhs <= rhs + rounding


def test_l2p_p1_is_l21_and_p2_is_squared():
    r = np.linspace(0, 5, 11)
    np.testing.assert_allclose(L2pLoss(1.0, 1e-4).rho(r), L21Loss(1e-4).rho(r))
    np.testing.assert_allclose(L2pLoss(1.0, 1e-4).weights(r), L21Loss(1e-4).weights(r))
    np.testing.assert_allclose(L2pLoss(2.0).weights(r), 1.0)


def test_capped_weights_zero_beyond_threshold():
    w = CappedL2Loss(2.0).weights(np.array([0.5, 1.9, 2.0, 10.0]))
    assert w[0] > 0 and w[1] > 0 and w[2] == 0 and w[3] == 0


def test_zero_residual_with_zero_epsilon_is_finite():
    w = L21Loss(0.0).weights(np.array([0.0, 1.0, 2.0]))
    assert np.all(np.isfinite(w)) and w[0] >= w[1]
    assert np.all(np.isfinite(L21Loss(0.0).weights(np.zeros(4))))


def test_huber_and_cauchy_median_threshold():
    r = np.array([1.0, 2.0, 3.0, 100.0, 200.0])
    loss = HuberLoss().resolve(r)
    assert loss.threshold == 3.0
    np.testing.assert_allclose(HuberLoss().weights(r), [0.5, 0.5, 0.5, 0.015, 0.0075])
    assert CauchyLoss().resolve(r).threshold == 3.0
    assert HuberLoss().resolve(np.zeros(3)).threshold == 1.0


@pytest.mark.parametrize("loss", [HuberLoss(), CauchyLoss()])
def test_a_zero_median_gives_a_scale_of_rounding_size(loss):
    """More than half the residuals zero: the samples off the exact fit keep a weight of
    rounding size (the smallest positive residual gave 30 a weight of about 1/4)."""
    r = np.array([0.0, 0.0, 0.0, 30.0, 50.0])
    resolved = loss.resolve(r)
    assert 0 < resolved.threshold <= 50.0 * np.finfo(np.float64).eps
    w = loss.weights(r)
    np.testing.assert_array_equal(w[:3], 0.5)
    assert np.all(w[3:] <= 1e-15)
    assert np.all(np.isfinite(loss.rho(r)))
    tiny = np.array([0.0, 0.0, 0.0, 1e-320])
    assert np.all(np.isfinite(loss.weights(tiny))) and loss.resolve(tiny).threshold > 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"loss": "l2p"}, "p must be given"),
        ({"loss": "l2p", "p": 3.0}, "p=3.0"),
        ({"loss": "capped"}, "threshold must be given"),
        ({"loss": "capped", "threshold": 0.0}, "threshold"),
        ({"loss": "huber", "threshold": -1.0}, "threshold"),
        ({"loss": "bogus"}, "loss='bogus'"),
    ],
)
def test_make_loss_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_loss(**kwargs)
