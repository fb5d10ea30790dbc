"""benchmarks/bench_outlier_candidates.py's ``compare`` keeps the statistics the design
note reports (docs/design-notes/outlier-recommendation.md, *Principled candidates*): a
mean rank in which a failure ranks last (the candidate's or a peer's), differences in
which a failure counts as an AUC of 0.5, a 90% bootstrap interval that resamples every
table, means over the tables finished, and only the tables every detector ran."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outlier_candidates as cand

REF = np.linspace(0.6, 0.9, 10)


def _records(aucs):
    out = []
    for i, a in enumerate(aucs):
        if np.isnan(a):
            out.append({"table": f"t{i}", "error": "over 1 s"})
        else:
            out.append({"table": f"t{i}", "auc": float(a), "ap": float(a) / 2})
    return out


def _peers(knn=None):
    return {"pyod IForest": _records(REF), "pyod KNN": _records(REF - 0.1 if knn is None else knn)}


def test_a_failed_candidate_ranks_last_and_counts_as_chance_in_the_difference():
    aucs = REF + 0.01
    aucs[0] = np.nan
    out = cand.compare(_records(aucs), _peers())
    # first on 9 tables, last of three on the failed one (below KNN's 0.5 there)
    assert out["mean_rank"] == pytest.approx((9 * 1 + 3) / 10)
    assert out["diff"] == pytest.approx((9 * 0.01 + (0.5 - REF[0])) / 10)
    assert out["mean_auc"] == pytest.approx(np.mean(aucs[1:]))


def test_a_failed_peer_ranks_below_a_candidate_worse_than_chance():
    knn = REF - 0.1
    knn[3] = np.nan  # KNN fails on t3, where the candidate scores 0.3
    aucs = REF - 0.05
    aucs[3] = 0.3
    out = cand.compare(_records(aucs), _peers(knn))
    # second (behind IForest) on every table: the failed KNN is last on t3
    assert out["mean_rank"] == pytest.approx(2.0)


def test_means_are_over_the_tables_finished():
    aucs = np.array([0.5, 0.6, 0.9, np.nan])
    peers = {"pyod IForest": _records([0.7] * 4)}
    out = cand.compare(_records(aucs), peers)
    assert out["mean_auc"] == pytest.approx(np.mean([0.5, 0.6, 0.9]))
    assert out["mean_ap"] == pytest.approx(np.mean([0.25, 0.3, 0.45]))
    assert out["finished"] == 3 and out["tables"] == 4


def test_only_the_tables_every_detector_ran_are_compared():
    peers = _peers()
    peers["pyod KNN"] = peers["pyod KNN"][:-1]  # KNN never ran t9
    out = cand.compare(_records(REF + 0.01), peers)
    assert out["tables"] == 9 and out["wins"] == 9


@pytest.mark.parametrize("position", [0, 9])
def test_the_bootstrap_resamples_every_table(position):
    """One table carries the whole difference: wherever it sits, the interval reaches
    above zero and holds the observed mean difference."""
    aucs = REF.copy()
    aucs[position] += 0.3
    out = cand.compare(_records(aucs), _peers())
    lo, hi = out["diff_interval"]
    assert lo <= out["diff"] <= hi and hi > 0


def test_the_bootstrap_interval_is_a_90_percent_interval():
    """For 40 tables of Gaussian differences the bootstrap distribution of the mean is
    close to normal with SD s / sqrt(n): the 5%-95% interval is about 2 x 1.645 of it
    wide (a 95% interval would be 1.96 / 1.645 = 1.19 times wider)."""
    rng = np.random.default_rng(1)
    ref = rng.uniform(0.6, 0.9, size=40)
    diff = 0.05 * rng.normal(size=40)
    records = [{"table": f"t{i}", "auc": float(ref[i] + diff[i]), "ap": 0.5} for i in range(40)]
    peers = {
        "pyod IForest": [{"table": f"t{i}", "auc": float(ref[i]), "ap": 0.5} for i in range(40)]
    }
    out = cand.compare(records, peers)
    lo, hi = out["diff_interval"]
    expected = 2 * 1.645 * np.std(diff) / np.sqrt(40)
    assert 0.9 < (hi - lo) / expected < 1.1
    assert (lo + hi) / 2 == pytest.approx(np.mean(diff), abs=0.2 * expected)


def test_the_report_command_shows_candidates_pyod_and_the_detectors_asked_for(tmp_path, capsys):
    """``--report`` rows: the candidates, the pyod detectors of the peer runs, and the
    other detectors named by ``--also``; no other detector of those files."""
    import json

    runs = {"robust": {cand.NAMES["c"]: _records(REF + 0.01)}}
    peers = {
        "robust": {
            "pyod IForest": _records(REF),
            "pyod KNN": _records(REF - 0.1),
            "robustpca ROBPCA": _records(REF - 0.02),
            "robustpca PCA": _records(REF - 0.03),
        }
    }
    a, b = tmp_path / "c.json", tmp_path / "p.json"
    a.write_text(json.dumps(runs))
    b.write_text(json.dumps(peers))
    assert cand.main(["--report", str(a), str(b), "--also", "robustpca ROBPCA"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| ")}
    rows.discard("detector")
    assert rows == {cand.NAMES["c"], "pyod IForest", "pyod KNN", "robustpca ROBPCA"}
