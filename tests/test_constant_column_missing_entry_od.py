"""Orthogonal distances of rows whose constant-column entry is missing.

:mod:`robustpca.solvers.informative_coordinates`: a constant column's entries carry
nothing, "the fits and flags ... are those of the table without the column", and
:func:`~robustpca.solvers.informative_coordinates.observed_od` adds a row's deviation
from the constant *where it is observed*. A row that misses its constant entry has no
deviation there: its distance is that of the table without the column, finite.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import L21PCA, PCA


@pytest.mark.parametrize("cls", [PCA, L21PCA])
def test_a_missing_constant_entry_adds_no_deviation(cls):
    rng = np.random.default_rng(0)
    n = 60
    informative = rng.normal(size=(n, 2)) @ rng.normal(size=(2, 5)) + 0.1 * rng.normal(size=(n, 5))
    informative[rng.random(informative.shape) < 0.1] = np.nan
    constant = np.where(rng.random(n) < 0.3, np.nan, 4.0)
    X = np.column_stack([informative, constant])
    model = cls(n_components=2).fit(X)
    without = cls(n_components=2).fit(informative)
    od = model.reconstruction_error(X)
    assert np.isfinite(od).all()
    np.testing.assert_allclose(od, without.reconstruction_error(informative), rtol=1e-6, atol=1e-9)
