"""Reading frame folders, from the mutation audit: which files are frames, and in order.

``read_video`` documents a folder of ``.jpg``, ``.png``, ``.bmp``, ``.tif`` frames read in
the order of their names (``IMAGE_SUFFIXES`` also lists ``.tiff``) and ``frames`` that
select frames in order.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import read_video, video_info

Image = pytest.importorskip("PIL.Image")


def _ramp_frames(n=3, h=4, w=6):
    return [np.full((h, w), 50 * (k + 1), dtype=np.uint8) for k in range(n)]


def test_tiff_frames_with_the_long_suffix_are_read(tmp_path):
    """``frame_001.tiff`` ... are frames like ``.tif`` ones."""
    for k, frame in enumerate(_ramp_frames()):
        Image.fromarray(frame).save(tmp_path / f"frame_{k:03d}.tiff")
    video = read_video(tmp_path, dtype=np.uint8)
    np.testing.assert_array_equal(video[:, 0, 0], [50, 100, 150])
    assert video_info(tmp_path).n_frames == 3


def test_a_subfolder_named_like_an_image_is_not_a_frame(tmp_path):
    """A folder ``thumbs.png/`` beside the frames is skipped, not opened as an image."""
    for k, frame in enumerate(_ramp_frames()):
        Image.fromarray(frame).save(tmp_path / f"in{k:06d}.png")
    (tmp_path / "thumbs.png").mkdir()
    assert read_video(tmp_path).shape == (3, 4, 6)


def test_a_decreasing_range_is_refused(tmp_path):
    """``frames=range(2, -1, -1)`` would read the clip backwards: a ValueError, as for a
    slice with a negative step."""
    for k, frame in enumerate(_ramp_frames()):
        Image.fromarray(frame).save(tmp_path / f"in{k:06d}.png")
    with pytest.raises(ValueError, match="in order"):
        read_video(tmp_path, frames=range(2, -1, -1))


def test_a_factor_that_does_not_divide_the_size_gives_the_scaled_size(tmp_path):
    """10x10 frames at ``scale=0.3`` are 3x3 (``round(10 * 0.3)``), as ``video_info``
    says, in ``read_video`` and ``iter_video`` alike; a flat frame stays flat."""
    from robustpca.datasets import iter_video

    for k in range(2):
        Image.fromarray(np.full((10, 10), 90 + k, dtype=np.uint8)).save(tmp_path / f"f{k}.png")
    assert video_info(tmp_path, scale=0.3).frame_shape == (3, 3)
    video = read_video(tmp_path, scale=0.3)
    assert video.shape == (2, 3, 3)
    np.testing.assert_array_equal(video[:, 1, 1], [90.0, 91.0])
    assert [b.shape for b in iter_video(tmp_path, scale=0.3)] == [(2, 3, 3)]


def test_a_slice_of_a_video_file_stops_before_its_stop(tmp_path):
    """``frames=slice(1, 3)`` of an 8-frame video file is its frames 1 and 2, as of a
    frame folder: ``stop`` is excluded."""
    av = pytest.importorskip("av")
    frames = np.zeros((8, 16, 16, 3), dtype=np.uint8)
    frames[:, 4:12, 4:12] = (30 * np.arange(8))[:, None, None, None]
    path = tmp_path / "clip.mp4"
    codec = "libx264" if "libx264" in av.codecs_available else "mpeg4"
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream(codec, rate=10)
        stream.width, stream.height, stream.pix_fmt = 16, 16, "yuv420p"
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    whole = read_video(path)
    part = read_video(path, frames=slice(1, 3))
    assert part.shape[0] == 2
    np.testing.assert_array_equal(part, whole[1:3])
