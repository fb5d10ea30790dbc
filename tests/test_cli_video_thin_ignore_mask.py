"""``robustpca video --ignore`` with a mask that the downscaling misses (a fixed bug).

``--ignore MASK`` leaves the mask's non-zero pixels out: "neither fitted nor scored"
(docs/video.md). At ``--scale 0.5`` the mask is resized to the fitted frames by the
nearest neighbour, which keeps every other column: a one-pixel-wide mask on an even
column leaves no pixel at the fitted size. ``_ignored`` then returns ``(None, None)``
and drops the mask at the input's size too, so its pixels are scored after all, while
the same mask one column to the right is left out. The scored pixels must not depend on
the parity of the masked column.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from robustpca.cli import main
from robustpca.datasets import write_frames

PIL = pytest.importorskip("PIL.Image")

H, W, N = 24, 32, 12


def cdnet_clip(folder):
    """A static noisy scene with a bright block crossing it, in CDnet's layout."""
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:H, 0:W]
    scene = 100 + 40 * np.sin(xx / 5.0) * np.cos(yy / 4.0)
    frames = np.clip(scene + 2.0 * rng.normal(size=(N, H, W)), 0, 255)
    labels = np.zeros((N, H, W), dtype=np.uint8)
    for t in range(N):
        frames[t, 8:16, 2 * t : 2 * t + 6] = 230.0
        labels[t, 8:16, 2 * t : 2 * t + 6] = 255
    numbers = list(range(1, N + 1))
    write_frames(folder / "input", frames, pattern="in{:06d}.png", frame_numbers=numbers)
    write_frames(folder / "groundtruth", labels, pattern="gt{:06d}.png", frame_numbers=numbers)
    (folder / "temporalROI.txt").write_text(f"1 {N}\n")
    return folder


@pytest.mark.parametrize("column", [10, 11])
def test_a_one_pixel_wide_ignore_mask_is_never_scored(tmp_path, column):
    """A mask of one full column (H pixels, at the input's size): the confusion counts
    of summary.json cover every other pixel of every frame, whichever the column."""
    clip = cdnet_clip(tmp_path / "clip")
    mask = np.zeros((H, W), dtype=np.uint8)
    mask[:, column] = 255
    PIL.fromarray(mask).save(tmp_path / "ignore.png")
    out = tmp_path / "out"
    argv = ["video", str(clip), "--out", str(out), "--scale", "0.5", "--quiet"]
    assert main([*argv, "--ignore", str(tmp_path / "ignore.png")]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_scored_frames"] == N
    assert sum(summary["counts"].values()) == N * (H * W - H)
