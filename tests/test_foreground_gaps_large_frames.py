"""Missing pixels on frames of more than ``FRAME_SAMPLE`` pixels (a 160 x 120 clip, or
larger): each frame's statistics are taken on the rule's own regular grid of its observed
pixels, so a frame seen in full is sampled exactly as in a batch without gaps, whatever
its size; and a batch in which nothing is seen is all background, as on small frames."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground import FRAME_SAMPLE, _frame_sample, foreground_masks, foreground_score
from robustpca.foreground_gaps import observed_sample
from robustpca.foreground_stream import ForegroundDetector


@pytest.mark.parametrize("width", [FRAME_SAMPLE + 1, 6000, 2 * FRAME_SAMPLE, 19200])
def test_a_frame_seen_in_full_is_sampled_on_the_rules_grid(width):
    """The docstring of ``observed_sample``: "a frame observed in full gives the rule's
    sample", for every frame size above ``FRAME_SAMPLE``, not only above twice it."""
    rng = np.random.default_rng(width)
    flat = rng.normal(size=(3, width))
    flat[1, 7] = np.nan  # another frame of the batch misses a pixel
    sample = observed_sample(flat, FRAME_SAMPLE)
    full = _frame_sample(flat)
    for t in (0, 2):
        np.testing.assert_array_equal(sample[t, : full.shape[1]], full[t])
        assert np.isnan(sample[t, full.shape[1] :]).all()


def test_frames_up_to_frame_sample_pixels_are_returned_as_they_are():
    values = np.random.default_rng(0).normal(size=(2, FRAME_SAMPLE))
    values[0, 3] = np.nan
    assert observed_sample(values, FRAME_SAMPLE) is values


@pytest.mark.parametrize("window", [1, 3])
def test_nothing_seen_on_large_frames_is_background(window):
    R = np.full((4, 64, 65), np.nan)  # 4,160 pixels a frame, none seen
    assert not foreground_masks(R, window=window).any()
    np.testing.assert_array_equal(foreground_score(R, window=window), 0.0)
    detector = ForegroundDetector(window=window)
    detector.update(np.random.default_rng(1).normal(size=(4, 64, 65)))
    assert not detector.update(R).any()
    assert np.isfinite(detector.scale_).all() and np.isfinite(detector.noise_floor_)
