"""Details of the stream's reference window (:mod:`._stream_reference`) that the existing
tests leave open:

* the stored scores are carried into the new axes by ``C_old C_new^T`` also when the
  basis turns *within* its span (GRASTA's basis, or the components reordered by their
  energy): the carried scores are then the rows' scores in the new axes (the existing
  test moves one axis out of the span, where ``C_old C_new^T`` is symmetric);
* the window starts afresh where a principal angle between the old and the new subspace
  exceeds about 8 degrees (``MIN_COSINE = 0.99``), and carries its rows below;
* complete rows count as fully observed, before or after rows with gaps.
"""

import numpy as np
import pytest

from robustpca.estimators._stream_reference import ReferenceWindow


def test_scores_are_carried_through_a_turn_within_the_span():
    rng = np.random.default_rng(0)
    old = np.linalg.qr(rng.normal(size=(12, 2)))[0].T
    angle = 0.5
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    new = turn @ old  # the same subspace, other axes
    rows = rng.normal(size=(20, 2)) @ old
    window = ReferenceWindow()
    window.follow(old)
    window.add(np.arange(20), rows @ old.T, np.zeros(20), seen=20)
    window.follow(new)
    assert window.n_rows == 20
    np.testing.assert_allclose(window.scores, rows @ new.T, atol=1e-12)


@pytest.mark.parametrize(("degrees", "kept"), [(5.0, True), (15.0, False)])
def test_the_window_starts_afresh_beyond_about_eight_degrees(degrees, kept):
    rng = np.random.default_rng(1)
    Q = np.linalg.qr(rng.normal(size=(10, 3)))[0]
    t = np.radians(degrees)
    old = Q[:, :2].T
    new = np.vstack([old[0], np.cos(t) * old[1] + np.sin(t) * Q[:, 2]])
    window = ReferenceWindow()
    window.follow(old)
    window.add(np.arange(6), rng.normal(size=(6, 2)), np.ones(6), seen=6)
    window.follow(new)
    assert (window.n_rows == 6) == kept


def test_complete_rows_count_as_fully_observed_around_rows_with_gaps():
    window = ReferenceWindow()
    window.follow(np.eye(5)[:2])
    window.add(np.arange(3), np.ones((3, 2)), np.ones(3), seen=3)  # complete
    window.add(np.arange(3, 5), np.ones((2, 2)), np.ones(2), np.array([4, 3]), seen=5)
    window.add(np.arange(5, 8), np.ones((3, 2)), np.ones(3), seen=8)  # complete again
    observed = window.observed
    assert observed.shape == (8,)
    assert np.all(observed[[3, 4]] == [4, 3])
    # complete rows: at least every feature (the reference caps the count at p)
    assert np.all(observed[[0, 1, 2, 5, 6, 7]] >= 5)


def test_a_batch_of_up_to_two_to_the_eighteen_entries_adds_every_row():
    window = ReferenceWindow()
    assert window.pick((1000, 200)).size == 1000  # 200,000 entries: every row
    assert window.pick((1000, 300)).size == (1 << 18) // 300  # beyond: a subsample
