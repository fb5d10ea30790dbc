"""The default thresholds in robust scales, on a residual whose scores are known exactly:
a seed's neighbours are grown into its region when their score is above ``low = 4`` and
left out below it (``foreground_masks``' Notes: ``low = 4`` keeps the heavy tails out of
the grown regions), for the batch rule and the stream alike."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground import foreground_masks, foreground_score
from robustpca.foreground_stream import ForegroundDetector


def _seed_and_strip(level: float) -> np.ndarray:
    """Residual frames of +-1 in a checkerboard (every magnitude 1, every frame's median
    0, every pixel's scale 1.4826); frame 10 holds a seed of 20 robust scales and, next
    to it, a strip at ``level`` robust scales, signs kept in the checkerboard."""
    n, h, w = 21, 20, 24
    t, i, j = np.ogrid[:n, :h, :w]
    sign = (-1.0) ** (t + i + j)
    magnitude = np.ones((n, h, w))
    magnitude[10, 4:10, 3:9] = 20.0 * 1.4826  # the seed
    magnitude[10, 4:10, 9:17] = level * 1.4826  # the strip, touching it
    return sign * magnitude


@pytest.mark.parametrize(("level", "grown"), [(3.75, False), (4.25, True)])
def test_a_seeds_neighbours_grow_above_four_robust_scales(level, grown):
    R = _seed_and_strip(level)
    z = foreground_score(R)
    np.testing.assert_allclose(z[10, 6:8, 11:15], level, rtol=1e-9)  # the strip's inside
    for masks in (foreground_masks(R), ForegroundDetector().update(R)):
        assert masks[10, 5:9, 4:8].all()  # the seed
        assert masks[10, 5:9, 10:16].all() == grown and masks[10, 5:9, 10:16].any() == grown
        assert not np.delete(masks, 10, axis=0).any()


@pytest.mark.parametrize(("level", "seeded"), [(7.5, False), (8.5, True)])
def test_a_region_needs_a_score_above_eight_robust_scales(level, seeded):
    """``high = 8``: a block whose every score is ``level`` is a region of scores above
    ``low``; it is foreground only when it also holds a seed."""
    R = _seed_and_strip(1.0)
    R[10, 4:10, 3:9] /= 20.0 / level  # the seed now at ``level`` robust scales
    for masks in (foreground_masks(R), ForegroundDetector().update(R)):
        assert masks[10, 5:9, 4:8].all() == seeded and masks[10].any() == seeded
