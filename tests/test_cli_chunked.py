"""``robustpca fit`` chunk by chunk (issue 41, item 4): a CSV or Parquet table read with
dask.dataframe, fitted by a chunked fit and written by chunks, with the outputs and
flags of the in-memory run."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from robustpca import cli

dd = pytest.importorskip("dask.dataframe")

import robustpca  # noqa: E402
from robustpca.cli._chunked import chunked_methods, takes_missing_chunked  # noqa: E402
from robustpca.cli._fit import parse_size  # noqa: E402

FLAGS = ("score_outlier", "orthogonal_outlier", "outlier")
NUMBERS = ("score_distance", "orthogonal_distance")


def planted(n=400, d=6, k=2, n_out=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) * 3 + 0.05 * rng.normal(size=(n, d))
    X[:n_out] += rng.normal(scale=20, size=(n_out, d))
    return X + 10.0


def write_csv(path, X, header=True, ids=None, cells=None):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        if header:
            writer.writerow([*(["id"] if ids else []), *[f"f{j}" for j in range(X.shape[1])]])
        for i, row in enumerate(X.tolist()):
            values = [repr(v) for v in row] if cells is None else cells[i]
            writer.writerow([*([ids[i]] if ids else []), *values])
    return path


def fit(src, out, *options):
    argv = ["fit", src, "--out", out, "--no-figures", *options]
    assert cli.main(argv) == 0, argv
    return out


def distances(out):
    with open(out / "distances.csv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def assert_same_outputs(a, b, rtol=1e-8, atol=1e-8):
    """The two runs wrote the same files, columns and flags; numbers to ``rtol``."""
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())
    rows_a, rows_b = distances(a), distances(b)
    assert list(rows_a[0]) == list(rows_b[0])
    assert [r["sample"] for r in rows_a] == [r["sample"] for r in rows_b]
    for flag in FLAGS:
        assert [r[flag] for r in rows_a] == [r[flag] for r in rows_b], flag
    for column in NUMBERS + (("weight",) if "weight" in rows_a[0] else ()):
        x = np.array([float(r[column]) for r in rows_a])
        y = np.array([float(r[column]) for r in rows_b])
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)
    for name in ("scores.csv", "components.csv", "mean.csv", "reconstructions.csv"):
        lines_a = (a / name).read_text().splitlines()
        lines_b = (b / name).read_text().splitlines()
        assert lines_a[0] == lines_b[0] and len(lines_a) == len(lines_b), name
        first = 1 if lines_a[0].startswith(("sample,", "component,")) else 0
        if first:
            assert [r.split(",")[0] for r in lines_a] == [r.split(",")[0] for r in lines_b]
        columns = range(first, len(lines_a[0].split(",")))
        x = np.loadtxt(lines_a[1:], delimiter=",", usecols=columns, ndmin=2)
        y = np.loadtxt(lines_b[1:], delimiter=",", usecols=columns, ndmin=2)
        if name == "scores.csv" or name == "components.csv":  # a component's sign is free
            signs = np.sign(np.sum(x * y, axis=0 if name == "scores.csv" else 1))
            y = y * (signs if name == "scores.csv" else signs[:, None])
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)
    np.testing.assert_allclose(
        np.load(a / "reconstructions.npy"), np.load(b / "reconstructions.npy"), rtol=rtol
    )
    sa = json.loads((a / "summary.json").read_text())
    sb = json.loads((b / "summary.json").read_text())
    for key in ("n_samples", "n_features", "n_missing", "method", "n_components", "n_outliers"):
        assert sa[key] == sb[key], key
    np.testing.assert_allclose(sa["orthogonal_cutoff"], sb["orthogonal_cutoff"], rtol=rtol)


def methods(*wanted):
    """The wanted methods that have a chunked fit in this build (others land later)."""
    able = chunked_methods()
    return [m for m in wanted if m in able]


@pytest.mark.parametrize("method", methods("OptimalMeanPCA", "PCA", "ROBPCA", "R1PCA"))
def test_chunked_csv_flags_equal_the_in_memory_run(tmp_path, method):
    src = write_csv(tmp_path / "t.csv", planted())
    options = ["--method", method, "-k", "2"]
    memory = fit(src, tmp_path / "memory", *options)
    chunked = fit(src, tmp_path / "chunked", *options, "--chunked", "--chunk-rows", "70")
    assert_same_outputs(memory, chunked)
    summary = json.loads((chunked / "summary.json").read_text())
    assert summary["chunked"]["n_chunks"] == 6 and summary["chunked"]["rows_per_chunk"] == 70
    assert "chunked" not in json.loads((memory / "summary.json").read_text())
    flagged = [r["outlier"] == "True" for r in distances(chunked)]
    assert sum(flagged[:40]) >= 36  # the planted outliers are found


@pytest.mark.parametrize("method", ["OptimalMeanPCA", "PCA"])
def test_chunked_route_holds_no_per_row_reference_arrays(tmp_path, monkeypatch, method):
    """The chunked route takes the reference statistics from the Dask fit (exact counting
    passes, robustpca._dask.reference), never from the per-row scores in memory (whose
    copies made the peak of the 5 GB run), and its counting passes are in the summary;
    the counting route of large tables is forced here and must flag as in memory."""
    from robustpca import diagnostics
    from robustpca._dask import reference as dask_reference
    from robustpca.solvers import chunked_reference

    src = write_csv(tmp_path / "t.csv", planted())
    options = ["--method", method, "-k", "2"]
    memory = fit(src, tmp_path / "memory", *options)

    def refuse(*args, **kwargs):
        raise AssertionError("diagnostic_reference on per-row arrays in the chunked route")

    monkeypatch.setattr(diagnostics, "diagnostic_reference", refuse)
    monkeypatch.setattr(chunked_reference, "SMALL_ROWS", 0)
    monkeypatch.setattr(dask_reference, "SMALL_ROWS", 0)
    chunked = fit(src, tmp_path / "chunked", *options, "--chunked", "--chunk-rows", "70")
    assert_same_outputs(memory, chunked)
    passes = json.loads((chunked / "summary.json").read_text())["chunked"]["n_passes"]
    stages = 2 if method == "PCA" else 4  # a counting and a gathering pass a stage
    assert passes >= 1 + stages + 1  # a pass of the fit at least, the pilot, the stages


def test_chunked_parquet_equals_in_memory_and_the_csv(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    X = planted(seed=1)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame.index = pd.Index([f"row{i}" for i in range(len(X))], name="id")
    frame.to_parquet(tmp_path / "t.parquet", row_group_size=90)
    options = ["--method", "OptimalMeanPCA", "-k", "2"]
    memory = fit(tmp_path / "t.parquet", tmp_path / "memory", *options)
    chunked = fit(tmp_path / "t.parquet", tmp_path / "chunked", *options, "--chunked")
    assert_same_outputs(memory, chunked)
    assert [r["sample"] for r in distances(chunked)] == list(frame.index)
    src = write_csv(tmp_path / "t.csv", X, ids=list(frame.index))
    from_csv = fit(src, tmp_path / "csv", *options, "--index-col", "id")
    assert_same_outputs(from_csv, chunked)
    # a dataset folder written by dask, whose unnamed index is no label
    dd.from_pandas(frame.reset_index(drop=True), npartitions=3).to_parquet(tmp_path / "ds.parquet")
    memory = fit(tmp_path / "ds.parquet", tmp_path / "ds-memory", *options)
    chunked = fit(tmp_path / "ds.parquet", tmp_path / "ds-chunked", *options, "--chunked")
    assert_same_outputs(memory, chunked)
    assert distances(chunked)[0]["sample"] == "sample0"


def test_index_col_drop_and_scaling_as_in_memory(tmp_path):
    X = planted(seed=2) * np.array([1, 10, 100, 1, 1, 1])
    ids = [f"case{i}" for i in range(len(X))]
    src = write_csv(tmp_path / "t.csv", X, ids=ids)
    for scale in ("standard", "robust"):
        options = ["--method", "PCA", "-k", "2", "--index-col", "id", "--drop", "f5"]
        options += ["--scale", scale]
        memory = fit(src, tmp_path / f"m-{scale}", *options)
        chunked = fit(src, tmp_path / f"c-{scale}", *options, "--chunked", "--chunk-rows", "64")
        assert_same_outputs(memory, chunked)
        a = np.loadtxt(memory / "scaling.csv", delimiter=",", skiprows=1, usecols=range(1, 6))
        b = np.loadtxt(chunked / "scaling.csv", delimiter=",", skiprows=1, usecols=range(1, 6))
        np.testing.assert_allclose(a, b, rtol=1e-12)
        assert distances(chunked)[0]["sample"] == "case0"


def test_missing_cells_are_fitted_and_completed_as_in_memory(tmp_path):
    X = planted(seed=3)
    rng = np.random.default_rng(3)
    mask = rng.random(X.shape) < 0.05
    mask[mask.all(axis=1), 0] = False
    cells = [
        ["" if m else repr(v) for v, m in zip(row, gaps, strict=True)]
        for row, gaps in zip(X.tolist(), mask, strict=True)
    ]
    src = write_csv(tmp_path / "gaps.csv", X, cells=cells)
    options = ["--method", "OptimalMeanPCA", "-k", "2"]
    memory = fit(src, tmp_path / "memory", *options)
    chunked = fit(src, tmp_path / "chunked", *options, "--chunked", "--chunk-rows", "100")
    # the chunked fit with missing entries stops near, not at, the in-memory one (1e-3
    # here, the Dask route's own difference): the flags agree, the numbers to 1e-2 of
    # the data's scale (about 10)
    assert_same_outputs(memory, chunked, rtol=1e-2, atol=0.05)
    np.testing.assert_allclose(
        np.load(memory / "completed.npy"), np.load(chunked / "completed.npy"), rtol=1e-2
    )
    assert (chunked / "completed.csv").exists()
    assert json.loads((chunked / "summary.json").read_text())["n_missing"] == int(mask.sum())
    # without --method: the table default whose chunked fit takes missing entries
    default = fit(src, tmp_path / "default", "-k", "2", "--chunked")
    method = json.loads((default / "summary.json").read_text())["method"]
    assert takes_missing_chunked(getattr(robustpca, method))


def test_a_chunked_fit_without_missing_entries_says_so(tmp_path, capsys):
    import robustpca

    refusing = [m for m in chunked_methods() if not takes_missing_chunked(getattr(robustpca, m))]
    assert refusing  # e.g. ROBPCA; update this test if every chunked fit comes to take NaN
    src = write_csv(tmp_path / "g.csv", planted(), cells=None)
    text = src.read_text().splitlines()
    text[3] = "," + text[3].split(",", 1)[1]  # one empty cell
    src.write_text("\n".join(text) + "\n")
    argv = ["fit", src, "-k", "1", "--method", refusing[0], "--out", tmp_path / "o", "--chunked"]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert f"fitting {refusing[0]} failed" in err and "1 missing cell(s)" in err


def test_a_method_without_a_chunked_fit_is_refused_naming_those_with_one(
    tmp_path, capsys, monkeypatch
):
    import robustpca
    from robustpca._dask import fit as dask_fit

    src = write_csv(tmp_path / "t.csv", planted())
    able = chunked_methods()
    without = [
        n
        for n in robustpca.ESTIMATOR_NAMES
        if n not in able and n not in ("RobustTransferPCA", "KernelL21PCA")
    ]
    out = tmp_path / "o"
    argv = ["fit", src, "-k", "2", "--out", out, "--chunked", "--method", without[0]]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert f"--method {without[0]} has no chunked fit" in err
    assert ", ".join(able) in err and not out.exists()
    # the list is FITS as registered when the command runs
    monkeypatch.delitem(dask_fit.FITS, "r1")
    assert cli.main([*argv[:-1], "R1PCA"]) == 1
    err = capsys.readouterr().err
    assert "--method R1PCA has no chunked fit" in err and "OptimalMeanPCA" in err


def test_automatic_rank_where_the_chunked_fit_has_none_asks_for_a_number(tmp_path, capsys):
    src = write_csv(tmp_path / "t.csv", planted())
    argv = ["fit", src, "--method", "PCA", "--out", tmp_path / "o", "--chunked"]
    assert cli.main(argv) == 1  # -k auto; update this test once a chunked fit chooses it
    err = capsys.readouterr().err
    assert "-k auto: PCA chunk by chunk needs a whole number" in err
    assert "missing cells" not in err  # the method was asked for
    X = planted()
    X[3, 2] = np.nan  # the default falls back to a method whose chunked fit takes gaps
    src = write_csv(tmp_path / "g.csv", X)
    assert cli.main(["fit", src, "--out", tmp_path / "g", "--chunked"]) == 1
    err = capsys.readouterr().err
    assert "the chunked default for a table with missing cells, here 1" in err
    assert "it fixes or chooses its rank itself" not in err


def test_the_size_threshold_switches_to_the_chunked_route(tmp_path):
    src = write_csv(tmp_path / "t.csv", planted())
    size = src.stat().st_size
    options = ["--method", "PCA", "-k", "2"]
    below = fit(src, tmp_path / "a", *options, "--chunked-above", str(size))
    above = fit(src, tmp_path / "b", *options, "--chunked-above", f"{(size - 1) / 1024}KB")
    assert "chunked" not in json.loads((below / "summary.json").read_text())
    assert "chunked" in json.loads((above / "summary.json").read_text())
    never = fit(src, tmp_path / "c", *options, "--chunked-above", "never")
    assert "chunked" not in json.loads((never / "summary.json").read_text())
    assert parse_size("1GB") == 2**30 and parse_size("500mb") == 500 * 2**20
    assert parse_size("never") == float("inf") and parse_size("12") == 12
    with pytest.raises(SystemExit):
        cli.main(["fit", src, "--out", tmp_path / "d", "--chunked-above", "lots"])


def test_default_method_is_the_tables_default_with_a_chunked_fit(tmp_path):
    from robustpca.cli._fit import DEFAULT_METHOD

    src = write_csv(tmp_path / "t.csv", planted())
    out = fit(src, tmp_path / "o", "-k", "2", "--chunked")
    expected = next(m for m in DEFAULT_METHOD["table"] if m in chunked_methods())
    assert json.loads((out / "summary.json").read_text())["method"] == expected


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a,b\n1,2\n3,x\n4,5\n", "could not convert string to float"),
        ("a,b\n1,2\n,\n3,4\n", "sample(s) 'sample1' have no value at all"),
        ("a,b\n1,2\n3,inf\n4,5\n", "1 infinite value(s), the first at sample 2, feature 2"),
        ("a,b\n1,2\n", "at least 2 samples"),
        ("a,b\n", "no data rows"),
        ("a,b\n1,\n2,\n", "column(s) 'b' have no value at all"),
    ],
)
def test_bad_tables_give_the_in_memory_messages(tmp_path, capsys, content, message):
    src = tmp_path / "bad.csv"
    src.write_text(content)
    out = tmp_path / "out"
    assert cli.main(["fit", src, "-k", "1", "--method", "PCA", "--out", out, "--chunked"]) == 1
    err = capsys.readouterr().err
    assert "robustpca fit: error:" in err and message in err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_outlier_map_of_a_larger_table_draws_a_sample(tmp_path, monkeypatch):
    import robustpca.cli._chunked as chunked
    import robustpca.diagnostics as diagnostics

    seen = {}
    original = diagnostics.plot_outlier_map

    def spy(diag, **kwargs):
        seen["n"], seen["labels"] = diag.score_distances.size, kwargs.get("labels")
        seen["flagged"] = int(diag.outliers.sum())
        return original(diag, **kwargs)

    monkeypatch.setattr(diagnostics, "plot_outlier_map", spy)
    monkeypatch.setattr(chunked, "MAP_POINTS", 100)
    src = write_csv(tmp_path / "t.csv", planted())
    out = tmp_path / "o"
    assert cli.main(["fit", src, "-k", "2", "--method", "PCA", "--out", out, "--chunked"]) == 0
    assert (out / "outlier_map.png").read_bytes()[:4] == b"\x89PNG"
    assert seen["n"] == 100 and seen["labels"] is False and seen["flagged"] >= 36


@pytest.mark.realdata
@pytest.mark.parametrize("table", ["hbk", "bushfire"])
def test_rrcov_tables_chunked_flag_what_in_memory_flags(tmp_path, table):
    """rrcov's tables (tests/fixtures/rrcov) in 4 chunks: the flags of the in-memory run
    with the table default (ROBPCA where it has a chunked fit) and RPCA-OM."""
    from pathlib import Path

    src = Path(__file__).parent / "fixtures" / "rrcov" / f"{table}.csv"
    n = sum(1 for _ in open(src, encoding="utf-8")) - 1
    for method in methods("ROBPCA", "OptimalMeanPCA"):
        options = ["--method", method, "-k", "2"]
        memory = fit(src, tmp_path / f"m-{method}", *options)
        rows = str(-(-n // 4))
        chunked = fit(src, tmp_path / f"c-{method}", *options, "--chunked", "--chunk-rows", rows)
        assert_same_outputs(memory, chunked, rtol=1e-7)
        if table == "hbk" and method == "ROBPCA":  # rrcov's documented outliers, 1-14
            flagged = {i for i, r in enumerate(distances(chunked)) if r["outlier"] == "True"}
            assert flagged == set(range(14))


@pytest.mark.slow
def test_rows_that_are_images_get_the_gallery(tmp_path):
    src = write_csv(tmp_path / "t.csv", planted(n=120, d=16, n_out=10))
    out = tmp_path / "o"
    argv = ["fit", src, "-k", "2", "--method", "PCA", "--out", out, "--chunked"]
    assert cli.main([*argv, "--image-shape", "4x4", "--chunk-rows", "50"]) == 0
    for name in ("gallery.png", "components.png", "outlier_map.png"):
        assert (out / name).read_bytes()[:4] == b"\x89PNG"


def test_only_a_missing_dask_means_no_chunked_fit(monkeypatch):
    """``chunked_methods`` reads an ImportError of dask as "no chunked fit" and lets any
    other one through (a broken install must not pass for a missing extra)."""
    import builtins

    from robustpca.cli import _chunked

    real = builtins.__import__

    def failing(name):
        def fake(module, *args, **kwargs):
            if module.endswith("_dask.fit"):
                raise ImportError(f"No module named {name!r}", name=name)
            return real(module, *args, **kwargs)

        return fake

    monkeypatch.setattr(builtins, "__import__", failing("dask.array"))
    assert _chunked.chunked_methods() == []
    monkeypatch.setattr(builtins, "__import__", failing("robustpca.solvers.oops"))
    with pytest.raises(ImportError, match="oops"):
        _chunked.chunked_methods()
