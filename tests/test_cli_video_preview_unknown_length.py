"""A fixed bug: ``robustpca video`` on a video whose container does not give its frame
count (Matroska, WebM, MPEG-TS: ``video_info(...).n_frames`` is None).

The preview shows "at most 300 frames" (docs/video.md, ``--preview``'s help), and the
command holds one batch and the model "whatever the clip's length" (module docstring of
``robustpca.cli._video``). The stride of the preview is only computed when the frame count
is known (``every = 1`` otherwise), so every frame of such a clip is kept for the preview,
in memory until the end: a 330-frame ``.mkv`` got a preview of 330 frames, and a long
one grew the process by three images a frame. The stride now doubles, and the frames
kept are thinned, whenever they would exceed 300.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.cli import main
from robustpca.datasets import video_info

av = pytest.importorskip("av")


def write_mkv(path, n=330, side=8, seed=0):
    """``n`` noisy grey frames of a static scene in a Matroska file (no frame count)."""
    rng = np.random.default_rng(seed)
    scene = rng.integers(40, 200, size=(side, side))
    codec = "libx264" if "libx264" in av.codecs_available else "mpeg4"
    with av.open(str(path), "w") as container:
        stream = container.add_stream(codec, rate=25)
        stream.width = stream.height = side
        stream.pix_fmt = "yuv420p"
        for _ in range(n):
            frame = np.clip(scene + rng.normal(0, 25, size=(side, side)), 0, 255)
            rgb = np.repeat(frame.astype(np.uint8)[..., None], 3, axis=2)
            for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def test_the_preview_of_a_clip_of_unknown_length_has_at_most_300_frames(tmp_path, monkeypatch):
    import robustpca.datasets as datasets

    shown = []

    def count(path, frames, backgrounds, masks, **kwargs):  # what the preview is given
        shown.append(sum(len(batch) for batch in frames))

    monkeypatch.setattr(datasets, "write_preview", count)
    clip = write_mkv(tmp_path / "clip.mkv")
    assert video_info(clip).n_frames is None  # the case under test
    out = tmp_path / "out"
    assert main(["video", str(clip), "--out", str(out), "--scale", "1", "--quiet"]) == 0
    assert len(shown) == 1 and 0 < shown[0] <= 300


@pytest.mark.parametrize("n", [1, 299, 300, 301, 777, 5000])
@pytest.mark.parametrize("batch", [1, 7, 64])
def test_the_preview_of_an_unknown_length_keeps_evenly_spaced_frames(n, batch):
    """Whatever the clip's length and batch size, the preview holds at most 300 frames,
    every ``every``-th one from the first, and at least half of that many: the stride
    doubles only when the frames would exceed 300."""
    from robustpca.cli._video import PREVIEW_FRAMES, _PreviewFrames

    shown = _PreviewFrames(1)
    for first in range(0, n, batch):
        keep = shown.wanted(first, min(batch, n - first))
        if keep.size:
            positions = first + keep
            shown.add(positions, positions.astype(float), positions * 2.0, positions % 2 == 0)
    kept = np.concatenate([row[0] for row in shown.rows])
    np.testing.assert_array_equal(kept, np.arange(0, n, shown.every))
    assert len(kept) <= PREVIEW_FRAMES and (shown.every == 1 or 2 * len(kept) > PREVIEW_FRAMES)
    for positions, frames, backgrounds, masks in shown.rows:  # the rows stay aligned
        np.testing.assert_array_equal(frames, positions)
        np.testing.assert_array_equal(backgrounds, 2 * positions)
        np.testing.assert_array_equal(masks, positions % 2 == 0)
