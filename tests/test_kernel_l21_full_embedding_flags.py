"""``KernelL21PCA`` at its defaults keeps the whole embedding: its training rows' ODs are
the eigenvalues it dropped (below ``RANK_RTOL`` of the largest), not the data.

Each training row's squared distance to the embedding's span is the sum of the dropped
eigenvalues times its squared eigenvector entries, so at most ``RANK_RTOL`` times the
largest eigenvalue. The rounding levels of the diagnostics took them for ODs of the
data (they are 1e-7 to 1e-6 of a row's norm, above the ``sqrt(eps)`` of rounding), and
the OD cutoff taken of them flagged training rows at random: 39% of ADBench's glass
and 38% of cardio. Below that truncation nothing is resolved, as below rounding.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bench_outliers as bench
from robustpca import KernelL21PCA
from robustpca.diagnostics import outlier_diagnostics
from robustpca.linalg import RANK_RTOL


@pytest.mark.parametrize("table", ["14_glass", "15_Hepatitis"])
def test_the_full_embedding_flags_no_training_row_by_its_od(adbench, table):
    X = bench.scale_columns(bench.load_table(table, adbench)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = KernelL21PCA(random_state=0).fit(X)
    assert model.n_components_ == model.n_embedding_
    bound = np.sqrt(RANK_RTOL * model.eigenvalues_[0])
    assert model.reconstruction_error(X).max() <= bound * (1 + 1e-6)
    diagnostics = outlier_diagnostics(model, X)
    assert diagnostics.orthogonal_cutoff == 0.0  # as rrcov's k = rank: no OD cutoff
    by_sd = diagnostics.score_distances > diagnostics.score_cutoff
    np.testing.assert_array_equal(model.predict(X) == -1, by_sd)
    # a row off the training rows' span in feature space is still flagged by its OD
    far = X[:3] + 10.0
    assert np.all(model.reconstruction_error(far) > 1e3 * bound)
    assert np.all(model.predict(far) == -1)


def test_a_truncated_embedding_keeps_its_ods():
    """With ``n_embedding`` given, the dropped eigenvalues are the data's: no floor."""
    X = np.random.default_rng(0).normal(size=(60, 4))
    model = KernelL21PCA(n_components=3, n_embedding=3, random_state=0).fit(X)
    assert model._distance_truncation == 0.0
    assert outlier_diagnostics(model, X).orthogonal_cutoff > 0
