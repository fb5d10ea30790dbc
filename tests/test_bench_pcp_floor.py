"""Smoke tests of ``benchmarks/bench_pcp_floor.py``: its quick run, and that its oracle
is certified by the same refined dual point as the solver (so the floor it reports is
measured against the certificate our fits stop on). Timings are never asserted."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_pcp_floor
from robustpca.solvers.alm import solve_pcp


@pytest.mark.slow
def test_quick_run_reports_the_oracle_and_the_floor(tmp_path):
    out = tmp_path / "floor.json"
    res = bench_pcp_floor.main(["--quick", "--repeats", "1", "--json", str(out)])
    assert out.exists() and res["shape"] == [80, 256]
    ours = res["ours"]
    assert 0 <= ours["gap"] <= 1e-3 and ours["iterations"] >= 1 and ours["frozen_mu"] > 0
    assert set(res["oracle"]) == {"1.8", "1.95"}
    for row in res["oracle"].values():
        assert 0 <= row["gap"] <= 1e-3 and 1 <= row["iterations"] <= 60
        # the floor is the best penalty of the scan (0.5, 1 and 1.6 times the frozen one)
        assert set(row["scan"]) == {"0.5", "1.0", "1.6"}
        best = min(row["scan"].values(), key=lambda v: (v["iterations"], v["gap"]))
        assert (row["iterations"], row["gap"]) == (best["iterations"], best["gap"])
        assert row["mu"] > 0
        assert row["floor_float64"] > 0 and row["floor_float32"] > 0
    blas = res["blas"]
    assert blas["iteration_float64"] == pytest.approx(
        blas["gram_float64"] + blas["eigh"] + blas["product_float64"]
    )


@pytest.mark.parametrize("max_iter", [5, 12])
def test_the_oracle_certificate_is_the_solvers(max_iter):
    """Stopped early (the scaled multiplier's gap far above the target), the solver's
    certified gap is the dense refined gap of its returned multiplier and low-rank part."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)) @ rng.normal(size=(4, 70)) + 0.1 * rng.normal(size=(30, 70))
    X[rng.random(X.shape) < 0.1] += 6.0
    lam = 1 / np.sqrt(70)
    res = solve_pcp(X, lam=lam, rng=np.random.default_rng(0), max_iter=max_iter)
    gap = bench_pcp_floor.refined_gap(X, res.info["low_rank"], res.info["dual"], lam)
    assert res.info["duality_gap"] > 1e-3
    assert gap == pytest.approx(res.info["duality_gap"], rel=1e-9)
