"""R1-PCA with gaps where a constant column leaves every row fitted exactly (found by the
mutation audit of the missing-values solvers).

:mod:`robustpca.solvers.informative_coordinates` documents that a constant column's
entries do not count as informative, so that "the fits and flags ... are those of the
table without the column", and :mod:`robustpca.solvers.missing` ("Rows fitted exactly")
that the residual rounding of a row with at most ``k`` informative coordinates is set
to 0, lest R1-PCA's Huber weights become ratios of rounding errors (at ``k = p``,
``test_every_row_fitted_exactly_stops_at_the_first_iteration``).

With a constant column and ``k`` equal to the number of informative columns, every row
is fitted exactly, but R1-PCA's EM (``_MissingIterate.residuals`` ->
:func:`robustpca.solvers.missing.complete` -> ``observed_fit`` without
``n_informative``) counted the constant entries as observed, so the rows keeping them
were not zeroed: the weights are ratios of rounding errors and the loop ran to
``max_iter`` with a ``ConvergenceWarning``, where the table without the column stops at
its first iteration.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from robustpca import R1PCA


def test_a_constant_column_changes_nothing_when_every_row_is_fitted_exactly():
    """The table with a constant column is fitted as the table without it: the same
    iterations, no warning, the same weights (those of a zero residual)."""
    rng = np.random.default_rng(0)
    n = 40
    informative = rng.normal(size=(n, 3)) @ rng.normal(size=(3, 3))
    X = np.column_stack([informative, np.full(n, 2.5)])
    X[rng.random(X.shape) < 0.15] = np.nan
    without = R1PCA(n_components=3, random_state=0).fit(X[:, :3])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = R1PCA(n_components=3, random_state=0).fit(X)
    assert model.n_iter_ == without.n_iter_
    np.testing.assert_allclose(model.weights_, without.weights_, rtol=1e-12)
