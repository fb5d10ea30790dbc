"""Smoke tests of three measurement scripts of ``benchmarks/``: their quick runs report
what their docstrings promise. Timings are never asserted.

* ``bench_transfer_momentum.py``: Guo's estimators with and without momentum, whose
  figures the ``accelerate`` entries of their docstrings quote;
* ``bench_missing_copies.py``: fits with gaps on ``hbk`` with a copied column, whose
  figures ``docs/user_guide/missing.rst`` quotes;
* ``bench_online_missing.py``: OR-PCA and GRASTA on a CDnet clip with pixels removed,
  whose figures ``docs/video.md`` quotes;
* ``bench_detector_batches.py``: the streaming foreground rule against its first batch's
  size, which ``docs/video.md`` quotes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_detector_batches
import bench_missing_copies
import bench_online_missing
import bench_transfer_momentum


def test_momentum_quick_run_pairs_every_fit(shared_data, capsys):
    res = bench_transfer_momentum.main(["--quick"])
    tables = res["tables"]
    assert {r["table"] for r in tables} == {"wood", "starsCYG"}
    for name in ("wood", "starsCYG"):
        plain, fast = (r for r in tables if r["table"] == name)
        assert (plain["accelerate"], fast["accelerate"]) == (False, True)
        # the momentum is monotone and restarted: never above the plain objective by
        # more than the tolerance on these tables
        assert fast["objective"] <= plain["objective"] * (1 + 1e-5)
    rows = res["denoising"]
    assert {(r["method"], r["accelerate"]) for r in rows} == {
        (m, a) for m in ("R-T-PCA", "R-PCA") for a in (False, True)
    }
    for r in rows:
        assert r["n_iter"] == 50 and not r["converged"]  # --quick caps at 50
        assert 0 < r["rmse"] < 1 and np.isfinite(r["objective"])
    assert "| task | pixels |" in capsys.readouterr().out


@pytest.mark.slow
def test_copies_quick_run_counts_every_mask(shared_data, capsys):
    res = bench_missing_copies.main(["--quick"])
    labels = list(bench_missing_copies.variants(np.zeros((3, 3))))
    assert set(res) == {(n, v) for n in ("PCA", "OptimalMeanPCA", "ROBPCA") for v in labels}
    for cell in res.values():
        assert cell["masks"] == 2 and 0 <= cell["converged"] <= 2 and cell["max_iter"] >= 1
    for name in ("PCA", "OptimalMeanPCA", "ROBPCA"):  # the table as it is: all converge
        assert res[(name, "as is")]["converged"] == 2
    # the limitation the user guide documents: RPCA-OM with a scaled copy converges on
    # neither of the first two masks (measured). Once copies are recognised, this
    # assertion and the user guide's paragraph change together.
    assert res[("OptimalMeanPCA", f"+ {bench_missing_copies.FACTOR} x column 0")]["converged"] == 0
    assert "| estimator |" in capsys.readouterr().out


@pytest.mark.realdata
def test_online_missing_quick_run_scores_every_gap(shared_data, capsys):
    pytest.importorskip("PIL")
    rows = bench_online_missing.main(["--quick"])
    assert [(r["method"], r["gaps"]) for r in rows] == [
        (m, g) for m in bench_online_missing.METHODS for g in bench_online_missing.GAPS
    ]
    for r in rows:
        assert 0.5 < r["f_best"] <= 1 and 0 <= r["f_default"] <= 1
        assert (r["fill_error"] is not None) == r["gaps"].startswith("random")
        assert r["fill_error_online"] is None  # 100 frames: the clip ends with the burn-in
    by = {(r["method"], r["gaps"]): r for r in rows}
    # missing pixels cost the masks on the pixels seen little (the rule skips them)
    for m in bench_online_missing.METHODS:
        assert by[(m, "random20")]["f_default"] > by[(m, "none")]["f_default"] - 0.03
        assert by[(m, "random50")]["f_default"] > by[(m, "none")]["f_default"] - 0.1
        assert by[(m, "random20")]["missing"] == pytest.approx(0.2, abs=0.01)
    assert by[("OnlineRobustPCA", "random20")]["fill_error"] < 1.0
    assert "| clip | method | gaps |" in capsys.readouterr().out


def test_online_missing_fill_error_after_the_burn_in():
    """The ``online`` fill error is the median over the road's gaps of the frames after
    the method's burn-in alone; the other kinds of gap have none."""
    from types import SimpleNamespace

    rng = np.random.default_rng(0)
    n, h, w = 140, 6, 8
    frames = (100 + 20 * rng.random((1, h, w)) + rng.normal(size=(n, h, w))).astype(np.float32)
    labels = np.zeros((n, h, w), dtype=np.uint8)
    labels[:, :2] = 255  # the top rows are no road
    clip = SimpleNamespace(frames=frames, labels=labels, roi=None, scored=None)
    method = bench_online_missing.METHODS[0]
    reference = bench_online_missing.measure(clip, method, "none", None)[1]
    row, background = bench_online_missing.measure(clip, method, "random20", reference)
    road = bench_online_missing.holes(frames.shape, "random20") & (labels == 0)
    gap = np.abs(background - reference)
    assert row["fill_error"] == np.median(gap[road])
    assert row["fill_error_online"] == np.median(gap[100:][road[100:]])
    assert row["fill_error_online"] != row["fill_error"]
    patch = bench_online_missing.measure(clip, method, "dead patch", reference)[0]
    assert patch["fill_error"] is None and patch["fill_error_online"] is None


@pytest.mark.realdata
def test_detector_batches_a_short_first_batch_misses_dwelling_cars(shared_data, capsys):
    pytest.importorskip("PIL")
    rows = bench_detector_batches.main(["--clips", "highway100", "--batches", "32", "100"])
    assert [r["detector batch"] for r in rows] == [32, 100, "all (batch rule)"]
    short, long, whole = (r["F first 32"] for r in rows)
    # highway's first frames hold slow traffic: a first batch of 32 frames sets the
    # scale of the pixels the cars dwell on to the cars' residual
    assert short < long - 0.1 and short < whole - 0.1
    assert all(0.8 < r["F"] <= 1 for r in rows[1:])
    assert "| clip | detector batch | F |" in capsys.readouterr().out
