"""Audit of the foreground pipeline: gaps that hide a frame from its sampling grid, the
score and the masks on windows with gaps, wide windows, region sizes at a tie, frame
shapes, colour at extreme scales, reused stream buffers, binary frames, 16-bit images
and the writers' file names."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from robustpca.background_subtraction import subtract_background
from robustpca.datasets import load_cdnet, read_video, write_frames, write_masks
from robustpca.estimators import PrincipalComponentPursuit
from robustpca.foreground import (
    FRAME_SAMPLE,
    _frame_sample,
    _least_size,
    _rms,
    foreground_masks,
    foreground_score,
)
from robustpca.foreground_gaps import observed_sample
from robustpca.foreground_stream import ForegroundDetector

from .test_foreground import f_measure


# ------------------------------------------------------------- 1: the frame's sample grid
@pytest.mark.parametrize("missing", [slice(0, None, 2), slice(1, None, 2)])
def test_frame_statistics_with_gaps_use_the_observed_pixels(missing):
    """Every other column missing on frames of 8,192 pixels (a grid step of 2): a global
    brightness change is the frame's offset, not an object, whichever half is missing."""
    rng = np.random.default_rng(0)
    R = rng.normal(size=(20, 64, 128))
    R[5] += 30.0
    R[:, :, missing] = np.nan
    assert not foreground_masks(R).any()
    assert not ForegroundDetector().update(R).any()


def test_observed_sample_is_the_rules_grid_on_full_frames():
    rng = np.random.default_rng(1)
    flat = rng.normal(size=(3, 3 * FRAME_SAMPLE + 5))
    np.testing.assert_array_equal(observed_sample(flat, FRAME_SAMPLE), _frame_sample(flat))
    small = rng.normal(size=(3, 100))
    assert observed_sample(small, FRAME_SAMPLE) is small
    flat[1] = np.nan  # a frame with nothing seen: an all-NaN row (offset 0, gain 1)
    flat[2, ::2] = np.nan
    sample = observed_sample(flat, FRAME_SAMPLE)
    assert np.isnan(sample[1]).all() and not np.isnan(sample[2, : FRAME_SAMPLE // 2]).any()


@pytest.mark.realdata
def test_highway_with_every_other_column_missing(shared_data):
    """CDnet highway at half size (19,200 pixels a frame), a brightness jump in one frame:
    with the even or the odd columns missing, the frame is not all foreground and the
    F-measure on the pixels seen is about that of the full frames."""
    root = shared_data / "video" / "highway"
    if not root.is_dir():
        pytest.fail(f"CDnet highway not found at {root}")
    X = read_video(root, scale=0.5, frames=slice(1050, 1110), dtype=np.float64)
    R = X - np.median(X, axis=0)
    R[30] += 40.0
    full = foreground_masks(R)
    for missing in (slice(0, None, 2), slice(1, None, 2)):
        G = R.copy()
        G[:, :, missing] = np.nan
        masks = foreground_masks(G)
        assert masks[30].mean() < 0.2
        seen = np.zeros(R.shape, dtype=bool)
        seen[:, :, missing] = True
        seen = ~seen
        assert f_measure(masks & seen, full & seen) > 0.8


# ------------------------------------------------- 6: score and masks agree with gaps
def test_with_gaps_the_masks_threshold_the_score():
    rng = np.random.default_rng(0)
    R = rng.normal(size=(10, 5, 5))
    R[3, 1, 1] = R[3, 1, 2] = 40.0
    for i, j in [(1, 3), (2, 1), (2, 3), (3, 1), (3, 3)]:
        R[3, i, j] = np.nan  # (2, 2)'s window observes 4 pixels, two of them at 40
    z, masks = foreground_score(R), foreground_masks(R)
    assert not ((z > 8) & ~masks).any()
    assert (z[3, 2, 2] > 8) == masks[3, 2, 2]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("window", [3, 5])
def test_with_gaps_masks_are_the_score_thresholded(seed, window):
    """With ``low == high`` and no hole filling the masks are exactly ``score > high``,
    even windows of observed pixels included."""
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(8, 14, 15))
    R[2:5, 3:9, 4:10] += rng.uniform(0, 30, size=(3, 6, 6))
    R[rng.random(R.shape) < 0.35] = np.nan
    for t in (2.0, 4.0, 6.0):
        masks = foreground_masks(R, high=t, low=t, window=window, fill_holes=False)
        np.testing.assert_array_equal(masks, foreground_score(R, window=window) > t)


# ------------------------------------------------------------- 7: windows of 257 and more
@pytest.mark.parametrize("gap", [False, True])
def test_wide_windows_count_without_wrapping(gap):
    rng = np.random.default_rng(0)
    R = rng.normal(size=(8, 9, 9))
    border = np.ones((9, 9), bool)
    border[1:-1, 1:-1] = False  # 32 of 81 pixels: the replicated edges are the majority
    R[5][border] += 100.0
    # a corner alone fills 129**2 of a corner pixel's 257**2 window: a quarter, no
    # majority; counted modulo 2**16 the window would seem to hold 513 pixels (512 with
    # the gap), of which the corner's 16,641 would be a majority
    R[6, 0, 0] += 100.0
    if gap:
        R[0, 0, 0] = np.nan
        R[6, 4, 4] = np.nan  # one pixel of each window: 66,048 observed, over 2**16
    z = foreground_score(R, window=257)
    masks = foreground_masks(R, window=257, high=8, low=8, fill_holes=False)
    np.testing.assert_array_equal(masks, z > 8)
    assert masks[5].all()
    assert not masks[6].any()


# ---------------------------------------------------------------- 8: min_size at a tie
def test_a_region_of_exactly_min_size_is_kept():
    rng = np.random.default_rng(0)
    R = rng.normal(size=(20, 3, 10))
    R[5, 1, 4:7] += 60.0  # 3 pixels: 0.1 of the frame, 0.1 * 3 * 10 > 3 in floats
    assert foreground_masks(R, window=1, min_size=0.1)[5].sum() == 3
    assert foreground_masks(R, window=1, min_size=0.11)[5].sum() == 0
    assert _least_size(0.1, 30) == 3 and _least_size(0.25, 30) == 8 and _least_size(0.5, 4) == 2


# ---------------------------------------------------------------- 9: frame_shape checked
@pytest.mark.parametrize(
    "frame_shape, error",
    [
        (8, TypeError),
        ("ab", TypeError),
        ((8.7, 8), TypeError),
        ((8.0, 8.0), TypeError),
        ((True, 64), TypeError),
        ((8,), ValueError),
        ((0, 64), ValueError),
        ((-8, -8), ValueError),
        ((1, 2, 4, 8), ValueError),
    ],
)
def test_frame_shape_is_checked(frame_shape, error):
    R = np.random.default_rng(0).normal(size=(5, 64))
    with pytest.raises(error, match="frame_shape"):
        foreground_masks(R, frame_shape=frame_shape)
    with pytest.raises(error, match="frame_shape"):
        foreground_score(R, frame_shape=frame_shape)
    with pytest.raises(error, match="frame_shape"):
        ForegroundDetector(frame_shape=frame_shape).update(R)


def test_frame_shape_takes_integer_sequences():
    R = np.random.default_rng(0).normal(size=(5, 64))
    expected = foreground_score(R.reshape(5, 8, 8))
    for shape in ([8, 8], (np.int64(8), np.uint8(8)), np.array([8, 8]), np.empty((8, 8)).shape):
        np.testing.assert_array_equal(foreground_score(R, frame_shape=shape), expected)


# ------------------------------------------------------------ 10: colour at every scale
@pytest.mark.parametrize(
    "dtype, scales",
    [(np.float32, [1e19, 1e20, 1e-22, 1e-25]), (np.float64, [1e160, 1e-170, 1e-300])],
)
def test_colour_masks_do_not_depend_on_the_scale(dtype, scales):
    rng = np.random.default_rng(0)
    R = rng.normal(size=(20, 16, 16, 3)).astype(dtype)
    R[5, 4:10, 4:10] += 20
    expected = foreground_masks(R)
    assert expected[5].sum() == 32
    for k in scales:
        np.testing.assert_array_equal(foreground_masks(R * dtype(k)), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_colour_magnitude_is_unchanged_at_usual_scales(dtype):
    rng = np.random.default_rng(0)
    R = rng.normal(scale=30, size=(4, 6, 7, 3)).astype(dtype)
    R[0, 0, 0] = 0.0
    R[1, 2, 3, 1] = np.nan
    expected = np.sqrt(np.einsum("...c,...c->...", R, R) / 3)
    np.testing.assert_array_equal(_rms(R, gaps=True), expected)


# ------------------------------------------------------ 2: a stream that reuses a buffer
def _moving_clip(n=120):
    rng = np.random.default_rng(0)
    clip = (100 + 5 * rng.normal(size=(n, 12, 16))).astype(np.float32)
    for t in range(n):
        clip[t, 3:7, t % 12 : t % 12 + 4] += 80
    return clip


@pytest.mark.parametrize(
    "method, dtype",
    [("orpca", np.float32), ("grasta", np.float32), ("pcp", np.float32), ("pcp", np.float64)],
)
def test_a_stream_may_refill_one_buffer(method, dtype):
    clip = _moving_clip().astype(dtype)

    def fresh():
        for i in range(0, len(clip), 4):
            yield clip[i : i + 4].copy()

    def reused():
        buffer = np.empty((4, 12, 16), dtype)
        for i in range(0, len(clip), 4):
            buffer[:] = clip[i : i + 4]
            yield buffer

    def run(stream):
        parts = [
            (b.masks.copy(), np.array(b.background), np.array(b.frames))
            for b in subtract_background(stream, method=method)
        ]
        return [np.concatenate(p) for p in zip(*parts, strict=True)]

    for a, b in zip(run(fresh()), run(reused()), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_clip_given_at_once_is_not_copied():
    clip = _moving_clip(40)
    (part,) = subtract_background(clip, method="pcp")
    assert part.frames is clip
    part = next(iter(subtract_background([clip[:20], clip[20:]], method="pcp")))
    assert np.shares_memory(part.frames, clip)


# ---------------------------------------------------------------- 3: binary frames
def _binary_clip():
    rng = np.random.default_rng(0)
    frames = rng.random((30, 24, 32)) < 0.02  # salt, so that the scales are not all 0
    truth = np.zeros(frames.shape, dtype=bool)
    for t in range(30):
        truth[t, 8:14, t % 26 : t % 26 + 6] = True
    return frames | truth, truth


def test_binary_frames_are_judged_as_zeros_and_ones():
    frames, truth = _binary_clip()
    parts = list(subtract_background(frames, method="orpca"))
    masks = np.concatenate([p.masks for p in parts])
    as_float = subtract_background(frames.astype(np.float32), method="orpca")
    np.testing.assert_array_equal(masks, np.concatenate([p.masks for p in as_float]))
    assert f_measure(masks, truth) > 0.8
    assert all(p.frames.dtype == np.bool_ for p in parts)
    assert parts[0].frames is frames


@pytest.mark.realdata
def test_highway_thresholded_as_a_binary_video(shared_data):
    """CDnet highway at quarter size, each pixel brighter than level 128 or not: as
    boolean frames the masks are those of the same frames as floats 0 and 1, and find
    the cars."""
    root = shared_data / "video" / "highway"
    if not root.is_dir():
        pytest.fail(f"CDnet highway not found at {root}")
    clip = load_cdnet(root, scale=0.25, numbers=(1050, 1149))
    frames = clip.frames > 128
    masks = np.concatenate([p.masks for p in subtract_background(frames)])
    as_float = subtract_background(frames.astype(np.float32))
    np.testing.assert_array_equal(masks, np.concatenate([p.masks for p in as_float]))
    assert f_measure(masks, clip.labels == 255) > 0.6


# ---------------------------------------------------------------- 4: 16-bit images
@pytest.mark.parametrize("suffix", [".png", ".tif"])
@pytest.mark.parametrize("grey", [True, False])
def test_16_bit_images_are_scaled_to_8_bits(tmp_path, suffix, grey):
    ramp = np.linspace(0, 65535, 4 * 6).reshape(4, 6).astype(np.uint16)
    for i in range(3):
        Image.fromarray(ramp).save(tmp_path / f"f{i:03d}{suffix}")
    assert Image.open(tmp_path / f"f000{suffix}").mode.startswith("I")
    frames = read_video(tmp_path, grey=grey, dtype=np.uint8)
    expected = np.round(ramp / 257).astype(np.uint8)
    if not grey:
        expected = np.repeat(expected[:, :, None], 3, axis=2)
    np.testing.assert_array_equal(frames[1], expected)


# ---------------------------------------------------------------- 5: writers' file names
def test_write_frames_pattern_needs_the_frame_number(tmp_path):
    frames = np.stack([np.full((4, 6), v) for v in (10.0, 200.0, 90.0)])
    for pattern in ("background.png", "{}{}.png", "{name}.png", "{:d.png"):
        with pytest.raises(ValueError, match="pattern"):
            write_frames(tmp_path / "out", frames, pattern=pattern)
    with pytest.raises(ValueError, match="pattern"):
        write_frames(tmp_path / "out", iter([frames[:1], frames[1:]]), pattern="bg.png")
    assert not (tmp_path / "out").exists()
    with pytest.raises(TypeError, match="pattern"):
        write_frames(tmp_path / "out", frames, pattern=3)
    (path,) = write_frames(tmp_path / "one", frames[:1], pattern="background.png")
    assert path.name == "background.png"
    (path,) = write_frames(tmp_path / "it", iter([frames[:1], frames[:0]]), pattern="b.png")
    assert path.name == "b.png"


def test_write_frame_numbers_are_checked_before_writing(tmp_path):
    frames = np.zeros((3, 4, 6))
    with pytest.raises(ValueError, match=r"frame_numbers.*fewer"):
        write_frames(tmp_path / "few", frames, frame_numbers=[1, 2])
    with pytest.raises(ValueError, match=r"frame_numbers.*fewer"):
        write_masks(tmp_path / "few", frames > 0, frame_numbers=[1, 2])
    with pytest.raises(ValueError, match=r"frame_numbers.*more"):
        write_masks(tmp_path / "few", frames > 0, frame_numbers=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="frame_numbers"):
        write_frames(tmp_path / "few", frames, frame_numbers=[5, 6, 5])
    assert not (tmp_path / "few").exists()
    # batches: a batch is checked before its frames are written
    with pytest.raises(ValueError, match=r"frame_numbers.*fewer"):
        write_masks(tmp_path / "b", iter([frames[:2] > 0, frames[2:] > 0]), frame_numbers=[1])
    assert not (tmp_path / "b").exists()


def test_write_masks_takes_single_channel_masks(tmp_path):
    with pytest.raises(ValueError, match="masks"):
        write_masks(tmp_path / "m", np.zeros((2, 4, 6, 3), bool))
    assert not (tmp_path / "m").exists()


# ---------------------------------------------------------------- minor: clear errors
def test_subtract_background_names_what_is_wrong():
    clip = _moving_clip(10)
    with pytest.raises(TypeError, match=r"model.*partial_fit_decompose.*method"):
        next(subtract_background(clip, model=PrincipalComponentPursuit()))
    with pytest.raises(TypeError, match=r"model.*fit"):
        next(subtract_background(clip, method="pcp", model=object()))
    with pytest.raises(TypeError, match="return_scores"):
        next(subtract_background(clip, return_scores="yes"))
    with pytest.raises(ValueError, match="frames"):
        next(subtract_background(clip[:1], method="pcp"))
    part = next(subtract_background(clip, return_scores=np.True_))
    assert part.scores is not None
