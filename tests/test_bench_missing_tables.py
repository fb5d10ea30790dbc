"""benchmarks/bench_missing_tables.py: the hidden cells, the error and one real run."""

from __future__ import annotations

import numpy as np

import bench_missing_tables as bench


def test_hidden_cells_leave_every_row_a_cell_and_the_error_is_in_column_sds():
    X = np.random.default_rng(0).normal(size=(50, 2)) * [1.0, 10.0]
    mask = bench.hide(X, 0.6, seed=0)
    assert not mask.all(axis=1).any() and 0.15 < mask.mean() < 0.6
    inliers = np.ones(50, dtype=bool)
    assert bench.fill_error(X, X, mask, inliers) == 0.0
    shifted = X + X.std(axis=0)  # every cell one SD off
    np.testing.assert_allclose(bench.fill_error(shifted, X, mask, inliers), 1.0)
    inliers[:25] = False  # the outlier rows' cells do not count
    assert bench.fill_error(np.where(inliers[:, None], X, 1e9), X, mask, inliers) == 0.0


def test_a_run_on_a_real_table(adbench, capsys):
    results = bench.main(
        ["--tables", "14_glass", "--estimators", "PCA", "ROBPCA", "--folder", str(adbench)]
    )
    methods = results["14_glass"]
    assert set(methods) == {*bench.IMPUTERS, "PCA", "ROBPCA"}
    assert all(np.isfinite(m["rmse"]) and m["rmse"] > 0 for m in methods.values())
    assert "| ROBPCA |" in capsys.readouterr().out
