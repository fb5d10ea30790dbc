"""Losses: bounded and logarithmic losses stay finite for huge residuals, the estimated
Welsch width is scale-equivariant, parameters are validated by name, and Python scalars
are residuals like any other."""

from __future__ import annotations

import math

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
    WelschLoss,
    make_loss,
)


def test_welsch_rho_of_huge_residuals_is_its_bound():
    """sigma^2 (1 - e^{-q}) tends to sigma^2; 1e160 and inf gave NaN."""
    rho = WelschLoss(kernel_width=1.0).rho(np.array([1e10, 1e160, np.inf]))
    np.testing.assert_array_equal(rho, [1.0, 1.0, 1.0])
    assert WelschLoss(kernel_width=3.0).rho(np.inf) == 9.0


@settings(max_examples=100, deadline=None)
@given(
    width=st.floats(1e-100, 1e100),
    r=st.one_of(st.floats(0.0, 1e300), st.just(np.inf)),
)
def test_welsch_rho_is_finite_bounded_and_increasing(width, r):
    loss = WelschLoss(kernel_width=width)
    values = loss.rho(np.array([r, 2.0 * r, np.inf]))
    bound = width * width
    assert np.all(np.isfinite(values))
    assert np.all(values <= bound * (1 + 1e-15))
    assert values[0] <= values[1] <= values[2] == bound
    z = r / width
    if 1e-150 < z < 30:  # the plain formula is accurate here
        assert values[0] == pytest.approx(-bound * math.expm1(-z * z / 2), rel=1e-13)


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 20),
    exponent=st.integers(-900, 900),
)
def test_estimated_welsch_width_is_scale_equivariant(seed, n, exponent):
    """sigma(s r) = s sigma(r) for a power of two ``s``: mean(r * r) overflowed to inf for
    residuals near 1e160 and the loss then rejected its own width."""
    r = np.random.default_rng(seed).uniform(0.0, 3.0, n)
    scale = np.ldexp(1.0, exponent)
    width = WelschLoss().resolve(r).kernel_width
    assert WelschLoss().resolve(r * scale).kernel_width == pytest.approx(scale * width, rel=1e-14)
    np.testing.assert_allclose(WelschLoss().weights(r * scale), WelschLoss().weights(r))


def test_estimated_welsch_width_of_huge_and_non_finite_residuals():
    loss = WelschLoss().resolve(np.array([1e160, 1.0]))
    assert loss.kernel_width == pytest.approx(np.sqrt(0.25) * 1e160, rel=1e-14)
    assert WelschLoss().resolve(np.zeros(3)).kernel_width == 1.0
    with pytest.raises(ValueError, match="r must be finite"):
        WelschLoss().resolve(np.array([np.nan, 1.0]))


def test_cauchy_rho_of_huge_residuals_is_finite():
    """(c^2/2) log(1 + (r/c)^2) is about c^2 log(r/c): (r/c)^2 overflowed to inf."""
    expected = math.log(1e160) + 0.5 * math.log1p(1e-320)
    assert CauchyLoss(threshold=1.0).rho(np.array([1e160]))[0] == pytest.approx(expected)
    assert CauchyLoss(threshold=1e-200).rho(np.array([1e200]))[0] == pytest.approx(
        1e-400 * 400 * math.log(10.0), abs=1e-320
    )
    assert CauchyLoss(threshold=2.0).rho(np.inf) == np.inf
    assert CauchyLoss(threshold=1e-200).rho(np.inf) == np.inf
    assert CauchyLoss(threshold=2.0).weights(np.array([1e300]))[0] == 0.0


@settings(max_examples=100, deadline=None)
@given(c=st.floats(1e-3, 1e3), u=st.floats(0.0, 1e3))
def test_cauchy_rho_equals_its_formula(c, u):
    """Both branches (u = r / c below and above 1) give (c^2 / 2) log1p(u^2)."""
    r = c * u
    expected = 0.5 * c * c * math.log1p((r / c) ** 2)
    got = CauchyLoss(threshold=c).rho(np.array([r]))[0]
    assert got == pytest.approx(expected, rel=1e-13, abs=1e-300)


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: make_loss("l21", epsilon=-1.0), ValueError, "epsilon"),
        (lambda: make_loss("l21", epsilon=np.nan), ValueError, "epsilon"),
        (lambda: make_loss("l2p", p=1.0, epsilon=-1.0), ValueError, "epsilon"),
        (lambda: make_loss("capped", threshold=1.0, epsilon=-1.0), ValueError, "epsilon"),
        (lambda: make_loss("l21", epsilon="auto"), TypeError, "epsilon"),
        (lambda: make_loss("capped", threshold="abc"), TypeError, "threshold"),
        (lambda: make_loss("l2p", p="1"), TypeError, "p must"),
        (lambda: make_loss("l2p", p=np.nan), ValueError, "p=nan"),
        (lambda: L2pLoss(p="1"), TypeError, "p must"),
        (lambda: L2pLoss(p=True), TypeError, "p must"),
        (lambda: L21Loss(epsilon=None), TypeError, "epsilon"),
        (lambda: HuberLoss(threshold="1"), TypeError, "threshold"),
        (lambda: CauchyLoss(threshold=np.inf), ValueError, "threshold"),
        (lambda: WelschLoss(kernel_width="1"), TypeError, "kernel_width"),
        (lambda: WelschLoss(kernel_width=0.0), ValueError, "kernel_width"),
    ],
)
def test_bad_parameters_name_themselves(build, error, match):
    """A negative epsilon gave NaN losses; strings were stored or raised unnamed errors."""
    with pytest.raises(error, match=match):
        build()


LOSSES = [
    L21Loss(1e-6),
    L2pLoss(0.5, 1e-6),
    CappedL2Loss(3.0),
    HuberLoss(),
    HuberLoss(2.0),
    CauchyLoss(),
    CauchyLoss(2.0),
    WelschLoss(),
    WelschLoss(1.5),
]


@pytest.mark.parametrize("loss", LOSSES, ids=lambda loss: repr(loss))
@pytest.mark.parametrize("r", [0.0, 2.0, 7])
def test_python_scalars_are_residuals(loss, r):
    """A Python scalar is the 0-d array of it (HuberLoss().rho(0.0) raised AttributeError)."""
    for method in ("rho", "weights"):
        got = getattr(loss, method)(r)
        expected = getattr(loss, method)(np.array([r], dtype=float))[0]
        assert np.ndim(got) == 0
        assert float(got) == pytest.approx(float(expected), rel=1e-15)
