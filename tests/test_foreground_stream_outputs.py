"""What ``ForegroundDetector`` gives out stays the caller's: the scores of one batch are
not written over by the next update (the detector reuses its own work space between
batches), and ``learning_rate`` takes the whole documented range (0, 1]."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.background_subtraction import subtract_background
from robustpca.foreground_stream import ForegroundDetector


@pytest.mark.parametrize("window", [1, 3])
def test_scores_survive_the_next_update(window):
    rng = np.random.default_rng(0)
    video = rng.normal(size=(60, 12, 16)).astype(np.float32)
    video[25, 3:8, 4:9] += 20.0
    detector = ForegroundDetector(window=window)
    kept = []
    for s in range(0, 60, 20):
        batch = video[s : s + 20]
        detector.update(batch)
        scores = detector.score(batch)
        kept.append((scores, scores.copy()))
    for scores, copy in kept:
        np.testing.assert_array_equal(scores, copy)


def test_the_pipelines_scores_of_earlier_batches_are_kept():
    """``list(subtract_background(..., return_scores=True))``: each batch's scores are
    those it had when it was yielded."""
    rng = np.random.default_rng(1)
    frames = (100 + 5 * rng.normal(size=(60, 12, 16))).astype(np.float32)
    frames[25, 3:8, 4:9] += 80.0
    batches = [frames[s : s + 20] for s in range(0, 60, 20)]
    seen = [p.scores.copy() for p in subtract_background(batches, return_scores=True)]
    kept = [p.scores for p in subtract_background(batches, return_scores=True)]
    for a, b in zip(kept, seen, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_learning_rate_of_one_is_allowed():
    rng = np.random.default_rng(2)
    detector = ForegroundDetector(learning_rate=1.0)
    for _ in range(3):
        masks = detector.update(rng.normal(size=(5, 6, 7)))
    assert masks.shape == (5, 6, 7) and detector.n_frames_seen_ == 15
