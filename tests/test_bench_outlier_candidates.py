"""benchmarks/bench_outlier_candidates.py: the three principled candidates rank planted
outliers first, DD-SIMCA's robust chi-square fit recovers its parameters, the comparison
with IForest counts what it says, and the command runs on a small real table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outlier_candidates as cand


def _planted(seed=0):
    """300 rows near a plane in 8 dimensions; rows 0-14 off it, 15-29 far along it."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 2)) @ rng.normal(size=(2, 8)) + 0.1 * rng.normal(size=(300, 8))
    X[:15] += 3 * rng.normal(size=(15, 8))
    X[15:30] = 8 * X[15:30]
    return X


@pytest.mark.slow
@pytest.mark.parametrize("key", ["a", "b", "c", "d"])
def test_each_candidate_ranks_the_planted_outliers_first(key):
    X = _planted()
    before = X.copy()
    model = cand.MAKERS[key]().fit(X)
    outlyingness = -np.asarray(model.decision_function(X))
    assert np.array_equal(X, before) and np.all(np.isfinite(outlyingness))
    top = set(np.argsort(-outlyingness)[:30])
    assert set(range(15)) <= top  # off the plane: first at every rank
    if key != "b":  # the average over ranks 1..K dilutes a row outlying at one rank only
        assert top == set(range(30))
    else:
        assert len(top & set(range(30))) >= 27
    if key == "a":  # the held-out likelihood finds the planted rank
        assert model.n_components_ == 2


def test_robust_scales_fall_back_on_the_mean_and_keep_zero_columns():
    rng = np.random.default_rng(0)
    R = np.column_stack(
        [rng.normal(size=2000), np.r_[np.zeros(1500), np.ones(500)], np.zeros(2000)]
    )
    scales = cand.robust_scales(R)
    assert scales[0] == pytest.approx(1.0, rel=0.1)
    assert scales[1] == pytest.approx(1.2533 * 0.25) and scales[2] == 0.0


def test_diagonal_noise_weighs_each_residual_coordinate_by_its_spread():
    """A row off the plane in a coordinate of small residual spread outranks one off it by
    the same amount in a coordinate of large spread (the isotropic model ties them)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 2)) @ rng.normal(size=(2, 6))
    X += rng.normal(size=(400, 6)) * [0.01, 0.01, 0.01, 0.01, 0.01, 1.0]
    X[0, 0] += 0.5
    X[1, 5] += 0.5
    model = cand.DiagonalNoiseLikelihood().fit(X)
    outlyingness = -model.decision_function(X)
    assert outlyingness[0] > 100 * outlyingness[1]
    assert np.argmax(outlyingness) == 0


def test_chi2_weight_recovers_a_scaled_chi_square():
    rng = np.random.default_rng(0)
    for dof, scale in [(1.0, 3.0), (5.0, 2.0), (40.0, 0.5)]:
        u = scale * rng.chisquare(dof, size=20000) / dof
        assert cand.chi2_weight(u) == pytest.approx(dof / scale, rel=0.1)
    # 2% of gross values move the robust estimate little (the mean would be lost)
    u = 2.0 * rng.chisquare(5.0, size=5000) / 5.0
    u[:100] = 1e6
    assert cand.chi2_weight(u) == pytest.approx(2.5, rel=0.15)
    assert cand.chi2_weight(np.zeros(10)) == 0.0
    assert cand.chi2_weight(np.full(10, 2.0)) == pytest.approx(0.5)  # no spread: 1 / median


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    factor=st.floats(1e-3, 1e3),
    dof=st.floats(0.5, 50),
)
def test_chi2_weight_is_scale_equivariant(seed, factor, dof):
    u = np.random.default_rng(seed).chisquare(dof, size=400)
    assert cand.chi2_weight(factor * u) == pytest.approx(cand.chi2_weight(u) / factor, rel=1e-6)


def _records(aucs):
    return [{"table": f"t{i}", "auc": a, "ap": a / 2} for i, a in enumerate(aucs)]


def test_compare_counts_differences_wins_and_halves():
    ref = np.linspace(0.6, 0.9, 10)
    peers = {"pyod IForest": _records(ref), "pyod KNN": _records(ref - 0.1)}
    same = cand.compare(_records(ref), peers)
    assert same["diff"] == 0 and same["wins"] == 0 and same["split_half"] == 1.0
    better = cand.compare(_records(ref + 0.01), peers)
    assert better["wins"] == 10 and better["split_half"] == 1.0 and better["mean_rank"] == 1
    assert better["diff"] == pytest.approx(0.01) and better["finished"] == 10
    worse = cand.compare(_records(ref - 0.05), peers)
    assert worse["split_half"] == 0.0 and worse["mean_rank"] == 2
    lo, hi = worse["diff_interval"]
    assert lo == pytest.approx(-0.05) and hi == pytest.approx(-0.05)
    # half the tables ahead, half behind by the same: level, about half the halves
    mixed = cand.compare(_records(ref + np.tile([0.05, -0.05], 5)), peers)
    assert mixed["diff"] == pytest.approx(0) and 0.2 < mixed["split_half"] < 0.8
    # a failure counts as a random ranking, and ranks last
    failed = _records(ref + 0.01)
    failed[0] = {"table": "t0", "error": "over 1 s"}
    out = cand.compare(failed, peers)
    assert out["finished"] == 9 and out["wins"] == 9


@pytest.mark.realdata
def test_the_command_runs_and_reports(tmp_path):
    from _harness import data_home

    try:
        folder = data_home("adbench") / "adbench"
    except FileNotFoundError as exc:
        pytest.fail(str(exc), pytrace=False)
    out = tmp_path / "c.json"
    argv = ["--candidates", "c", "--tables", "14_glass", "--folder", str(folder)]
    assert cand.main([*argv, "--json", str(out)]) == 0
    runs = json.loads(out.read_text())
    (record,) = runs["robust"][cand.NAMES["c"]]
    assert record["table"] == "14_glass" and 0.6 < record["auc"] <= 1.0
    peers = tmp_path / "p.json"
    iforest = {"table": "14_glass", "auc": 0.5, "ap": 0.1}
    peers.write_text(json.dumps({"robust": {"pyod IForest": [iforest]}}))
    text = cand.report(runs, json.loads(peers.read_text()))
    assert "| halves >= IForest |" in text and "DD-SIMCA" in text


def _records(aucs):
    return [{"table": f"t{i}", "auc": a, "ap": 0.5} for i, a in enumerate(aucs)]


def test_the_reference_row_is_ranked_once():
    """IForest's own row was ranked in a grid holding it twice: it tied with its copy,
    0.5 above its rank (the docs' 14 mean ranks summed to 105.6, not 105)."""
    runs = {"robust": {"cand": _records([0.6, 0.6, 0.6])}}
    peers = {"robust": {cand.REFERENCE: _records([0.9, 0.9, 0.9]), "pyod X": _records([0.5] * 3)}}
    text = cand.report(runs, peers)
    ranks = {
        line.split("|")[1].strip(): float(line.split("|")[4])
        for line in text.splitlines()
        if line.startswith("| ") and "detector" not in line
    }
    assert ranks == {"cand": 2.0, cand.REFERENCE: 1.0, "pyod X": 3.0}


def test_a_failure_of_the_reference_counts_as_chance():
    reference = _records([0.7, 0.7, 0.7, np.nan])
    result = cand.compare(_records([0.8, 0.8, 0.8, 0.8]), {"pyod IForest": reference}, n_boot=200)
    assert result["diff"] == pytest.approx((3 * 0.1 + 0.3) / 4)
    assert result["wins"] == 4 and np.all(np.isfinite(result["diff_interval"]))
