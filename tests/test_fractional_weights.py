"""Sample weights that are not whole numbers (normalised to sum 1, say): the diagnostics
do not depend on the weights' scale, and whole weights keep their frequency meaning."""

import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from robustpca import PCA, OptimalMeanPCA
from robustpca.robust_scale import (
    median_positions,
    od_location_scale,
    variance_count,
    weighted_mad,
    weighted_median,
)

from .conftest import load_table

SCALES = st.sampled_from([1e-6, 0.01, 0.1, 1 / 3, 0.7, 7.3, 1e3 + 0.5])
values = arrays(np.float64, st.integers(1, 30), elements=st.floats(-1e3, 1e3, width=32))


@settings(max_examples=200, deadline=None)
@given(x=values, data=st.data(), scale=SCALES)
def test_weighted_median_ignores_the_scale_of_the_weights(x, data, scale):
    w = data.draw(arrays(np.float64, x.size, elements=st.integers(0, 5)))
    if not w.any():
        w[0] = 1.0
    repeated = np.repeat(x, w.astype(int))
    assert weighted_median(x, w) == np.median(repeated)  # frequency weights
    assert weighted_median(x, scale * w) == np.median(repeated)
    np.testing.assert_allclose(weighted_mad(x, scale * w), weighted_mad(x, w), rtol=1e-12)


def test_median_positions_of_whole_weights():
    # the two middle rows of the data repeated: 0-based positions (W - 1) // 2, W // 2
    for total in range(1, 50):
        lower, upper = median_positions(total)
        assert np.floor(lower) == (total - 1) // 2 and np.floor(upper) == total // 2
    assert median_positions(1.0) == pytest.approx((0.5, 0.5))


def test_variance_count():
    assert variance_count(np.array([1.0, 2.0, 0.0])) == 3.0  # frequency: the total weight
    # Kish's effective count (sum w)^2 / sum w^2: the rows, where the weights are equal
    assert variance_count(np.array([0.5, 0.25, 0.0])) == pytest.approx(1.8)
    assert variance_count(np.full(7, 0.3)) == pytest.approx(7.0)
    assert variance_count(np.array([1e-200, 3e-200])) == pytest.approx(1.6)
    assert variance_count(np.array([1e-300, 3e-300])) == pytest.approx(1.6)


@pytest.mark.parametrize("rule", ["classical", "median_mad"])
@pytest.mark.parametrize("scale", [1e-6, 0.01, 1 / 3, 2.5])
def test_od_statistics_ignore_the_scale_of_the_weights(rule, scale):
    od23 = np.random.default_rng(0).chisquare(3, size=41) ** (1 / 3)
    expected = od_location_scale(od23, None, rule)
    got = od_location_scale(od23, np.full(od23.size, scale), rule)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def _scaled(X):
    centre = np.median(X, axis=0)
    return (X - centre) / np.median(np.abs(X - centre), axis=0)


@pytest.mark.parametrize("share", ["auto", 0.2])  # 0.2 x 75 rows: a whole target
def test_normalised_weights_flag_what_unit_weights_flag(shared_data, share):
    X = _scaled(load_table(shared_data, "hbk"))
    n = len(X)
    plain = PCA(n_components=2, contamination=share).fit(X)
    for w in (np.full(n, 1 / n), np.full(n, 0.37)):
        model = PCA(n_components=2, contamination=share).fit(X, sample_weight=w)
        np.testing.assert_array_equal(model.predict(X), plain.predict(X))
        ref, expected = model._outlier_reference, plain._outlier_reference
        assert ref.od_scale == pytest.approx(expected.od_scale, rel=1e-9)


def test_stream_reference_with_normalised_weights(shared_data):
    X = _scaled(load_table(shared_data, "hbk"))
    n = len(X)
    unit = OptimalMeanPCA(n_components=2, random_state=0).partial_fit(X, sample_weight=np.ones(n))
    small = OptimalMeanPCA(n_components=2, random_state=0).partial_fit(
        X, sample_weight=np.full(n, 0.01)
    )
    a, b = unit._outlier_reference, small._outlier_reference
    np.testing.assert_allclose(b.score_center, a.score_center, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.score_scale, a.score_scale, rtol=1e-9)
    np.testing.assert_array_equal(small.predict(X), unit.predict(X))


@pytest.mark.parametrize("scale", [1 / 75, 0.3])
def test_dask_reference_with_fractional_weights(shared_data, scale):
    X = _scaled(load_table(shared_data, "hbk"))
    w = np.random.default_rng(3).integers(1, 4, len(X)) * scale
    dX = da.from_array(X, chunks=(20, -1))
    model = PCA(n_components=2).fit(dX, sample_weight=w)
    twin = PCA(n_components=2).fit(X, sample_weight=w)
    a, b = twin._outlier_reference, model._outlier_reference
    assert b.od_location == pytest.approx(a.od_location, rel=1e-9)
    assert b.od_scale == pytest.approx(a.od_scale, rel=1e-9)
    np.testing.assert_array_equal(model.predict(dX).compute(), twin.predict(X))


@pytest.mark.parametrize("scale", [1e-6, 0.01, 1 / 3, 7.3])
def test_explained_variance_of_reliability_weights(scale):
    """Fractional weights give NumPy's unbiased covariance for reliability weights
    (``aweights``), whatever their scale, in memory, on Dask and over a stream. The
    divisor ``W - 1`` made it 4x too large at a total weight of 1.3."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 5)) @ np.diag([5.0, 3, 1, 0.5, 0.1])
    w = rng.uniform(0.1, 2.0, 100) * scale
    expected = np.linalg.eigvalsh(np.cov(X.T, aweights=w))[::-1]
    fits = [
        PCA(n_components=2).fit(X, sample_weight=w),
        PCA(n_components=2).fit(da.from_array(X, chunks=(30, -1)), sample_weight=w),
    ]
    stream = PCA(n_components=2)
    for rows in np.array_split(np.arange(100), 4):
        stream.partial_fit(X[rows], sample_weight=w[rows])
    for model in [*fits, stream]:
        np.testing.assert_allclose(model.explained_variance_, expected[:2], rtol=1e-10)
        total = model.explained_variance_[0] / model.explained_variance_ratio_[0]
        assert total == pytest.approx(expected.sum(), rel=1e-10)


def test_explained_variance_of_a_discounted_stream():
    """A forgetting factor discounts whole weights into reliability weights: the rows of
    batch ``t`` of ``T`` weigh ``lam^(T - t)``, and the variances are NumPy's for them
    (``W - 1`` divided by 2 at ``lam = 0.5``)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4)) @ np.diag([4.0, 2, 1, 0.5])
    lam, batches = 0.5, np.array_split(np.arange(60), 6)
    stream = PCA(n_components=2)
    for rows in batches:
        stream.partial_fit(X[rows], forgetting_factor=lam)
    w = np.concatenate(
        [np.full(len(r), lam ** (len(batches) - 1 - t)) for t, r in enumerate(batches)]
    )
    expected = np.linalg.eigvalsh(np.cov(X.T, aweights=w))[::-1]
    np.testing.assert_allclose(stream.explained_variance_, expected[:2], rtol=1e-10)


@pytest.mark.parametrize("c", [1e154, 1e300])
def test_huge_frequency_weights(c):
    """W (n - 1) / n overflowed to inf from W = 1e154 on: variances of 0, no warning.
    (Each row repeated c times: the variance divides by the rows, not the rows - 1.)"""
    X = np.random.default_rng(2).normal(size=(40, 4))
    unit = PCA(n_components=2).fit(X)
    heavy = PCA(n_components=2).fit(X, sample_weight=np.full(40, c))
    expected = unit.explained_variance_ * 39 / 40
    np.testing.assert_allclose(heavy.explained_variance_, expected, rtol=1e-9)
