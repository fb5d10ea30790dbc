"""``video_info`` of a container that states neither its frame count nor its duration
(Matroska): ``n_frames`` is None and ``fps`` is the stream's rate, on every supported
imageio. imageio 2.22 (the minimum) multiplied the missing duration by the time base in
its metadata and failed, so ``video_info`` refused the file; the rate then comes from
PyAV (``_average_rate``)."""

from __future__ import annotations

import pytest

from robustpca.datasets import read_video, video_info
from robustpca.datasets._video_read import _average_rate

from .test_cli_video_preview_unknown_length import write_mkv

pytest.importorskip("av")


def test_a_matroska_file_has_a_rate_and_no_frame_count(tmp_path):
    clip = write_mkv(tmp_path / "clip.mkv", n=30)
    info = video_info(clip)
    assert info.n_frames is None and info.frame_shape == (8, 8)
    assert info.fps == pytest.approx(25.0) == _average_rate(clip)
    assert read_video(clip).shape == (30, 8, 8)
