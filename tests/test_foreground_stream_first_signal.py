"""A ``ForegroundDetector`` whose first batch holds no nonzero magnitude (an exactly
zero residual: black frames of a fade-in that the model fits exactly; or a batch in which
no pixel is seen). It used to start its running scale and floor at 1.0 in the residual's
units, and only the stochastic-approximation steps brought it to the residual's scale:
in units smaller than 1 (float frames in [0, 1], the usual range of float images) the
objects of the next hundred frames or more were missed. The first batch with a nonzero
residual now sets the scale, so the stream is scale-free, as the batch rule is (a bug
found by the mutation audit of the video pipeline)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.background_subtraction import subtract_background
from robustpca.foreground_stream import ForegroundDetector


def _noise_with_an_object(n: int = 120, seed: int = 0):
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, 20, 24))
    truth = np.zeros(R.shape, dtype=bool)
    for t in range(n):
        truth[t, 6:12, 3 * t % 18 : 3 * t % 18 + 6] = True
    R[truth] += 15.0
    return R, truth


@pytest.mark.parametrize("first", ["zeros", "unseen"])
def test_a_first_batch_without_signal_leaves_the_stream_scale_free(first):
    """The masks of the frames after the first batch do not depend on the units."""
    R, truth = _noise_with_an_object()
    empty = np.zeros((10, 20, 24)) if first == "zeros" else np.full((10, 20, 24), np.nan)
    masks = {}
    for unit in (1e-3, 1.0, 1e3):
        detector = ForegroundDetector()
        detector.update(empty)
        masks[unit] = np.concatenate(
            [detector.update(unit * R[s : s + 10]) for s in range(0, len(R), 10)]
        )
    for unit in (1e-3, 1e3):
        np.testing.assert_array_equal(masks[unit], masks[1.0])
    assert (masks[1.0] & truth).sum() > 0.7 * truth.sum()


def test_a_fade_in_from_black_in_unit_range_frames():
    """Float frames in [0, 1] that start with 20 black frames: the default pipeline
    (OR-PCA and the streaming rule) finds the object in frames 20-79 as it does for the
    same frames in [0, 255] (recall 0.94; it was 0.0-0.05 in [0, 1])."""
    rng = np.random.default_rng(0)
    n = 80
    scene = rng.uniform(40, 200, size=(32, 40))
    frames = scene + 2 * rng.normal(size=(n, 32, 40))
    truth = np.zeros(frames.shape, dtype=bool)
    for t in range(n):
        truth[t, 10:18, t % 30 : t % 30 + 8] = True
    frames[truth] += 60
    frames[:20] = 0.0
    truth[:20] = False
    recall = {}
    for scale in (1.0, 1 / 255):
        clip = (frames * scale).astype(np.float32)
        parts = subtract_background(clip[s : s + 20] for s in range(0, n, 20))
        masks = np.concatenate([p.masks for p in parts])
        recall[scale] = (masks & truth).sum() / truth.sum()
    assert recall[1.0] > 0.9
    assert recall[1 / 255] > recall[1.0] - 0.05
