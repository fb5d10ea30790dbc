"""The diagnostics of a stream (estimators/_stream_reference.py): after partial_fit,
predict judges samples against the distances of the stream's latest rows; the window is
bounded, follows the subspace and seeds from fit; on real tables streamed in batches the
ranking is that of the batch fit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from robustpca import GRASTA, OnlineRobustPCA
from robustpca.estimators._stream_reference import (
    MIN_ROWS,
    WINDOW_ROWS,
    ReferenceWindow,
)

from .test_online_rpca import planted_stream

ONLINE = [OnlineRobustPCA, GRASTA]


def stream(model, X, batch):
    for start in range(0, X.shape[0], batch):
        model.partial_fit(X[start : start + batch])
    return model


@pytest.mark.slow
@pytest.mark.parametrize("cls", ONLINE)
def test_contamination_flags_its_share_of_the_latest_rows(cls):
    X = planted_stream(3, n=2400, frac=0.02)[0]
    model = stream(cls(2, contamination=0.1, random_state=0), X, 50)
    share = np.mean(model.predict(X[-WINDOW_ROWS:]) == -1)
    assert 0.05 < share < 0.15  # judged with the final model, not the one at arrival
    assert model.offset_ != -1.0


@pytest.mark.slow
@pytest.mark.parametrize("cls", ONLINE)
def test_the_window_is_bounded_and_holds_the_latest_rows(cls):
    X = planted_stream(4, n=3000, frac=0.0)[0]
    model = stream(cls(2, random_state=0), X, 64)
    window = model._window
    assert window.n_rows <= WINDOW_ROWS
    assert window.index.min() >= model.n_samples_seen_ - WINDOW_ROWS
    assert window.index.max() == model.n_samples_seen_ - 1


def test_fit_seeds_the_window_and_partial_fit_continues():
    X = planted_stream(5, n=1500, frac=0.0)[0]
    model = OnlineRobustPCA(2, random_state=0).fit(X[:1200])
    assert model._window.n_rows == WINDOW_ROWS
    assert model._window.index.max() == 1199
    fitted_reference = model._outlier_reference
    model.partial_fit(X[1200:1300])
    assert model._outlier_reference is not fitted_reference
    assert model._window.index.max() == 1299 and model._window.index.min() == 300
    assert np.mean(model.predict(X[1300:]) == -1) < 0.15


def test_wide_batches_add_a_subsample_of_rows():
    window = ReferenceWindow()
    assert window.pick((100, 10)).size == 100  # a table's batch: every row
    rows = window.pick((100, 100_000))  # a video's: evenly spaced, at least MIN_ROWS
    assert rows.size == MIN_ROWS and rows[0] == 0 and rows[-1] == 99


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), angle=st.floats(0.0, 0.1))
def test_scores_are_carried_into_a_rotated_basis(seed, angle):
    """Rows in the old subspace: the carried scores are their scores in the new basis
    (the basis turns within a larger space, so the subspace moves by ``angle``)."""
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(12, 3)))[0]
    old = Q[:, :2].T
    c, s = np.cos(angle), np.sin(angle)
    new = np.vstack([old[0], c * old[1] + s * Q[:, 2]])
    rows = rng.normal(size=(20, 2)) @ old  # in the old subspace
    window = ReferenceWindow()
    window.follow(old)
    window.add(np.arange(20), rows @ old.T, np.zeros(20), seen=20)
    window.follow(new)
    np.testing.assert_allclose(window.scores, rows @ new.T, atol=1e-12)


def test_a_jump_of_the_subspace_drops_the_stored_rows():
    window = ReferenceWindow()
    eye = np.eye(4)
    window.follow(eye[:2])
    window.add(np.arange(5), np.ones((5, 2)), np.ones(5), seen=5)
    window.follow(eye[[0, 2]])  # a right angle
    assert window.n_rows == 0
    window.add(np.arange(5, 8), np.ones((3, 2)), np.ones(3), seen=8)
    assert window.n_rows == 3


def test_missing_entries_in_a_stream():
    X = planted_stream(6, n=800, frac=0.0)[0]
    gappy = X.copy()
    gappy[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    model = stream(GRASTA(2, random_state=0), gappy, 50)
    assert model._window.observed is not None
    values = model.score_samples(gappy[-100:])
    assert np.all(np.isfinite(values))


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["6_cardio", "2_annthyroid"])
def test_a_real_table_streamed_ranks_as_its_batch_fit(table, adbench):
    """ADBench tables (median/MAD-scaled, shuffled) streamed in batches of a hundred
    rows: OR-PCA's score_samples after partial_fit rank the labelled outliers as well
    as after fit, and flag about as many inliers."""
    data = np.load(adbench / f"{table}.npz")
    X, y = data["X"].astype(np.float64), data["y"]
    median = np.median(X, axis=0)
    mad = np.median(np.abs(X - median), axis=0)
    X = (X - median) / np.where(mad > 0, mad, 1.0)
    order = np.random.default_rng(0).permutation(X.shape[0])
    X, y = X[order], y[order]
    streamed = stream(OnlineRobustPCA(2, random_state=0), X, 100)
    fitted = OnlineRobustPCA(2, random_state=0).fit(X)
    auc_stream = roc_auc_score(y, -streamed.score_samples(X))
    auc_fit = roc_auc_score(y, -fitted.score_samples(X))
    assert auc_stream > 0.85 and abs(auc_stream - auc_fit) < 0.02
    inliers = y == 0
    flagged = [np.mean(m.predict(X)[inliers] == -1) for m in (streamed, fitted)]
    assert flagged[0] < flagged[1] + 0.03
