"""Row labels (``--index-col``) through the chunked route's labels file, which escapes
backslashes and line breaks to keep one label a line: labels holding a backslash before
an ``n``, a doubled backslash, a carriage return or a line break, and ids that look like
numbers, come out as the in-memory route writes them, in distances.csv and in the
printed "Most outlying" line (read back one by one for the flagged rows); a label padded
with spaces is stripped by both."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")

AWKWARD = [
    "a\\nb",
    "x\\\\y",
    "cr\rhere",
    "two\nlines",
    "007",
    "1e3",
    "trailing\\",
    "1.50",
    "  pad  ",
]


def labelled_table(path, n=80, d=4, seed=0):
    """The awkward labels on the first rows, which are shifted far off a rank-2 plane
    (so that they are the flagged rows printed at the end)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3 + 0.05 * rng.normal(size=(n, d))
    k = len(AWKWARD)
    X[:k] += rng.normal(scale=30, size=(k, d)) * np.linspace(1, 2, k)[:, None]
    ids = AWKWARD + [f"r{i}" for i in range(k, n)]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", *[f"f{j}" for j in range(d)]])
        for label, row in zip(ids, (X + 10.0).tolist(), strict=True):
            writer.writerow([label, *[repr(v) for v in row]])
    return path


def test_awkward_labels_survive_the_chunked_route(tmp_path, capsys):
    src = labelled_table(tmp_path / "t.csv")
    samples, printed = [], []
    for route in ((), ("--chunked", "--chunk-rows", "16")):
        out = tmp_path / f"o{len(route)}"
        argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "2"]
        capsys.readouterr()
        assert cli.main([*argv, "--index-col", "id", *route]) == 0
        printed.append([ln for ln in capsys.readouterr().out.splitlines() if "outlying" in ln])
        with open(out / "distances.csv", encoding="utf-8", newline="") as handle:
            samples.append([row["sample"] for row in csv.DictReader(handle)])
    assert samples[0] == samples[1]
    assert samples[1][: len(AWKWARD)] == [label.strip() for label in AWKWARD]
    assert printed[0] == printed[1] and printed[0]


def test_a_parquet_tables_index_labels_survive_the_chunked_route(tmp_path):
    """A Parquet table's named index labels the rows as stored (not stripped): labels
    with trailing spaces or tabs, backslashes and line breaks come out of the chunked
    route as the in-memory route writes them."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 4)) + 0.05 * rng.normal(size=(40, 4))
    labels = ["pad ", "tab\t", "a\\nb", "two\nlines", " lead"] + [f"r{i}" for i in range(5, 40)]
    frame = pd.DataFrame(X + 10.0, columns=[f"f{j}" for j in range(4)])
    frame.index = pd.Index(labels, name="id")
    frame.to_parquet(tmp_path / "t.parquet")
    samples = []
    for route in ((), ("--chunked", "--chunk-rows", "16")):
        out = tmp_path / f"o{len(route)}"
        argv = ["fit", tmp_path / "t.parquet", "--out", out, "--no-figures"]
        assert cli.main([*argv, "--method", "pca", "-k", "2", *route]) == 0
        with open(out / "distances.csv", encoding="utf-8", newline="") as handle:
            samples.append([row["sample"] for row in csv.DictReader(handle)])
    assert samples[0] == samples[1] == labels


def test_ids_that_look_like_numbers_are_kept_as_written(tmp_path):
    """An ``--index-col`` whose every id looks like a number (zero-padded codes, a
    decimal with a trailing zero, an exponent) labels the rows as written, in both
    routes: the ids are text, never parsed as numbers ("007" is not "7")."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 3)) + 0.05 * rng.normal(size=(40, 3))
    ids = [f"{i:03d}" for i in range(37)] + ["1.50", "1e3", "+5"]
    src = tmp_path / "t.csv"
    with open(src, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "a", "b", "c"])
        for label, row in zip(ids, (X + 10.0).tolist(), strict=True):
            writer.writerow([label, *[repr(v) for v in row]])
    samples = []
    for route in ((), ("--chunked", "--chunk-rows", "16")):
        out = tmp_path / f"o{len(route)}"
        argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "2"]
        assert cli.main([*argv, "--index-col", "id", *route]) == 0
        with open(out / "distances.csv", encoding="utf-8", newline="") as handle:
            samples.append([row["sample"] for row in csv.DictReader(handle)])
    assert samples[0] == samples[1] == ids
