"""``robustpca fit --chunked`` on a table that dask reads in many partitions.

The chunked route's reader (``robustpca.cli._spill``) merges what each partition
gives: the per-column moments of ``--scale standard`` (Chan, Golub & LeVeque's pairwise
update), the counts of missing cells, the row labels, the first infinite value and the
rows without a value. The other tests read tables of one 32 MB partition, where no merge
happens; here the partitions are made small (``BLOCKSIZE``) and the route must still give
what the whole-file reader gives, and ``--scale robust`` must take its exact medians
column group by column group (``MEDIAN_VALUES``) over the observed values.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from robustpca import cli

dd = pytest.importorskip("dask.dataframe")

from robustpca.cli import _spill  # noqa: E402


def table_with_gaps(path, n=240, d=5, seed=0):
    """A rank-2 table far from zero, columns on different scales, 5% of the cells empty,
    a numeric id column (labels that look like numbers)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3 + 0.05 * rng.normal(size=(n, d))
    X = (X + 10.0) * np.array([1.0, 10.0, 100.0, 0.5, 2.0])[:d]
    X[:15] += rng.normal(scale=60, size=(15, d))
    gaps = rng.random(X.shape) < 0.05
    gaps[gaps.all(axis=1), 0] = False
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", *[f"f{j}" for j in range(d)]])
        for i, row in enumerate(X.tolist()):
            cells = ["" if gap else repr(v) for v, gap in zip(row, gaps[i], strict=True)]
            writer.writerow([str(7000 + 3 * i), *cells])
    return path, int(gaps.sum())


def fit_both(src, tmp_path, *options):
    outs = []
    for route in ((), ("--chunked", "--chunk-rows", "50")):
        out = tmp_path / ("chunked" if route else "memory")
        argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "2"]
        assert cli.main([*argv, "--index-col", "id", *options, *route]) == 0
        outs.append(out)
    return outs


def scaling(out):
    return np.loadtxt(out / "scaling.csv", delimiter=",", skiprows=1, usecols=(1, 2))


def samples(out):
    with open(out / "distances.csv", encoding="utf-8") as handle:
        return [row["sample"] for row in csv.DictReader(handle)]


@pytest.mark.parametrize("how", ["standard", "robust"])
def test_many_partitions_give_the_whole_file_scaling_labels_and_counts(tmp_path, monkeypatch, how):
    """Read in 8 or more partitions (and, for ``robust``, medians taken two columns at a
    time): the centres and scales of the observed values, the missing-cell count and the
    row labels (numeric ids kept as written) are those of the in-memory run."""
    src, n_missing = table_with_gaps(tmp_path / "t.csv")
    monkeypatch.setattr(_spill, "BLOCKSIZE", src.stat().st_size // 8)
    monkeypatch.setattr(_spill, "MEDIAN_VALUES", 2 * 240)
    assert dd.read_csv(str(src), blocksize=_spill.BLOCKSIZE).npartitions >= 8
    memory, chunked = fit_both(src, tmp_path, "--scale", how)
    np.testing.assert_allclose(scaling(chunked), scaling(memory), rtol=1e-12)
    assert samples(chunked) == samples(memory) == [str(7000 + 3 * i) for i in range(240)]
    summary = json.loads((chunked / "summary.json").read_text())
    assert summary["n_missing"] == n_missing and summary["n_samples"] == 240


@pytest.mark.parametrize("labelled", [False, True])
def test_a_late_infinite_value_and_empty_rows_are_named_as_by_the_whole_file_reader(
    tmp_path, monkeypatch, capsys, labelled
):
    """An infinite value and six empty rows in later partitions: the chunked route's
    messages (the first infinite cell's sample and feature; the first five empty rows by
    name, their ``--index-col`` labels or default names, and the count of all) are the
    in-memory route's, word for word."""
    rows = [f"{i}.5,{2 * i}.25,{i % 7}" for i in range(200)]
    bad_inf = list(rows)
    bad_inf[150], bad_inf[170] = "1,inf,3", "-inf,2,3"
    bad_empty = list(rows)
    for i in (20, 90, 120, 140, 150, 180):
        bad_empty[i] = ",,"
    header, options = "a,b,c", []
    if labelled:
        header, options = "id,a,b,c", ["--index-col", "id"]
        bad_inf = [f"id{i},{row}" for i, row in enumerate(bad_inf)]
        bad_empty = [f"id{i},{row}" for i, row in enumerate(bad_empty)]
    monkeypatch.setattr(_spill, "BLOCKSIZE", 300)
    first = "id20" if labelled else "sample20"
    expected = {"inf": "the first at sample 151, feature 2", "empty": f"'{first}'"}
    for name, lines in (("inf", bad_inf), ("empty", bad_empty)):
        src = tmp_path / f"{name}.csv"
        src.write_text(header + "\n" + "\n".join(lines) + "\n")
        errors = []
        for route in ((), ("--chunked",)):
            argv = ["fit", src, "--out", tmp_path / name, "--method", "pca", "-k", "1"]
            assert cli.main([*argv, *options, *route]) == 1
            errors.append(capsys.readouterr().err)
        assert errors[0] == errors[1], name
        assert expected[name] in errors[0]
    assert "(6 in all)" in errors[0]


def test_the_field_count_check_by_many_blocks_is_the_whole_file_readers(
    tmp_path, monkeypatch, capsys
):
    """The chunked route counts each row's fields by blocks of bytes (``CHECK_BLOCK``);
    with blocks of 64 bytes, rows cut by a block's end, and blank lines on the way: a
    well-formed table is read whole, and a short row far down is refused with the
    in-memory route's message (its line number among the non-empty lines)."""
    monkeypatch.setattr(_spill, "CHECK_BLOCK", 64)
    rows = [f"{i}.5,{(2 * i) % 13}.25,{i % 7}" for i in range(60)]
    rows.insert(10, "")
    rows.insert(30, "")
    good = tmp_path / "good.csv"
    good.write_text("a,b,c\n" + "\n".join(rows) + "\n")
    argv = ["fit", good, "--out", tmp_path / "good", "--method", "pca", "-k", "1"]
    assert cli.main([*argv, "--no-figures", "--chunked"]) == 0
    assert json.loads((tmp_path / "good" / "summary.json").read_text())["n_samples"] == 60
    rows[45] = "1,2"
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,c\n" + "\n".join(rows) + "\n")
    errors = []
    for route in ((), ("--chunked",)):
        argv = ["fit", bad, "--out", tmp_path / "bad", "--method", "pca", "-k", "1"]
        assert cli.main([*argv, *route]) == 1
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1] and "2 fields, expected 3" in errors[0]
