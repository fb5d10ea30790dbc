"""Spatial windows wider than the tests' usual 3 x 3 and 5 x 5, where the rule counts a
window's pixels above a threshold in small integers: with missing pixels, windows of
13 x 13 to 15 x 15 count in one byte (169 to 225 pixels) and the majority
``2 * count > observed`` must not wrap; without missing pixels, windows of 17 x 17 to
255 x 255 need two bytes. The masks are still the scores thresholded, as on narrower
windows."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.binary_regions import _majority
from robustpca.foreground import foreground_masks, foreground_score
from robustpca.foreground_gaps import gap_majority


@pytest.mark.parametrize("window", [13, 15])
def test_wide_windows_with_gaps_are_the_score_thresholded(window):
    rng = np.random.default_rng(window)
    R = rng.normal(size=(6, 30, 32))
    R[2, 2:18, 3:19] += 40.0  # an object wider than the window: its centre is a majority
    R[rng.random(R.shape) < 0.1] = np.nan
    masks = foreground_masks(R, window=window, high=8, low=8, fill_holes=False)
    np.testing.assert_array_equal(masks, foreground_score(R, window=window) > 8)
    assert masks[2, 9:11, 10:12].all()


@pytest.mark.parametrize("window", [13, 15])
def test_gap_majority_without_gaps_is_the_rules_majority(window):
    z = np.random.default_rng(0).random((2, 17, 19))
    z[0, 1:16, 2:18] += 1.0  # most windows of frame 0 above the threshold
    np.testing.assert_array_equal(gap_majority(z, 0.9, window), _majority(z > 0.9, window))


@pytest.mark.parametrize("window", [17, 31])
def test_wide_windows_without_gaps_are_the_score_thresholded(window):
    rng = np.random.default_rng(window)
    R = rng.normal(size=(6, 60, 64))
    R[2, 2:26, 3:29] += 40.0  # the centre's window is mostly object
    masks = foreground_masks(R, window=window, high=8, low=8, fill_holes=False)
    np.testing.assert_array_equal(masks, foreground_score(R, window=window) > 8)
    assert masks[2, 13:15, 15:17].all()
