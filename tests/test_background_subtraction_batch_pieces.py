"""A batch method fed in pieces gives each piece its own frames' background, masks and
scores, those of the whole clip given at once, on a clip whose background changes from
frame to frame (the light rises); and the scores it gives are those its masks threshold,
with the same rounding floor for integer frames."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage as ndi

from robustpca.background_subtraction import subtract_background


def _lit_clip(n: int = 60, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scene = rng.uniform(40, 160, size=(16, 20))
    light = np.linspace(0.8, 1.2, n)[:, None, None]  # dawn: every frame brighter
    frames = light * scene + 2 * rng.normal(size=(n, 16, 20))
    for t in range(n):
        frames[t, 4:10, t % 14 : t % 14 + 6] += 60
    return frames.astype(np.float32)


@pytest.mark.parametrize("method", ["pcp", "accaltproj"])
def test_pieces_get_their_own_frames_parts(method):
    frames = _lit_clip()
    (whole,) = subtract_background(frames, method=method, return_scores=True)
    parts = list(
        subtract_background(
            [frames[:25], frames[25:50], frames[50:]], method=method, return_scores=True
        )
    )
    assert [p.start for p in parts] == [0, 25, 50]
    for name in ("background", "masks", "scores"):
        got = np.concatenate([getattr(p, name) for p in parts])
        np.testing.assert_array_equal(got, getattr(whole, name))
    assert np.ptp(whole.background.mean(axis=(1, 2))) > 20  # the light did change


def _hysteresis(scores: np.ndarray, low: float = 4.0, high: float = 8.0) -> np.ndarray:
    """The rule's steps 6-7 read directly: 8-connected regions above ``low`` holding a
    score above ``high``, holes filled, frame by frame."""
    masks = []
    for frame in scores:
        labels, _ = ndi.label(frame > low, structure=np.ones((3, 3)))
        seeded = np.unique(labels[frame > high])
        masks.append(ndi.binary_fill_holes(np.isin(labels, seeded[seeded > 0])))
    return np.array(masks)


@pytest.mark.parametrize("method", ["pcp", "accaltproj"])
def test_the_masks_threshold_the_scores_of_an_integer_clip(method):
    """A static uint8 scene that flickers by one level on a third of its pixels in the
    last quarter of the clip, and an object: the scores given are those the masks
    threshold, so they have the same rounding floor (``min_scale``)."""
    rng = np.random.default_rng(0)
    F = np.repeat(rng.integers(20, 230, size=(24, 32))[None], 80, 0).astype(np.int16)
    F[60:, :, :10] += rng.choice([-1, 0, 1], size=(20, 24, 10)).astype(np.int16)
    F[70, 14:20, 14:20] += 40
    (part,) = subtract_background(F.astype(np.uint8), method=method, return_scores=True)
    np.testing.assert_array_equal(part.masks, _hysteresis(part.scores))
    assert part.masks[70, 15:19, 15:19].all()
