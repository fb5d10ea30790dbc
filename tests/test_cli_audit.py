"""``robustpca fit`` on awkward tables: the in-memory and chunked routes read, refuse and
write them alike (quoted labels, ragged rows, NA cells, aligned .txt, decimal Parquet
columns, an --out holding the input)."""

from __future__ import annotations

import csv
import decimal
import json

import numpy as np
import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")

ROUTES = [pytest.param((), id="in-memory"), pytest.param(("--chunked",), id="chunked")]


def table(n=30, d=3, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, d)).round(4)


def lines(X) -> list[str]:
    return [",".join(map(str, row)) for row in X.tolist()]


def run(src, out, *options) -> int:
    return cli.main(["fit", str(src), "--out", str(out), "--no-figures", *map(str, options)])


def summary(out) -> dict:
    return json.loads((out / "summary.json").read_text())


def error_of(capsys, src, out, *options) -> str:
    assert run(src, out, *options) == 1
    err = capsys.readouterr().err
    assert err.startswith("robustpca fit: error:") and "Traceback" not in err
    return err


@pytest.mark.parametrize("route", ROUTES)
def test_labels_and_names_with_commas_quotes_and_line_breaks_are_quoted(tmp_path, route):
    X = table()
    labels = [f"s{i}" for i in range(len(X))]
    labels[3], labels[5], labels[7] = "Smith, J", "two\nlines", 'say "hi"'
    src = tmp_path / "in.csv"
    with open(src, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["name", "height, cm", "b", "c"])
        for label, row in zip(labels, X.tolist(), strict=True):
            writer.writerow([label, *map(repr, row)])
    out = tmp_path / "out"
    assert run(src, out, "--index-col", "name", "--method", "pca", "-k", "2", *route) == 0
    for name, first in (("scores.csv", labels), ("distances.csv", labels)):
        with open(out / name, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        assert len({len(row) for row in rows}) == 1, name
        assert [row[0] for row in rows[1:]] == first, name
    with open(out / "components.csv", encoding="utf-8", newline="") as handle:
        assert next(csv.reader(handle)) == ["component", "height, cm", "b", "c"]
    import pandas as pd

    assert list(pd.read_csv(out / "distances.csv")["sample"]) == labels
    assert (out / "scores.csv").read_text().splitlines()[1].startswith("s0,")  # unquoted


def test_both_routes_write_the_same_quoted_labels(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(
        "id,a,b\n" + "".join(f'"x, {i}",{i % 7}.5,{(i * i) % 11}.25\n' for i in range(20))
    )
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(src, a, "--index-col", "id", "--method", "pca", "-k", "1") == 0
    assert run(src, b, "--index-col", "id", "--method", "pca", "-k", "1", "--chunked") == 0
    first = [line.rsplit(",", 5)[0] for line in (a / "distances.csv").read_text().splitlines()]
    assert first == [
        line.rsplit(",", 5)[0] for line in (b / "distances.csv").read_text().splitlines()
    ]
    assert first[1] == '"x, 0"'


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("1,2,3", "line 7: 3 fields, expected 4"),
        ("1,2,3,4,999", "line 7: 5 fields, expected 4"),
        ("1,2,3,4,", "line 7: 5 fields, expected 4"),
        ("   ", "line 7: 1 fields, expected 4"),
    ],
)
def test_ragged_rows_are_refused_by_both_routes(tmp_path, capsys, route, bad, message):
    rows = lines(table(d=4))
    src = tmp_path / "t.csv"
    src.write_text("a,b,c,d\n" + "\n".join([*rows[:5], bad, *rows[5:]]) + "\n")
    out = tmp_path / "res" / "out"
    err = error_of(capsys, src, out, "--method", "pca", "-k", "1", "--chunk-rows", "8", *route)
    assert message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("token", ["NA", "null", "nan", "-nan"])
def test_a_first_row_with_a_missing_token_is_data(tmp_path, route, token):
    X = table(n=20)
    rows = lines(X)
    rows[0] = ",".join([str(X[0, 0]), token, str(X[0, 2])])
    src = tmp_path / "t.csv"
    src.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out"
    assert run(src, out, "--method", "pca", "-k", "1", *route) == 0
    s = summary(out)
    assert (s["n_samples"], s["n_missing"]) == (20, 1)
    assert (out / "mean.csv").read_text().splitlines()[0] == "x0,x1,x2"


@pytest.mark.parametrize("route", ROUTES)
def test_an_out_holding_the_input_is_refused_even_with_overwrite(tmp_path, capsys, route):
    project = tmp_path / "project"
    project.mkdir()
    src = project / "table.csv"
    src.write_text("a,b\n" + "\n".join(lines(table(d=2))) + "\n")
    (project / "notes.txt").write_text("keep")
    before = src.read_bytes()
    err = error_of(capsys, src, project, "--overwrite", "-k", "1", "--method", "pca", *route)
    assert "holds the input" in err
    assert src.read_bytes() == before and (project / "notes.txt").read_text() == "keep"
    assert sorted(p.name for p in project.iterdir()) == ["notes.txt", "table.csv"]


def test_image_rows_get_the_image_default_in_both_routes(tmp_path):
    src = tmp_path / "img.csv"
    np.savetxt(src, np.random.default_rng(0).random((60, 12)), delimiter=",")
    methods = set()
    for route in ((), ("--chunked",)):
        out = tmp_path / f"o{len(route)}"
        assert run(src, out, "--image-shape", "3x4", "-k", "2", *route) == 0
        methods.add(summary(out)["method"])
    assert methods == {"AdaptiveNeighborsPCA"}


@pytest.mark.parametrize("route", ROUTES)
def test_a_cell_that_is_not_a_number_is_named_by_line_and_column(tmp_path, capsys, route):
    rows = lines(table())
    src = tmp_path / "t.csv"
    src.write_text("a,b,c\n" + "\n".join([*rows[:5], "1,2,foo", *rows[5:]]) + "\n")
    err = error_of(capsys, src, tmp_path / "o", "--method", "pca", "-k", "1", *route)
    assert "line 7: column 'c' holds 'foo', which is not a number" in err
    assert "--drop c" in err and "column 2" not in err


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("cell", ["1_000", "\u0661\u0662"])
def test_cells_pandas_refuses_are_refused_by_both_routes(tmp_path, capsys, route, cell):
    rows = lines(table())
    src = tmp_path / "t.csv"
    src.write_text("a,b,c\n" + "\n".join([*rows[:5], f"{cell},2,3", *rows[5:]]) + "\n", "utf-8")
    err = error_of(capsys, src, tmp_path / "o", "--method", "pca", "-k", "1", *route)
    assert f"line 7: column 'a' holds {cell!r}, which is not a number" in err


@pytest.mark.parametrize("route", ROUTES)
def test_minus_nan_is_missing_in_both_routes(tmp_path, route):
    rows = lines(table())
    src = tmp_path / "t.csv"
    src.write_text("a,b,c\n" + "\n".join([*rows[:5], "1,-nan,3", "2,+NaN,4", *rows[5:]]) + "\n")
    out = tmp_path / "o"
    assert run(src, out, "--method", "pca", "-k", "1", *route) == 0
    assert summary(out)["n_missing"] == 2


@pytest.mark.parametrize("route", ROUTES)
def test_a_parquet_decimal_column_is_read_as_numbers(tmp_path, route):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    X = np.random.default_rng(0).normal(size=(50, 3))
    prices = [decimal.Decimal(f"{v:.3f}") for v in X[:, 0]]
    columns = {"price": pa.array(prices, pa.decimal128(10, 3)), "b": X[:, 1], "c": X[:, 2]}
    pq.write_table(pa.table(columns), tmp_path / "t.parquet")
    out = tmp_path / "o"
    assert run(tmp_path / "t.parquet", out, "--method", "pca", "-k", "1", *route) == 0
    mean = np.loadtxt(out / "mean.csv", delimiter=",", skiprows=1)
    expected = np.array([float(p) for p in prices]).mean()
    np.testing.assert_allclose(mean, [expected, X[:, 1].mean(), X[:, 2].mean()], atol=1e-12)


@pytest.mark.parametrize("route", ROUTES)
def test_a_txt_table_aligned_with_spaces_is_read(tmp_path, route):
    X = table(d=4)
    np.savetxt(tmp_path / "padded.txt", X, fmt="%10.4f")
    out = tmp_path / "o"
    assert run(tmp_path / "padded.txt", out, "--method", "pca", "-k", "1", *route) == 0
    assert (summary(out)["n_samples"], summary(out)["n_features"]) == (30, 4)
    mean = np.loadtxt(out / "mean.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(mean, X.mean(axis=0), atol=1e-12)


def _fit_aligned(tmp_path, header: str, labels: list[str], X, route) -> list[str]:
    """Fit PCA on an aligned ``.txt`` of ``labels`` (padded to 12) and ``X``; check the
    mean and return the labels of ``scores.csv`` as the CSV reader reads them."""
    rows = [
        f"{label:<12}" + "".join(f"{v:10.4f}" for v in row)
        for label, row in zip(labels, X, strict=True)
    ]
    (tmp_path / "t.txt").write_text(header + "\n" + "\n".join(rows) + "\n")
    out = tmp_path / "o"
    options = ("--index-col", "1", "--method", "pca", "-k", "1", *route)
    assert run(tmp_path / "t.txt", out, *options) == 0
    assert (summary(out)["n_samples"], summary(out)["n_features"]) == X.shape
    mean = np.loadtxt(out / "mean.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(mean, X.mean(axis=0), atol=1e-4)
    with open(out / "scores.csv", encoding="utf-8", newline="") as handle:
        return [row[0] for row in csv.reader(handle)][1:]


@pytest.mark.parametrize("route", ROUTES)
def test_an_aligned_txt_with_quoted_labels_is_read(tmp_path, route):
    """R's ``write.table`` quotes labels, which may hold spaces (``"New York"``): the
    table is still aligned, split at runs of spaces outside quotes. A space inside the
    quotes had split the file at single spaces, into empty columns."""
    X = table(d=3)
    labels = [f'"city {i}"' if i % 3 else f"town{i}" for i in range(len(X))]
    names = _fit_aligned(tmp_path, '"name"  "a"  "b"  "c"', labels, X, route)
    assert names[:2] == ["town0", "city 1"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("label", ['"q2', 'x"y'])
def test_an_aligned_txt_with_a_stray_quote_in_a_label_is_read(tmp_path, route, label):
    """A quote that opens or sits inside a label of an aligned table, within the part
    the separator is sniffed from, is a character of that label. The sniffer found no
    separator there, and the table had been read as one column split at commas."""
    X = table(d=3)
    labels = [label if i == 4 else f"r{i}" for i in range(len(X))]
    assert _fit_aligned(tmp_path, "id  a  b  c", labels, X, route)[4] == label


@pytest.mark.parametrize("route", ROUTES)
def test_an_input_error_leaves_no_parent_folder_of_out(tmp_path, capsys, route):
    src = tmp_path / "bad.csv"
    src.write_text("a,b\n1,x\n2,3\n3,4\n")
    error_of(capsys, src, tmp_path / "res" / "run1" / "out", *route)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("option", ["--drop", "--index-col"])
def test_a_column_name_shared_by_several_columns_is_refused(tmp_path, capsys, route, option):
    src = tmp_path / "t.csv"
    src.write_text("a,b,a,c\n" + "\n".join(lines(table(d=4))) + "\n")
    err = error_of(capsys, src, tmp_path / "o", option, "a", "--method", "pca", "-k", "1", *route)
    assert f"{option} 'a' names 2 columns (numbers 1, 3)" in err
    assert not (tmp_path / "o").exists()
