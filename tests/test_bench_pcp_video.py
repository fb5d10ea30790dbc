"""benchmarks/bench_pcp_video.py: batch PCP on video shapes (docs/design-notes/pcp.md).

Pinned: the clips are read as documented (frames as rows; ``--quick`` is 60 frames of each
clip, inside the frames the data folder holds), the F-measure of a score is of its
magnitude on CDnet's scored frames, the rank of pyrpca's low-rank part does not depend on
the data's scale, and the comparison rows are the documented ones: ``auto`` and ``video``
as the estimator's own fits, pyrpca at the auto lambda on the raw frames and at the video
lambda on the median-centred frames.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_pcp_video
from robustpca import PrincipalComponentPursuit


def _video(n=24, h=6, w=8, seed=0):
    """A static background, noise, and a bright block moving one pixel a frame."""
    rng = np.random.default_rng(seed)
    background = rng.uniform(50, 150, size=(h, w))
    frames = background + rng.normal(scale=1.0, size=(n, h, w))
    labels = np.zeros((n, h, w), dtype=np.uint8)
    for t in range(n):
        c = t % (w - 1)
        frames[t, 2:4, c : c + 2] += 80.0
        labels[t, 2:4, c : c + 2] = 255
    scored = np.ones(n, dtype=bool)
    scored[0] = False
    clip = SimpleNamespace(frames=frames, labels=labels, roi=np.ones((h, w), bool), scored=scored)
    return frames.reshape(n, -1), clip


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["highway300", "fall", "escalator"])
def test_quick_clips_are_sixty_frames_as_rows(name):
    X, clip = bench_pcp_video.load(name, quick=True)
    pixels = {"highway300": 160 * 120, "fall": 180 * 120, "escalator": 130 * 160}[name]
    assert X.shape == (60, pixels) and X.dtype == np.float64
    if clip is not None:
        assert clip.n_frames == 60 and clip.scored.all()
    lo, hi = bench_pcp_video.CLIPS["highway300"][2]
    assert hi - lo + 1 == 300  # the clip the name and the docstring promise


def test_best_f_is_of_the_magnitude_on_scored_frames():
    _, clip = _video()
    scores = (clip.labels == 255).astype(float) * np.where(np.arange(24) % 2, 1.0, -1.0)[
        :, None, None
    ]
    scores[0] = 1.0 - np.abs(scores[0])  # the unscored frame: wrong, must not count
    assert bench_pcp_video.best_f(scores.reshape(24, -1), clip) == pytest.approx(1.0)


def test_pyrpca_rank_is_relative_to_its_largest_singular_value(monkeypatch):
    X, clip = _video()
    rng = np.random.default_rng(1)
    L = 1e-12 * rng.normal(size=(24, 2)) @ rng.normal(size=(2, X.shape[1]))
    S = np.where(clip.labels == 255, 80.0, 0.0).reshape(24, -1)
    module = ModuleType("pyrpca")
    module.rpca_pcp_ialm = lambda X, lam, verbose=False: (L, S)
    monkeypatch.setitem(sys.modules, "pyrpca", module)
    row = bench_pcp_video.fit_pyrpca(X, clip, 0.1)
    assert row["rank"] == 2
    assert row["f_best"] == pytest.approx(1.0)  # the F of the sparse part


def test_our_row_reports_the_fit_and_the_f_of_its_sparse_part():
    X, clip = _video()
    row = bench_pcp_video.fit_ours(X, clip)
    model = PrincipalComponentPursuit(random_state=0).fit(X)
    assert row["gap"] == pytest.approx(model.duality_gap_, rel=1e-12)
    assert row["rank"] == model.rank_ and row["iterations"] == model.n_iter_
    assert row["f_best"] > 0.95  # the moving block is the sparse part


def test_run_compares_the_documented_fits(monkeypatch):
    X, clip = _video()
    monkeypatch.setattr(bench_pcp_video, "load", lambda name, quick: (X, clip))
    seen = {}

    def fake_pyrpca(data, c, lam):
        seen.setdefault("calls", []).append((data.copy(), lam))
        return {"seconds": 1.0, "cpu_seconds": 1.0, "rank": 1, "lam": lam, "f_best": None}

    monkeypatch.setattr(bench_pcp_video, "fit_pyrpca", fake_pyrpca)
    args = SimpleNamespace(clips=["x"], quick=True, skip_auto=[], pyrpca=True, pyrpca_video=True)
    row = bench_pcp_video.run(args)["x"]
    video = PrincipalComponentPursuit(lam="video", center="median", random_state=0).fit(X)
    assert row["video"]["lam"] == pytest.approx(video.lam_)
    assert row["video"]["gap"] == pytest.approx(video.duality_gap_, rel=1e-9)
    (raw, lam_auto), (centred, lam_video) = seen["calls"]
    np.testing.assert_array_equal(raw, X)
    np.testing.assert_allclose(centred, X - np.median(X, axis=0))
    assert lam_auto == row["auto"]["lam"] and lam_video == row["video"]["lam"]
    assert row["median_f_best"] == pytest.approx(bench_pcp_video.best_f(centred, clip))

    args.skip_auto = ["x"]
    seen.clear()
    row = bench_pcp_video.run(args)["x"]
    assert "video" in row and "auto" not in row and "pyrpca_auto" not in row
