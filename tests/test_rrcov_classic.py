"""PCA's diagnostics equal rrcov's PcaClassic on the five rrcov tables (issue 11).

Reference values: ``tests/reference/rrcov_classic`` (made by its ``make_fixtures.R`` with
rrcov 1.7-2; README there). The tables themselves are read from the shared data folder.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from robustpca import PCA
from robustpca.diagnostics import outlier_diagnostics

from .conftest import load_table

REFERENCE = Path(__file__).parent / "reference" / "rrcov_classic"


def _rows(name):
    with open(REFERENCE / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


CUTOFFS = {(r["table"], int(r["k"])): r for r in _rows("cutoffs.csv")}
AUTO_K = {r["table"]: int(r["k"]) for r in _rows("auto_k.csv")}
DISTANCES: dict = {}
for _r in _rows("distances.csv"):
    DISTANCES.setdefault((_r["table"], int(_r["k"])), []).append(_r)


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "k"), sorted(CUTOFFS))
def test_distances_cutoffs_and_flags_equal_pcaclassic(shared_data, table, k):
    X = load_table(shared_data, table)
    ref = DISTANCES[(table, k)]
    diag = outlier_diagnostics(PCA(n_components=k).fit(X), X)
    sd = np.array([float(r["sd"]) for r in ref])
    od = np.array([float(r["od"]) for r in ref])
    regular = np.array([r["flag"] == "1" for r in ref])
    scale = np.abs(X - X.mean(axis=0)).max()  # OD of 0 up to rounding where k = rank
    np.testing.assert_allclose(diag.score_distances, sd, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(diag.orthogonal_distances, od, rtol=1e-8, atol=1e-12 * scale)
    cut = CUTOFFS[(table, k)]
    assert diag.score_cutoff == pytest.approx(float(cut["cutoff_sd"]), rel=1e-8, abs=1e-8)
    assert diag.orthogonal_cutoff == pytest.approx(float(cut["cutoff_od"]), rel=1e-8, abs=1e-8)
    np.testing.assert_array_equal(~diag.outliers, regular)
    model = PCA(n_components=k).fit(X)
    np.testing.assert_array_equal(model.predict(X) == 1, regular)


@pytest.mark.realdata
@pytest.mark.parametrize("table", sorted(AUTO_K))
def test_auto_picks_pcaclassic_k(shared_data, table):
    X = load_table(shared_data, table)
    assert PCA(n_components="auto").fit(X).n_components_ == AUTO_K[table]


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "k"), sorted(CUTOFFS))
@pytest.mark.parametrize(("rule", "column"), [("robust", "medmad"), ("skew", "skewed")])
def test_robust_od_cutoff_rules_equal_rrcov(shared_data, table, k, rule, column):
    """rrcov's .crit.od for robust fits (median/MAD of OD^(2/3)) and for skew-adjusted
    ROBPCA (the medcouple fence), applied to the same ODs: the rules ROBPCA and the other
    rrcov estimators get through ``_od_cutoff_rule``."""
    X = load_table(shared_data, table)
    model = PCA(n_components=k).fit(X)
    model._od_cutoff_rule = rule
    model._set_outlier_reference(X)
    diag = outlier_diagnostics(model, X)
    assert diag.rule == rule
    expected = float(CUTOFFS[(table, k)][f"cutoff_od_{column}"])
    assert diag.orthogonal_cutoff == pytest.approx(expected, rel=1e-8, abs=1e-8)


PREDICT: dict = {}
for _r in _rows("predict.csv"):
    PREDICT.setdefault((_r["table"], int(_r["k"])), []).append(_r)


@pytest.mark.realdata
@pytest.mark.parametrize(("table", "k"), sorted(PREDICT))
def test_predict_on_new_data_equals_rrcov(shared_data, table, k):
    """Every 4th row held out of the fit: their distances from rrcov's
    ``predict(fit, newdata)`` and their flags by the fit's cutoffs equal ours."""
    X = load_table(shared_data, table)
    held = np.arange(3, X.shape[0], 4)
    model = PCA(n_components=k).fit(np.delete(X, held, axis=0))
    ref = PREDICT[(table, k)]
    assert [int(r["row"]) - 1 for r in ref] == list(held)
    diag = outlier_diagnostics(model, X[held])
    scale = np.abs(X - X.mean(axis=0)).max()
    np.testing.assert_allclose(
        diag.score_distances, [float(r["sd"]) for r in ref], rtol=1e-8, atol=1e-8
    )
    np.testing.assert_allclose(
        diag.orthogonal_distances, [float(r["od"]) for r in ref], rtol=1e-8, atol=1e-12 * scale
    )
    np.testing.assert_array_equal(model.predict(X[held]) == 1, [r["flag"] == "1" for r in ref])
