"""benchmarks/bench_outliers.py's protocol as its docstring states it: tables in ADBench's
numbering, seeds fixed at ``random_state=0``, labels judged by the share of rows and of
genuine inliers ``predict`` flags, ``--from-json`` merging separate runs into one report.
Synthetic tables in a temporary folder; no real data."""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_outliers as bench


def test_tables_come_in_adbench_numbering_and_unnumbered_ones_last(tmp_path):
    """``10_cover`` follows ``2_annthyroid`` (numbers, not strings), and the embedding
    tables of ``adbench_heldout.py --embeddings`` (no number) come after all of them."""
    for name in ["10_cover", "CV_by_ViT__MVTec-AD_wood", "2_annthyroid", "1_ALOI"]:
        np.savez(tmp_path / f"{name}.npz", X=np.zeros((3, 2)), y=np.zeros(3))
    assert bench.table_names(tmp_path) == [
        "1_ALOI",
        "2_annthyroid",
        "10_cover",
        "CV_by_ViT__MVTec-AD_wood",
    ]


def test_the_makers_fix_seed_zero():
    """Defaults everywhere, seeds fixed (``random_state=0``), for robustpca's estimators
    and pyod's detectors that take a seed; a parameter given to the maker is kept."""
    assert bench.SEED == 0
    assert bench.robustpca_factory("ROBPCA")().get_params()["random_state"] == 0
    model = bench.robustpca_factory("ROBPCA", n_components=0.95)()
    assert (model.n_components, model.random_state) == (0.95, 0)
    pytest.importorskip("pyod")
    assert bench.pyod_factory("IForest")().random_state == 0
    assert "random_state" not in bench.pyod_factory("KNN")().get_params()


def test_the_flag_shares_are_those_of_predict_among_all_rows_inliers_and_outliers():
    """``flagged``, ``inliers_flagged`` and ``outliers_flagged`` are the shares of all
    rows, of the rows labelled 0 and of those labelled 1 that ``predict`` marks -1; the
    first is the label-weighted mix of the other two."""
    from robustpca import ROBPCA

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) @ rng.normal(size=(2, 8)) + 0.1 * rng.normal(size=(300, 8))
    X[:30] += 3 * rng.normal(size=(30, 8))
    y = np.r_[np.ones(30, dtype=int), np.zeros(270, dtype=int)]
    y[100] = 1  # a labelled outlier that predict keeps: the two shares differ from 0 and 1
    rec = bench._one(lambda: ROBPCA(random_state=0), X, y)
    flagged = ROBPCA(random_state=0).fit(X).predict(X) == -1
    assert rec["flagged"] == pytest.approx(flagged.mean())
    assert rec["inliers_flagged"] == pytest.approx(flagged[y == 0].mean())
    assert rec["outliers_flagged"] == pytest.approx(flagged[y == 1].mean())
    share = y.mean()
    mix = (1 - share) * rec["inliers_flagged"] + share * rec["outliers_flagged"]
    assert rec["flagged"] == pytest.approx(mix)
    assert rec["outliers_flagged"] > rec["inliers_flagged"]


def test_from_json_reports_separate_runs_as_one(tmp_path, capsys):
    """Runs made per detector group (``--json`` of each) report as one table, and the
    recommended configuration is marked."""
    recs = [{"table": "t1", "auc": 0.8, "ap": 0.4, "seconds": 1.0}]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"robust": {bench.RECOMMENDED: recs}}))
    b.write_text(json.dumps({"robust": {"pyod IForest": recs, "pyod KNN": recs}}))
    assert bench.main(["--from-json", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert f"| {bench.RECOMMENDED} (recommended) |" in out
    assert "| pyod IForest |" in out and "| pyod KNN |" in out


class _OneNaN:
    """A detector whose outlyingness is finite but for one row."""

    def fit(self, X, y=None):
        return self

    def decision_function(self, X):
        score = -np.linalg.norm(X, axis=1)
        score[0] = np.nan
        return score


def test_a_single_non_finite_score_is_a_failure(tmp_path):
    """An overrun, an exception or non-finite scores count as a failure: one NaN among
    finite scores already does, and the failure is ranked, not scored."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.r_[np.ones(4, dtype=int), np.zeros(36, dtype=int)]
    np.savez(tmp_path / "1_toy.npz", X=X, y=y)
    (rec,) = bench.evaluate(_OneNaN, folder=tmp_path)
    assert rec["error"] == "non-finite scores" and "auc" not in rec
    assert rec["table"] == "1_toy" and rec["outlier_share"] == pytest.approx(0.1)


def _toy_folder(folder):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X[:4] += 4.0
    y = np.r_[np.ones(4, dtype=int), np.zeros(36, dtype=int)]
    np.savez(folder / "1_toy.npz", X=X, y=y)
    return folder


class _Dies:
    def fit(self, X, y=None):
        os._exit(3)


def test_a_failure_in_the_child_keeps_its_time(tmp_path):
    """Every record has ``seconds`` (the summary's time counts failures too)."""
    (rec,) = bench.evaluate(_Dies, folder=_toy_folder(tmp_path), timeout=5)
    assert rec["error"] == "the child died" and rec["seconds"] >= 0


@pytest.mark.parametrize(
    "label", [bench.VARIANCE_95, bench.SKEW_95, bench.NORMAL_SCORES, bench.LIKELIHOOD]
)
def test_each_configuration_is_the_one_its_label_names(label):
    """``robustpca ROBPCA(n_components=0.95, skew=True)`` (and ``..., likelihood``) is
    ROBPCA with those parameters and seed 0: the label the tables print is the truth."""
    spec = label.split(" ", 1)[1]  # "ROBPCA(...)", then ", likelihood" for a ranking
    call = ast.parse(spec[: spec.index(")") + 1], mode="eval")
    named = {kw.arg: ast.literal_eval(kw.value) for kw in call.body.keywords}
    made = bench.detectors()[label]()
    estimator = getattr(made, "estimator", made)
    assert type(estimator).__name__ == call.body.func.id
    params = estimator.get_params()
    assert {k: params[k] for k in named} == named and params["random_state"] == 0
    for k, v in type(estimator)().get_params().items():
        if k not in named and k != "random_state":
            assert params[k] == v, k  # defaults everywhere else


def test_the_command_runs_every_detector_of_a_name_under_both_scalings(tmp_path):
    """``--detectors PCA`` is robustpca's and pyod's PCA; ``--scaling both`` runs the
    median/MAD and the min-max scaling."""
    pytest.importorskip("pyod")
    out = tmp_path / "r.json"
    argv = ["--folder", str(_toy_folder(tmp_path)), "--tables", "1_toy", "--detectors", "PCA"]
    assert bench.main([*argv, "--scaling", "both", "--timeout", "60", "--json", str(out)]) == 0
    runs = json.loads(out.read_text())
    assert set(runs) == {"robust", "minmax"}
    for results in runs.values():
        assert set(results) == {"robustpca PCA", "pyod PCA"}
        assert all("auc" in r for recs in results.values() for r in recs)
