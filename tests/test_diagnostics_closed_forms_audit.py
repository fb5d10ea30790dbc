"""Gaps in diagnostics.py found by mutation testing: the cutoffs and the two
outlyingness measures in closed form, on references built by hand.

* The "scores" rule's SD cutoff is max(sqrt(chi2_{k,q}), (mu + sigma z_q)^{3/2}) with
  the median and MAD of SD^{2/3}: the flags on data only bound it, so 1.1 times the
  empirical term went unnoticed.
* The skew rule's OD cutoff is never below ``od_floor`` (dropping the floor went
  unnoticed).
* ``normal_outlyingness`` of the "scores" rule puts SD on the scale of ``sd_model``;
  replacing it by the ratio to the cutoff, or taking the chi2 (Wilson-Hilferty) branch
  for a cutoff 5% above the chi2 one, went unnoticed.
* ``outlyingness`` is never inf ("at most the largest float"), and a zero SD cutoff (a
  degenerate skew rule) gives 0 or the largest float: both went unchecked.
* outlier_diagnostics refuses the quantiles 0 and 1 (only 1.5 was tested).
* ``od_floor`` is ZERO_OD times the median norm of the centred training rows, scores
  *and* OD (leaving out the OD went unnoticed).
* A skew fit that drew its medcouple rows (``_medcouple_rows``, above 65536 rows) takes
  the OD cutoff's medcouple on those rows only (ignoring them went unnoticed; the fits
  of the tests are too small to draw them).
"""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from robustpca import PCA
from robustpca._distance_rounding import ZERO_OD
from robustpca.diagnostics import (
    _AT_CUTOFF,
    DiagnosticReference,
    OutlierDiagnostics,
    diagnostic_reference,
    outlier_diagnostics,
)
from robustpca.robust_scale import skewed_cutoff

Q = 0.975
ZQ = float(stats.norm.ppf(Q))
LARGEST = float(np.finfo(np.float64).max)


def _reference(rule="scores", **fields):
    base = {
        "score_center": np.zeros(2),
        "score_scale": np.ones(2),
        "od_location": 1.0,
        "od_scale": 0.1,
        "od_skew_cutoff": 0.0,
        "sd_skew_cutoff": 0.0,
        "od_cutoff_applies": True,
    }
    return DiagnosticReference(rule, **{**base, **fields})


@pytest.mark.parametrize(("location", "scale"), [(2.0, 0.5), (0.5, 0.5), (0.0, 0.0)])
def test_scores_rule_sd_cutoff_in_closed_form(location, scale):
    """max(sqrt(chi2_{2, q}), (mu + sigma z_q)^{3/2}): the empirical term (5.144) where
    it is larger, else the chi2 one (2.716)."""
    ref = _reference(sd_location=location, sd_scale=scale)
    chi2 = np.sqrt(stats.chi2.ppf(Q, 2))
    expected = max(chi2, (location + scale * ZQ) ** 1.5)
    assert ref.score_cutoff(Q) == pytest.approx(expected, rel=1e-14)


def test_od_cutoffs_in_closed_form_and_never_below_the_floor():
    """(mu + sigma z_q)^{3/2} for the median/MAD rule; the adjusted-boxplot cutoff for
    the skew rule; each at least ``od_floor``."""
    ref = _reference("robust")
    assert ref.orthogonal_cutoff(Q) == pytest.approx((1.0 + 0.1 * ZQ) ** 1.5, rel=1e-14)
    assert _reference("robust", od_floor=5.0).orthogonal_cutoff(Q) == 5.0
    assert _reference("skew", od_skew_cutoff=0.5).orthogonal_cutoff(Q) == 0.5
    assert _reference("skew", od_skew_cutoff=0.5, od_floor=2.0).orthogonal_cutoff(Q) == 2.0


def test_scores_rule_normal_outlyingness_uses_the_sd_model():
    """With the empirical SD cutoff (here 5% above the chi2 one) the SD's normal score is
    z_q + (SD^{2/3} - c^{2/3}) / sigma_SD, sigma_SD the MAD of the training SD^{2/3}."""
    cutoff = 1.05 * float(np.sqrt(stats.chi2.ppf(Q, 2)))
    sd = np.array([0.5, 2.0, cutoff, 6.0])
    diag = OutlierDiagnostics(
        sd,
        np.zeros(4),
        cutoff,
        10.0,
        np.ones(2),
        Q,
        np.zeros(2),
        "scores",
        od_model=(1.0, 0.5),
        sd_model=(1.2, 0.3),
    )
    expected = ZQ + (np.cbrt(sd) ** 2 - np.cbrt(cutoff * _AT_CUTOFF) ** 2) / 0.3
    np.testing.assert_allclose(diag.normal_outlyingness, expected, rtol=1e-12)
    np.testing.assert_array_equal(diag.normal_outlyingness > ZQ, diag.outliers)


def test_outlyingness_is_never_inf():
    """A zero SD cutoff gives 0 or the largest float; an OD far off the training span,
    in units of its rounding, stops at the largest float too."""
    zero_cutoff = OutlierDiagnostics(
        np.array([0.0, 1.0]), np.zeros(2), 0.0, 0.0, np.ones(1), Q, np.zeros(1), "skew"
    )
    np.testing.assert_array_equal(zero_cutoff.outlyingness, [0.0, LARGEST])
    off_span = OutlierDiagnostics(
        np.zeros(2), np.array([0.0, 1e300]), 3.0, 0.0, np.ones(1), Q, np.zeros(1), span_od=1e-300
    )
    np.testing.assert_array_equal(off_span.outlyingness, [0.0, LARGEST])
    np.testing.assert_array_equal(off_span.outliers, [False, True])


@pytest.mark.parametrize("quantile", [0, 1, 0.0, 1.0])
def test_quantiles_zero_and_one_are_refused(quantile):
    """The cutoffs' quantile lies in the open interval (0, 1)."""
    X = np.random.default_rng(0).normal(size=(40, 4))
    with pytest.raises(ValueError, match="quantile"):
        outlier_diagnostics(PCA(2).fit(X), X, quantile=quantile)


def test_od_floor_is_from_the_full_norms_of_the_centred_rows():
    """od_floor = ZERO_OD times the median training ||x_i - mean||, which holds the OD as
    well as the scores (a k = 1 fit of rows spread mostly off its axis)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 6)) * [3.0, 5.0, 5.0, 5.0, 5.0, 5.0] + 10.0
    model = PCA(1).fit(X)
    norms = np.linalg.norm(X - model.mean_, axis=1)
    assert model._outlier_reference.od_floor == pytest.approx(ZERO_OD * np.median(norms), rel=1e-9)


def test_skew_od_cutoff_takes_the_medcouple_of_the_drawn_rows():
    """A skew fit's ``_medcouple_rows`` stand for all the rows in the medcouple of the OD
    cutoff (the quartiles stay those of all): rrcov's cutoff of all 11 ODs is 60, that of
    the medcouple of the first 8 is 22 (test_robust_scale_fences_weights_audit.py)."""
    od = np.array([1, 2, 3, 4, 5, 6, 8, 11, 15, 22, 60], dtype=float)
    model = SimpleNamespace(
        _od_cutoff_rule="skew",
        explained_variance_=np.array([1.0]),
        mean_=np.zeros(3),
        n_features_in_=3,
    )
    scores = np.linspace(-1.0, 1.0, od.size)[:, None]
    assert diagnostic_reference(model, scores, od).od_skew_cutoff == 60.0
    model._medcouple_rows = np.arange(8)
    reference = diagnostic_reference(model, scores, od)
    assert reference.od_skew_cutoff == skewed_cutoff(od, np.arange(8)) == 22.0
