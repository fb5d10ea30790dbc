"""With missing pixels, step 0 still applies: a frame's median residual over its observed
pixels is its offset (light, not an object), so a brighter frame's object is found as in
a frame of ordinary brightness, and nothing else in it is foreground."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground import foreground_masks
from robustpca.foreground_stream import ForegroundDetector


def _brighter_frame_with_gaps(seed: int = 0):
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(30, 20, 24))
    truth = np.zeros(R.shape, dtype=bool)
    truth[4, 5:11, 6:12] = True
    R[truth] += 12.0  # an object of 12 noise scales
    R[4] += 10.0  # the frame is ten noise scales brighter everywhere (exposure)
    seen = rng.random(R.shape) > 0.25
    return np.where(seen, R, np.nan), truth


@pytest.mark.parametrize("stream", [False, True])
def test_a_brighter_frame_with_gaps_keeps_its_object(stream):
    """The batch rule and the stream: without the offset the brightness would count
    toward every pixel's magnitude and the frame gain would then hide the object."""
    R, truth = _brighter_frame_with_gaps()
    masks = ForegroundDetector().update(R) if stream else foreground_masks(R)
    inside = truth.copy()
    inside[4, 5, :] = inside[4, 10, :] = inside[4, :, 6] = inside[4, :, 11] = False
    assert masks[inside].mean() > 0.9
    rim = np.zeros_like(truth)
    rim[4, 4:12, 5:13] = True
    assert not masks[4][~rim[4]].any()
