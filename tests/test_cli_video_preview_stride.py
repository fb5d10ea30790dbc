"""``robustpca video``'s preview: at most 300 frames (docs/video.md), every k-th frame of
the whole clip (whatever the batches), played in the clip's own time; and the frame
numbers of an input without CDnet's numbers (1, 2, ... as ``write_masks``)."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from robustpca.cli import main
from robustpca.datasets import write_frames, write_preview

PIL = pytest.importorskip("PIL.Image")


def noisy_frames(n: int, seed: int = 0) -> np.ndarray:
    """``n`` small frames of a static scene with sensor noise (no two alike, so that the
    GIF writer merges none of them)."""
    rng = np.random.default_rng(seed)
    scene = rng.integers(40, 200, size=(6, 8)).astype(float)
    return np.clip(scene + 8.0 * rng.normal(size=(n, 6, 8)), 0, 255)


def gif_frames_and_seconds(path) -> tuple[int, float]:
    """The number of frames of an animated GIF and its play time in seconds."""
    with PIL.open(path) as image:
        total = 0
        for i in range(image.n_frames):
            image.seek(i)
            total += image.info["duration"]
        return image.n_frames, total / 1000.0


def test_a_long_clip_preview_shows_every_kth_frame_in_the_clips_time(tmp_path):
    """A clip one frame longer than the preview's cap (docs/video.md: "at most 300
    frames"), in batches of an odd size: the preview shows at most 300 frames, more than
    half of them (the stride is the smallest that fits: every 2nd frame of the whole
    clip, not of each batch), and plays as long as the clip at its frame rate (within one
    shown frame's duration)."""
    n = 301
    folder = tmp_path / "frames"
    write_frames(folder, noisy_frames(n))
    out = tmp_path / "out"
    argv = ["video", str(folder), "--out", str(out), "--scale", "1", "--quiet"]
    assert main([*argv, "--batch-size", "25"]) == 0
    shown, seconds = gif_frames_and_seconds(out / "preview.gif")
    assert 150 < shown <= 300
    fps = inspect.signature(write_preview).parameters["fps"].default  # a folder has none
    step = seconds / shown
    assert abs(seconds - n / fps) <= step + 1e-9


def test_a_short_frame_folder_is_numbered_from_one_and_shown_whole(tmp_path):
    """Frames without CDnet's numbers (a folder, a video file) are numbered 1, 2, ... as
    ``write_masks`` numbers them by default; a clip under the cap is shown frame by frame
    at the default frame rate of ``write_preview`` (a folder has none of its own)."""
    n = 30
    folder = tmp_path / "frames"
    write_frames(folder, noisy_frames(n, seed=1))
    out = tmp_path / "out"
    argv = ["video", str(folder), "--out", str(out), "--scale", "1", "--quiet"]
    assert main([*argv, "--batch-size", "7"]) == 0
    names = sorted(p.name for p in (out / "masks").glob("*.png"))
    assert names == [f"bin{k:06d}.png" for k in range(1, n + 1)]
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["first_frame"], summary["last_frame"]) == (1, n)
    shown, seconds = gif_frames_and_seconds(out / "preview.gif")
    fps = inspect.signature(write_preview).parameters["fps"].default
    assert shown == n
    assert seconds == pytest.approx(n / fps, abs=0.01 * n)
