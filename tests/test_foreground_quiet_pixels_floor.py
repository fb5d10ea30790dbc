"""Step 3 of the rule, s_p = max(sigma_p, sigma_0) with
sigma_0 the median pixel scale: a quiet pixel (much less noise than the typical one) is
judged at the typical noise level, so a change of 6 typical sigmas there is no seed."""

import numpy as np

from robustpca.foreground import foreground_masks, foreground_score


def _clip():
    rng = np.random.default_rng(0)
    R = rng.normal(size=(40, 20, 20))  # sigma 1 on most pixels
    R[:, :8, :8] *= 0.05  # a quiet corner (64 of 400 pixels)
    R[10, 2:6, 2:6] += 6.0  # 6 typical sigmas in the quiet corner
    return R


def test_quiet_pixels_are_scored_at_the_floor():
    z = foreground_score(_clip(), window=1)
    assert 4.5 < np.median(z[10, 2:6, 2:6]) < 7.5


def test_six_sigma_change_on_quiet_pixels_is_no_object():
    assert not foreground_masks(_clip())[10].any()
