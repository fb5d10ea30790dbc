"""benchmarks/bench_video.py: the measures and rows behind docs/video.md.

The page's numbers follow the module docstring: CDnet's measures (255 positive, 0 and 50
negative, 85 and 170 and pixels outside the ROI not counted, only the frames of the
temporal ROI), OpenCV's shadows (127) counted as background, the temporal median's score
``|x - median|``, a short row repeated in fresh processes with the run of median time
kept, and the CPU ratio against MOG2 on the same clip. Each test replaces the costly part
(the subprocess, OpenCV, the peers) by a stand-in, so only the script's own logic is
checked, against an independent count.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_video


def _clip(n=5, h=6, w=7, seed=0):
    """A small clip with every CDnet label, a ROI that leaves out a column of labelled
    pixels, and a first frame outside the temporal ROI."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(np.array([0, 50, 85, 170, 255], dtype=np.uint8), size=(n, h, w))
    roi = np.ones((h, w), dtype=bool)
    roi[:, 0] = False
    scored = np.ones(n, dtype=bool)
    scored[0] = False
    frames = rng.uniform(0, 255, size=(n, h, w)).astype(np.float32)
    return SimpleNamespace(frames=frames, labels=labels, roi=roi, scored=scored, n_frames=n)


def _cdnet(masks, clip):
    """CDnet's precision, recall and F-measure, counted here from the definition."""
    counted = clip.roi[None] & clip.scored[:, None, None]
    pos = counted & (clip.labels == 255)
    neg = counted & ((clip.labels == 0) | (clip.labels == 50))
    tp, fp = int((masks & pos).sum()), int((masks & neg).sum())
    fn = int((~masks & pos).sum())
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return precision, recall, 2 * precision * recall / (precision + recall)


def test_measures_follow_cdnet_labels_roi_and_temporal_roi():
    clip = _clip()
    rng = np.random.default_rng(1)
    masks = rng.random(clip.labels.shape) < 0.5
    masks[0] = True  # the unscored frame: all flagged, must not count
    masks[:, :, 0] = True  # the column outside the ROI likewise
    # a score perfect where CDnet counts, wrong on the frame and column it leaves out
    scores = (clip.labels == 255).astype(float)
    scores[0] = 1.0 - scores[0]
    scores[:, :, 0] = 1.0 - scores[:, :, 0]
    out = bench_video._measures(clip, masks, scores)
    precision, recall, f = _cdnet(masks, clip)
    assert out["precision"] == pytest.approx(precision)
    assert out["recall"] == pytest.approx(recall)
    assert out["f_default"] == pytest.approx(f)
    assert out["f_best"] == pytest.approx(1.0)


def test_the_temporal_median_scores_the_absolute_residual():
    clip = _clip(n=7)
    clip.frames[3, 2, 2] = 255.0  # one bright moving pixel
    clip.frames[:, 2, 2] = 10.0
    clip.frames[3, 2, 2] = 250.0
    *_, scores = bench_video._median(clip)
    expected = np.abs(clip.frames - np.median(clip.frames, axis=0))
    np.testing.assert_allclose(scores, expected)
    assert scores.min() >= 0 and scores[3, 2, 2] == pytest.approx(240.0)


def test_batches_cover_every_frame_once():
    frames = np.arange(301)
    for size in (1, 7, 100, 301, 400):
        parts = list(bench_video._batches(frames, size))
        assert all(len(p) <= size for p in parts)
        np.testing.assert_array_equal(np.concatenate(parts), frames)


def _rows_from(seconds_list):
    calls = iter(seconds_list)

    def fake_run(clip, method, stream, env):
        s = next(calls)
        return None if s is None else {"seconds": s, "cpu_seconds": s / 2}

    return fake_run


def test_a_short_row_keeps_the_run_of_median_time(monkeypatch):
    monkeypatch.setattr(bench_video, "_run", _rows_from([1.0, 3.0, 2.0]))
    row = bench_video._row("c", "m", "0", {}, repeat=3)
    assert row["seconds"] == 2.0 and row["seconds_runs"] == [1.0, 2.0, 3.0]
    assert row["failed_runs"] == 0
    monkeypatch.setattr(bench_video, "_run", _rows_from([3.0, None, 1.0]))
    row = bench_video._row("c", "m", "0", {}, repeat=3)
    assert row["failed_runs"] == 1 and len(row["seconds_runs"]) == 2


def test_a_long_row_runs_once(monkeypatch):
    slow = bench_video.REPEAT_BELOW + 1.0
    monkeypatch.setattr(bench_video, "_run", _rows_from([slow]))
    row = bench_video._row("c", "m", "0", {}, repeat=3)
    assert row["seconds"] == slow and "seconds_runs" not in row


def _cells(table, method):
    line = next(x for x in table.splitlines() if f"| {method} |" in x)
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_cpu_ratio_is_against_mog2_on_the_same_clip():
    def row(clip, method, cpu):
        return {
            "clip": clip,
            "method": method,
            "n_frames": 10,
            "seconds": 1.0,
            "cpu_seconds": cpu,
            "fps": 10.0,
            "peak_rss_mb": 100.0,
        }

    rows = [
        row("a", "mog2", 2.0),
        row("a", "mog2-warm", 8.0),
        row("a", "orpca", 5.0),
        row("a", "orpca (stream)", 6.0),
        row("b", "mog2", 1.0),
    ]
    table = bench_video._table(rows)
    assert _cells(table, "orpca")[8] == "2.50"
    assert _cells(table, "mog2")[8] == "1.00"
    assert _cells(table, "orpca (stream)")[8] == "-"  # its time includes reading from disk


class _FakeSubtractor:
    calls = 0

    def apply(self, frame):
        type(self).calls += 1
        out = np.zeros(frame.shape[:2], dtype=np.uint8)
        out[frame[..., 0] > 100] = 255  # OpenCV frames are BGR: index 0 is blue
        out[frame[..., 2] > 100] = 127  # a "shadow" where red is high
        return out


@pytest.fixture
def fake_cv2(monkeypatch):
    module = ModuleType("cv2")
    module.setNumThreads = lambda n: None
    module.createBackgroundSubtractorMOG2 = _FakeSubtractor
    module.createBackgroundSubtractorKNN = _FakeSubtractor
    monkeypatch.setitem(sys.modules, "cv2", module)
    _FakeSubtractor.calls = 0
    return _FakeSubtractor


def test_opencv_masks_are_its_foreground_in_bgr_without_shadows(fake_cv2):
    frames = np.zeros((3, 2, 2, 3), dtype=np.float32)
    frames[:, 0, 0, 2] = 200.0  # blue pixel (RGB: blue is the last channel)
    frames[:, 1, 1, 0] = 200.0  # red pixel: a shadow in the stand-in
    clip = SimpleNamespace(frames=frames)
    _, masks = bench_video._opencv(clip, "mog2")
    expected = np.zeros((3, 2, 2), dtype=bool)
    expected[:, 0, 0] = True
    np.testing.assert_array_equal(masks, expected)
    assert fake_cv2.calls == 3
    fake_cv2.calls = 0
    _, warm = bench_video._opencv(clip, "knn-warm")
    assert fake_cv2.calls == 6  # one pass to learn, one scored
    np.testing.assert_array_equal(warm, expected)


def test_slow_pairs_are_skipped_and_stream_rows_added(monkeypatch, tmp_path):
    jobs = []
    monkeypatch.setattr(bench_video, "_row", lambda c, m, s, env, r: jobs.append((c, m, s)))
    argv = ["--clips", "highway", "fall", "--methods", "pyrpca", "median"]
    assert bench_video.main(argv) == 0
    assert ("highway", "pyrpca", "0") not in jobs
    assert ("fall", "pyrpca", "0") in jobs and ("highway", "median", "0") in jobs
    assert ("highway", "orpca", "1") in jobs and ("fall", "orpca", "1") not in jobs


def test_opencv_methods_get_colour_frames_and_fps_is_by_wall_time(monkeypatch):
    seen = []
    clip = _clip(n=4)

    def fake_load(name, colour):
        seen.append(colour)
        return clip

    def fake_opencv(c, kind):
        bench_video._CPU[0] = 1.0
        return 2.0, np.zeros(c.labels.shape, dtype=bool) | (c.labels == 255)

    monkeypatch.setattr(bench_video, "_load", fake_load)
    monkeypatch.setattr(bench_video, "_opencv", fake_opencv)
    for method in ("mog2", "knn", "knn-warm"):
        row = bench_video.run_one("x", method, False)
        assert row["seconds"] == 2.0 and row["cpu_seconds"] == 1.0
        assert row["fps"] == pytest.approx(clip.n_frames / 2.0)
        assert row["f_default"] == pytest.approx(1.0)
    assert seen == [True, True, True]


def test_cpu_seconds_are_process_time_not_wall_time(monkeypatch):
    clock = {"wall": 10.0, "cpu": 3.0}
    fake = SimpleNamespace(perf_counter=lambda: clock["wall"], process_time=lambda: clock["cpu"])
    monkeypatch.setattr(bench_video, "time", fake)
    start = bench_video._start()
    clock.update(wall=15.0, cpu=4.0)
    assert bench_video._since(start) == 5.0
    assert bench_video._CPU[0] == 1.0


def _fake_peer_modules(monkeypatch, seen):
    pyrpca = ModuleType("pyrpca")

    def rpca_pcp_ialm(X, lam, verbose=False):
        seen["lam"] = lam
        return np.zeros_like(X), X.copy()

    pyrpca.rpca_pcp_ialm = rpca_pcp_ialm
    monkeypatch.setitem(sys.modules, "pyrpca", pyrpca)
    hyperspy, learn, rpca = (
        ModuleType(n) for n in ("hyperspy", "hyperspy.learn", "hyperspy.learn._rpca")
    )

    def orpca(X, rank, **kw):
        seen["max"] = float(X.max())
        return np.zeros_like(X), None

    rpca.orpca = orpca
    for name, mod in (
        ("hyperspy", hyperspy),
        ("hyperspy.learn", learn),
        ("hyperspy.learn._rpca", rpca),
    ):
        monkeypatch.setitem(sys.modules, name, mod)


def test_peers_get_the_documented_lambda_and_scale(monkeypatch):
    from robustpca import PrincipalComponentPursuit

    seen = {}
    _fake_peer_modules(monkeypatch, seen)
    clip = _clip(n=5, h=3, w=4)
    bench_video._pyrpca(clip)
    X = clip.frames.reshape(5, -1).astype(np.float64)
    ours = PrincipalComponentPursuit().fit(X).lam_  # lam="auto"
    assert seen["lam"] == pytest.approx(ours)
    bench_video._hyperspy(clip, 1)
    assert 0.5 < seen["max"] <= 1.0  # frames in [0, 1], the scale of its default penalties


@pytest.mark.realdata
def test_clips_are_read_at_the_documented_sizes(shared_data):
    """Highway at half size (160 x 120), fall at a quarter (180 x 120)."""
    from robustpca.datasets import load_cdnet

    for name, (h, w) in {"highway300": (120, 160), "fall": (120, 180)}.items():
        folder, _, scale = bench_video.CLIPS[name]
        one = load_cdnet(shared_data / "video" / folder, scale=scale, frames=slice(0, 1))
        assert one.frames.shape[1:] == (h, w)
    lo, hi = bench_video.CLIPS["highway300"][1]
    assert hi - lo + 1 == 300
