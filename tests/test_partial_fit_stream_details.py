"""Details of ``partial_fit`` and robustpca.solvers.incremental (mutation audit).

The statistics' factor form under a forgetting factor, the previous pass standing in
for the batches not yet revisited, the residual-scale memory, the reservoir sample of
the diagnostics (Vitter's Algorithm R), the rows of weight 0, the frequency weights of
the objective and of ``epsilon_``, HQ-PCA's ``weights_`` and the all-weights-zero
warning: each is checked against a batch fit or a closed form.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robustpca as rp
from robustpca.losses import WelschLoss
from robustpca.solvers.incremental import (
    ReferenceSample,
    ResidualScaleMemory,
    StreamingReweightedPCA,
)


def _projector(components):
    return components.T @ components


def _planted(seed, n, d, shift=0.0):
    rng = np.random.default_rng(seed)
    A = np.linalg.qr(np.random.default_rng(99).normal(size=(d, 3)))[0]
    return rng.normal(size=(n, 3)) * [4.0, 2.0, 1.0] @ A.T + 0.1 * rng.normal(size=(n, d)) + shift


def test_wide_stream_with_forgetting_equals_the_weighted_fit():
    """Fewer rows than features: the statistics are held as a factor ``F`` (``S = F^T
    F``), which a forgetting factor lambda scales by sqrt(lambda); the stream then
    equals PCA of the rows weighted lambda (first batch) and 1 (second)."""
    X1, X2 = _planted(0, 10, 40), _planted(1, 12, 40, shift=0.5)
    stream = rp.PCA(2).partial_fit(X1).partial_fit(X2, forgetting_factor=0.5)
    weights = np.r_[np.full(10, 0.5), np.ones(12)]
    batch = rp.PCA(2).fit(np.vstack([X1, X2]), sample_weight=weights)
    assert np.abs(_projector(stream.components_) - _projector(batch.components_)).max() < 1e-10
    np.testing.assert_allclose(stream.mean_, batch.mean_, atol=1e-12)
    np.testing.assert_allclose(stream.explained_variance_, batch.explained_variance_, rtol=1e-10)


@pytest.mark.parametrize("d", [6, 40])
def test_a_new_pass_keeps_the_rest_of_the_previous_pass(d):
    """After the first batch of a second pass, the batches not yet revisited are the
    previous pass's statistics scaled by the share of the weight still to come, 1 -
    n_1 / n: PCA of the data with weight 1 + u on the first batch and u elsewhere."""
    X = _planted(2, 30, d)
    model = rp.PCA(2)
    for rows in np.array_split(np.arange(30), 3):
        model.partial_fit(X[rows])
    model.partial_fit(X[:10], new_pass=True)
    u = 1.0 - 10 / 30
    weights = np.full(30, u)
    weights[:10] += 1.0
    batch = rp.PCA(2).fit(X, sample_weight=weights)
    assert np.abs(_projector(model.components_) - _projector(batch.components_)).max() < 1e-10
    np.testing.assert_allclose(model.mean_, batch.mean_, atol=1e-12)


def test_residual_scale_memory():
    """The mean squared residual: of the current pass, discounted by the forgetting
    factor, until a pass ends; then of the last complete pass. A pass that starts on an
    empty memory has no previous pass."""
    r1, r2, r3 = np.array([1.0, 2.0]), np.array([3.0]), np.array([0.5, 0.5, 2.0])
    w1, w2, w3 = np.array([1.0, 2.0]), np.array([1.0]), np.ones(3)
    memory = ResidualScaleMemory().update(r1, w1).update(r2, w2, forgetting_factor=0.5)
    assert memory.mean_square() == pytest.approx((0.5 * 9.0 + 9.0) / (0.5 * 3.0 + 1.0))
    after = memory.update(r3, w3, new_pass=True)
    assert after.previous == memory.current
    assert after.mean_square() == pytest.approx(memory.mean_square())
    fresh = ResidualScaleMemory().update(r3, w3, new_pass=True)
    assert fresh.previous is None
    assert fresh.mean_square() == pytest.approx((0.25 + 0.25 + 4.0) / 3.0)


def test_a_stream_step_discounts_the_pass_weight_and_the_residual_scale():
    """With a forgetting factor lambda the pass weight is lambda times the previous one
    plus the batch's, and the loss of the next batch gets the discounted mean squared
    residual of the residuals at the anchors."""
    X1, X2, X3 = _planted(3, 20, 5), _planted(4, 10, 5), _planted(5, 8, 5)
    seen = []

    def loss_for(mean_square):
        seen.append(mean_square)
        return WelschLoss(kernel_width=2.0)

    fit = StreamingReweightedPCA.start(5, 2, np.random.default_rng(0))
    fit.step(X1, np.ones(20), None)
    first = fit.step(X2, np.ones(10), loss_for, forgetting_factor=0.5)
    second = fit.step(X3, np.ones(8), loss_for, forgetting_factor=0.5)
    assert fit.pass_weight == pytest.approx(0.25 * 20 + 0.5 * 10 + 8)
    sq1, sq2 = np.sum(first.residuals**2), np.sum(second.residuals**2)
    assert seen[-1] == pytest.approx((0.5 * sq1 + sq2) / (0.5 * 10 + 8), rel=1e-12)


def test_reservoir_keeps_every_row_with_the_same_probability():
    """Vitter's Algorithm R: after n rows into a reservoir of c, every row is held with
    probability c / n (the j-th row enters with probability c / j, a later row replaces
    an earlier one drawn to the same slot); 4,000 streams of 6 rows into 2 slots."""
    X = np.arange(6.0)[:, None]
    counts = np.zeros(6)
    rng = np.random.default_rng(0)
    for _ in range(4000):
        sample = ReferenceSample.empty(2, 1).update(X, np.ones(6), rng)
        counts[sample.rows[:, 0].astype(int)] += 1
    share = counts / 4000
    se = np.sqrt((1 / 3) * (2 / 3) / 4000)
    assert np.all(np.abs(share - 1 / 3) < 5 * se)


def test_reservoir_discounts_the_rows_seen():
    """With a forgetting factor the count of rows seen is discounted as the statistics
    are, so that recent rows enter more often."""
    X = np.zeros((10, 2))
    rng = np.random.default_rng(0)
    sample = ReferenceSample.empty(4, 2).update(X, np.ones(10), rng)
    sample = sample.update(X, np.ones(10), rng, forgetting_factor=0.5)
    assert sample.seen == pytest.approx(0.5 * 10 + 10)


def test_rows_of_weight_zero_take_no_place_in_the_reference_sample():
    """A row of weight 0 is as no row: 1,200 of them and 500 weighted rows leave all 500
    in the diagnostics' sample (below its 1,000 rows), so the stream's outlier
    diagnostics are those of the batch fit of the 500 rows."""
    X = _planted(6, 1700, 5)
    w = np.r_[np.zeros(1200), np.ones(500)]
    stream = rp.PCA(2).partial_fit(X, sample_weight=w)
    batch = rp.PCA(2).fit(X[1200:])
    Y = _planted(7, 20, 5)
    np.testing.assert_allclose(
        stream.decision_function(Y), batch.decision_function(Y), rtol=1e-8, atol=1e-10
    )


def test_a_batch_whose_every_row_is_fitted_exactly_is_still_merged():
    """Rows with at most k observed coordinates get weight 0 unless every row of the
    batch would: here every row has k = 2 observed entries, keeps weight 1, and its
    completion (the point of the current plane through its observed entries) moves the
    mean."""
    rng = np.random.default_rng(0)
    X1 = rng.normal(size=(20, 5)) * [3.0, 2.0, 1.0, 0.5, 0.5]
    model = rp.PCA(2).partial_fit(X1)
    mean, U = model.mean_.copy(), model.components_.copy()
    X2 = 4.0 * rng.normal(size=(3, 5)) + 2.0
    X2[:, 2:] = np.nan
    model.partial_fit(X2)
    completed = [mean + np.linalg.solve(U[:, :2].T, x[:2] - mean[:2]) @ U for x in X2]
    np.testing.assert_allclose(model.mean_, (20 * mean + np.sum(completed, axis=0)) / 23)


@pytest.mark.parametrize("name", ["HQPCA", "OptimalMeanPCA"])
def test_frequency_weights_of_a_later_batch_equal_repeated_rows(name):
    """A later batch with whole sample weights is the batch with its rows repeated: the
    same fit, and the same objective (the sum of the weighted losses)."""
    X1, X2 = _planted(8, 30, 6), _planted(9, 12, 6, shift=1.0)
    w = np.random.default_rng(0).integers(1, 4, size=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = getattr(rp, name)(2, random_state=0).partial_fit(X1)
        weighted.partial_fit(X2, sample_weight=w.astype(float))
        repeated = getattr(rp, name)(2, random_state=0).partial_fit(X1)
        repeated.partial_fit(np.repeat(X2, w, axis=0))
    np.testing.assert_allclose(weighted.objective_history_, repeated.objective_history_, rtol=1e-10)
    np.testing.assert_allclose(weighted.mean_, repeated.mean_, atol=1e-10)


def test_epsilon_of_a_weighted_first_batch_equals_repeated_rows():
    """``epsilon_`` is 1e-12 times the weighted mean squared distance of the first
    batch to its weighted mean: whole weights equal repeated rows."""
    X = _planted(10, 25, 6, shift=3.0)
    w = np.random.default_rng(1).integers(1, 5, size=25)
    weighted = rp.OptimalMeanPCA(2, random_state=0).partial_fit(X, sample_weight=w.astype(float))
    repeated = rp.OptimalMeanPCA(2, random_state=0).partial_fit(np.repeat(X, w, axis=0))
    np.testing.assert_allclose(weighted.epsilon_, repeated.epsilon_, rtol=1e-12)


def test_hq_stream_weights_are_the_auxiliary_variables():
    """HQ-PCA's ``weights_`` are its auxiliary variables g(r) = exp(-r^2 / (2 sigma^2))
    in [0, 1], as the batch fit reports them, not the loss's h'(r^2) = g / 2."""
    X = _planted(11, 80, 6)
    model = rp.HQPCA(2, kernel_width=1.5, random_state=0).partial_fit(X[:40])
    model.partial_fit(X[40:])
    expected = np.exp(-(model.residuals_**2) / (2 * 1.5**2))
    np.testing.assert_allclose(model.weights_, expected, rtol=1e-12)


def test_a_batch_whose_weighted_rows_all_have_loss_weight_zero_warns():
    """The rows with a nonzero loss weight have sample weight 0 and the others lie so
    far off the fit that the Welsch weight underflows to 0: the batch leaves the fit
    unchanged, which the warning says."""
    X1 = _planted(12, 40, 5)
    model = rp.HQPCA(2, kernel_width=0.5, random_state=0).partial_fit(X1)
    X2 = np.vstack([X1[:1], 1e3 * np.ones((3, 5))])
    with pytest.warns(UserWarning, match="weight zero"):
        model.partial_fit(X2, sample_weight=np.array([0.0, 1.0, 1.0, 1.0]))
