"""benchmarks/bench_video.py's ``stream`` rows on a whole clip (no frame numbers).

A fixed bug: ``_stream`` read the clip in batches of 100 frames and stopped on a batch
shorter than 100 (or past the last number asked for). For a whole clip the last number
was open (``10**9``), so a clip whose length is a multiple of 100 asked, after its last
full batch, for frames past its end, which ``load_cdnet`` refuses: the row failed after
every frame was processed, instead of reporting the clip's F-measure. The batches now
run over the clip's frame count.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_video
from robustpca.datasets import load_cdnet
from robustpca.metrics.change_detection import change_detection_measures


def _short_clip(shared_data, tmp_path, first, last):
    """A CDnet folder holding frames ``first..last`` of highway (links, not copies)."""
    source = shared_data / "video" / "highway"
    folder = tmp_path / "highway_part"
    for sub, prefix, ext in (("input", "in", "jpg"), ("groundtruth", "gt", "png")):
        (folder / sub).mkdir(parents=True)
        for number in range(first, last + 1):
            name = f"{prefix}{number:06d}.{ext}"
            (folder / sub / name).symlink_to(source / sub / name)
    for name in ("ROI.bmp", "temporalROI.txt"):
        shutil.copy(source / name, folder / name)
    return folder


def _fake_subtract_background(batches, *, method):
    """A deterministic stand-in for the online method: a fixed threshold per frame."""
    for frames in batches:
        yield SimpleNamespace(masks=frames > 128.0)


@pytest.mark.realdata
def test_a_whole_clip_of_a_hundred_frames_streams(shared_data, tmp_path, monkeypatch):
    """A whole clip of exactly 100 frames: one full batch, then the end of the clip."""
    folder = _short_clip(shared_data, tmp_path, 470, 569)
    monkeypatch.setitem(bench_video.CLIPS, "part", ("part", None, 0.25))
    monkeypatch.setattr(bench_video, "_clip_path", lambda name: folder)
    import robustpca.background_subtraction as bs

    monkeypatch.setattr(bs, "subtract_background", _fake_subtract_background)
    _, n, f = bench_video._stream("part", "orpca")
    clip = load_cdnet(folder, scale=0.25)
    expected = change_detection_measures(
        clip.frames > 128.0, clip.labels, clip.roi, scored=clip.scored
    )
    assert n == clip.n_frames == 100
    np.testing.assert_allclose(f, expected["f_measure"], rtol=1e-12)
