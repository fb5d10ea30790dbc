"""The training diagnostics stored at fit are those ``outlier_diagnostics`` computes
from the training data, for data with rows fitted exactly.

``_diagnose`` points users to ``outlier_diagnostics(model, X, reference=X_train)`` as the
route that recomputes the training statistics, and ``predict`` uses the ones stored at
``fit``: the two must agree. With missing entries, a training row with at most ``k``
observed coordinates is fitted exactly (OD 0) and is left out of the OD location and
scale, which it would drag to 0 (``diagnostics``, "Missing entries"); the stored
reference must leave it out too, or the OD cutoff shrinks and ``predict`` flags more
rows than the diagnostics do.
"""

from __future__ import annotations

import numpy as np

import robustpca
from robustpca.diagnostics import outlier_diagnostics


def _assert_stored_reference_is_recomputed(X):
    """The cutoffs stored at fit, and predict, are those of the training rows measured
    again as a reference."""
    model = robustpca.PCA(n_components=2).fit(X)
    stored = outlier_diagnostics(model, X)
    recomputed = outlier_diagnostics(model, X, reference=X)
    assert stored.orthogonal_cutoff == recomputed.orthogonal_cutoff > 0
    assert stored.score_cutoff == recomputed.score_cutoff
    np.testing.assert_array_equal(model.predict(X), np.where(recomputed.outlyingness > 1, -1, 1))


def test_stored_cutoffs_leave_out_the_rows_fitted_exactly():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) @ rng.normal(size=(2, 6)) + 0.3 * rng.normal(size=(60, 6))
    X[:20, 2:] = np.nan  # a third of the rows: 2 observed coordinates, k = 2
    _assert_stored_reference_is_recomputed(X)


def test_stored_reference_counts_unmodelled_constant_columns_as_unobserved():
    """A constant training column that the model does not use counts as unobserved in
    the fits of rows with NaN (``_unmodelled_constants``): the training distances stored
    at fit treat it as the diagnostics of the same rows do."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2)) @ rng.normal(size=(2, 6)) + 0.3 * rng.normal(size=(60, 6))
    X = np.hstack([X, np.full((60, 1), 4.0)])  # a constant seventh column
    X[:15, :4] = np.nan  # two informative coordinates left (k) and the constant
    X[15:25, 4] = np.nan
    _assert_stored_reference_is_recomputed(X)


def test_a_share_whose_count_rounds_to_zero_flags_no_training_row():
    """``floor(c n + 1/2)`` rows: 0.01 of 40 rows is none, and ``offset_`` lies below
    every training score (the cut before the first row)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 5)) + 0.2 * rng.normal(size=(40, 5))
    X[:3] += 4.0
    model = robustpca.PCA(n_components=2, contamination=0.01).fit(X)
    assert np.all(model.predict(X) == 1)
    assert model.offset_ < model.score_samples(X).min()
