"""``robustpca video`` on CDnet clips whose ground truth scores nothing: a clip without
``groundtruth/`` and a clip whose ``temporalROI.txt`` lies outside its frames. The masks
are written with the clip's own frame numbers, and summary.json holds no measures (CDnet's
measures of no scored frame are undefined, not zero), at the input's size and scaled."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robustpca.cli import main
from robustpca.datasets import write_frames

H, W, N, FIRST = 16, 20, 12, 101


def cdnet_clip(folder, *, truth: bool, temporal_roi: tuple[int, int]):
    rng = np.random.default_rng(0)
    frames = np.clip(120 + 3.0 * rng.normal(size=(N, H, W)), 0, 255)
    labels = np.zeros((N, H, W), dtype=np.uint8)
    for t in range(N):
        frames[t, 4:9, t : t + 5] = 240.0
        labels[t, 4:9, t : t + 5] = 255
    numbers = list(range(FIRST, FIRST + N))
    write_frames(folder / "input", frames, pattern="in{:06d}.png", frame_numbers=numbers)
    if truth:
        write_frames(folder / "groundtruth", labels, pattern="gt{:06d}.png", frame_numbers=numbers)
    (folder / "temporalROI.txt").write_text("{} {}\n".format(*temporal_roi))
    return folder


def run(clip, out, scale):
    argv = ["video", str(clip), "--out", str(out), "--scale", scale, "--quiet"]
    assert main([*argv, "--preview", "none"]) == 0
    names = sorted(p.name for p in (out / "masks").glob("bin*.png"))
    assert names == [f"bin{k:06d}.png" for k in range(FIRST, FIRST + N)]
    return json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("scale", ["1", "0.5"])
def test_a_cdnet_clip_without_ground_truth_has_masks_and_no_measures(tmp_path, scale):
    clip = cdnet_clip(tmp_path / "clip", truth=False, temporal_roi=(FIRST, FIRST + N - 1))
    summary = run(clip, tmp_path / "out", scale)
    assert "f_measure" not in summary and "counts" not in summary
    assert summary["n_frames"] == N


@pytest.mark.parametrize("scale", ["1", "0.5"])
def test_a_temporal_roi_outside_the_frames_scores_nothing(tmp_path, scale):
    clip = cdnet_clip(tmp_path / "clip", truth=True, temporal_roi=(500, 600))
    summary = run(clip, tmp_path / "out", scale)
    assert summary["n_scored_frames"] == 0
    assert "f_measure" not in summary and "counts" not in summary


@pytest.mark.parametrize("scale", ["1", "0.5"])
def test_the_scored_frames_are_those_of_the_temporal_roi_whatever_the_scale(tmp_path, scale):
    """A temporal ROI strictly inside the clip (both its ends are frames of the clip):
    exactly its frames are scored, its first and last included, and the counts cover
    every pixel of those frames, at the input's size as at half of it."""
    first, last = FIRST + 3, FIRST + 8
    clip = cdnet_clip(tmp_path / "clip", truth=True, temporal_roi=(first, last))
    summary = run(clip, tmp_path / "out", scale)
    assert summary["n_scored_frames"] == last - first + 1
    assert sum(summary["counts"].values()) == (last - first + 1) * H * W
