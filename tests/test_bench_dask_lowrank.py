"""benchmarks/bench_dask_lowrank.py: the convex L + S estimators in memory against Dask.

Pinned, as the module docstring states them: the data (rank 5 entries of unit scale; 5% of
the entries gross, about 10 times the typical entry, or 10% of the rows replaced by gross
outliers; every block its own draw; any number of rows), the parity numbers (the largest
absolute differences of ``low_rank_`` and ``sparse_`` relative to the largest entry of
``X``, the objectives' largest difference), the table (the differences on the Dask line),
the per-pass and per-iteration figures of a run, and the ``--big`` run's arguments and
memory ratios. The subprocesses are replaced by stand-ins writing known arrays.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("dask")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_dask_lowrank as bdl


def _subspace(n_features, rank=5, seed=0):
    V = np.random.default_rng(seed).normal(size=(rank, n_features))
    return np.linalg.qr(V.T)[0]


def test_lazy_data_has_any_number_of_rows_and_independent_blocks():
    X = bdl.lazy_data(2500, 60, kind="entries", chunk_rows=1000)
    assert X.shape == (2500, 60) and X.chunks[0] == (1000, 1000, 500)
    values = X.compute()
    assert not np.allclose(values[:500], values[1000:1500])
    np.testing.assert_array_equal(values, X.compute())  # seeded: the same every time


def test_entry_outliers_are_five_percent_and_ten_times_the_typical_entry():
    X = bdl.lazy_data(2500, 60, kind="entries", chunk_rows=1000).compute()
    # clean entries have unit scale: |N(0, 1)| has median 0.674
    assert 0.55 < np.median(np.abs(X)) < 0.8
    # beyond 5 only the gross entries (sd ~10): 5% of them, 62% of which exceed 5
    assert 0.02 < np.mean(np.abs(X) > 5.0) < 0.045


def test_row_outliers_are_ten_percent_and_the_other_rows_lie_on_the_subspace():
    X = bdl.lazy_data(2500, 60, kind="rows", chunk_rows=1000).compute()
    Q = _subspace(60)
    rms = np.sqrt(((X - X @ Q @ Q.T) ** 2).mean(axis=1))
    assert 0.08 < np.mean(rms > 1.0) < 0.12
    assert np.median(rms) < 0.02  # noise 0.01 on the inlier rows


def test_peak_rss_is_at_least_the_resident_memory_now():
    status = Path("/proc/self/status")
    if not status.exists():
        pytest.skip("the resident memory to compare with is read from /proc/self/status (Linux)")
    line = next(
        x for x in status.read_text(encoding="utf-8").splitlines() if x.startswith("VmRSS:")
    )
    assert bdl.peak_rss_gb() >= int(line.split()[1]) * 1024 / 1e9 * 0.99


def _fake_child(arrays):
    def child(argv):
        opts = dict(a.lstrip("-").split("=", 1) for a in argv if "=" in a)
        route, out = opts["route"], Path(opts["out"])
        low_rank, sparse, objective = arrays[route]
        np.save(out / "low_rank.npy", low_rank)
        np.save(out / "sparse.npy", sparse)
        np.save(out / "objective.npy", objective)
        return {"route": route, "estimator": opts["estimator"]}

    return child


def test_parity_is_relative_to_the_largest_entry_of_x(monkeypatch):
    rng = np.random.default_rng(0)
    L, S = rng.normal(size=(30, 4)), np.zeros((30, 4))
    S[3, 1] = 50.0  # the largest entry of X = L + S is a sparse one
    dL, dS = np.zeros_like(L), np.zeros_like(S)
    dL[0, 0], dS[3, 1] = 0.02, -0.5
    oa, ob = np.array([10.0, 6.0, 5.0]), np.array([11.0, 6.1, 5.0])
    arrays = {"memory": (L, S, oa), "dask": (L + dL, S + dS, ob)}
    monkeypatch.setattr(bdl, "_child", _fake_child(arrays))
    args = argparse.Namespace(estimators=["pcp"], n_samples=30, n_features=4, chunk_rows=10, rank=2)
    (row,) = bdl.parity_runs(args)
    top = np.abs(L + S).max()
    assert row["parity"]["low_rank_max_diff"] == pytest.approx(0.02 / top)
    assert row["parity"]["sparse_max_diff"] == pytest.approx(0.5 / top)
    assert row["parity"]["objective_rel_diff"] == pytest.approx(1.0 / 5.0)
    assert row["memory"]["route"] == "memory" and row["dask"]["route"] == "dask"
    table = bdl.table([{**row, "memory": _run("memory"), "dask": _run("dask")}])
    memory_line, dask_line = table.splitlines()[2:]
    assert memory_line.rstrip().endswith("|  |")
    assert f"{0.02 / top:.1e} / {0.5 / top:.1e}" in dask_line


def _run(route):
    return {
        "estimator": "PrincipalComponentPursuit",
        "n_iter": 10,
        "n_passes": None if route == "memory" else 25,
        "passes_per_iter": None if route == "memory" else 2.5,
        "fit_s": 2.0,
        "pass_s": None if route == "memory" else 0.08,
        "peak_rss_gb": 1.0,
    }


def test_big_run_is_pcp_on_five_million_rows_persisted(monkeypatch, capsys):
    seen = []

    def child(argv):
        seen.extend(argv)
        return {"peak_rss_gb": 5.0, "rss_at_start_gb": 1.0, "gb": 2.0}

    monkeypatch.setattr(bdl, "_child", child)
    assert bdl.main(["--big"]) == 0
    assert {"--estimator=pcp", "--route=dask", "--persist", "--n-samples=5000000"} <= set(seen)
    assert {"--n-features=50", "--chunk-rows=100000"} <= set(seen)
    out = capsys.readouterr().out
    assert '"rss_over_data": 2.5' in out and '"rss_over_data_less_start": 2.0' in out


def test_a_dask_run_reports_its_passes_per_iteration_and_time_per_pass():
    args = argparse.Namespace(
        estimator="aap", route="dask", n_samples=2000, n_features=20, chunk_rows=500,
        rank=5, out="", persist=False,
    )  # fmt: skip
    row = bdl.run_one(args)
    assert row["rank"] == 5 and row["n_passes"] >= row["n_iter"] >= 1
    assert row["passes_per_iter"] == pytest.approx(row["n_passes"] / row["n_iter"])
    assert row["pass_s"] == pytest.approx(row["fit_s"] / row["n_passes"])
