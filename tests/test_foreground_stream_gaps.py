"""The running scale of ``ForegroundDetector`` with missing pixels: a pixel a frame
misses keeps its scale, and every pixel it sees takes the step it would take in a stream
without gaps (``foreground_gaps``: "the running scale does not move where a frame misses
the pixel"); a pixel that the first batch never sees starts at the noise floor."""

from __future__ import annotations

import numpy as np

from robustpca.foreground_stream import ForegroundDetector


def _symmetric_frames(rng, n, scale):
    """Frames of 9 x 9 pixels in +-pairs and a zero at (4, 5): each frame's median is 0
    with or without that pixel, so its offset does not depend on whether it is seen."""
    half = rng.normal(scale=scale, size=(n, 40))
    values = np.concatenate([half, -half, np.zeros((n, 1))], axis=1)
    order = np.argsort(rng.random((n, 81)), axis=1)
    frames = np.take_along_axis(values, order, axis=1)
    at_zero = np.nonzero(order == 80)[1]  # where each frame's zero went
    frames[np.arange(n), at_zero], frames[:, 4 * 9 + 5] = frames[:, 4 * 9 + 5], 0.0
    return frames.reshape(n, 9, 9)


def test_seen_pixels_step_as_without_gaps():
    rng = np.random.default_rng(0)
    first = _symmetric_frames(rng, 10, 1.0)
    second = _symmetric_frames(rng, 10, 1.5)  # the noise drifts up a little
    gappy = second.copy()
    gappy[:, 4, 5] = np.nan  # one pixel missing in every frame of the batch
    plain, holed = ForegroundDetector(), ForegroundDetector()
    plain.update(first)
    holed.update(first)
    before = holed.scale_.copy()
    plain.update(second)
    holed.update(gappy)
    seen = np.ones((9, 9), dtype=bool)
    seen[4, 5] = False
    free = seen & (plain.scale_ > max(plain.noise_floor_, holed.noise_floor_) / 2)
    assert free.sum() > 60
    np.testing.assert_allclose(holed.scale_[free], plain.scale_[free], rtol=1e-12)
    assert np.median(holed.scale_[seen] / before[seen]) > 1.2  # they followed the drift
    assert holed.scale_[4, 5] == max(before[4, 5], holed.noise_floor_ / 2)


def test_a_pixel_the_first_batch_never_sees_starts_at_the_floor():
    rng = np.random.default_rng(1)
    batch = rng.normal(size=(12, 8, 9))
    batch[:, 4, 5] = np.nan
    detector = ForegroundDetector()
    detector.update(batch)
    assert detector.scale_[4, 5] == detector.noise_floor_
