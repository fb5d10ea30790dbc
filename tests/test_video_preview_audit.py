"""``write_preview``, from the mutation audit: mask levels, lengths and frame rate.

``frame | background | mask`` side by side in grey, masks nonzero as white, the three
inputs of one length (documented ValueError otherwise), at ``fps`` frames per second.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import write_preview

Image = pytest.importorskip("PIL.Image")


def test_nonzero_masks_are_white_whatever_their_values(tmp_path):
    """Masks of 0/1 integers (a label image) show 255 where 1, 0 where 0."""
    frames = np.full((2, 4, 4), 100, dtype=np.uint8)
    masks = np.zeros((2, 4, 4), dtype=np.int64)
    masks[:, 1:3, 1:3] = 1
    path = write_preview(tmp_path / "p.gif", frames, frames[0], masks)
    with Image.open(path) as gif:
        first = np.asarray(gif.convert("L"))
    assert first.shape == (4, 12)
    np.testing.assert_array_equal(first[:, 8:] == 255, masks[0] == 1)
    np.testing.assert_array_equal(first[:, 8:][masks[0] == 0], 0)


def test_a_shorter_background_is_a_value_error(tmp_path):
    """Three frames and masks but two backgrounds: the documented ValueError."""
    frames = np.zeros((3, 4, 4))
    with pytest.raises(ValueError, match="different numbers of frames"):
        write_preview(tmp_path / "p.gif", frames, frames[:2], frames > 0)


@pytest.mark.parametrize(("fps", "milliseconds"), [(20.0, 50), (4, 250)])
def test_gif_frames_last_one_over_fps_seconds(tmp_path, fps, milliseconds):
    """Each of three distinct frames is shown 1000 / fps milliseconds."""
    from PIL import ImageSequence

    frames = np.arange(3, dtype=float)[:, None, None] * np.full((3, 4, 4), 60.0)
    path = write_preview(tmp_path / "p.gif", frames, frames[0], frames > 0, fps=fps)
    with Image.open(path) as gif:
        durations = [frame.info["duration"] for frame in ImageSequence.Iterator(gif)]
    assert durations == [milliseconds] * 3


def test_a_video_preview_plays_at_fps(tmp_path):
    """An .mp4 preview written at 10 frames per second says 10 in its container."""
    pytest.importorskip("av")
    from robustpca.datasets import video_info

    frames = np.arange(4, dtype=float)[:, None, None] * np.full((4, 8, 8), 60.0)
    path = write_preview(tmp_path / "p.mp4", frames, frames[0], frames > 0, fps=10)
    assert video_info(path).fps == pytest.approx(10.0)
