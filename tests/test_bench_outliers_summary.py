"""benchmarks/bench_outliers.py's summary statistics keep the definitions of
docs/outlier-detection.md: the mean rank is the mean over the tables of a detector's
AUC rank among all detectors (ties averaged, a failure last, even below a detector worse
than chance), the means run over the tables finished, the time counts every table, and
the flag columns are the means of the shares flagged and the count of tables on which
more than 25% of the inliers were flagged. Synthetic records: no fit is run."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outliers as bench


def _rec(table, auc=None, seconds=1.0, **extra):
    rec = {"table": table, "seconds": seconds, **extra}
    if auc is None:
        rec["error"] = "over 1 s"
    else:
        rec.update(auc=auc, ap=auc / 2)
    return rec


def _results():
    """Three detectors on three tables. t1: A and B tie; t2: B fails, A is worse than
    chance; t3: A, B, C in that order."""
    return {
        "A": [
            _rec("t1", 0.9, flagged=0.2, inliers_flagged=0.1),
            _rec("t2", 0.4, flagged=0.4, inliers_flagged=0.3),
            _rec("t3", 0.8, flagged=0.3, inliers_flagged=0.26),
        ],
        "B": [_rec("t1", 0.9), _rec("t2", None, seconds=5.0), _rec("t3", 0.7)],
        "C": [_rec("t1", 0.3), _rec("t2", 0.45), _rec("t3", 0.6)],
    }


def test_mean_rank_averages_ties_and_ranks_a_failure_last():
    """Ranks per table: t1 A 1.5, B 1.5, C 3 (a tie shares 1 and 2); t2 C 1, A 2, B 3
    (the failure is last although A's AUC is below 0.5); t3 A 1, B 2, C 3."""
    rows = {r["detector"]: r for r in bench.summarize(_results())}
    assert rows["A"]["mean_rank"] == pytest.approx((1.5 + 2 + 1) / 3)
    assert rows["B"]["mean_rank"] == pytest.approx((1.5 + 3 + 2) / 3)
    assert rows["C"]["mean_rank"] == pytest.approx((3 + 1 + 3) / 3)
    # the mean ranks of all detectors on a table sum to 1 + 2 + 3
    assert sum(r["mean_rank"] for r in rows.values()) == pytest.approx(6.0)
    assert [r["detector"] for r in bench.summarize(_results())] == ["A", "B", "C"]


def test_means_cover_the_tables_finished_and_the_time_every_table():
    rows = {r["detector"]: r for r in bench.summarize(_results())}
    assert rows["A"]["mean_auc"] == pytest.approx(np.mean([0.9, 0.4, 0.8]))
    assert rows["A"]["mean_ap"] == pytest.approx(np.mean([0.45, 0.2, 0.4]))
    assert rows["B"]["mean_auc"] == pytest.approx(0.8)  # t2 failed: not in the mean
    assert (rows["B"]["finished"], rows["B"]["tables"]) == (2, 3)
    assert rows["B"]["failures"] == {"t2": "over 1 s"}
    assert rows["B"]["seconds"] == pytest.approx(7.0)  # the failure's 5 s included


def test_flag_columns_are_the_mean_shares_and_the_tables_over_a_quarter():
    rows = {r["detector"]: r for r in bench.summarize(_results())}
    a = rows["A"]
    assert a["flagged"] == pytest.approx(0.3)
    assert a["inliers_flagged"] == pytest.approx((0.1 + 0.3 + 0.26) / 3)
    assert a["tables_over_25"] == 2  # 0.3 and 0.26 are over 25%, 0.1 is not
    assert "flagged" not in rows["C"]  # no labels measured: no flag columns
    table = bench.flags_table(list(rows.values()))
    assert "| A | 30.0% | 22.0% | 2 |" in table


def test_the_per_table_section_shows_the_recommendation_and_the_best_pyod_detector():
    """The page's per-table AUCs set the recommended configuration beside the pyod
    detector of best mean rank."""
    results = {
        bench.RECOMMENDED: [_rec("t1", 0.8), _rec("t2", 0.7)],
        "pyod KNN": [_rec("t1", 0.6), _rec("t2", 0.5)],
        "pyod IForest": [_rec("t1", 0.9), _rec("t2", 0.75)],
    }
    text = bench.report({"robust": results}, "python benchmarks/bench_outliers.py")
    header = next(line for line in text.splitlines() if line.startswith("| table |"))
    assert header == f"| table | {bench.RECOMMENDED} (recommended) | pyod IForest |"
