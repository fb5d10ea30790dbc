"""Mutation-audit additions for robustpca.solvers.projection_pursuit (PcaProj options
that the suite did not pin down)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers.projection_pursuit import solve_projection_pursuit


def _data(seed=0, n=60, p=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) * np.array([5.0, 3.0, 1.0, 0.5, 0.2])
    X[:5] += 20.0  # some outliers
    return X


@pytest.mark.parametrize("candidates", ["lincomb", "sphere"])
def test_update_is_off_for_random_candidates_as_in_pcapp(candidates):
    """The docstring: 'pcaPP turns it [update] off for candidates other than "data"'."""
    X = _data()
    kw = dict(method="proj", candidates=candidates, n_candidates=300)
    a = solve_projection_pursuit(X, 3, update=True, rng=np.random.default_rng(1), **kw)
    b = solve_projection_pursuit(X, 3, update=False, rng=np.random.default_rng(1), **kw)
    np.testing.assert_array_equal(a.components, b.components)
    np.testing.assert_array_equal(a.scales, b.scales)
    assert a.n_iter == b.n_iter == 0


def test_lincomb_candidates_are_combinations_with_uniform_weights():
    """The docstring: 'random combinations of them with uniform weights' (pcaPP's
    lincomb draws runif weights)."""
    X = _data()

    class Spy:
        def __init__(self):
            self.g, self.calls = np.random.default_rng(2), []

        def uniform(self, *a, **k):
            self.calls.append("uniform")
            return self.g.uniform(*a, **k)

        def standard_normal(self, *a, **k):
            self.calls.append("standard_normal")
            return self.g.standard_normal(*a, **k)

    spy = Spy()
    solve_projection_pursuit(X, 2, method="proj", candidates="lincomb", n_candidates=200, rng=spy)
    assert spy.calls == ["uniform"]


@pytest.mark.parametrize("unit", [1e-12, 1e-9, 1e9])
def test_proj_fit_of_rescaled_data_is_the_rescaled_fit(unit):
    """zero_tol is relative to the largest squared norm of the centred rows, so that
    the fit does not depend on the data's unit (docstring); an absolute 1e-16 drops
    every row of data in units of 1e-9 and returns the identity."""
    X = _data(3)
    a = solve_projection_pursuit(X, 3, method="proj")
    b = solve_projection_pursuit(X * unit, 3, method="proj")
    np.testing.assert_allclose(np.abs(b.components), np.abs(a.components), atol=1e-8)
    np.testing.assert_allclose(b.scales, a.scales * unit, rtol=1e-8)
