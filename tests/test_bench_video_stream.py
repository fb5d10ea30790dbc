"""benchmarks/bench_video.py's ``stream`` rows read a clip from disk batch by batch.

Whatever the batching, the streamed F-measure must be the F-measure of the same masks
counted over the whole clip at once: every frame of the asked range read exactly once,
the counts of every batch added up (CDnet's measure is of the pooled counts, not an
average of per-batch measures), and the scored frames and ROI respected. A fixed-threshold
stand-in replaces the online method, so the check is of the reader and the counting.
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


def _fake_subtract_background(batches, *, method):
    for frames in batches:
        yield SimpleNamespace(masks=frames > 128.0)


@pytest.fixture
def fake_method(monkeypatch):
    import robustpca.background_subtraction as bs

    monkeypatch.setattr(bs, "subtract_background", _fake_subtract_background)


def _reference(path, scale, numbers=None):
    clip = load_cdnet(path, scale=scale, numbers=numbers)
    m = change_detection_measures(clip.frames > 128.0, clip.labels, clip.roi, scored=clip.scored)
    return clip.n_frames, m["f_measure"]


@pytest.mark.realdata
def test_a_range_one_past_a_full_batch_is_read_whole(shared_data, monkeypatch, fake_method):
    """Frames 1050-1150 (101): a full batch, then the single last frame, counted too."""
    monkeypatch.setitem(bench_video.CLIPS, "h101", ("highway", (1050, 1150), 0.25))
    _, n, f = bench_video._stream("h101", "orpca")
    n_ref, f_ref = _reference(shared_data / "video" / "highway", 0.25, (1050, 1150))
    assert n == n_ref == 101
    np.testing.assert_allclose(f, f_ref, rtol=1e-12)


@pytest.mark.realdata
def test_a_whole_clip_starts_at_its_first_frame(shared_data, tmp_path, monkeypatch, fake_method):
    """A clip of 120 frames, no numbers asked: all 120 read, from the first one."""
    source = shared_data / "video" / "highway"
    folder = tmp_path / "part"
    for sub, prefix, ext in (("input", "in", "jpg"), ("groundtruth", "gt", "png")):
        (folder / sub).mkdir(parents=True)
        for number in range(470, 590):
            name = f"{prefix}{number:06d}.{ext}"
            (folder / sub / name).symlink_to(source / sub / name)
    for name in ("ROI.bmp", "temporalROI.txt"):
        shutil.copy(source / name, folder / name)
    monkeypatch.setitem(bench_video.CLIPS, "part", ("part", None, 0.25))
    monkeypatch.setattr(bench_video, "_clip_path", lambda name: folder)
    _, n, f = bench_video._stream("part", "orpca")
    n_ref, f_ref = _reference(folder, 0.25)
    assert n == n_ref == 120
    np.testing.assert_allclose(f, f_ref, rtol=1e-12)
