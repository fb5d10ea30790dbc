"""A folder of frames is read in the natural order of its names (audit of the video
pipeline): FFmpeg's ``%d.png`` numbers frames ``1.png, 2.png, ..., 10.png``, which the
order of the names as text shuffles (``1, 10, 11, 12, 2, ...``)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from robustpca.cli import main
from robustpca.datasets import iter_video, load_cdnet, read_video, video_info

N = 12


@pytest.fixture
def numbered(tmp_path):
    """Frames ``1.png`` ... ``12.png``, frame k at grey level 10 k."""
    from PIL import Image

    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(1, N + 1):
        Image.fromarray(np.full((8, 10), 10 * k, dtype=np.uint8)).save(folder / f"{k}.png")
    return folder


def test_read_video_follows_the_numbers(numbered):
    levels = read_video(numbered)[:, 0, 0]
    np.testing.assert_array_equal(levels, 10 * np.arange(1, N + 1))
    batches = np.concatenate([b[:, 0, 0] for b in iter_video(numbered, batch_size=5)])
    np.testing.assert_array_equal(batches, levels)
    assert video_info(numbered).n_frames == N


def test_the_cli_numbers_its_outputs_by_the_frames_order(numbered, tmp_path):
    from PIL import Image

    out = tmp_path / "out"
    argv = ["video", str(numbered), "--out", str(out), "--scale", "1", "--quiet"]
    assert main([*argv, "--preview", "none", "--write-backgrounds"]) == 0
    # the scene is uniform and brightens frame by frame: each frame's background is
    # its own level (the rank-one model's brightness), so bg000002 is frame 2.png's
    background = Image.open(out / "background" / "bg000002.png")
    assert abs(int(np.asarray(background)[0, 0]) - 20) <= 2


def test_natural_key_orders_numbers_as_numbers():
    from robustpca.datasets._video_read import natural_key

    names = ["frame10.png", "frame9.png", "b.png", "a2.png", "a10.png", "10.png", "2.png"]
    names += ["01.png", "1.png", "img_2_10.png", "img_2_9.png", "img_10_1.png"]
    assert sorted(names, key=natural_key) == [
        "01.png",
        "1.png",
        "2.png",
        "10.png",
        "a2.png",
        "a10.png",
        "b.png",
        "frame9.png",
        "frame10.png",
        "img_2_9.png",
        "img_2_10.png",
        "img_10_1.png",
    ]


def test_real_frames_renamed_as_ffmpeg_names_them_keep_their_order(shared_data, tmp_path):
    """Twelve highway frames renamed ``1.jpg`` ... ``12.jpg`` read as the CDnet clip's."""
    source = shared_data / "video" / "highway" / "input"
    folder = tmp_path / "renamed"
    folder.mkdir()
    for k in range(1, N + 1):
        shutil.copy(source / f"in{1049 + k:06d}.jpg", folder / f"{k}.jpg")
    original = load_cdnet(source.parent, scale=0.25, numbers=(1050, 1049 + N)).frames
    np.testing.assert_array_equal(read_video(folder, scale=0.25), original)
