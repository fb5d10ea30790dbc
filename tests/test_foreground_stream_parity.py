"""``ForegroundDetector`` against the batch rule's documented semantics on a stream:
the scores it gives are what its masks threshold (as ``foreground_score`` is for
``foreground_masks``), and ``min_scale`` is the floor of every batch of a stream whose
residual is exactly zero but where an object is (a static scene of integer frames)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground import QUANTISATION_SCALE
from robustpca.foreground_stream import ForegroundDetector


@pytest.mark.parametrize("window", [1, 3])
def test_the_streams_masks_are_its_scores_thresholded(window):
    """With ``low == high`` and no hole filling, each batch's masks are exactly its
    scores (under the scale the update leaves) above ``high``, quiet pixels included,
    whose running scale lies below the floor."""
    rng = np.random.default_rng(0)
    R = rng.normal(size=(60, 16, 20))
    R[:, :6, :6] *= 0.2  # quiet pixels: judged at the floor
    for t in range(60):
        R[t, 2:7, t % 14 : t % 14 + 5] += rng.uniform(0, 12)
    detector = ForegroundDetector(high=4.0, low=4.0, window=window, fill_holes=False)
    for s in range(0, 60, 20):
        masks = detector.update(R[s : s + 20])
        assert (detector.scale_ < detector.noise_floor_).any()
        np.testing.assert_array_equal(masks, detector.score(R[s : s + 20]) > 4.0)


def test_a_static_integer_scene_streamed_keeps_min_scale_as_its_floor():
    """The residual is exactly zero but for a 10 x 10 object 100 levels bright, in
    batches of 10 frames: the running scales sink to zero, and the floor is then
    ``min_scale`` (the rounding of integer frames), not the scale of the nonzero
    magnitudes, which are the object itself."""
    n = 60
    residual = np.zeros((n, 40, 40), dtype=np.float32)
    truth = np.zeros(residual.shape, dtype=bool)
    for t in range(n):
        truth[t, 15:25, 3 * t % 30 : 3 * t % 30 + 10] = True
    residual[truth] = 100.0
    detector = ForegroundDetector(min_scale=QUANTISATION_SCALE)
    masks = np.concatenate([detector.update(residual[s : s + 10]) for s in range(0, n, 10)])
    assert detector.noise_floor_ == QUANTISATION_SCALE
    assert not (masks & ~truth).any() and (masks & truth).sum() > 0.9 * truth.sum()
