"""``robustpca video``: a bad CDnet layout file is a clean error at every ``--scale``,
an ``--ignore`` mask that leaves no pixel is refused, and a run where no pixel was
scored reports no measures.

At a ``--scale`` other than 1 the clip's ground truth is indexed again at the frames'
own size; a bad ``temporalROI.txt``, ``ROI.bmp`` or frame name there escaped as a
ValueError traceback. An ``--ignore`` mask over every pixel gave "F-measure 0.000 over
N scored frames", with recall and its complement fnr both 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robustpca.cli import main
from robustpca.datasets import write_frames

H, W, N = 24, 32, 12


def write_clip(folder: Path, n: int = N) -> Path:
    """A CDnet clip: a textured background, a bright block crossing it, its labels."""
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:H, 0:W]
    frames = np.repeat((100 + 40 * np.sin(xx / 5.0) * np.cos(yy / 4.0))[None], n, axis=0)
    frames = frames + 2.0 * rng.normal(size=frames.shape)
    labels = np.zeros((n, H, W), dtype=np.uint8)
    for t in range(n):
        frames[t, 8:16, 2 * t : 2 * t + 6] = 230.0
        labels[t, 8:16, 2 * t : 2 * t + 6] = 255
    numbers = list(range(1, n + 1))
    frames = np.clip(frames, 0, 255)
    write_frames(folder / "input", frames, pattern="in{:06d}.png", frame_numbers=numbers)
    write_frames(folder / "groundtruth", labels, pattern="gt{:06d}.png", frame_numbers=numbers)
    (folder / "temporalROI.txt").write_text(f"1 {n}\n")
    return folder


def save_image(path: Path, pixels: np.ndarray) -> Path:
    from PIL import Image

    Image.fromarray(pixels.astype(np.uint8)).save(path)
    return path


def video(clip: Path, out: Path, *options: str) -> int:
    return main(["video", str(clip), "--out", str(out), "--quiet", "--preview", "none", *options])


BREAKS = {
    "temporalROI.txt": lambda clip: (clip / "temporalROI.txt").write_text("garbage\n"),
    "ROI.bmp": lambda clip: save_image(clip / "ROI.bmp", np.full((5, 7), 255)),
    "frame.jpg": lambda clip: save_image(clip / "input" / "frame.jpg", np.zeros((H, W))),
}


@pytest.mark.parametrize("name", list(BREAKS))
def test_a_bad_cdnet_file_is_the_same_clean_error_at_every_scale(tmp_path, capsys, name):
    """The default --scale 0.5 gives --scale 1's message (naming the file), exit status
    1 as for every unusable input, no traceback and no output folder."""
    clip = write_clip(tmp_path / "clip")
    BREAKS[name](clip)
    errors = []
    for scale in ("1", "0.5", None):
        out = tmp_path / f"out-{scale}"
        assert video(clip, out, *(("--scale", scale) if scale else ())) == 1, scale
        captured = capsys.readouterr()
        assert not out.exists()
        errors.append(captured.err)
    assert errors[0] == errors[1] == errors[2]
    assert errors[0].startswith("robustpca video: error: ") and name in errors[0]
    assert "Traceback" not in errors[0]


@pytest.mark.parametrize("scale", ["1", "0.5"])
def test_an_ignore_mask_over_every_pixel_is_refused(tmp_path, capsys, scale):
    clip = write_clip(tmp_path / "clip")
    mask = save_image(tmp_path / "all.png", np.full((H, W), 255))
    out = tmp_path / "out"
    assert video(clip, out, "--scale", scale, "--ignore", str(mask)) == 1
    err = capsys.readouterr().err
    assert err.startswith("robustpca video: error: --ignore ")
    assert "no pixel is left to fit or score" in err and "black (0)" in err
    assert not out.exists()


def test_an_ignore_mask_that_the_scaling_fills_is_refused_at_that_scale(tmp_path, capsys):
    """Every pixel ignored but one column of two: the frames halved by the nearest
    neighbour keep none of it (it says at which scale); at --scale 1 the column is fitted."""
    clip = write_clip(tmp_path / "clip")
    pixels = np.full((H, W), 255)
    pixels[:, 0::2] = 0  # the columns kept: those the halving drops
    mask = save_image(tmp_path / "most.png", pixels)
    assert video(clip, tmp_path / "half", "--scale", "0.5", "--ignore", str(mask)) == 1
    assert f"at --scale 0.5 ({W // 2}x{H // 2})" in capsys.readouterr().err
    assert video(clip, tmp_path / "full", "--scale", "1", "--ignore", str(mask)) == 0


@pytest.mark.parametrize("scale", ["1", "0.5"])
def test_no_measures_where_no_pixel_is_scored(tmp_path, capsys, scale):
    """The ROI lies inside the --ignore mask: the frames are fitted and the masks
    written, but no pixel is scored, so summary.json holds the (zero) counts and no
    measure (recall and fnr both 0 contradicted each other)."""
    clip = write_clip(tmp_path / "clip")
    roi = np.zeros((H, W))
    roi[4:20, 4:28] = 255
    save_image(clip / "ROI.bmp", roi)
    mask = save_image(tmp_path / "roi.png", roi)
    out = tmp_path / "out"
    assert video(clip, out, "--scale", scale, "--ignore", str(mask)) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_scored_frames"] == N
    assert summary["counts"] == {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for key in ("f_measure", "precision", "recall", "fnr", "specificity", "fpr", "pwc"):
        assert key not in summary, key
    assert len(list((out / "masks").glob("bin*.png"))) == N
    printed = capsys.readouterr().out
    assert "F-measure" not in printed and "no measures: no pixel" in printed
