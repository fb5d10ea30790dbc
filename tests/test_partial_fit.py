"""partial_fit: PCA exact over batches, the reweighting estimators as stochastic MM.

The guarantees tested: PCA over any split equals fit to rounding (sample weights, tall
and wide data); each later pass of a reweighting estimator with ``new_pass=True`` is
one iteration of the batch Algorithm 2 from the fit at its start (so the objective
never increases from pass to pass, and the passes approach the batch fit); planted
subspaces are recovered through outliers; the outlier API works after every call.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from robustpca import HQPCA, PCA, OptimalMeanPCA
from robustpca.losses import L21Loss, WelschLoss
from robustpca.metrics import projector_distance
from robustpca.solvers import solve_weighted_pca
from robustpca.solvers.incremental import (
    ReferenceSample,
    ScatterStatistics,
    residual_norms,
)

from .conftest import SEEDS, occluded_faces, planted_outlier_data


def projector_gap(A, B) -> float:
    """Largest entry of ``A^T A - B^T B`` (the brief's exactness measure)."""
    return float(np.abs(A.T @ A - B.T @ B).max())


def stream(model, X, n_batches, n_passes=1, *, new_pass_first=False, **kwargs):
    """``model`` fitted by ``n_passes`` passes over ``X`` in ``n_batches`` batches, with
    ``new_pass=True`` at the start of each later pass (and of the first, with
    ``new_pass_first``). Returns the fits' components after each pass."""
    parts = np.array_split(np.arange(X.shape[0]), n_batches)
    after = []
    for p in range(n_passes):
        for i, rows in enumerate(parts):
            model.partial_fit(X[rows], new_pass=(p > 0 or new_pass_first) and i == 0, **kwargs)
        after.append(model.components_.copy())
    return after


def splits(n):
    """Hypothesis: sorted cut points of ``range(n)`` (every batch at least one row)."""
    return st.lists(st.integers(1, n - 1), max_size=6, unique=True).map(sorted)


def _split_fit(model, X, cuts, w=None):
    bounds = [0, *cuts, X.shape[0]]
    for a, b in itertools.pairwise(bounds):
        model.partial_fit(X[a:b], sample_weight=None if w is None else w[a:b])
    return model


# -- PCA: exact ----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("n", "d"), [(60, 8), (15, 40)], ids=["tall", "wide"])
@settings(max_examples=50)
@given(seed=SEEDS, data=st.data())
def test_pca_partial_fit_equals_fit(n, d, seed, data):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.linspace(1.0, 4.0, d) + 5.0
    w = rng.random(n) + 0.1 if data.draw(st.booleans()) else None
    cuts = data.draw(splits(n))
    k = 3
    full = PCA(k, random_state=0).fit(X, sample_weight=w)
    X0, w0 = X.copy(), None if w is None else w.copy()
    part = _split_fit(PCA(k, random_state=0), X, cuts, w)
    np.testing.assert_array_equal(X, X0)  # inputs never modified
    if w is not None:
        np.testing.assert_array_equal(w, w0)
    assert projector_gap(part.components_, full.components_) < 1e-10
    np.testing.assert_allclose(part.mean_, full.mean_, rtol=0, atol=1e-10 * np.abs(X).max())
    np.testing.assert_allclose(part.explained_variance_, full.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(
        part.explained_variance_ratio_, full.explained_variance_ratio_, rtol=1e-10
    )
    np.testing.assert_allclose(part.objective_history_, full.objective_history_, rtol=1e-8)
    assert part.n_samples_seen_ == n and part.n_features_in_ == d
    assert part.n_components_ == k


def test_pca_outlier_api_after_partial_fit_equals_fit():
    """While the rows seen fit in the reference sample, predict and decision_function
    after partial_fit are those of fit (the reference statistics are recomputed at the
    current fit after every call)."""
    X, _, _ = planted_outlier_data(1, n_samples=150, n_features=12)
    full = PCA(3).fit(X)
    part = _split_fit(PCA(3), X, [40, 90])
    np.testing.assert_array_equal(part.predict(X), full.predict(X))
    np.testing.assert_allclose(part.decision_function(X), full.decision_function(X), atol=1e-9)
    assert (full.predict(X) == -1).any()


def test_outlier_reference_follows_the_fit():
    """The training cutoffs are those of the current fit after every call, never a
    stale one: after the first batch they are those of a fit of that batch."""
    X, _, _ = planted_outlier_data(2, n_samples=200, n_features=10)
    model = PCA(2).partial_fit(X[:80])
    alone = PCA(2).fit(X[:80])
    np.testing.assert_allclose(model.decision_function(X), alone.decision_function(X), atol=1e-9)
    model.partial_fit(X[80:])
    np.testing.assert_allclose(
        model.decision_function(X), PCA(2).fit(X).decision_function(X), atol=1e-9
    )


def test_pca_passes_and_forgetting():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 6)) * [5, 4, 3, 1, 1, 1]
    full = PCA(2).fit(X)
    # a second pass restarts the statistics: at its end, PCA of the data again
    (_, second) = stream(PCA(2), X, 3, n_passes=2)
    assert projector_gap(second, full.components_) < 1e-10
    # forgetting_factor=0 keeps only the batch
    model = PCA(2).partial_fit(X[:45]).partial_fit(X[45:], forgetting_factor=0.0)
    assert projector_gap(model.components_, PCA(2).fit(X[45:]).components_) < 1e-10


def test_forgetting_factor_tracks_a_drifting_subspace():
    """Data from one plane, then another: with forgetting the fit follows the new
    plane; without, it keeps the old one in its statistics."""
    rng = np.random.default_rng(4)
    A, B = np.linalg.qr(rng.normal(size=(20, 4)))[0].T.reshape(2, 2, 20)

    def batch(plane):
        return rng.normal(size=(30, 2)) * [3.0, 2.0] @ plane + 0.05 * rng.normal(size=(30, 20))

    keep, forget = PCA(2), PCA(2)
    for plane in [A] * 10 + [B] * 10:
        Xb = batch(plane)
        keep.partial_fit(Xb)
        forget.partial_fit(Xb, forgetting_factor=0.7)
    assert projector_distance(forget.components_, B) < 0.05
    assert projector_distance(keep.components_, B) > 1.0


def test_robust_stream_with_forgetting_follows_drift_through_outliers():
    """OptimalMeanPCA with a forgetting factor: the plane changes halfway and 10% of
    every batch are gross outliers; the fit ends on the new plane, while without
    forgetting the robust fit keeps the old one (the new plane's samples are its
    outliers)."""
    rng = np.random.default_rng(14)
    A, B = np.linalg.qr(rng.normal(size=(15, 4)))[0].T.reshape(2, 2, 15)
    forget, keep = OptimalMeanPCA(2, random_state=0), OptimalMeanPCA(2, random_state=0)
    for plane in [A] * 8 + [B] * 8:
        Xb = rng.normal(size=(50, 2)) * [3.0, 2.0] @ plane + 0.05 * rng.normal(size=(50, 15))
        Xb[:5] = 10.0 * rng.normal(size=(5, 15))
        forget.partial_fit(Xb, forgetting_factor=0.3)
        keep.partial_fit(Xb)
    assert projector_distance(forget.components_, B) < 0.1
    assert projector_distance(keep.components_, B) > 1.5


def test_fit_after_partial_fit_starts_afresh():
    X, _, _ = planted_outlier_data(5, n_samples=100, n_features=8)
    model = PCA(2).partial_fit(X[:50])
    model.fit(X[50:])
    assert model.n_samples_seen_ == 50
    model.partial_fit(X[:50])  # a new stream, not the fit continued
    assert projector_gap(model.components_, PCA(2).fit(X[:50]).components_) < 1e-10
    assert model.n_samples_seen_ == 50


def test_float32_batches_give_float32_attributes():
    X = np.random.default_rng(6).normal(size=(40, 5)).astype(np.float32)
    model = _split_fit(PCA(2), X, [20])
    assert model.components_.dtype == np.float32 and model.mean_.dtype == np.float32
    assert projector_gap(model.components_, PCA(2).fit(X).components_) < 1e-5


def test_n_components_none_is_that_of_the_first_batch():
    X = np.random.default_rng(7).normal(size=(30, 10))
    assert PCA().partial_fit(X[:4]).partial_fit(X[4:]).n_components_ == 4


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("estimator", [PCA(2), OptimalMeanPCA(2), HQPCA(2)], ids=repr)
def test_bad_batches_raise(estimator):
    X = np.random.default_rng(8).normal(size=(30, 5))
    model = clone(estimator).partial_fit(X[:15])
    with pytest.raises(ValueError, match="X has 4 features"):
        model.partial_fit(X[15:, :4])
    bad = X[15:].copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.partial_fit(bad)
    bad[0] = np.nan  # NaN is a missing entry, but a row needs one observed
    with pytest.raises(ValueError, match="no observed entry"):
        model.partial_fit(bad)
    for value, error in [(1.5, ValueError), (-0.1, ValueError), ("a", TypeError)]:
        with pytest.raises(error, match="forgetting_factor"):
            model.partial_fit(X[15:], forgetting_factor=value)
    with pytest.raises(TypeError, match="new_pass"):
        model.partial_fit(X[15:], new_pass="yes")
    with pytest.raises(ValueError, match="sample_weight"):
        model.partial_fit(X[15:], sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="n_components"):
        clone(estimator).set_params(n_components=6).partial_fit(X)
    assert model.n_samples_seen_ == 15  # the refused batches left the fit as it was


def test_variance_share_has_no_partial_fit():
    """A share or 'auto' is chosen on all the data: scikit-learn's convention is then no
    partial_fit at all (available_if, as MLPClassifier with solver='lbfgs')."""
    X = np.random.default_rng(9).normal(size=(30, 5))
    for spec in (0.9, "auto"):
        assert not hasattr(PCA(spec), "partial_fit")
        with pytest.raises(AttributeError, match="partial_fit") as info:
            PCA(spec).partial_fit(X)
        # the reason, as scikit-learn's available_if chains it (or gives it directly)
        reason = str(info.value.__cause__ or info.value)
        assert "partial_fit needs an int or None" in reason
    assert hasattr(PCA(3), "partial_fit") and hasattr(PCA(), "partial_fit")


def test_dask_batches_are_refused():
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match="in-memory batch"):
        PCA(2).partial_fit(da.ones((10, 4), chunks=5))


# -- reweighting estimators: stochastic MM -------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_optimal_mean_three_passes_reach_the_batch_fit(seed):
    """A stationary stream with 15% planted outliers: after three passes the stream is
    within 1e-2 of the batch fit (projector distance), closer than after one, and it
    recovers the planted subspace as well as the batch fit does."""
    X, basis, _ = planted_outlier_data(seed, n_samples=1000, n_features=30)
    batch = OptimalMeanPCA(3, random_state=0).fit(X)
    X0 = X.copy()
    after = stream(OptimalMeanPCA(3, random_state=0), X, 10, n_passes=3)
    np.testing.assert_array_equal(X, X0)
    gaps = [projector_distance(c, batch.components_) for c in after]
    assert gaps[2] < 1e-2
    assert gaps[2] < gaps[0]
    truth = projector_distance(after[2], basis.T)
    assert truth < projector_distance(batch.components_, basis.T) + 1e-2
    assert truth < 0.2 < projector_distance(PCA(3).fit(X).components_, basis.T)


def _batch_iteration(X, mean, components, loss):
    """One iteration of the batch Algorithm 2 from ``(mean, components)``: weighted PCA
    of all of ``X`` with the loss's weights there."""
    w = loss.weights(residual_norms(X, mean, components))
    k = components.shape[0]
    return solve_weighted_pca(X, k, w, rng=np.random.default_rng(0))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("estimator", "loss"),
    [
        (OptimalMeanPCA(2, epsilon=1e-9), L21Loss(epsilon=1e-9)),
        (HQPCA(2, kernel_width=2.0), WelschLoss(kernel_width=2.0)),
    ],
    ids=["OptimalMeanPCA", "HQPCA"],
)
@settings(max_examples=20)
@given(seed=SEEDS)
def test_a_later_pass_is_one_batch_iteration(estimator, loss, seed):
    """The convergence statement: with ``new_pass``, the fit at the end of a pass is
    T(fit at its start), T the batch Algorithm 2's iteration, to rounding. So the
    objective over all the data never increases from pass to pass (Theorem 1)."""
    X, _, _ = planted_outlier_data(seed % 1000, n_samples=120, n_features=6, n_components=2)
    model = clone(estimator)
    stream(model, X, 4)
    objective = [loss.rho(residual_norms(X, model.mean_, model.components_)).sum()]
    for _ in range(2):
        start = (model.mean_.copy(), model.components_.copy())
        parts = np.array_split(np.arange(X.shape[0]), 4)
        for i, rows in enumerate(parts):
            model.partial_fit(X[rows], new_pass=i == 0)
        expected = _batch_iteration(X, *start, loss)
        assert projector_gap(model.components_, expected.components) < 1e-9
        scale = np.abs(X).max()
        np.testing.assert_allclose(model.mean_, expected.mean, rtol=0, atol=1e-9 * scale)
        objective.append(loss.rho(residual_norms(X, model.mean_, model.components_)).sum())
    assert objective[2] <= objective[1] * (1 + 1e-12)


def test_hq_passes_approach_the_batch_fit():
    """HQ-PCA with He et al.'s adaptive kernel width (each pass takes the previous
    pass's): the passes approach the batch fit."""
    X, basis, _ = planted_outlier_data(3, n_samples=600, n_features=20, outlier_fraction=0.1)
    batch = HQPCA(3, random_state=0).fit(X)
    after = stream(HQPCA(3, random_state=0), X, 6, n_passes=3)
    gaps = [projector_distance(c, batch.components_) for c in after]
    assert gaps[2] < 1e-2 and gaps[2] < gaps[0]
    assert projector_distance(after[2], basis.T) < 0.2


def test_single_pass_stream_is_robust():
    """Seen once (no new_pass), the stochastic MM fit already resists the outliers that
    break PCA, and its attributes describe the last batch."""
    X, basis, inliers = planted_outlier_data(4, n_samples=800, n_features=25)
    model = OptimalMeanPCA(3)
    stream(model, X, 8)
    assert projector_distance(model.components_, basis.T) < 0.2
    assert model.n_samples_seen_ == 800 and model.n_iter_ == 8 and not model.converged_
    assert model.weights_.shape == model.residuals_.shape == (100,)
    assert model.objective_history_.shape == (8,) and np.isfinite(model.objective_history_).all()
    last = inliers[700:]
    assert np.median(model.weights_[~last]) < np.median(model.weights_[last])
    flags = model.predict(X) == -1
    assert flags[~inliers].mean() > 0.9 and flags[inliers].mean() < 0.1


def test_tiny_first_batch_of_a_reweighting_estimator():
    """A first batch of at most k rows still gives finite attributes."""
    X, _, _ = planted_outlier_data(6, n_samples=60, n_features=8)
    model = OptimalMeanPCA(3).partial_fit(X[:2])
    assert np.isfinite(model.weights_).all() and np.isfinite(model.objective_history_).all()
    model.partial_fit(X[2:])
    assert np.isfinite(model.components_).all()


def test_batches_with_every_weight_zero_warn_and_leave_the_fit():
    X = np.random.default_rng(11).normal(size=(60, 5))
    model = OptimalMeanPCA(2, loss="capped", threshold=1e-9)
    with pytest.warns(UserWarning, match="weight zero"):
        model.partial_fit(X[:30])
    before = model.components_.copy()
    with pytest.warns(UserWarning, match="weight zero"):
        model.partial_fit(X[30:])
    np.testing.assert_array_equal(model.components_, before)
    assert np.isfinite(model.decision_function(X)).all()


@pytest.mark.parametrize("estimator", [PCA(1), OptimalMeanPCA(1), HQPCA(1)], ids=repr)
@pytest.mark.parametrize("case", ["one row", "constant", "k = d"])
def test_degenerate_batches_give_no_nan(estimator, case):
    X = np.random.default_rng(12).normal(size=(20, 4))
    data = {"one row": X[:1], "constant": np.ones((10, 4)), "k = d": X}[case]
    model = clone(estimator).set_params(n_components=4 if case == "k = d" else 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zero residuals, zero variance
        model.partial_fit(data).partial_fit(data)
    fitted = [getattr(model, name) for name in vars(model) if name.endswith("_")]
    arrays = [np.asarray(v) for v in fitted if isinstance(v, np.ndarray)]
    arrays += [model.decision_function(X), model.transform(X)]
    assert all(np.isfinite(a).all() for a in arrays if a.dtype.kind == "f")
    k = model.n_components_
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(k), atol=1e-12)


@pytest.mark.parametrize("estimator", [PCA(2), OptimalMeanPCA(2), HQPCA(2)], ids=repr)
def test_partial_fit_sets_the_attributes_of_fit(estimator):
    X, _, _ = planted_outlier_data(13, n_samples=80, n_features=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = clone(estimator).fit(X)
    streamed = _split_fit(clone(estimator), X, [40])
    names = {n for n in vars(fitted) if n.endswith("_") and not n.startswith("_")}
    assert names <= set(vars(streamed))
    assert streamed.n_samples_seen_ == fitted.n_samples_seen_ == 80


# -- the statistics ------------------------------------------------------------------------


@given(seed=SEEDS, data=st.data())
def test_statistics_merge_exactly_in_either_form(seed, data):
    """Merging the statistics of any split gives those of the whole, whether held as a
    factor (fewer rows than features) or as the d x d scatter."""
    rng = np.random.default_rng(seed)
    n, d = data.draw(st.sampled_from([(12, 30), (40, 5)]))
    X, w = rng.normal(size=(n, d)) + 3.0, rng.random(n)
    cuts = data.draw(splits(n))
    bounds = [0, *cuts, n]
    merged = ScatterStatistics.empty(d)
    for a, b in itertools.pairwise(bounds):
        merged = merged.update(X[a:b], w[a:b])
    mean = w @ X / w.sum()
    S = (X - mean).T @ (w[:, None] * (X - mean))
    assert merged.weight == pytest.approx(w.sum())
    np.testing.assert_allclose(merged.mean, mean, atol=1e-12)
    np.testing.assert_allclose(merged.full_scatter(), S, atol=1e-10 * np.abs(S).max())
    assert merged.n_rows <= d


def test_reference_sample_keeps_every_row_then_a_uniform_sample():
    rng = np.random.default_rng(10)
    sample = ReferenceSample.empty(50, 2)
    X = np.arange(200.0).repeat(2).reshape(200, 2)
    sample = sample.update(X[:30], np.ones(30), rng)
    np.testing.assert_array_equal(sample.rows, X[:30])  # all rows while they fit
    counts = np.zeros(200)
    for trial in range(200):
        s, trial_rng = ReferenceSample.empty(50, 2), np.random.default_rng(trial)
        for rows in np.array_split(np.arange(200), 7):
            s = s.update(X[rows], np.ones(rows.size), trial_rng)
        assert s.rows.shape == (50, 2)
        counts[s.rows[:, 0].astype(int)] += 1
    # every row kept with probability 50/200: early and late rows alike
    assert abs(counts[:100].mean() - counts[100:].mean()) < 0.1 * 50
    assert counts.mean() == pytest.approx(50.0)


def test_reference_sample_forgets_every_held_row_at_forgetting_factor_zero():
    """A forgetting factor of 0 gives the rows held no weight: the sample is the new
    batch, also once it held a subsample (the new rows went to random slots, and old
    rows survived where two of them collided)."""
    X = np.arange(200.0).repeat(2).reshape(200, 2)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        sample = ReferenceSample.empty(10, 2).update(X[:150], np.ones(150), rng)
        assert not sample.exact
        sample = sample.update(X[150:160], np.ones(10), rng, forgetting_factor=0.0)
        np.testing.assert_array_equal(np.sort(sample.rows[:, 0]), X[150:160, 0])
        sample = sample.update(X[160:], np.ones(40), rng, forgetting_factor=0.0)
        assert sample.rows.shape == (10, 2) and np.all(sample.rows[:, 0] >= X[160, 0])


# -- real data -----------------------------------------------------------------------------


@pytest.mark.realdata
def test_faces_passes_approach_the_batch_fit(orl):
    """The occluded AT&T faces (400 x 1024, wide: the statistics stay a factor) in four
    batches: each pass of OptimalMeanPCA moves towards the batch fit, and PCA's stream
    equals PCA's fit."""
    X, _ = occluded_faces(orl)
    order = np.random.default_rng(0).permutation(X.shape[0])
    X = X[order]
    pca = stream(PCA(10), X, 4)[0]
    assert projector_gap(pca, PCA(10).fit(X).components_) < 1e-10
    batch = OptimalMeanPCA(10, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        after = stream(OptimalMeanPCA(10, random_state=0), X, 4, n_passes=4)
    gaps = [projector_distance(c, batch.components_) for c in after]
    assert all(b < a for a, b in itertools.pairwise(gaps)), gaps
    assert gaps[-1] < 0.5 * gaps[0]


@pytest.mark.parametrize("name", ["PCA", "OptimalMeanPCA", "HQPCA"])
def test_a_stream_stays_float64_once_it_saw_float64(name):
    """The fitted arrays took the dtype of the last batch: a float64 stream turned
    float32 after one float32 batch (scikit-learn's IncrementalPCA stays float64)."""
    import robustpca

    X = np.random.default_rng(0).standard_normal((60, 6))
    for first, second in ((X[:30], X[30:].astype(np.float32)), (X[:30].astype(np.float32), X[30:])):
        model = getattr(robustpca, name)(n_components=2).partial_fit(first).partial_fit(second)
        assert model.components_.dtype == np.float64
        assert model.transform(X).dtype == np.float64
    model = getattr(robustpca, name)(n_components=2)
    model.partial_fit(X[:30].astype(np.float32)).partial_fit(X[30:].astype(np.float32))
    assert model.components_.dtype == np.float32
