"""Corruption protocols, from the mutation audit: block sizes and the outliers' resize.

``occlude_blocks`` documents a block side of ``round(sqrt(f * h * w))`` clipped to
``min(h, w)`` and, for a pair ``(low, high)`` with ``low <= high``, one fraction drawn per
block; ``append_outliers`` documents a resize of the outliers (``scipy.ndimage.zoom``, spline
order in [0, 5]) and a rescale from the pool's value range.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import append_outliers, occlude_blocks


def _sides(mask, shape):
    """The side of the one square block of each occluded image."""
    out = []
    for row in mask[mask.any(axis=1)]:
        m = row.reshape(shape)
        side = int(m.any(axis=0).sum())
        assert m.sum() == side * side and int(m.any(axis=1).sum()) == side
        out.append(side)
    return out


def test_block_side_is_clipped_to_the_width_of_tall_images():
    """On 10x4 images a block of the whole area would be 6x6; it is clipped to 4x4 and
    fits inside, for every occluded image."""
    X = np.zeros((20, 40))
    _, mask = occlude_blocks(
        X, (10, 4), image_fraction=1.0, block_fraction=1.0, fill=1.0, random_state=0
    )
    assert _sides(mask, (10, 4)) == [4] * 20


def test_an_equal_pair_is_the_single_fraction():
    """``block_fraction=(f, f)`` (``low <= high``, documented) gives blocks of the side
    that ``f`` gives."""
    X = np.zeros((30, 64))
    _, pair = occlude_blocks(X, (8, 8), block_fraction=(0.25, 0.25), random_state=0)
    _, single = occlude_blocks(X, (8, 8), block_fraction=0.25, random_state=0)
    assert set(_sides(pair, (8, 8))) == set(_sides(single, (8, 8))) == {4}


def test_a_pair_draws_one_size_per_block():
    """With ``(0.1, 1.0)`` on 16x16 images the sides spread over the range the pair
    allows (round(sqrt(f) * 16) for f in [0.1, 1]), not one size for all."""
    X = np.zeros((200, 256))
    _, mask = occlude_blocks(
        X, (16, 16), image_fraction=1.0, block_fraction=(0.1, 1.0), random_state=0
    )
    sides = _sides(mask, (16, 16))
    assert min(sides) >= 5 and max(sides) <= 16
    assert len(set(sides)) >= 8


def test_nearest_resize_scales_heights_by_heights_and_widths_by_widths():
    """An outlier whose pixel (r, c) holds 10 r + c, resized from 2x4 to 8x4 with the
    nearest neighbour: each source row becomes four rows, the columns stay as they are."""
    source = (10.0 * np.arange(2)[:, None] + np.arange(4)[None, :]).reshape(1, 8)
    X, is_outlier = append_outliers(
        np.zeros((1, 32)), source, 1, image_shape=(8, 4), outlier_shape=(2, 4), order=0
    )
    expected = 10.0 * (np.arange(8)[:, None] // 4) + np.arange(4)[None, :]
    np.testing.assert_array_equal(X[is_outlier].reshape(8, 4), expected)


def test_rescale_maps_the_pools_range_not_the_chosen_rows_range():
    """``rescale=True`` maps the pool's minimum and maximum (documented) onto the images'
    range: a drawn outlier spanning a tenth of the pool's range spans a tenth of the
    images' range, wherever it lies in the pool."""
    pool = np.stack([np.linspace(0.0, 10.0, 16), np.linspace(90.0, 100.0, 16)])
    images = np.linspace(0.0, 1.0, 2 * 16).reshape(2, 16)
    for seed in range(4):
        X, is_outlier = append_outliers(images, pool, 1, rescale=True, random_state=seed)
        outlier = X[is_outlier][0]
        assert np.ptp(outlier) == pytest.approx(0.1)
        row = pool[np.argmin(np.abs(pool - 100.0 * outlier).sum(axis=1))]
        np.testing.assert_allclose(outlier, row / 100.0, rtol=1e-12)


def test_spline_order_five_is_accepted():
    """``order`` is documented as an int in [0, 5]: 5 resizes, 6 is refused."""
    pool = np.ones((2, 16))
    X, _ = append_outliers(
        np.zeros((1, 64)), pool, 2, image_shape=(8, 8), outlier_shape=(4, 4), order=5
    )
    np.testing.assert_allclose(X[1:], 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="order"):
        append_outliers(
            np.zeros((1, 64)), pool, 2, image_shape=(8, 8), outlier_shape=(4, 4), order=6
        )
