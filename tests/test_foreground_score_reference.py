"""``foreground_score`` against a direct NumPy/SciPy reading of steps 0-5 of the rule in
``robustpca.foreground``'s docstring, on grey frames of up to ``FRAME_SAMPLE`` pixels,
where every median of the rule is the exact median (the regular grid only serves larger
frames): frame offset, magnitude, per-pixel MAD scale over time, its floor (the median
pixel scale), the frame gain and the 3 x 3 spatial median with replicated edges."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage as ndi

from robustpca.foreground import FRAME_SAMPLE, foreground_score


def _reference_score(R: np.ndarray, window: int = 3) -> np.ndarray:
    n = len(R)
    offset = np.median(R.reshape(n, -1), axis=1)
    e = np.abs(R - offset[:, None, None])  # steps 0-1
    raw = 1.4826 * np.median(e, axis=0)  # step 2
    floor = np.median(raw)  # step 3
    z = e / np.maximum(raw, floor)
    gain = np.maximum(1.0, 1.4826 * np.median(z.reshape(n, -1), axis=1))  # step 4
    z = z / gain[:, None, None]
    return ndi.median_filter(z, size=(1, window, window), mode="nearest")  # step 5


@pytest.mark.parametrize("shape", [(9, 11), (64, 64)])
def test_score_is_the_documented_rule_on_frames_of_at_most_frame_sample_pixels(shape):
    """A 64 x 64 frame holds exactly ``FRAME_SAMPLE`` pixels: its medians are still the
    exact ones ("on a frame of more than FRAME_SAMPLE pixels, the median of an odd
    number of them on a regular grid")."""
    assert shape[0] * shape[1] <= FRAME_SAMPLE
    rng = np.random.default_rng(0)
    R = rng.normal(size=(15, *shape))
    R[:, : shape[0] // 3, : shape[1] // 3] *= 5.0  # a moving background
    R[2] += 3.0  # a brighter frame
    R[6] *= 4.0  # a louder frame
    R[9, 2:6, 3:7] += 25.0  # an object
    np.testing.assert_allclose(foreground_score(R), _reference_score(R), rtol=1e-12)
    np.testing.assert_allclose(
        foreground_score(R, window=1), _reference_score(R, window=1), rtol=1e-12
    )
