"""``robustpca fit`` with missing cells (issue 12): fitted by default, counted in the
summary, completed in the outputs; rows or columns with no value are named."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import robustpca
from robustpca import cli
from robustpca.cli._fit import default_method, supports_missing


def planted_with_gaps(n=80, d=10, k=2, n_out=8, rate=0.1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) * 3 + 0.05 * rng.normal(size=(n, d))
    X[:n_out] += rng.normal(scale=20, size=(n_out, d))
    mask = rng.random(X.shape) < rate
    mask[mask.all(axis=1), 0] = False
    return X, mask


def write_with_gaps(path, X, mask, token=""):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([f"f{j}" for j in range(X.shape[1])])
        for row, gaps in zip(X, mask, strict=True):
            cells = [token if gap else repr(float(v)) for v, gap in zip(row, gaps, strict=True)]
            writer.writerow(cells)
    return path


def read_table(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, usecols=range(1, 11))


@pytest.mark.parametrize("token", ["", "NA", "nan"])
def test_missing_cells_are_fitted_by_default_and_completed(tmp_path, capsys, token):
    X, mask = planted_with_gaps()
    src = write_with_gaps(tmp_path / "gaps.csv", X, mask, token)
    out = tmp_path / "out"
    assert cli.main(["fit", src, "-k", "2", "--out", out, "--no-figures"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_missing"] == int(mask.sum())
    assert summary["missing_fraction"] == pytest.approx(mask.mean(), abs=1e-6)
    # the default for tables (ROBPCA), or the first default that fits missing entries
    assert summary["method"] == default_method(False, has_missing=True)
    assert supports_missing(getattr(robustpca, summary["method"]))
    completed = read_table(out / "completed.csv")
    np.testing.assert_allclose(completed[~mask], X[~mask], rtol=1e-12)
    assert np.isfinite(completed).all()
    inliers = mask.copy()
    inliers[:8] = False
    assert np.sqrt(np.mean((completed[inliers] - X[inliers]) ** 2)) < 0.15  # noise 0.05
    np.testing.assert_array_equal(np.load(out / "completed.npy"), completed)
    flagged = [
        r["outlier"] == "True"
        for r in csv.DictReader(open(out / "distances.csv", encoding="utf-8"))
    ]
    assert all(flagged[:8]) and sum(flagged[8:]) <= 4
    printed = capsys.readouterr().out
    assert f"Missing entries: {int(mask.sum())}" in printed and "completed.csv" in printed


def test_complete_tables_write_no_completed_file(tmp_path):
    X, mask = planted_with_gaps(rate=0.0)
    src = write_with_gaps(tmp_path / "full.csv", X, mask)
    out = tmp_path / "out"
    assert cli.main(["fit", src, "-k", "2", "--out", out, "--no-figures"]) == 0
    assert json.loads((out / "summary.json").read_text())["n_missing"] == 0
    assert not (out / "completed.csv").exists()


def test_scaled_fit_with_gaps_completes_in_the_input_units(tmp_path):
    X, mask = planted_with_gaps(seed=1)
    X = X * np.linspace(1, 100, X.shape[1]) + 50
    src = write_with_gaps(tmp_path / "gaps.csv", X, mask)
    out = tmp_path / "out"
    args = ["fit", src, "-k", "2", "--scale", "robust", "--method", "hq-pca"]
    assert cli.main([*args, "--out", out, "--no-figures"]) == 0
    completed = read_table(out / "completed.csv")
    np.testing.assert_allclose(completed[~mask], X[~mask], rtol=1e-12)
    inliers = mask.copy()
    inliers[:8] = False
    rel = np.abs(completed[inliers] - X[inliers]) / np.abs(X).max(axis=0)[np.nonzero(inliers)[1]]
    assert np.median(rel) < 0.05  # a units mix-up would give errors of order 1


def test_missing_rows_columns_and_unsupported_methods_are_named(tmp_path, capsys):
    X, mask = planted_with_gaps()
    mask[:, 3] = True
    src = write_with_gaps(tmp_path / "col.csv", X, mask)
    assert cli.main(["fit", src, "-k", "2", "--out", tmp_path / "o1"]) == 1
    assert "column(s) 'f3' have no value at all" in capsys.readouterr().err
    X, mask = planted_with_gaps()
    mask[5] = True
    src = write_with_gaps(tmp_path / "row.csv", X, mask)
    assert cli.main(["fit", src, "-k", "2", "--out", tmp_path / "o2"]) == 1
    assert "sample(s) 'sample5' have no value at all" in capsys.readouterr().err
    X, mask = planted_with_gaps()
    src = write_with_gaps(tmp_path / "gaps.csv", X, mask)
    # (PCP and GoDec fit missing entries since their observed-entries solvers landed;
    # projection pursuit does not)
    method = ["--method", "ProjectionPursuitPCA"]
    assert cli.main(["fit", src, "-k", "2", *method, "--out", tmp_path / "o3"]) == 1
    err = capsys.readouterr().err
    assert "ProjectionPursuitPCA cannot fit missing entries" in err
    assert "OptimalMeanPCA" in err
    assert not (tmp_path / "o3").exists()
