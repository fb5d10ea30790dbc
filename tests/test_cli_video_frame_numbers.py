"""``robustpca video`` names a plain frame folder's masks after its frames' numbers.

Pointed at a CDnet clip's ``input/`` alone (no ground truth beside it), the masks were
numbered by position, ``bin000001.png`` for ``in000470.jpg``, so that CDnet's own
comparator, which pairs ``binNNNNNN`` with ``gtNNNNNN``, misaligned every frame.
"""

from __future__ import annotations

import shutil

import pytest
from PIL import Image

from robustpca.cli import main

pytestmark = pytest.mark.realdata


def highway_frames(shared_data, tmp_path, names):
    """Six real highway frames (``in000470.jpg`` on), copied under the given names."""
    source = shared_data / "video" / "highway" / "input"
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, name in enumerate(names):
        shutil.copy(source / f"in{470 + i:06d}.jpg", folder / name)
    return folder


def run(folder, tmp_path):
    out = tmp_path / "out"
    argv = ["video", str(folder), "--out", str(out), "--quiet", "--scale", "0.25"]
    assert main([*argv, "--method", "orpca", "--batch-size", "3"]) == 0
    return sorted(p.name for p in (out / "masks").iterdir())


def test_cdnet_input_folder_keeps_its_frame_numbers(shared_data, tmp_path):
    names = [f"in{470 + i:06d}.jpg" for i in range(6)]
    folder = highway_frames(shared_data, tmp_path, names)
    assert run(folder, tmp_path) == [f"bin{470 + i:06d}.png" for i in range(6)]


def test_numbers_with_gaps_and_a_prefix(shared_data, tmp_path):
    names = [f"frame_{n}.jpg" for n in (5, 10, 15, 20, 25, 30)]
    folder = highway_frames(shared_data, tmp_path, names)
    assert run(folder, tmp_path) == [f"bin{n:06d}.png" for n in (5, 10, 15, 20, 25, 30)]


@pytest.mark.parametrize(
    "names",
    [
        ["a.jpg", "b.jpg", "c.jpg", "d.jpg", "e.jpg", "f.jpg"],  # no numbers
        [f"x{i}.jpg" for i in range(3)] + [f"y{i}.jpg" for i in range(3)],  # two prefixes
        ["1.jpg", "01.jpg", "2.jpg", "3.jpg", "4.jpg", "5.jpg"],  # a number twice
    ],
)
def test_otherwise_by_position(shared_data, tmp_path, names):
    folder = highway_frames(shared_data, tmp_path, names)
    assert run(folder, tmp_path) == [f"bin{i:06d}.png" for i in range(1, 7)]
    assert Image.open(next((tmp_path / "out" / "masks").iterdir())).size[0] > 0


def test_frames_smaller_than_the_rule_window_are_refused(shared_data, tmp_path, capsys):
    """``--scale`` so small that a frame is under the mask rule's 3 x 3 window was
    accepted and wrote meaningless masks; it is an error naming ``--scale``."""
    folder = highway_frames(shared_data, tmp_path, [f"in{470 + i:06d}.jpg" for i in range(6)])
    out = tmp_path / "out"
    assert main(["video", str(folder), "--out", str(out), "--scale", "0.005"]) == 1
    err = capsys.readouterr().err
    assert "--scale 0.005" in err and "window" in err and not out.exists()
