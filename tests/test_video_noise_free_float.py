"""``subtract_background`` on a noise-free float clip (synthetic frames, the moving
square of a tutorial). PCP and GoDec fit its background exactly, so the residual is an
exact zero wherever no object is, and the mask rule, with no noise to measure, read
those zeros as a soft threshold's and measured the objects against themselves: it
masked nothing. Float frames now get the scale of their float32 rounding as the noise
floor (integer frames get their level rounding), which leaves real clips' masks as
they were (``docs/video.md``).
"""

import numpy as np
import pytest

from robustpca.background_subtraction import subtract_background


def _square(n=60, shape=(24, 32), seed=0):
    rng = np.random.default_rng(seed)
    scene = rng.random(shape)
    truth = np.zeros((n, *shape), dtype=bool)
    for t in range(n):
        truth[t, 5:10, t % 20 : t % 20 + 5] = True
    return np.repeat(scene[None], n, axis=0) + 0.5 * truth, truth, scene


@pytest.mark.parametrize("method", ["pcp", "godec", "accaltproj", "orpca"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_noise_free_float_clip_has_its_objects_masked(method, dtype):
    frames, truth, _ = _square()
    parts = subtract_background([frames.astype(dtype)], method=method)
    masks = np.concatenate([p.masks for p in parts])
    # the rule's 3 x 3 majority trims the square's corners: 21 of its 25 pixels
    assert masks[truth].mean() > 0.8 and masks[~truth].mean() < 0.001


@pytest.mark.parametrize("method", ["pcp", "orpca"])
def test_boolean_frames_are_those_floats_zero_and_one(method):
    _, truth, scene = _square()
    frames = np.repeat((scene > 0.5)[None], len(truth), axis=0) ^ truth
    split = np.concatenate([p.masks for p in subtract_background([frames], method=method)])
    floats = subtract_background([frames.astype(np.float32)], method=method)
    np.testing.assert_array_equal(split, np.concatenate([p.masks for p in floats]))
    assert split[truth].mean() > 0.8
