"""Smoke test of ``benchmarks/bench_rrcov.py --quick`` without R (as in CI): ours only,
every rrcov-family estimator measured, the markdown written between its markers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_rrcov

from .conftest import run_into_marked_page


@pytest.mark.slow
def test_quick_run_without_r_writes_our_rows(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench_rrcov, "r_available", lambda: False)
    text = run_into_marked_page(bench_rrcov, ["--quick"], tmp_path)
    for name in ("ROBPCA", "SphericalPCA", "CovariancePCA", "ProjectionPursuitPCA"):
        assert f"| {name} |" in text
    assert "| - |" in text  # no rrcov column without R
    assert "Rscript with rrcov not found" in capsys.readouterr().err
