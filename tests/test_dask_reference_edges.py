"""The training diagnostics of Dask fits in the cases the parity tables leave open
(mutation audit of ``_dask/reference.py``): rows of zero weight off the span, a zero
MAD under the "scores" rule, a component of zero scale with one-sided training scores,
fractional weights with a float contamination on both routes, and gaps next to a
constant column. Each compares the stored reference (and ``offset_``) with the
in-memory one of the same fitted model, over uneven row chunks with a chunk of one row.
"""

from __future__ import annotations

import copy
import warnings

import dask
import dask.array as da
import numpy as np
import pytest

from robustpca import PCA, ROBPCA, CovariancePCA, OptimalMeanPCA

from .conftest import fit_passes


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _twin(model, X, sample_weight=None):
    """The in-memory training diagnostics and offset of the same fitted model."""
    twin = copy.copy(model)
    twin._set_outlier_reference(X, sample_weight)
    return twin


def _chunked(X, rows):
    return da.from_array(X, chunks=(rows, (X.shape[1],)))


def test_rows_of_zero_weight_off_the_span_are_left_out():
    """Rank-2 rows and ten rows of zero weight far off their plane: in memory the
    weighted ODs are all rounding (no OD cutoff, the span tolerance applies), the
    zero-weight rows being dropped; the chunked statistics must leave them out too,
    not count them with weight 0 (their largest OD would make the cutoff apply)."""
    rng = np.random.default_rng(6)
    X = 1.0 + rng.normal(size=(200, 2)) @ rng.normal(size=(2, 5))
    X[:10] += 3.0 * rng.normal(size=(10, 5))
    w = np.ones(200)
    w[:10] = 0.0
    model = PCA(2).fit(_chunked(X, (60, 1, 100, 39)), sample_weight=w)
    ours, theirs = model._outlier_reference, _twin(model, X, w)._outlier_reference
    assert not theirs.od_cutoff_applies
    assert ours.od_cutoff_applies == theirs.od_cutoff_applies
    assert ours.span_od == pytest.approx(theirs.span_od, rel=1e-10)


def test_zero_mad_scores_take_the_mean_deviation_scale():
    """The "scores" rule (OptimalMeanPCA) where 300 of 401 rows sit at one point: the
    MAD of the scores is 0 and the scale falls back to ``sqrt(pi / 2)`` times their
    mean absolute deviation, as in memory."""
    rng = np.random.default_rng(0)
    X = np.r_[np.ones((300, 6)), rng.normal(size=(101, 6))]
    model = OptimalMeanPCA(2).fit(_chunked(X, (150, 1, 200, 50)))
    ours, theirs = model._outlier_reference, _twin(model, X)._outlier_reference
    assert np.all(theirs.score_scale > 0)
    np.testing.assert_allclose(ours.score_scale, theirs.score_scale, rtol=1e-10)
    np.testing.assert_allclose(ours.score_center, theirs.score_center, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("side", [1.0, -1.0])
@pytest.mark.parametrize(
    "make", [lambda: ROBPCA(3, random_state=0), lambda: CovariancePCA(3, random_state=0)]
)
def test_one_sided_scores_on_a_component_of_zero_scale(make, side):
    """300 rows on a plane in 3-D and 60 rows 5 off it, all on one side: the robust fit
    gives the plane's normal a zero scale, and the training scores on it run from 0 to
    5 or from -5 to 0. Its rounding tolerance is the largest deviation of the training
    scores from the centre, on either side (5, plus the OD floor), as in memory."""
    rng = np.random.default_rng(5)
    plane = np.c_[rng.normal(size=(300, 2)) * [3.0, 1.0], np.zeros(300)] + 1.0
    off = np.c_[rng.normal(size=(60, 2)), np.full(60, 5.0 * side)] + 1.0
    X = np.r_[plane, off]
    model = make().fit(_chunked(X, (150, 1, 160, 49)))
    ours, theirs = model._outlier_reference, _twin(model, X)._outlier_reference
    assert ours.score_scale[2] == theirs.score_scale[2] == 0.0
    # the largest deviation plus the OD floor as margin (_distance_rounding.score_rounding)
    assert 5.0 <= theirs.score_rounding[2] <= 5.0 + 1e-6
    np.testing.assert_allclose(ours.score_rounding, theirs.score_rounding, rtol=1e-9)


@pytest.mark.parametrize("shape", [(400, 6), (40, 120)], ids=["tall", "wide"])
def test_fractional_weights_and_a_float_contamination(shape):
    """Reliability (fractional) weights: ``offset_`` is the weighted cut of the training
    ``score_samples`` with fractional weights (not the rule of frequency weights), on
    either route; the wide route's diagnostics take one pass, counted in
    ``n_passes_``."""
    n, d = shape
    rng = np.random.default_rng(0)
    X = 2.0 + rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 0.1 * rng.normal(size=(n, d))
    X[: n // 10] += 4.0 + rng.normal(size=(n // 10, d))
    w = np.random.default_rng(3).uniform(0.2, 2.0, n)
    dX = _chunked(X, (150, 1, 200, 49)) if n > d else da.from_array(X, chunks=((n,), (1, 59, 60)))
    model = PCA(2, contamination=0.1).fit(dX, sample_weight=w)
    twin = _twin(model, X, w)
    assert model.offset_ == pytest.approx(twin.offset_, rel=1e-10)
    if n < d:
        assert model._reference_passes == 1
        assert fit_passes(model) == 2  # the Gram pass and the components' pass


def test_gaps_next_to_a_constant_column():
    """Four informative columns, a constant fifth, two gaps in some rows: those rows
    have two informative coordinates (not three: the constant is no evidence), so at
    ``k = 2`` they are fitted exactly and left out of the OD statistics, as in memory."""
    rng = np.random.default_rng(7)
    X = 1.0 + rng.normal(size=(200, 4)) * np.linspace(3, 1, 4) + 0.1 * rng.normal(size=(200, 4))
    X = np.c_[X, np.full(200, 5.0)]
    for i in range(60, 200, 3):
        X[i, rng.choice(4, 2, replace=False)] = np.nan
    for make in (lambda: PCA(2), lambda: OptimalMeanPCA(2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make().fit(_chunked(X, (60, 1, 100, 39)))
        ours, theirs = model._outlier_reference, _twin(model, X)._outlier_reference
        for field in ("od_location", "od_scale", "od_floor", "score_rounding"):
            np.testing.assert_allclose(
                getattr(ours, field), getattr(theirs, field), rtol=1e-9, err_msg=field
            )


def test_skew_cutoffs_of_rows_on_their_span():
    """Skewed ROBPCA on rank-2 rows: their ODs are rounding, the OD cutoff does not
    apply and its skewed cutoff is 0, as in memory (not the rounding ODs' own cut);
    the adjusted outlyingness' cutoff is the in-memory one."""
    rng = np.random.default_rng(1)
    X = 1.0 + rng.normal(size=(300, 2)) @ rng.normal(size=(2, 5))
    model = ROBPCA(2, skew=True, random_state=0).fit(_chunked(X, (100, 1, 150, 49)))
    ours, theirs = model._outlier_reference, _twin(model, X)._outlier_reference
    assert not ours.od_cutoff_applies and not theirs.od_cutoff_applies
    assert ours.od_skew_cutoff == theirs.od_skew_cutoff == 0.0
    assert ours.sd_skew_cutoff == pytest.approx(theirs.sd_skew_cutoff, rel=1e-10)


def test_weighted_zero_mad_scores():
    """The "scores" rule's zero-MAD fallback with weights (the reference computed
    directly with ``sample_weight``, as for a weighted stream): the weighted mean
    absolute deviation of the score rows, as in memory."""
    from robustpca._dask.reference import set_outlier_reference

    rng = np.random.default_rng(0)
    X = np.r_[np.ones((300, 6)), rng.normal(size=(101, 6))]
    w = rng.uniform(0.5, 3.0, X.shape[0])
    model = OptimalMeanPCA(2).fit(X)
    set_outlier_reference(model, _chunked(X, (150, 1, 200, 50)), sample_weight=w)
    ours, theirs = model._outlier_reference, _twin(model, X, w)._outlier_reference
    np.testing.assert_allclose(ours.score_scale, theirs.score_scale, rtol=1e-10)


def test_a_stream_with_rows_of_no_observed_entry():
    """An online fit takes rows with no observed entry (they carry no evidence): the
    diagnostics leave them out and count the observed coordinates of the other rows
    of their chunk, as in memory."""
    from robustpca import OnlineRobustPCA

    rng = np.random.default_rng(0)
    X = 2.0 + rng.normal(size=(400, 2)) @ rng.normal(size=(2, 6)) + 0.1 * rng.normal(size=(400, 6))
    X[:40] += 4.0
    X[rng.random(X.shape) < 0.05] = np.nan
    X[[3, 150, 200]] = np.nan  # the chunk of one row among them
    model = OnlineRobustPCA(2, random_state=0).fit(_chunked(X, (150, 1, 200, 49)))
    ours, theirs = model._outlier_reference, _twin(model, X)._outlier_reference
    for field in ("score_center", "score_scale", "od_location", "od_scale", "sd_location"):
        np.testing.assert_allclose(
            getattr(ours, field), getattr(theirs, field), rtol=1e-9, err_msg=field
        )
