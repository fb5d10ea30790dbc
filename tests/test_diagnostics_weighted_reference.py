"""Gaps in diagnostics.py (diagnostic_reference with sample weights), from mutation testing.

* Frequency weights must give the reference of the data with each row repeated w_i
  times, for the "scores" rule too (a robust estimator's partial_fit with
  sample_weight): the median of SD^(2/3) taken unweighted went unnoticed.
* A zero weight removes a row from the reference: a zero-weight row off the span of
  exactly low-rank training rows must not switch the OD cutoff on (keeping it in the OD
  rows went unnoticed).
"""

import numpy as np

import robustpca as rp
from robustpca.diagnostics import outlier_diagnostics


def test_frequency_weights_equal_repeated_rows_for_the_scores_rule():
    rng = np.random.default_rng(0)
    X = rng.standard_t(3, size=(60, 5))
    w = rng.integers(1, 4, 60)
    a = rp.OptimalMeanPCA(n_components=2).partial_fit(X, sample_weight=w.astype(float))
    b = rp.OptimalMeanPCA(n_components=2).partial_fit(np.repeat(X, w, axis=0))
    ra, rb = a._outlier_reference, b._outlier_reference
    assert ra.rule == rb.rule == "scores"
    for field in ("sd_location", "sd_scale", "od_location", "od_scale"):
        np.testing.assert_allclose(getattr(ra, field), getattr(rb, field), rtol=1e-9)
    da, db = outlier_diagnostics(a, X), outlier_diagnostics(b, X)
    np.testing.assert_allclose(da.score_cutoff, db.score_cutoff, rtol=1e-9)


def test_zero_weight_row_off_the_span_does_not_create_an_od_cutoff():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 6)) + 3.0  # exactly rank 2
    off = X[:1] + 50.0 * rng.normal(size=(1, 6))
    Xw = np.vstack([X, off])
    w = np.r_[np.ones(40), 0.0]
    a = rp.PCA(n_components=2).fit(Xw, sample_weight=w)
    b = rp.PCA(n_components=2).fit(X)
    assert a._outlier_reference.od_cutoff_applies == b._outlier_reference.od_cutoff_applies
    assert not b._outlier_reference.od_cutoff_applies
    np.testing.assert_array_equal(
        outlier_diagnostics(a, X).outliers, outlier_diagnostics(b, X).outliers
    )


def test_frequency_weights_give_the_rounding_floors_of_repeated_rows():
    """The floors came from the unweighted median of the rows' norms (4.67e-8 against
    4.84e-8 for the repeated rows), unlike every other statistic of the reference and
    unlike the Dask route's weighted order statistic."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 4)) * [5.0, 2.0, 1.0, 0.5]
    w = np.r_[np.full(10, 6.0), np.ones(20)]
    X[:10] *= 3.0  # the heavy rows are the long ones: the weighted median norm is larger
    a = rp.PCA(n_components=2).fit(X, sample_weight=w)
    b = rp.PCA(n_components=2).fit(np.repeat(X, w.astype(int), axis=0))
    ra, rb = a._outlier_reference, b._outlier_reference
    np.testing.assert_allclose(ra.od_floor, rb.od_floor, rtol=1e-9)
    np.testing.assert_allclose(ra.score_rounding, rb.score_rounding, rtol=1e-9)
