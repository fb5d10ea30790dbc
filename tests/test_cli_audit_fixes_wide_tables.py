"""``robustpca fit`` on tables whose lines are longer than the first read of the file
(64 KB): the chunked route takes the column names and their number from the whole first
row, however long, and fits what the in-memory route fits.

The chunked route used to take them from the first 65,536 characters only, and refused
every row of a 30 x 8000 CSV ("line 1: 8000 fields, expected 7167"); a header longer
than dask.dataframe's sample (256,000 bytes) was refused by dask itself.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")

FLAGS = ("score_outlier", "orthogonal_outlier", "outlier")


def wide(n: int = 30, d: int = 3200, seed: int = 0) -> np.ndarray:
    """A rank-2 table plus noise, with a few rows pushed out of its plane."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 0.1 * rng.normal(size=(n, d))
    X[:3] += rng.normal(scale=5, size=(3, d))
    return X


def fit_both(tmp_path, src, *options: str):
    """The outputs of the in-memory and the chunked fits of ``src``."""
    outs = []
    for route in ("--chunked-above=never", "--chunked"):
        out = tmp_path / f"out{len(outs)}"
        argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "2"]
        assert cli.main([*argv, *options, route]) == 0, route
        outs.append(out)
    return outs


def numbers(path, labelled: bool = True) -> np.ndarray:
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))[1:]
    return np.array([row[1:] if labelled else row for row in rows], dtype=np.float64)


def header(path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as handle:
        return next(csv.reader(handle))


def assert_same_fit(memory, chunked, names: list[str]) -> None:
    """The two routes read every column, under the same names, and wrote the same fit
    (a component's sign is free)."""
    for out in (memory, chunked):
        assert json.loads((out / "summary.json").read_text())["n_features"] == len(names)
        assert header(out / "mean.csv") == names
        assert header(out / "components.csv")[1:] == names
    np.testing.assert_allclose(
        numbers(chunked / "mean.csv", False), numbers(memory / "mean.csv", False), atol=1e-12
    )
    a, b = numbers(memory / "components.csv"), numbers(chunked / "components.csv")
    b *= np.sign(np.sum(a * b, axis=1))[:, None]
    np.testing.assert_allclose(b, a, atol=1e-9)
    with open(memory / "distances.csv", encoding="utf-8") as handle:
        rows_a = list(csv.DictReader(handle))
    with open(chunked / "distances.csv", encoding="utf-8") as handle:
        rows_b = list(csv.DictReader(handle))
    for flag in FLAGS:
        assert [r[flag] for r in rows_a] == [r[flag] for r in rows_b], flag
    for column in ("score_distance", "orthogonal_distance"):
        x = [float(r[column]) for r in rows_a]
        np.testing.assert_allclose([float(r[column]) for r in rows_b], x, rtol=1e-8)


@pytest.mark.parametrize("with_header", [True, False], ids=["header", "no-header"])
def test_a_table_with_lines_over_64_kb_is_fitted_chunk_by_chunk(tmp_path, with_header):
    """30 x 3200, numbers of 22 characters (about 73 KB a line, the header's too): the
    chunked route reads all 3200 columns. (The cost is per column, not per character.)"""
    X = wide()
    names = [f"measured_feature_{j:05d}" for j in range(X.shape[1])]
    if not with_header:
        names = [f"x{j}" for j in range(X.shape[1])]  # the default names
    src = tmp_path / "wide.csv"
    first = ",".join(names) if with_header else ""  # no header line where empty
    np.savetxt(src, X, delimiter=",", fmt="%.15e", header=first, comments="")
    assert min(len(line) for line in src.read_text().splitlines()) > 65536
    assert_same_fit(*fit_both(tmp_path, src), names)


def test_a_header_longer_than_dasks_sample_is_read(tmp_path):
    """A header of long column names, longer than dask.dataframe's sample of the file
    (256,000 bytes): dask is given a sample that holds it and the first row of data."""
    X = wide(n=8, d=500)
    names = [f"measurement {j:04d} " + "of a long descriptive name " * 20 for j in range(500)]
    src = tmp_path / "long_names.csv"
    np.savetxt(src, X, delimiter=",", fmt="%.6g", header=",".join(names), comments="")
    assert len(src.read_text().splitlines()[0]) > 256000
    assert_same_fit(*fit_both(tmp_path, src), [name.strip() for name in names])


def test_an_aligned_txt_table_with_lines_over_64_kb_splits_at_runs_of_spaces(tmp_path):
    """A ``.txt`` table aligned by runs of spaces (``np.savetxt`` with a field width),
    2800 columns of 25 characters: the separator is sniffed from whole lines, so both
    routes split it at the runs of spaces and read every column."""
    X = wide(n=12, d=2800)
    src = tmp_path / "aligned.txt"
    np.savetxt(src, X, fmt="%24.12f")
    assert min(len(line) for line in src.read_text().splitlines()) > 65536
    assert_same_fit(*fit_both(tmp_path, src), [f"x{j}" for j in range(2800)])
