"""The mask rule on residuals with missing pixels (NaN): without gaps its parts are the
rule's own; a missing pixel takes its observed neighbours' verdict and never moves the
running scale; nothing seen is background; on CDnet highway, half the pixels missing
costs the masks little where counting gaps as background loses the cars."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage as ndi

from robustpca import OnlineRobustPCA
from robustpca.binary_regions import _majority
from robustpca.foreground import _floor, _raw_scale, foreground_masks, foreground_score
from robustpca.foreground_gaps import (
    frame_gains,
    frame_offsets,
    gap_majority,
    gap_median_filter,
    gap_pixel_scale,
)
from robustpca.foreground_stream import ForegroundDetector

from .test_foreground import _highway_quarter, f_measure


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 5),
    window=st.sampled_from([1, 3, 5]),
    threshold=st.floats(-1.0, 2.0),
)
def test_without_gaps_each_part_is_the_rules_own(seed, n, window, threshold):
    rng = np.random.default_rng(seed)
    z = np.round(rng.normal(size=(n, 7, 9)), 1)  # ties as well
    np.testing.assert_array_equal(
        gap_majority(z, threshold, window), _majority(z > threshold, window)
    )
    filtered = ndi.median_filter(z, size=(1, window, window), mode="nearest")
    np.testing.assert_array_equal(gap_median_filter(z, window), filtered)
    flat = z.reshape(n, -1)
    np.testing.assert_array_equal(frame_offsets(flat), np.median(flat, axis=1))
    gains = np.maximum(1.4826 * np.median(np.abs(flat), axis=1), 1.0)
    np.testing.assert_allclose(frame_gains(np.abs(flat)), gains, rtol=1e-15)
    raw, floor = gap_pixel_scale(np.abs(z), _floor)
    expected_raw, expected_floor = _raw_scale(np.abs(z))
    np.testing.assert_array_equal(raw, expected_raw)
    assert floor == expected_floor


def _planted(seed=0, n=12):
    """Noise with a bright 6 x 6 block in frame 5, and random gaps (30%)."""
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, 24, 24))
    R[5, 8:14, 8:14] += 25.0
    holes = rng.random(R.shape) < 0.3
    return R, np.where(holes, np.nan, R), holes


def test_a_missing_pixel_takes_its_neighbours_verdict():
    R, gappy, holes = _planted()
    full, masks = foreground_masks(R), foreground_masks(gappy)
    block = np.zeros(R.shape, dtype=bool)
    block[5, 8:14, 8:14] = True
    inside = block.copy()
    inside[5, 8, :] = inside[5, 13, :] = inside[5, :, 8] = inside[5, :, 13] = False
    assert masks[inside].all()  # seen or not, the block's inside is foreground
    # at most a one-pixel rim where a missing pixel's seen neighbours are the block's
    near = ndi.binary_dilation(block, structure=np.ones((1, 3, 3), dtype=bool))
    assert not masks[~near].any() and not full[~block].any()
    seen = block & ~holes  # as found as with every pixel (the corners are not, either)
    assert masks[seen].mean() >= full[seen].mean() - 0.1 and full[seen].mean() > 0.8


def test_missing_pixels_never_move_the_running_scale():
    rng = np.random.default_rng(1)
    detector = ForegroundDetector()
    detector.update(rng.normal(size=(10, 8, 8)))
    before = detector.scale_.copy()
    batch = 5.0 * rng.normal(size=(10, 8, 8))  # louder: every seen pixel's scale grows
    batch[:, 2, 3] = np.nan
    detector.update(batch)
    # unmoved, but for the floor that the louder batch raises under every pixel
    assert detector.scale_[2, 3] == max(before[2, 3], detector.noise_floor_ / 2)
    grown = detector.scale_ > before
    grown[2, 3] = True
    assert grown.all()


@pytest.mark.parametrize("window", [1, 3])
def test_nothing_seen_is_background_and_scores_stay_finite(window):
    R, gappy, _ = _planted(2)
    gappy[3] = np.nan  # a frame with no pixel
    detector = ForegroundDetector(window=window)
    detector.update(R)
    for out in (foreground_score(gappy, window=window), detector.score(gappy)):
        assert np.isfinite(out).all()
    masks = foreground_masks(gappy, window=window)
    assert not masks[3].any()
    detector = ForegroundDetector(window=window)
    assert not detector.update(np.full((4, 24, 24), np.nan)).any()
    assert not hasattr(detector, "scale_")  # nothing seen gives the scale no unit
    assert np.isfinite(detector.score(gappy)).all()
    detector.update(R)
    assert np.isfinite(detector.scale_).all()


def test_infinity_is_still_an_error():
    R = np.zeros((3, 4, 4))
    R[1, 2, 2] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        foreground_masks(R)


@pytest.mark.realdata
def test_highway_with_half_the_pixels_missing(shared_data):
    """CDnet highway (100 frames, 80 x 60, grey), OR-PCA's streamed residual with half the
    pixels removed at random: the streaming rule's masks on the pixels seen are within
    0.05 of the complete clip's F-measure; counting the gaps as background (residual 0
    there) loses most of the cars."""
    root = shared_data / "video" / "highway"
    if not root.is_dir():
        pytest.fail(f"CDnet highway not found at {root}")
    X, gt = _highway_quarter(root)
    X = 255 * X.reshape(len(X), -1)
    holes = np.random.default_rng(0).random(X.shape) < 0.5
    seen = ~holes.reshape(gt.shape)
    counted = ((gt == 255) | (gt == 0) | (gt == 50)) & seen
    truth = (gt == 255) & counted

    def masks_of(data, fill=None):
        model, detector = OnlineRobustPCA(random_state=0, burn_in=50), ForegroundDetector()
        out = []
        for s in range(0, 100, 25):
            low, _ = model.partial_fit_decompose(data[s : s + 25])
            residual = (data[s : s + 25] - low).reshape(-1, 60, 80)
            if fill is not None:
                residual = np.where(np.isnan(residual), fill, residual)
            out.append(detector.update(residual))
        return np.concatenate(out)

    f_full = f_measure(masks_of(X) & counted, truth)
    gappy = np.where(holes, np.nan, X)
    f_gaps = f_measure(masks_of(gappy) & counted, truth)
    f_zero = f_measure(masks_of(gappy, fill=0.0) & counted, truth)
    assert f_gaps > f_full - 0.05
    assert f_gaps > f_zero + 0.2
