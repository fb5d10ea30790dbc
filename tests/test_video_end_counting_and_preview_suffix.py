"""Pins of ``robustpca.datasets``' video reading and writing that no test held:

- ``read_video(..., frames=slice(a, -b))`` on a video file whose container gives its
  number of frames counts the negative *stop* from the end, as the docstring says
  ("Counting from the end (negative bounds) needs a frame folder or a video file whose
  container gives its number of frames"): "all but the last frame" of an .mp4 works;
- ``write_preview`` picks the format from the suffix whatever its case: ``P.GIF``
  (as cameras and Windows tools name files) is written as a GIF, not refused.
"""

import numpy as np
import pytest

from robustpca.datasets import read_video, video_info, write_preview

from .test_video_io import (
    Image,
    _collections_see_only_the_tests_objects,  # noqa: F401 (autouse)
    write_mp4,
)


def test_a_negative_stop_on_a_video_file_counts_from_the_end(tmp_path):
    levels = np.linspace(30, 220, 5).astype(np.uint8)
    frames = np.repeat(levels[:, None, None, None], 16, axis=1).repeat(16, axis=2).repeat(3, 3)
    path = write_mp4(tmp_path / "clip.mp4", frames)
    if video_info(path).n_frames != 5:
        pytest.skip("this container does not give its number of frames")
    everything = read_video(path)
    np.testing.assert_array_equal(read_video(path, frames=slice(0, -1)), everything[:-1])
    np.testing.assert_array_equal(read_video(path, frames=slice(1, -2)), everything[1:3])
    np.testing.assert_array_equal(read_video(path, frames=slice(None, -3, 2)), everything[:2:2])


def test_an_upper_case_gif_suffix_writes_a_gif(tmp_path):
    frames = np.zeros((3, 8, 8))
    frames[1, 2:5, 2:5] = 255
    out = write_preview(tmp_path / "P.GIF", frames, frames[0], frames > 0)
    assert out.name == "P.GIF"
    with Image.open(out) as image:
        assert image.format == "GIF" and image.n_frames == 3
