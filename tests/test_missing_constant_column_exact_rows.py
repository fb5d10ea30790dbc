"""Rows fitted exactly on their informative coordinates, with a constant column.

:mod:`robustpca.solvers.missing` ("Rows fitted exactly") sets to 0 the residual
rounding of the rows with at most ``k`` informative coordinates, the entries of a
constant column not counting (:mod:`robustpca.solvers.informative_coordinates`). With
``k`` equal to the number of informative columns every row is such a row, as every row
is at ``k = p`` without the column: the EM's objective is then exactly 0 and the loop
stops at its first iteration, as on the table without the column, rather than comparing
objectives made of rounding errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca import PCA, OptimalMeanPCA


def _table(seed=0, n=40):
    rng = np.random.default_rng(seed)
    informative = rng.normal(size=(n, 3)) @ rng.normal(size=(3, 3))
    X = np.column_stack([informative, np.full(n, 2.5)])
    X[rng.random(X.shape) < 0.15] = np.nan
    return X


@pytest.mark.parametrize("cls", [PCA, OptimalMeanPCA])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_row_fitted_exactly_on_its_informative_coordinates(cls, seed):
    """``k`` = the informative columns: the iterations, the objective (that of zero
    residuals) and the orthogonal distances (0) of the table without the constant
    column."""
    X = _table(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = cls(n_components=3).fit(X)
        without = cls(n_components=3).fit(X[:, :3])
    assert model.n_iter_ == without.n_iter_
    np.testing.assert_allclose(model.objective_history_, without.objective_history_, rtol=1e-12)
    np.testing.assert_array_equal(model.reconstruction_error(X), 0.0)
