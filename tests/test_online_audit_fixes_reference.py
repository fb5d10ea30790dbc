"""The reference of ``predict`` after ``partial_fit`` (audit of the online estimators).

Fixed bug: ``ReferenceWindow.follow`` emptied the window whenever the subspace turned by
more than about 8 degrees, which happens on most batches early in a stream, and the
cutoffs then came from the last batch alone, without a word: GRASTA with ``burn_in=10``
and batches of 7 flagged 66 of hbk's 75 rows (``fit``: the 14 documented outliers) with
a window of 5 rows, independently of the burn-in's start (the window held 5 rows also
once the start was fixed). The window now keeps the values of its latest rows (every
row for a table; as many as ``RAW_ENTRIES`` entries allow, at least ``MIN_ROWS``, for
frames) and scores them again under the current model instead of
dropping them; during the burn-in it is rebuilt from the buffered rows, as ``fit``'s.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA
from robustpca.estimators import _stream_reference as stream_reference
from robustpca.estimators._stream_reference import MIN_ROWS, WINDOW_ROWS, ReferenceWindow

from .conftest import load_table

ONLINE = [OnlineRobustPCA, GRASTA]


def _stream(model, X, batch):
    for start in range(0, X.shape[0], batch):
        model.partial_fit(X[start : start + batch])
    return model


def test_a_jump_rescores_the_kept_rows_instead_of_dropping_them():
    rng = np.random.default_rng(0)
    eye = np.eye(5)
    old, new = eye[:2], eye[[0, 2]]  # a right angle
    rows = rng.normal(size=(6, 5))

    def rescore(values):
        scores = values @ new.T
        return scores, np.linalg.norm(values - scores @ new, axis=1)

    window = ReferenceWindow()
    window.follow(old)
    window.add(np.arange(6), rows @ old.T, np.ones(6), seen=6, rows=rows)
    window.follow(new, rescore)
    assert window.n_rows == 6
    scores, od = rescore(rows)
    np.testing.assert_allclose(window.scores, scores, atol=1e-12)
    np.testing.assert_allclose(window.od, od, atol=1e-12)


def test_rows_without_kept_values_still_leave_on_a_jump():
    """Older rows of a wide stream, whose values are not kept: dropped on a jump, while
    the kept ones, re-scored, remain."""
    eye = np.eye(4)
    window = ReferenceWindow()
    window.follow(eye[:2])
    window.add(np.arange(5), np.ones((5, 2)), np.ones(5), seen=5)  # no values kept
    window.add(np.arange(5, 8), np.ones((3, 2)), np.ones(3), seen=8, rows=np.ones((3, 4)))
    window.follow(eye[[0, 2]], lambda v: (v[:, [0, 2]], np.ones(v.shape[0])))
    assert window.n_rows == 3 and list(window.index) == [5, 6, 7]


def test_the_kept_values_are_bounded_copies():
    window = ReferenceWindow()
    axis = np.zeros((1, 40_000))
    axis[0, 0] = 1.0
    window.follow(axis)
    for start in range(0, 40, 10):
        batch = np.ones((10, 40_000), dtype=np.float32)
        window.add(np.arange(start, start + 10), np.ones((10, 1)), np.ones(10), seen=start + 10,
                   rows=batch)  # fmt: skip
        assert not np.shares_memory(window.raw, batch)
    # wide rows: at least MIN_ROWS of them, not all forty
    assert window.n_raw == max(MIN_ROWS, stream_reference.RAW_ENTRIES // 40_000)
    window = ReferenceWindow()
    window.follow(np.eye(3)[:1])
    X = np.ones((1500, 3))
    for start in range(0, 1500, 100):
        window.add(np.arange(start, start + 100), np.ones((100, 1)), np.ones(100),
                   seen=start + 100, rows=X[start : start + 100])  # fmt: skip
    assert window.n_raw == window.n_rows == WINDOW_ROWS  # a table: every row of the window


@pytest.mark.parametrize("cls", ONLINE)
def test_the_window_keeps_the_latest_rows_while_the_subspace_moves(cls):
    """A stream whose subspace turns a lot between batches (the first updates): the
    window holds every row seen, and the reference is that of ``fit`` (same batches)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 2)) * [6.0, 3.0] @ rng.normal(size=(2, 5)) + 2.0
    X += 0.2 * rng.normal(size=X.shape)
    X[::13] += rng.normal(scale=15.0, size=X[::13].shape)
    kw = {"n_components": 2, "random_state": 0, "burn_in": 10, "batch_size": 7}
    streamed = _stream(cls(**kw), X, 7)
    fitted = cls(**kw).fit(X)
    assert streamed._window.n_rows == X.shape[0]
    np.testing.assert_allclose(
        streamed.decision_function(X), fitted.decision_function(X), rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize("cls", ONLINE)
def test_wide_frames_keep_every_row_with_a_bounded_copy_of_a_few(cls):
    """Frames of 40,000 pixels in batches of 4 through a burn-in of 40: the window holds
    the distances of every frame so far (rebuilt from the buffered frames after each
    batch of the burn-in, then added to), and the values of a few only: memory stays
    that of the model and a batch (docs/video.md)."""
    rng = np.random.default_rng(0)
    p = 40_000
    X = np.outer(1 + 0.05 * rng.normal(size=80), 100 + 20 * rng.random(p))
    X = (X + rng.normal(size=X.shape)).astype(np.float32)
    model = cls(1, burn_in=40, random_state=0)
    for start in range(0, 80, 4):
        model.partial_fit_decompose(X[start : start + 4])
        assert model._window.n_rows == model.n_samples_seen_
        assert model._window.n_raw * p <= max(stream_reference.RAW_ENTRIES, MIN_ROWS * p)
    assert np.isfinite(model.score_samples(X[:5])).all()


@pytest.mark.realdata
@pytest.mark.parametrize("cls", ONLINE)
def test_hbk_window_holds_every_row_and_flags_the_outliers(shared_data, cls):
    """The audit's cases: the window at the end holds all 75 rows (it held 5, and 1
    for OR-PCA in batches of one row), and exactly the 14 documented outliers are
    flagged."""
    X = load_table(shared_data, "hbk")
    for burn_in, batch in [(10, 7), (100, 1)]:
        model = _stream(cls(n_components=2, random_state=0, burn_in=burn_in), X, batch)
        assert model._window.n_rows == 75
        assert set(np.flatnonzero(model.predict(X) == -1) + 1) == set(range(1, 15))
