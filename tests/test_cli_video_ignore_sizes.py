"""``robustpca video --ignore MASK``: "an image of the frames' size, scaled or not"
whose non-zero pixels are left out (docs/video.md). A mask drawn at the fitted size and
the same mask at the input's size (each pixel repeated 2 x 2) leave out the same pixels,
whatever their non-zero level (a faint 1 counts as much as 255): the same masks written,
the same counts in summary.json."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robustpca.cli import main
from robustpca.datasets import write_frames

PIL = pytest.importorskip("PIL.Image")

H, W, N = 24, 32, 16


def cdnet_clip(folder):
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:H, 0:W]
    scene = 100 + 40 * np.sin(xx / 5.0) * np.cos(yy / 4.0)
    frames = np.clip(scene + 2.0 * rng.normal(size=(N, H, W)), 0, 255)
    labels = np.zeros((N, H, W), dtype=np.uint8)
    for t in range(N):
        frames[t, 8:16, t : t + 8] = 230.0
        labels[t, 8:16, t : t + 8] = 255
    numbers = list(range(1, N + 1))
    write_frames(folder / "input", frames, pattern="in{:06d}.png", frame_numbers=numbers)
    write_frames(folder / "groundtruth", labels, pattern="gt{:06d}.png", frame_numbers=numbers)
    (folder / "temporalROI.txt").write_text(f"1 {N}\n")
    return folder


def run(clip, out, mask_path):
    argv = ["video", str(clip), "--out", str(out), "--scale", "0.5", "--quiet"]
    assert main([*argv, "--preview", "none", "--ignore", str(mask_path)]) == 0
    masks = np.stack([np.asarray(PIL.open(p)) for p in sorted((out / "masks").glob("bin*.png"))])
    return json.loads((out / "summary.json").read_text()), masks


@pytest.mark.parametrize("level", [1, 255])
def test_a_mask_at_the_fitted_size_equals_it_at_the_input_size(tmp_path, level):
    clip = cdnet_clip(tmp_path / "clip")
    small = np.zeros((H // 2, W // 2), dtype=np.uint8)
    small[3:9, 5:11] = level  # a faint 1 is left out as much as 255
    PIL.fromarray(small).save(tmp_path / "small.png")
    large = (np.repeat(np.repeat(small, 2, axis=0), 2, axis=1) > 0).astype(np.uint8) * 255
    PIL.fromarray(large).save(tmp_path / "large.png")
    a, masks_a = run(clip, tmp_path / "a", tmp_path / "small.png")
    b, masks_b = run(clip, tmp_path / "b", tmp_path / "large.png")
    assert a["ignored_pixels"] == b["ignored_pixels"] == 36
    assert a["counts"] == b["counts"]
    assert sum(a["counts"].values()) == N * (H * W - 4 * 36)
    np.testing.assert_array_equal(masks_a, masks_b)


@pytest.mark.parametrize("column", [10, 11])
def test_a_one_pixel_wide_ignore_mask_is_never_scored(tmp_path, column):
    """A mask of one full column (H pixels, at the input's size) at ``--scale 0.5``: the
    confusion counts cover every other pixel of every frame, whichever the column. The
    nearest-neighbour downscaling keeps every other column, so column 10 has no pixel at
    the fitted size; the mask had then been dropped at the input's size too, and its
    pixels scored after all (a fixed bug)."""
    mask = np.zeros((H, W), dtype=np.uint8)
    mask[:, column] = 255
    PIL.fromarray(mask).save(tmp_path / "ignore.png")
    summary, _ = run(cdnet_clip(tmp_path / "clip"), tmp_path / "out", tmp_path / "ignore.png")
    assert summary["n_scored_frames"] == N
    assert sum(summary["counts"].values()) == N * (H * W - H)
