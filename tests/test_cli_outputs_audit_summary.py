"""``robustpca fit`` outputs, from the mutation audit: the files agree with each other.

summary.json's counts are those of distances.csv and of the fitted model, and the
components' row labels are the names of the scores' columns.
"""

from __future__ import annotations

import csv
import json

import numpy as np

from robustpca import cli


def planted(n=60, d=8, k=2, n_out=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) * 3 + 0.05 * rng.normal(size=(n, d))
    X[:n_out] += rng.normal(scale=20, size=(n_out, d))
    return X


def fit(tmp_path, *options):
    src = tmp_path / "data.csv"
    np.savetxt(src, planted(), delimiter=",")
    out = tmp_path / "out"
    assert cli.main(["fit", src, "--out", out, "--no-figures", *options]) == 0
    summary = json.loads((out / "summary.json").read_text())
    with open(out / "distances.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return out, summary, rows


def test_summary_counts_are_those_of_distances_csv(tmp_path):
    """n_outliers counts the samples flagged by either distance (once each), as the
    ``outlier`` column; the two partial counts are those of their columns."""
    _, summary, rows = fit(tmp_path, "--method", "rpca-om", "-k", "2")

    def count(column):
        return sum(r[column] == "True" for r in rows)

    assert summary["n_outliers"] == count("outlier")
    assert summary["n_score_outliers"] == count("score_outlier")
    assert summary["n_orthogonal_outliers"] == count("orthogonal_outlier")
    both = sum(r["score_outlier"] == r["orthogonal_outlier"] == "True" for r in rows)
    assert both > 0  # the planted outliers are far on both distances


def test_components_are_labelled_as_the_scores_columns(tmp_path):
    """components.csv's row labels (pc1, pc2, ...) name scores.csv's columns, in order."""
    out, _, _ = fit(tmp_path, "--method", "pca", "-k", "3")
    with open(out / "components.csv", encoding="utf-8") as handle:
        labels = [row[0] for row in csv.reader(handle)][1:]
    with open(out / "scores.csv", encoding="utf-8") as handle:
        columns = next(csv.reader(handle))[1:]
    assert labels == columns == ["pc1", "pc2", "pc3"]


def test_summary_reports_the_models_iterations_and_convergence(tmp_path, monkeypatch):
    """n_iter is the fitted model's ``n_iter_``; a model whose ``converged_`` is False is
    reported as not converged even when no ConvergenceWarning was raised."""
    from robustpca.cli import _fit

    fitted = {}
    real = _fit.fit_model

    def fit_and_mark(model, X):
        seconds, _ = real(model, X)
        fitted["n_iter"] = model.n_iter_
        model.converged_ = False
        return seconds, False

    monkeypatch.setattr(_fit, "fit_model", fit_and_mark)
    _, summary, _ = fit(tmp_path, "--method", "rpca-om", "-k", "2")
    assert fitted["n_iter"] >= 1 and summary["n_iter"] == fitted["n_iter"]
    assert summary["converged"] is False


def test_a_weighted_fit_writes_its_weights_under_a_weight_header(tmp_path, monkeypatch):
    """A method with per-sample weights (``weights_``, here rpca-om's) adds a ``weight``
    column: a header cell for it and, in each row, the model's weight of that sample."""
    from robustpca.cli import _fit

    fitted = {}
    real = _fit.fit_model

    def keep(model, X):
        fitted["model"] = model
        return real(model, X)

    monkeypatch.setattr(_fit, "fit_model", keep)
    out, _, rows = fit(tmp_path, "--method", "rpca-om", "-k", "2")
    with open(out / "distances.csv", encoding="utf-8") as handle:
        lines = list(csv.reader(handle))
    assert lines[0][-1] == "weight"
    assert {len(line) for line in lines} == {len(lines[0])}
    weights = np.ravel(fitted["model"].weights_)
    np.testing.assert_array_equal([float(r["weight"]) for r in rows], weights)


def test_distances_csv_columns_are_the_models_diagnostics(tmp_path, monkeypatch):
    """score_distance and orthogonal_distance are those of
    :func:`robustpca.diagnostics.outlier_diagnostics` of the fitted model, each under its
    own name (the two are on different scales, so a swap shows)."""
    from robustpca.cli import _fit
    from robustpca.diagnostics import outlier_diagnostics

    fitted = {}
    real = _fit.fit_model

    def keep(model, X):
        fitted["model"], fitted["X"] = model, X
        return real(model, X)

    monkeypatch.setattr(_fit, "fit_model", keep)
    _, _, rows = fit(tmp_path, "--method", "pca", "-k", "2")
    diag = outlier_diagnostics(fitted["model"], fitted["X"], quantile=0.975)
    for column, expected in (
        ("score_distance", diag.score_distances),
        ("orthogonal_distance", diag.orthogonal_distances),
    ):
        np.testing.assert_allclose([float(r[column]) for r in rows], expected, rtol=1e-12)
    assert not np.allclose(diag.score_distances, diag.orthogonal_distances)
