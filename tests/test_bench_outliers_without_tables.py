"""``bench_outliers.summarize`` and ``bench_outlier_candidates.compare`` with no table.

A fixed bug: ``summarize`` guarded the case itself (``"mean_rank": ... if tables else
None``), but ``np.apply_along_axis`` over the empty detector-by-table grid raised first:
``ValueError: Cannot apply_along_axis when any iteration dimensions are 0``. So
``python benchmarks/bench_outliers.py --folder <a folder without .npz files>`` (or
``--from-json`` of runs with no records) failed with that message after warming every
detector up, instead of reporting the detectors with no table finished. ``compare`` hit
the same error where the candidate and its peers share no table; it now says so."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import pytest

import bench_outlier_candidates as candidates
import bench_outliers as bench


def test_summarize_with_no_tables_reports_every_detector_unranked():
    rows = bench.summarize({"robustpca ROBPCA": [], "pyod IForest": []})
    assert [r["detector"] for r in rows] == ["robustpca ROBPCA", "pyod IForest"]
    for row in rows:
        assert row["mean_rank"] is None and row["mean_auc"] is None
        assert (row["finished"], row["tables"], row["failures"]) == (0, 0, {})


def test_compare_runs_on_different_tables_is_a_clear_error():
    candidate = [{"table": "a", "auc": 0.8, "ap": 0.4}]
    peers = {"pyod IForest": [{"table": "b", "auc": 0.7, "ap": 0.3}]}
    with pytest.raises(ValueError, match="share no table"):
        candidates.compare(candidate, peers)
