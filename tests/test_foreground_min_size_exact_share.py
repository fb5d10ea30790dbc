"""``min_size`` keeps a region of exactly that share of
the frame (``_least_size``'s docstring: "a region of exactly that share ... is kept"),
also where the product rounds up in floating point: ``0.07 * 100 == 7.000000000000001``."""

import numpy as np

from robustpca.foreground import foreground_masks


def _clip(size):
    rng = np.random.default_rng(0)
    R = rng.normal(size=(20, 10, 10))  # 100 pixels a frame
    R[7, 4, 1 : 1 + size] += 60.0  # one object of `size` pixels in frame 7
    return R


def test_a_region_of_exactly_min_size_is_kept():
    masks = foreground_masks(_clip(7), min_size=0.07, window=1)
    assert masks[7].sum() == 7 and masks[7, 4, 1:8].all()


def test_a_region_below_min_size_is_dropped():
    assert foreground_masks(_clip(6), min_size=0.07, window=1)[7].sum() == 0
