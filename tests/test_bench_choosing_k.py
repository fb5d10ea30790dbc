"""Smoke test of ``benchmarks/bench_choosing_k.py``: its data are issue 42's planted
problem of ``tests/test_score.py``, its estimators all have a ``score``, and one seed
runs and reports. What it measures is never asserted."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import robustpca

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_choosing_k as bench

from .test_score import planted


def test_data_are_the_planted_problem_of_the_score_tests():
    for seed in (0, 3):
        X, _ = bench.planted(seed, (4.0, 3.0, 2.0))
        np.testing.assert_array_equal(X, planted(seed, n=200)[0])


def test_every_estimator_has_a_score():
    for name in bench.ESTIMATORS:
        assert hasattr(getattr(robustpca, name)(), "score"), name


def test_one_seed_reports_a_row_per_setting(capsys):
    assert bench.main(["--seeds", "1", "--estimators", "OptimalMeanPCA"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "OptimalMeanPCA" in line]
    assert len(rows) == len(bench.SETTINGS)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2] in ("0/1", "1/1") and 1 <= int(cells[3]) <= 8
        assert 0.0 <= float(cells[4]) <= 90.0
