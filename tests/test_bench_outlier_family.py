"""benchmarks/bench_outlier_family.py: the six outlyingnesses rank planted outliers
first, the leave-one-table-out choice scores each table with a configuration chosen
without it, and the command runs on a small real table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outlier_family as fam
from robustpca import ROBPCA


def test_each_outlyingness_ranks_planted_outliers_first():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2)) @ rng.normal(size=(2, 8)) + 0.1 * rng.normal(size=(400, 8))
    X[:20] += 4.0 * rng.normal(size=(20, 8))  # off the plane
    before = X.copy()
    model = ROBPCA(n_components=2, random_state=0).fit(X)
    scores = fam.outlyingnesses(model, X)
    assert np.array_equal(X, before)
    assert set(scores) == set(fam.COMBINATIONS)
    for name, s in scores.items():
        assert s.shape == (400,) and np.all(np.isfinite(s)), name
        assert set(range(20)) <= set(np.argsort(-s)[:25]), name


def test_leave_one_table_out_never_uses_the_held_out_table():
    # config "a" wins on every table but "t0", where only "b" is good; "t0" held out must
    # still be scored with "a" (chosen on the others), and "b" never chosen.
    aucs = {"t0": {"a": 0.5, "b": 1.0}}
    aucs.update({f"t{i}": {"a": 0.9, "b": 0.6} for i in range(1, 5)})
    res = fam.leave_one_table_out(aucs)
    assert res["chosen"] == {"a": 5}
    assert res["held_out_mean"] == pytest.approx((0.5 + 4 * 0.9) / 5)
    assert res["best_in_sample"] == "a"
    # a failure (NaN) counts as 0.5
    res = fam.leave_one_table_out({"t0": {"a": np.nan}, "t1": {"a": 0.7}})
    assert res["per_config_mean"]["a"] == pytest.approx(0.6)
    with pytest.raises(ValueError, match="at least two tables"):
        fam.leave_one_table_out({"t0": {"a": 0.7}})


@pytest.mark.realdata
def test_the_command_runs_on_a_real_table(tmp_path, adbench):
    out = tmp_path / "family.json"
    tables = ["14_glass", "21_Lymphography"]
    assert fam.main(["--folder", str(adbench), "--tables", *tables, "--json", str(out)]) == 0
    aucs = json.loads(out.read_text())["14_glass"]
    assert len(aucs) == len(fam.RANKS) * len(fam.COMBINATIONS) == 78
    assert all(0.0 <= v <= 1.0 for v in aucs.values())
    # the recommended configuration and ROBPCA's default are in the family
    assert aucs["k=2 | likelihood"] > 0.7 and aucs["auto | max of ratios"] > 0.7
    text = fam.report([out])
    assert "leave-one-table-out" in text
