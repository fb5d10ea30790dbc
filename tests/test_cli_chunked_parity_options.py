"""``robustpca fit``: the chunked route honours what the in-memory route honours, so that
a table's results do not depend on its size. A file's suffix is read in any case (as
``use_chunked`` routes it); ``--quantile`` sets the chunked cutoffs; the lines printed at
the end (the outliers at the cutoffs, the ten most outlying samples in order) are the
in-memory run's; a column that cannot be scaled, or ``--header`` with a Parquet table, is
refused with the same message; a method without a chunked fit is refused before the
table is read; the CSV copies are written up to the same number of values."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")


def planted_table(path, n=200, d=5, n_out=20, seed=0, top=3, labelled=True):
    """Rows near a rank-2 plane, the first ``n_out`` shifted far off it (up to ``top``
    times more for the last of them), labelled ``r0, r1, ...`` in a first column."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3 + 0.05 * rng.normal(size=(n, d))
    X[:n_out] += rng.normal(scale=20, size=(n_out, d)) * np.linspace(1, top, n_out)[:, None]
    names = [f"f{j}" for j in range(d)]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", *names] if labelled else names)
        for i, row in enumerate((X + 10.0).tolist()):
            cells = [repr(v) for v in row]
            writer.writerow([f"r{i}", *cells] if labelled else cells)
    return path


def fit(src, out, *options):
    argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "2"]
    assert cli.main([*argv, "--index-col", "id", *options]) == 0
    return json.loads((out / "summary.json").read_text())


def test_an_upper_case_suffix_above_the_threshold_is_fitted_chunk_by_chunk(tmp_path):
    src = planted_table(tmp_path / "TABLE.CSV")
    memory = fit(src, tmp_path / "memory", "--chunked-above", "never")
    chunked = fit(src, tmp_path / "chunked", "--chunked-above", "0")
    assert "chunked" in chunked and "chunked" not in memory
    assert chunked["n_outliers"] == memory["n_outliers"]


def test_the_quantile_sets_the_chunked_cutoffs_as_in_memory(tmp_path, capsys):
    src = planted_table(tmp_path / "t.csv")
    runs = {}
    for q in ("0.9", "0.99"):
        for route in ((), ("--chunked", "--chunk-rows", "40")):
            summary = fit(src, tmp_path / f"{q}{len(route)}", "--quantile", q, *route)
            runs[q, bool(route)] = summary
    capsys.readouterr()
    for q in ("0.9", "0.99"):
        memory, chunked = runs[q, False], runs[q, True]
        for key in ("score_cutoff", "orthogonal_cutoff"):
            np.testing.assert_allclose(chunked[key], memory[key], rtol=1e-8)
        assert chunked["n_outliers"] == memory["n_outliers"]
    assert runs["0.9", True]["orthogonal_cutoff"] < runs["0.99", True]["orthogonal_cutoff"]


def test_the_printed_report_is_the_in_memory_one(tmp_path, capsys):
    """The report's outlier counts and its "Most outlying" samples (the flagged ones
    farthest from the subspace, farthest first, ten at most) are the in-memory run's."""
    src = planted_table(tmp_path / "t.csv")
    lines = []
    for route in ((), ("--chunked", "--chunk-rows", "40")):
        capsys.readouterr()
        fit(src, tmp_path / f"o{len(route)}", *route)
        printed = capsys.readouterr().out.splitlines()
        lines.append([ln for ln in printed if ln.startswith(("Outliers", "Most outlying"))])
    assert lines[0] == lines[1] and len(lines[0]) == 2
    top = lines[1][1].removeprefix("Most outlying: ").split(", ")
    with open(tmp_path / "o3" / "distances.csv", encoding="utf-8") as handle:
        flagged = [r for r in csv.DictReader(handle) if r["outlier"] == "True"]
    flagged.sort(key=lambda r: -float(r["orthogonal_distance"]))
    assert top == [r["sample"] for r in flagged[:10]]


@pytest.mark.parametrize("how", ["standard", "robust"])
def test_a_column_that_cannot_be_scaled_is_refused_by_both_routes(tmp_path, capsys, how):
    """A constant column has no standard deviation and no MAD: both routes refuse it
    with the same message, naming the column, and write nothing."""
    rows = [f"{i},{(i * 7) % 11}.5,3.25,{i % 5}" for i in range(40)]
    src = tmp_path / "t.csv"
    src.write_text("a,b,c,d\n" + "\n".join(rows) + "\n")
    errors = []
    for route in ((), ("--chunked",)):
        argv = ["fit", src, "--out", tmp_path / "o", "--method", "pca", "-k", "1"]
        assert cli.main([*argv, "--scale", how, *route]) == 1
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1] and "'c'" in errors[0]
    assert not (tmp_path / "o").exists()


def test_a_method_without_a_chunked_fit_is_refused_before_the_table_is_read(tmp_path, capsys):
    """The chunked route refuses such a method before it reads the table (module
    docstring of ``robustpca.cli._chunked``): on a table that would not even parse, the
    error is the method's."""
    import robustpca
    from robustpca.cli._chunked import chunked_methods

    able = chunked_methods()
    without = next(n for n in robustpca.ESTIMATOR_NAMES if n not in able)
    src = tmp_path / "bad.csv"
    src.write_text("a,b\n1,2\n3,x\n4,5\n")
    argv = ["fit", src, "--out", tmp_path / "o", "--method", without, "--chunked"]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert f"--method {without} has no chunked fit" in err and "convert" not in err


@pytest.mark.parametrize("extra", [0, -1])
def test_both_routes_write_the_csv_copies_up_to_the_same_limit(tmp_path, monkeypatch, extra):
    """reconstructions.csv and completed.csv are written "up to" ``CSV_LIMIT`` values
    (docs/dask.md): a table of exactly that many values gets them in both routes, one
    value more than the limit in neither (the limit lowered to the table's size)."""
    from robustpca.cli import _chunked, _fit

    rows = [f"{i}.5,{(2 * i) % 13}.25,{i % 7}" for i in range(40)]
    rows[5] = "5.5,,5"
    src = tmp_path / "t.csv"
    src.write_text("a,b,c\n" + "\n".join(rows) + "\n")
    monkeypatch.setattr(_chunked, "CSV_LIMIT", 40 * 3 + extra)
    monkeypatch.setattr(_fit, "CSV_LIMIT", 40 * 3 + extra)
    for route in ((), ("--chunked",)):
        out = tmp_path / f"o{len(route)}"
        argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "1"]
        assert cli.main([*argv, *route]) == 0
        written = {p.name for p in out.iterdir()}
        assert {"reconstructions.npy", "completed.npy"} <= written
        for name in ("reconstructions.csv", "completed.csv"):
            assert (name in written) == (extra == 0), (route, name)


def test_header_with_a_parquet_table_is_refused_by_both_routes(tmp_path, capsys):
    """``--header`` applies to text tables only: a Parquet table with it is refused by
    the chunked route as by the in-memory one, with the same message."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    pd.DataFrame(rng.normal(size=(30, 3)), columns=list("abc")).to_parquet(tmp_path / "t.parquet")
    errors = []
    for route in ((), ("--chunked",)):
        argv = ["fit", tmp_path / "t.parquet", "--out", tmp_path / "o", "--method", "pca"]
        assert cli.main([*argv, "-k", "1", "--header", "yes", *route]) == 1
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1] and "--header applies to CSV/TSV/TXT tables only" in errors[0]
