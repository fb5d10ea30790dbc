"""The Gram route of :class:`robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem`
(mutation audit): its loss scale and its explicit residuals, against the NumPy problem.

The fits in a namespace equal the NumPy fits to a tolerance that a wrong scale or a
difference of squares at rounding level passes; these tests compare the quantities
themselves.
"""

from __future__ import annotations

import array_api_strict as xps
import numpy as np
import pytest
from sklearn import config_context

from robustpca.array_api_linalg import ArrayAPIWeightedPCAProblem
from robustpca.linalg import EXTREME_WEIGHT_RATIO, WeightedPCAProblem


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def _problem(X, k, route):
    from robustpca._array_api import get_namespace_and_device

    X_xp = xps.asarray(X)
    xp, _, device = get_namespace_and_device(X_xp)
    return ArrayAPIWeightedPCAProblem(X_xp, k, np.random.default_rng(0), xp, device, route=route)


@pytest.mark.parametrize("route", ["gram", "scatter"])
def test_mean_sq_distance_equals_the_numpy_problems(route):
    """The loss's scale (mean squared distance to the arithmetic mean) on both routes,
    as the NumPy problem and the definition give it."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 80)) + 2.0
    expected = np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))
    numpy_value = WeightedPCAProblem(X, 3, np.random.default_rng(0), route=route)
    with config_context(array_api_dispatch=True):
        value = _problem(X, 3, route).mean_sq_distance()
    assert value == pytest.approx(expected, rel=1e-12)
    assert value == pytest.approx(numpy_value.mean_sq_distance(), rel=1e-12)


def test_residuals_of_exactly_low_rank_wide_data_are_formed_explicitly():
    """Rank-2 wide data and k = 3: every residual is zero, and the difference of
    squares would leave about sqrt(1e-16) of each row's norm; the Gram route finds them
    below SUSPICIOUS_RTOL of the norms and forms them explicitly, to rounding."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 400)) + 1.0
    norms = np.linalg.norm(X - X.mean(axis=0), axis=1)
    with config_context(array_api_dispatch=True):
        sub = _problem(X, 3, "gram").solve(np.ones(30))
    assert np.all(sub.residuals() <= 1e-11 * norms)


def test_an_extreme_weight_forms_the_residuals_explicitly(monkeypatch):
    """A weight above EXTREME_WEIGHT_RATIO times the median: the residuals are formed
    explicitly (one pass), as the NumPy Gram route does, though no residual is small;
    even weights on the same data take the difference of squares."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 60))
    calls = []
    real = ArrayAPIWeightedPCAProblem._explicit_residuals

    def spy(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ArrayAPIWeightedPCAProblem, "_explicit_residuals", spy)
    w = np.ones(20)
    with config_context(array_api_dispatch=True):
        _problem(X, 3, "gram").solve(w)
        assert calls == []
        w[5] = 2.0 * EXTREME_WEIGHT_RATIO
        sub = _problem(X, 3, "gram").solve(w)
    assert calls == [1]
    ref = WeightedPCAProblem(X, 3, np.random.default_rng(0), route="gram").solve(w)
    np.testing.assert_allclose(sub.residuals(), ref.residuals(), rtol=1e-8)
