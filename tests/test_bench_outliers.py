"""benchmarks/bench_outliers.py on three small ADBench tables: the records, the summary
and the Markdown block have their structure, and the AUCs are AUCs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outliers as bench

TABLES = ["14_glass", "15_Hepatitis", "21_Lymphography"]
HAS_PYOD = importlib.util.find_spec("pyod") is not None


def test_scale_columns_guards_zero_mad_and_constant_columns():
    rng = np.random.default_rng(0)
    X = np.column_stack(
        [rng.normal(size=40), np.r_[np.zeros(30), rng.normal(size=10)], 3 * np.ones(40)]
    )
    before = X.copy()
    for scaling in ("robust", "minmax"):
        Z = bench.scale_columns(X, scaling)
        assert np.all(np.isfinite(Z)) and np.array_equal(X, before)
        assert np.all(Z[:, 2] == 0) and np.ptp(Z[:, 1]) > 0
    assert np.allclose(np.median(bench.scale_columns(X), axis=0)[[0, 2]], 0)
    with pytest.raises(ValueError, match="scaling"):
        bench.scale_columns(X, "zscore")


@pytest.mark.realdata
def test_evaluate_one_estimator(adbench):
    records = bench.evaluate(bench.robustpca_factory("ROBPCA"), TABLES, folder=adbench)
    assert [r["table"] for r in records] == TABLES
    for r in records:
        assert "error" not in r, r
        assert 0.0 <= r["auc"] <= 1.0 and 0.0 <= r["ap"] <= 1.0
        assert 0.0 <= r["inliers_flagged"] <= r["flagged"] + 1.0 and 0 <= r["flagged"] <= 1
        assert r["n_samples"] > 0 and 0 < r["outlier_share"] < 0.5
    # the same in a forked child under a time limit, and under the other scaling
    forked = bench.evaluate(
        bench.robustpca_factory("ROBPCA"), TABLES[:1], folder=adbench, timeout=60
    )
    assert forked[0]["auc"] == pytest.approx(records[0]["auc"])
    minmax = bench.evaluate(
        bench.robustpca_factory("PCA"), TABLES[:1], scaling="minmax", folder=adbench
    )
    assert 0.0 <= minmax[0]["auc"] <= 1.0


@pytest.mark.realdata
def test_failures_are_recorded_and_ranked_last(adbench):
    class Broken:
        def fit(self, X):
            raise RuntimeError("no")

    results = {
        "robustpca PCA": bench.evaluate(bench.robustpca_factory("PCA"), TABLES[:2], folder=adbench),
        "broken": bench.evaluate(Broken, TABLES[:2], folder=adbench),
    }
    assert all("RuntimeError" in r["error"] for r in results["broken"])
    rows = bench.summarize(results)
    assert [r["detector"] for r in rows] == ["robustpca PCA", "broken"]
    assert rows[1]["finished"] == 0 and rows[1]["mean_auc"] is None and rows[1]["mean_rank"] == 2
    assert rows[0]["mean_rank"] == 1 and 0 <= rows[0]["mean_auc"] <= 1


@pytest.mark.realdata
def test_the_command_writes_the_page_block(adbench, tmp_path):
    page = tmp_path / "page.md"
    page.write_text(f"# Page\n\n{bench.MARK_BEGIN}\nold\n{bench.MARK_END}\n\nkept\n")
    detectors = ["ROBPCA", "IForest"] if HAS_PYOD else ["ROBPCA"]
    argv = ["--tables", *TABLES[:2], "--folder", str(adbench), "--detectors", *detectors]
    argv += ["--timeout", "120", "--json", str(tmp_path / "r.json"), "--markdown", str(page)]
    assert bench.main(argv) == 0
    text = page.read_text()
    assert text.startswith("# Page") and text.rstrip().endswith("kept") and "\nold\n" not in text
    header = "| detector | mean ROC AUC | mean AP | mean rank | finished | time (s) |"
    assert header in text and "| robustpca ROBPCA | " in text and "inliers flagged" in text
    rows = [line for line in text.splitlines() if line.startswith("| robustpca ROBPCA")]
    auc = float(rows[0].split("|")[2])
    assert 0.0 <= auc <= 1.0 and rows[0].split("|")[5].strip() == "2/2"
    if HAS_PYOD:
        assert "| pyod IForest | " in text


def _planted_plane() -> np.ndarray:
    """300 rows near a plane in 8 dimensions; rows 0-14 off it, 15-29 far along it."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) @ rng.normal(size=(2, 8)) + 0.1 * rng.normal(size=(300, 8))
    X[:15] += 3 * rng.normal(size=(15, 8))
    X[15:30] = 8 * X[15:30]
    return X


@pytest.mark.parametrize("which", ["likelihood", "normal scores"])
def test_the_ranking_detectors_rank_planted_outliers_first(which):
    from robustpca import ROBPCA
    from robustpca.diagnostics import outlier_diagnostics

    X = _planted_plane()
    before = X.copy()
    model = ROBPCA(n_components=2, random_state=0)
    make = bench.LikelihoodOutlyingness if which == "likelihood" else bench.NormalScoreOutlyingness
    outlyingness = -make(model).fit(X).decision_function(X)
    assert np.array_equal(X, before) and np.all(np.isfinite(outlyingness))
    assert set(np.argsort(-outlyingness)[:30]) == set(range(30))
    if which == "likelihood":  # the inliers' m^2 is about chi^2_8 distributed: median 7.3
        assert 4 < np.median(outlyingness[30:]) < 12
    else:
        z = outlier_diagnostics(model, X).normal_outlyingness
        assert np.array_equal(outlyingness, z)


@pytest.mark.realdata
def test_the_recommended_configuration_and_its_peers_run(adbench):
    made = bench.detectors()
    records = bench.evaluate(made[bench.RECOMMENDED], TABLES[:1], folder=adbench)
    assert records[0]["n_components"] >= 1 and 0.0 <= records[0]["auc"] <= 1.0
    assert "flagged" in records[0]  # ROBPCA itself: its labels are measured too
    for name in (bench.LIKELIHOOD, bench.NORMAL_SCORES):
        records = bench.evaluate(made[name], TABLES[:1], folder=adbench)
        assert 0.0 <= records[0]["auc"] <= 1.0
        assert "flagged" not in records[0]  # it ranks; the labels stay the estimator's own
    records = bench.evaluate(bench.likelihood_factory(), TABLES[:1], folder=adbench)
    assert records[0]["n_components"] == 2


@pytest.mark.realdata
def test_a_warm_up_that_hangs_or_dies_stays_in_its_child(adbench):
    """The warm-up fit ran in this process with no time limit: a detector that hangs
    blocked the benchmark, one that dies took it down."""
    import os
    import time

    class Hang:
        def fit(self, X, y=None):
            time.sleep(30)
            return self

    class Dies:
        def fit(self, X, y=None):
            os._exit(3)

    start = time.perf_counter()
    (hang,) = bench.evaluate(Hang, TABLES[:1], folder=adbench, timeout=0.5)
    assert hang["error"] == "over 0.5 s" and time.perf_counter() - start < 10
    (dies,) = bench.evaluate(Dies, TABLES[:1], folder=adbench, timeout=5)
    assert dies["error"] == "the child died"
