"""The masks of a scaled ``robustpca video`` run are written at the input's size by the
nearest neighbour (``_video._resized``). The ground truth, the ROI and the ``--ignore``
mask are resized by Pillow's nearest neighbour (``Image.Resampling.NEAREST``); the masks
must map pixels the same way, or a mask pixel is judged against the label of a
neighbouring pixel. Integer and non-integer ratios, up and down."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.cli._video import _resized

PIL = pytest.importorskip("PIL.Image")


@pytest.mark.parametrize(
    ("small", "large"),
    [((12, 16), (24, 32)), ((7, 9), (24, 32)), ((13, 17), (25, 35)), ((24, 32), (10, 13))],
)
def test_masks_are_resized_as_pillow_resizes_by_the_nearest_neighbour(small, large):
    rng = np.random.default_rng(sum(small) + sum(large))
    masks = rng.random((3, *small)) < 0.4
    got = _resized(masks, large)
    assert got.shape == (3, *large) and got.dtype == masks.dtype
    for mask, out in zip(masks, got, strict=True):
        image = PIL.fromarray(mask.astype(np.uint8) * 255)
        want = np.asarray(image.resize(large[::-1], PIL.Resampling.NEAREST)) > 0
        np.testing.assert_array_equal(out, want)
