"""The frame statistics of :mod:`robustpca.foreground_gaps` on frames with gaps, from the
mutation audit of ``foreground_gaps.py``.

Documented there: ``observed_sample`` takes, on frames of more than ``size`` observed
pixels, an *odd* number of them on a regular grid (so each frame's median is one order
statistic, as the rule's own grid), and a pixel of a colour frame is observed where *a*
channel is not NaN; ``frame_offsets`` is 0 and ``frame_gains`` is 1 for a frame with no
observed pixel (the neutral offset and gain); ``gap_median_filter`` is 0 where a window
observes nothing (background, and finite scores for the masks' caller).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground_gaps import (
    frame_gains,
    frame_offsets,
    gap_majority,
    gap_median_filter,
    observed_sample,
)


@pytest.mark.parametrize("observed", [5, 6, 8, 11, 13, 20])
def test_frames_with_more_observed_pixels_than_size_give_an_odd_sample(observed):
    """Every frame with more than ``size`` observed pixels gives an odd sample of them,
    on a regular grid of its observed pixels, whatever their number."""
    size, m = 4, 20
    rng = np.random.default_rng(observed)
    values = rng.normal(size=(2, m))
    for t in range(2):
        values[t, rng.permutation(m)[observed:]] = np.nan
    sample = observed_sample(values, size)
    for t in range(2):
        kept = sample[t][~np.isnan(sample[t])]
        assert kept.size % 2 == 1, kept.size
        seen = values[t][~np.isnan(values[t])]
        step = seen.size // size
        np.testing.assert_array_equal(kept, seen[::step][: kept.size])


def test_a_colour_pixel_with_one_channel_seen_is_observed():
    """A pixel is observed where a channel is not NaN: a colour frame missing one
    channel at a pixel is sampled on the grid of the frame seen in full."""
    rng = np.random.default_rng(0)
    full = rng.normal(size=(1, 9, 3))
    partial = full.copy()
    partial[0, 0, 0] = np.nan  # the first pixel keeps two of its channels
    sample, reference = observed_sample(partial, 4), observed_sample(full, 4)
    assert sample.shape == reference.shape
    np.testing.assert_array_equal(sample[..., 1:], reference[..., 1:])


def test_a_frame_with_no_observed_pixel_has_neutral_offset_and_gain():
    """Offset 0 and gain 1 for a frame that observes nothing; the others' are their
    medians (gain ``max(1, 1.4826 med)``)."""
    values = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 3.0], [4.0, 5.0, 9.0]])
    np.testing.assert_array_equal(frame_offsets(values), [0.0, 2.0, 5.0])
    gains = frame_gains(values)
    assert gains[0] == 1.0
    np.testing.assert_allclose(gains[1:], [1.4826 * 2.0, 1.4826 * 5.0], rtol=1e-4)


@pytest.mark.parametrize("window", [3, 5])
def test_a_window_that_observes_nothing_filters_to_zero(window):
    """Windows that see no pixel give 0 (and no NaN); the others' lower median exceeds a
    threshold where ``gap_majority`` holds."""
    rng = np.random.default_rng(window)
    z = rng.exponential(size=(2, 12, 12))
    z[0, :7, :7] = np.nan  # the windows about its top-left corner observe nothing
    z[1, rng.random((12, 12)) < 0.3] = np.nan
    out = gap_median_filter(z, window)
    assert np.isfinite(out).all()
    r = window // 2
    np.testing.assert_array_equal(out[0, : 7 - r, : 7 - r], 0.0)
    for threshold in (0.0, 0.5, 1.5):
        np.testing.assert_array_equal(out > threshold, gap_majority(z, threshold, window))
