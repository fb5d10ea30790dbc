"""Gaps in losses.py found by mutation testing.

The derivative test of test_losses.py checks weights = rho'(r) / (2 r), which leaves
rho free up to a constant on each side of a kink and leaves the capped loss's zero
weights, make_loss's Cauchy scale and the epsilon = 0 floor of the weights unchecked:

* Huber's rho is r^2 / 2 up to c and c r - c^2 / 2 beyond (Ding et al. 2006, eq. 11),
  continuous at c; c (r - c) beyond (a jump of c^2 / 2) went unnoticed;
* the capped loss gives weight zero exactly where rho is at the cap, sqrt(r^2 + eps)
  >= theta (Nie et al. 2014, sec. 3.2); testing r < theta without the smoothing went
  unnoticed;
* make_loss passes ``threshold`` to the Cauchy loss (dropping it went unnoticed);
* with epsilon = 0 the l2,1 weight 1 / (2 r) is floored at 1e-12 times the largest
  residual only (a floor of 1e-6 went unnoticed);
* the estimated Welsch width is floored at the smallest normal float: without the
  floor, many zero residuals and one subnormal one gave a width of 0, which the loss
  refuses (a ValueError inside a fit).
"""

import numpy as np
import pytest

from robustpca.losses import (
    CappedL2Loss,
    CauchyLoss,
    HuberLoss,
    L2pLoss,
    L21Loss,
    WelschLoss,
    make_loss,
)


def test_huber_rho_is_the_closed_form_and_continuous_at_the_cutoff():
    """rho = r^2/2 for r <= c, c r - c^2/2 beyond (c = 2): 0.5, 2, 4, 18; the two
    branches meet at c."""
    loss = HuberLoss(2.0)
    np.testing.assert_allclose(loss.rho(np.array([1.0, 2.0, 3.0, 10.0])), [0.5, 2.0, 4.0, 18.0])
    below, above = loss.rho(np.array([2.0 - 1e-9, 2.0 + 1e-9]))
    assert abs(above - below) < 1e-8


@pytest.mark.parametrize("epsilon", [0.0, 0.5])
def test_capped_weights_vanish_exactly_where_rho_is_at_the_cap(epsilon):
    """A sample is capped (weight 0) exactly when sqrt(r^2 + eps) >= theta, i.e. where
    rho is theta: with eps = 0.5 and theta = 1 every r >= 0.71 is capped."""
    loss = CappedL2Loss(threshold=1.0, epsilon=epsilon)
    r = np.linspace(0.0, 2.0, 201)
    capped = loss.rho(r) >= loss.threshold
    np.testing.assert_array_equal(loss.weights(r) == 0.0, capped)
    assert capped[80] == (epsilon > 0)  # r = 0.8: sqrt(0.64 + 0.5) > 1


@pytest.mark.parametrize(
    ("name", "kwargs", "expected"),
    [
        ("l21", {"epsilon": 0.25}, L21Loss(0.25)),
        ("l2p", {"p": 0.5, "epsilon": 0.25}, L2pLoss(0.5, 0.25)),
        ("capped", {"threshold": 3.0, "epsilon": 0.25}, CappedL2Loss(3.0, 0.25)),
        ("huber", {"threshold": 2.5}, HuberLoss(2.5)),
        ("cauchy", {"threshold": 2.5}, CauchyLoss(2.5)),
    ],
)
def test_make_loss_passes_every_parameter(name, kwargs, expected):
    """make_loss builds the named loss with the parameters given (frozen dataclasses
    compare by value)."""
    assert make_loss(name, **kwargs) == expected


def test_l21_weights_without_smoothing_are_floored_at_1e_12_of_the_largest():
    """epsilon = 0: the weight is 1 / (2 r) down to r = 1e-12 max(r); a zero residual
    gets 1 / (2e-12 max(r)), a residual of 1e-9 max(r) its own 1 / (2r)."""
    w = L21Loss(0.0).weights(np.array([0.0, 1e-9, 1.0]))
    np.testing.assert_allclose(w, [0.5e12, 0.5e9, 0.5], rtol=1e-12)


def test_estimated_welsch_width_of_a_subnormal_residual_is_positive():
    """A million residuals, all 0 but one of 5e-324: sqrt(mean(r^2) / 2) underflows to 0;
    the width is the smallest normal float instead, and the weights are finite."""
    r = np.zeros(10**6)
    r[0] = 5e-324
    loss = WelschLoss().resolve(r)
    assert loss.kernel_width == np.finfo(np.float64).tiny
    weights = WelschLoss().weights(r)
    assert np.all(np.isfinite(weights)) and weights[1] == 0.5
