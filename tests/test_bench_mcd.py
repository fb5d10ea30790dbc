"""Smoke tests of ``benchmarks/bench_mcd.py`` without R (as in CI): ours against
scikit-learn's ``MinCovDet`` at the same ``h``, the table written between its markers,
and the objective it reports."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_mcd

from .conftest import run_into_marked_page


@pytest.mark.slow
def test_quick_run_without_r_writes_both_python_columns(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench_mcd, "robustbase_available", lambda: False)
    text = run_into_marked_page(bench_mcd, ["--quick"], tmp_path)
    rows = [line for line in text.splitlines() if line.startswith("| synthetic")]
    assert len(rows) == 2
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert float(cells[3]) > 0 and float(cells[5]) > 0  # ours and scikit-learn timed
        assert cells[8:] == ["-", "-", "-"]  # no robustbase column without R
    assert "robustbase not found" in capsys.readouterr().err


def test_log_det_of_a_subset_is_the_mcd_objective():
    """Masks and indices give the same log-determinant, that of ``np.cov``; a subset on
    a hyperplane gives -inf, not NaN."""
    X = np.random.default_rng(0).standard_normal((30, 3))
    mask = np.zeros(30, dtype=bool)
    mask[:17] = True
    expected = np.log(np.linalg.det(np.cov(X[:17].T)))
    assert np.isclose(bench_mcd.log_det_of_subset(X, mask), expected)
    assert np.isclose(bench_mcd.log_det_of_subset(X, np.arange(17)), expected)
    flat = X.copy()
    flat[:, 2] = 4.0
    assert bench_mcd.log_det_of_subset(flat, mask) == -np.inf
    assert bench_mcd.h_of(X) == 17
