"""Smoke test of ``benchmarks/bench_rrcov.py --quick`` without R (as in CI): ours only,
every rrcov-family estimator measured, the markdown written between its markers."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_rrcov


def test_quick_run_without_r_writes_our_rows(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench_rrcov, "r_available", lambda: False)
    page = tmp_path / "rrcov.md"
    page.write_text(f"intro\n\n{bench_rrcov.MARK_BEGIN}\nold\n{bench_rrcov.MARK_END}\n\nend\n")
    assert bench_rrcov.main(["--quick", "--markdown", str(page)]) == 0
    text = page.read_text()
    assert text.startswith("intro") and text.rstrip().endswith("end") and "old" not in text
    for name in ("ROBPCA", "SphericalPCA", "CovariancePCA", "ProjectionPursuitPCA"):
        assert f"| {name} |" in text
    assert "| - |" in text  # no rrcov column without R
    assert "Rscript with rrcov not found" in capsys.readouterr().err
