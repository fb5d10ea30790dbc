"""Lifecycle audit: sample weights of zero, parameters changed between ``partial_fit``
calls, the weights of a stream's first batch, all-zero training data and all-zero
weight batches.

* a row of weight 0 is the row dropped: also for ``offset_`` of a float
  ``contamination``, in memory and on Dask (every route of the offset);
* ``partial_fit`` validates the parameters on every call, and refuses an
  ``n_components`` changed mid-stream (as scikit-learn's ``IncrementalPCA``);
* the weights of a stream's first batch weigh its start (weight 0: the row dropped,
  weight 2: the row twice);
* a fit on all-zero data scores every row finitely, and still flags rows off it;
* a batch whose weights are all zero only discounts a stream that has a fit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import robustpca
from robustpca import HQPCA, PCA, OptimalMeanPCA
from robustpca.estimators._outlier_api import contamination_offset
from robustpca.solvers import chunked_reference
from robustpca.solvers.chunked import NumpyPassRunner

INCREMENTAL = [PCA, OptimalMeanPCA, HQPCA]
STREAMING = [*INCREMENTAL, robustpca.OnlineRobustPCA, robustpca.GRASTA]


def weighted_data(n=40, d=5, seed=13):
    """Rows with a spread of scores, the last four far out (to be given weight 0)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.linspace(3.0, 1.0, d)
    X[-4:] += 25.0
    w = np.ones(n)
    w[-4:] = 0.0
    return X, w


def interleaved(n, d, seed):
    """Gaussian rows, every third of weight 0: some sit next to the offset's cut."""
    X = np.random.default_rng(seed).normal(size=(n, d))
    w = np.ones(n)
    w[1::3] = 0.0
    return X, w


# ---------------------------------------------------------------- 1. zero weights
@pytest.mark.parametrize("share", [0.25, 0.5])
def test_zero_weight_rows_do_not_move_the_offset_in_memory(share):
    for seed in range(6):
        X, w = interleaved(12, 3, seed)
        weighted = PCA(1, contamination=share).fit(X, sample_weight=w)
        dropped = PCA(1, contamination=share).fit(X[w > 0])
        np.testing.assert_allclose(weighted.score_samples(X), dropped.score_samples(X))
        assert weighted.offset_ == pytest.approx(dropped.offset_, rel=1e-12)
        np.testing.assert_array_equal(weighted.predict(X), dropped.predict(X))


def test_contamination_offset_treats_weight_zero_as_no_row():
    s = -np.arange(20.0)[::-1]  # sorted; every other row of weight 0
    w = np.tile([1.0, 0.0], 10)
    assert contamination_offset(np.array([-4.0, -3, -2, -1]), 1 / 3, [1, 0, 1, 1]) == -3.0
    for share in (0.1, 0.2, 0.3, 0.5):
        assert contamination_offset(s, share, w) == contamination_offset(s[w > 0], share, w[w > 0])


def _exact_offset(values, w, share, monkeypatch, counting):
    """The offset of ``exact_statistics`` over chunks of 7 rows (``counting``: by the
    counting pass over pilot bins, whose windows hold rows of weight 0)."""
    if counting:
        monkeypatch.setattr(chunked_reference, "SMALL_ROWS", 0)
    run = NumpyPassRunner(values[:, None], chunk_rows=7)

    def column(x, rows):
        return x[:, :1], (np.ones(x.shape[0]) if rows is None else rows)[:, None]

    pilot = (values[::5, None], None) if counting else None
    (offset,), _, _ = chunked_reference.exact_statistics(
        run, w, column, ["offset"], values.size, pilot=pilot, share=share
    )
    return offset


@pytest.mark.parametrize("counting", [False, True])
def test_offset_from_windows_ignores_zero_weight_values(counting, monkeypatch):
    s = -np.random.default_rng(3).permutation(60).astype(float)
    w = np.where(s % 2 == 0, 1.0, 0.0)  # every other value, in sorted order
    for share in (0.1, 0.3, 0.5):
        got = _exact_offset(s, w, share, monkeypatch, counting)
        assert got == contamination_offset(s[w > 0], share, w[w > 0])


@pytest.mark.parametrize("shape", [(12, 3), (9, 12)])  # the tall and the wide route
def test_zero_weight_rows_do_not_move_the_offset_on_dask(shape):
    da = pytest.importorskip("dask.array")
    n, d = shape
    for seed in range(6):
        X, w = interleaved(n, d, seed)
        dropped = PCA(1, contamination=0.5).fit(X[w > 0])
        lazy = PCA(1, contamination=0.5).fit(
            da.from_array(X, chunks=(3, d)), sample_weight=da.from_array(w, chunks=3)
        )
        assert lazy.offset_ == pytest.approx(dropped.offset_, rel=1e-9)
        np.testing.assert_array_equal(lazy.predict(X), dropped.predict(X))


# ------------------------------------------------------- 2. parameters mid-stream
@pytest.mark.parametrize("Est", STREAMING)
def test_partial_fit_validates_contamination_on_every_batch(Est):
    rng = np.random.default_rng(0)
    X1, X2 = rng.normal(size=(30, 6)), rng.normal(size=(30, 6))
    model = Est(n_components=2).partial_fit(X1)
    model.set_params(contamination=2.0)
    with pytest.raises(ValueError, match="contamination"):
        model.partial_fit(X2)
    with pytest.raises(ValueError, match="contamination"):  # the first batch as well
        Est(n_components=2, contamination=2.0).partial_fit(X1)
    model.set_params(contamination=0.1).partial_fit(X2)  # a valid value goes on
    assert np.mean(model.predict(X2) == -1) < 0.5


@pytest.mark.parametrize("Est", STREAMING)
def test_partial_fit_refuses_n_components_changed_mid_stream(Est):
    rng = np.random.default_rng(1)
    X1, X2 = rng.normal(size=(30, 6)), rng.normal(size=(30, 6))
    model = Est(n_components=2).partial_fit(X1).set_params(n_components=3)
    with pytest.raises(ValueError, match="n_components has changed from 2 to 3"):
        model.partial_fit(X2)
    model.set_params(n_components=None).partial_fit(X2)  # None keeps it (IncrementalPCA)
    assert model.n_components_ == 2 and model.components_.shape == (2, 6)
    refit = Est(n_components=3).fit(X1)  # fit starts again with the new value
    assert refit.n_components_ == 3


# ------------------------------------------------------- 3. weights at the start
@pytest.mark.parametrize("Est", INCREMENTAL)
def test_partial_fit_weighs_the_first_batch(Est):
    X, w = weighted_data(n=40)
    zero = Est(n_components=2, random_state=0).partial_fit(X, sample_weight=w)
    dropped = Est(n_components=2, random_state=0).partial_fit(X[w > 0])
    np.testing.assert_allclose(zero.mean_, dropped.mean_, atol=1e-10)
    np.testing.assert_allclose(np.abs(zero.components_), np.abs(dropped.components_), atol=1e-9)
    twice = np.ones(40)
    twice[:6] = 2.0
    doubled = Est(n_components=2, random_state=0).partial_fit(X, sample_weight=twice)
    repeated = Est(n_components=2, random_state=0).partial_fit(np.vstack([X, X[:6]]))
    np.testing.assert_allclose(doubled.mean_, repeated.mean_, atol=1e-10)
    np.testing.assert_allclose(np.abs(doubled.components_), np.abs(repeated.components_), atol=1e-9)


# ------------------------------------------------ 4. all-zero training data
@pytest.mark.parametrize(
    "Est", [PCA, robustpca.ROBPCA, robustpca.PrincipalComponentPursuit, robustpca.GRASTA]
)
def test_fit_on_zeros_scores_rows_off_it_finitely(Est):
    new = np.array([[1.0, 0, 0, 0], [1e3, 0, 0, 0], [0.0, 0, 0, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow either
        model = Est(n_components=1).fit(np.zeros((12, 4)))
        scores = model.score_samples(new)
        decision = model.decision_function(new)
        labels = model.predict(new)
        diag = robustpca.diagnostics.outlier_diagnostics(model, new)
    assert np.all(np.isfinite(scores)) and np.all(np.isfinite(decision))
    assert np.all(np.isfinite(diag.outlyingness)) and np.all(np.isfinite(diag.normal_outlyingness))
    np.testing.assert_array_equal(diag.outliers, [True, True, False])
    assert decision[0] < 0 and decision[1] < 0 and decision[2] >= 0
    np.testing.assert_array_equal(labels, [-1, -1, 1])


def test_fit_on_zeros_scores_finitely_in_float32_and_on_dask():
    da = pytest.importorskip("dask.array")
    new = np.array([[1e3, 0, 0, 0], [0.0, 0, 0, 0]])
    model = PCA(1).fit(np.zeros((12, 4), dtype=np.float32))
    assert np.all(np.isfinite(model.score_samples(new.astype(np.float32))))
    lazy = PCA(1, contamination=0.1).fit(da.from_array(np.zeros((12, 4)), chunks=(4, 4)))
    scores = lazy.score_samples(da.from_array(new, chunks=(1, 4))).compute()
    assert np.all(np.isfinite(scores)) and np.isfinite(lazy.offset_)
    np.testing.assert_array_equal(lazy.predict(new), [-1, 1])


# ------------------------------------------------ 5. batches of zero weight
@pytest.mark.parametrize("Est", INCREMENTAL)
def test_all_zero_weight_batch_only_discounts(Est):
    rng = np.random.default_rng(2)
    X, X2 = rng.normal(size=(40, 5)) * [4, 2, 1, 1, 1], rng.normal(size=(30, 5))
    model = Est(n_components=2, random_state=0, contamination=0.1).partial_fit(X)
    before = {k: np.copy(getattr(model, k)) for k in ("mean_", "components_", "offset_")}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "every sample has weight zero" warning
        model.partial_fit(X2, sample_weight=np.zeros(30))
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    assert model.n_samples_seen_ == 70
    # with forgetting: the zero batch discounts, as a forgetting factor on the next one
    a = Est(n_components=2, random_state=0).partial_fit(X)
    a.partial_fit(X2, sample_weight=np.zeros(30), forgetting_factor=0.5)
    a.partial_fit(X2[:20])
    b = Est(n_components=2, random_state=0).partial_fit(X)
    b.partial_fit(X2[:20], forgetting_factor=0.5)
    np.testing.assert_allclose(a.mean_, b.mean_, atol=1e-10)
    np.testing.assert_allclose(np.abs(a.components_), np.abs(b.components_), atol=1e-9)


@pytest.mark.parametrize("Est", INCREMENTAL)
def test_all_zero_weight_batch_cannot_start_a_stream_or_a_pass(Est):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 5))
    fresh = Est(n_components=2)
    with pytest.raises(ValueError, match="sample_weight"):
        fresh.partial_fit(X, sample_weight=np.zeros(30))
    with pytest.raises(NotFittedError):  # nothing was fitted
        fresh.predict(X)
    model = Est(n_components=2).partial_fit(X)
    with pytest.raises(ValueError, match="sample_weight"):
        model.partial_fit(X, sample_weight=np.zeros(30), new_pass=True)


@pytest.mark.parametrize("Est", STREAMING[3:], ids=lambda c: c.__name__)
def test_decompose_leaves_the_model_as_it_was(Est):
    """``decompose`` does not update the model, not even the flags of the last batch's
    gaps, which ``partial_fit`` reads after validating its batch: a reader in another
    thread must not reset them (the NaN of that batch then reached the state)."""
    import pickle

    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 2)) @ rng.normal(size=(2, 20)) + 0.1 * rng.normal(size=(120, 20))
    gapped = X[60:80].copy()
    gapped[::3, ::4] = np.nan
    model = Est(2, burn_in=40, batch_size=20, random_state=0).partial_fit(X[:60])
    model.partial_fit(gapped)
    before = pickle.dumps(model)
    model.decompose(X[80:100])  # a batch without gaps
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("Est", STREAMING, ids=lambda c: c.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("checkpoint", [1, 4], ids=["in the burn-in", "after it"])
def test_a_stream_resumed_from_a_pickle_is_the_uninterrupted_stream(Est, dtype, checkpoint):
    """A model pickled between two batches (a checkpoint), loaded and fed the rest of
    the stream ends where the uninterrupted stream ends, bit for bit: its state, random
    generator and burn-in travel with it."""
    import pickle

    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2)) @ rng.normal(size=(2, 12)) + 0.1 * rng.normal(size=(200, 12))
    X[rng.random(X.shape) < 0.03] += 8.0
    X = X.astype(dtype)
    params = {"burn_in": 60} if Est in STREAMING[3:] else {}
    whole = Est(2, random_state=0, **params)
    part = Est(2, random_state=0, **params)
    batches = [X[start : start + 20] for start in range(0, 200, 20)]
    for i, batch in enumerate(batches):
        whole.partial_fit(batch)
        part.partial_fit(batch)
        if i == checkpoint:
            part = pickle.loads(pickle.dumps(part))
    Q = X[:30] + 1.0
    np.testing.assert_array_equal(part.components_, whole.components_)
    np.testing.assert_array_equal(part.mean_, whole.mean_)
    np.testing.assert_array_equal(part.decision_function(Q), whole.decision_function(Q))
    np.testing.assert_array_equal(part.objective_history_, whole.objective_history_)
    assert part.n_samples_seen_ == whole.n_samples_seen_ == 200
