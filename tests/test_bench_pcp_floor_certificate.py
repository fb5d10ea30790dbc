"""The oracle of ``benchmarks/bench_pcp_floor.py``: its certificate and its data.

* ``refined_gap`` must be a *certificate*: whatever multiplier ``Y`` it is given, the dual
  value it forms (the better of ``Y`` scaled into the dual ball
  ``{||Z||_2 <= 1, ||Z||_inf <= lam}`` and the refined point) is a lower bound on the
  optimum of PCP, so the relative gap of any ``L`` is never negative (weak duality). The
  existing test compares it with the solver's gap only where the refined point wins.
* the quick data are those of ``run_all.py --quick`` ("as run_all.py --quick"), so the
  floor measured on them is comparable with the benchmark's PCP row.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_pcp_floor


def test_the_certified_gap_is_never_negative():
    rng = np.random.default_rng(0)
    X = 0.01 * rng.normal(size=(20, 30))
    X[3, 4] = 50.0  # one dominant entry: lam ||X||_1 < |X_34|
    lam = 1.0 / np.sqrt(30)
    spike = np.zeros_like(X)
    spike[3, 4] = 40.0
    multipliers = [spike, -spike, 10.0 * rng.normal(size=X.shape), 0.01 * X, X]
    for Y in multipliers:
        for L in (np.zeros_like(X), X, rng.normal(size=X.shape)):
            assert bench_pcp_floor.refined_gap(X, L, Y, lam) >= -1e-12


@pytest.mark.realdata
def test_quick_faces_are_run_alls(shared_data):
    import run_all

    X, what = bench_pcp_floor.faces(quick=True)
    assert X.shape == (80, 256) and "16 x 16" in what
    np.testing.assert_array_equal(X, run_all.load_case("att", True, 0).X)


@pytest.mark.slow
def test_the_floor_is_the_best_oracle_times_one_iterations_blas():
    """The docstring's floor: "the best oracle's iterations times the BLAS calls of one
    iteration, over the PCA time", at the best penalty of the scan (a multiple of the
    frozen one)."""
    res = bench_pcp_floor.main(["--quick", "--repeats", "1", "--relax", "1.8"])
    row = res["oracle"]["1.8"]
    blas, t_pca = res["blas"], res["pca_full"]
    best = min(row["scan"], key=lambda f: (row["scan"][f]["iterations"], row["scan"][f]["gap"]))
    assert row["mu"] == pytest.approx(float(best) * res["ours"]["frozen_mu"], rel=1e-12)
    for name in ("float64", "float32"):
        expected = row["iterations"] * blas[f"iteration_{name}"] / t_pca
        assert row[f"floor_{name}"] == pytest.approx(expected, rel=1e-12)
