"""``robustpca fit`` on users' files: outputs, atomic writes and clear errors."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from robustpca import cli
from robustpca.cli._io import InputError, atomic_output_dir, read_input

PNG = b"\x89PNG\r\n\x1a\n"


def planted(n=60, d=8, k=2, n_out=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)) @ rng.normal(size=(k, d)) * 3 + 0.05 * rng.normal(size=(n, d))
    X[:n_out] += rng.normal(scale=20, size=(n_out, d))
    return X


def write_csv(path, X, header=True):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        if header:
            writer.writerow([f"f{j}" for j in range(X.shape[1])])
        writer.writerows(X.tolist())
    return path


def test_fit_csv_writes_every_output_and_flags_the_planted_outliers(tmp_path, capsys):
    X = planted()
    src = write_csv(tmp_path / "data.csv", X)
    out = tmp_path / "out"
    assert cli.main(["fit", src, "--method", "rpca-om", "-k", "2", "--out", out]) == 0
    names = {p.name for p in out.iterdir()}
    assert {
        "components.csv",
        "mean.csv",
        "scores.csv",
        "reconstructions.npy",
        "reconstructions.csv",
        "distances.csv",
        "summary.json",
        "outlier_map.png",
    } <= names
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method"] == "OptimalMeanPCA" and summary["converged"]
    with open(out / "distances.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    flagged = [r["outlier"] == "True" for r in rows]
    assert all(flagged[:6]) and sum(flagged[6:]) <= 3
    comps = np.loadtxt(out / "components.csv", delimiter=",", skiprows=1, usecols=range(1, 9))
    np.testing.assert_allclose(comps @ comps.T, np.eye(2), atol=1e-10)
    header = (out / "components.csv").read_text().splitlines()[0]
    assert header == "component," + ",".join(f"f{j}" for j in range(8))
    assert (out / "outlier_map.png").read_bytes()[:8] == PNG
    assert "Outliers" in capsys.readouterr().out


def test_fit_npy_and_headerless_csv_agree(tmp_path):
    X = planted(seed=1)
    np.save(tmp_path / "x.npy", X)
    write_csv(tmp_path / "x.csv", X, header=False)
    for name in ("x.npy", "x.csv"):
        out = tmp_path / f"out-{name}"
        assert (
            cli.main(
                [
                    "fit",
                    tmp_path / name,
                    "--method",
                    "pca-l21",
                    "-k",
                    "2",
                    "--out",
                    out,
                    "--no-figures",
                ]
            )
            == 0
        )
    a = np.load(tmp_path / "out-x.npy" / "reconstructions.npy")
    b = np.load(tmp_path / "out-x.csv" / "reconstructions.npy")
    np.testing.assert_allclose(a, b)


@pytest.mark.realdata
def test_fit_image_folder_writes_gallery(shared_data, tmp_path):
    folder = shared_data / "raw" / "orl" / "orl_faces" / "s1"
    out = tmp_path / "faces"
    assert cli.main(["fit", folder, "--method", "r1-pca", "-k", "3", "--out", out]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["image_shape"] == [112, 92] and summary["n_samples"] == 10
    for name in ("gallery.png", "components.png", "outlier_map.png"):
        assert (out / name).read_bytes()[:8] == PNG


@pytest.mark.realdata
def test_fit_two_d_method_on_images(shared_data, tmp_path):
    folder = shared_data / "raw" / "orl" / "orl_faces" / "s2"
    out = tmp_path / "two_d"
    assert (
        cli.main(["fit", folder, "--method", "glram", "-k", "4", "--out", out, "--no-figures"]) == 0
    )
    assert json.loads((out / "summary.json").read_text())["params"]["n_components"] == [4, 4]


@pytest.mark.parametrize("chunked", [False, True])
def test_a_header_of_numbers_needs_header_yes(tmp_path, chunked):
    """A header of years (2019, 2020, ...) is all numbers: auto reads it as a sample
    (it became the top outlier), --header yes as the column names, --header no reads a
    first line of data even where it is text-like, and a non-table refuses the option."""
    X = planted()
    path = tmp_path / "years.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([2019 + j for j in range(X.shape[1])])
        writer.writerows(X.tolist())
    base = ["fit", path, "--method", "pca", "-k", "2", "--no-figures"]
    base += ["--chunked"] if chunked else []
    assert cli.main([*base, "--out", tmp_path / "auto"]) == 0
    auto = json.loads((tmp_path / "auto" / "summary.json").read_text())
    assert auto["n_samples"] == X.shape[0] + 1
    assert cli.main([*base, "--header", "yes", "--out", tmp_path / "yes"]) == 0
    named = json.loads((tmp_path / "yes" / "summary.json").read_text())
    assert named["n_samples"] == X.shape[0]
    assert (tmp_path / "yes" / "components.csv").read_text().splitlines()[0].split(",")[1] == (
        "2019"
    )
    assert cli.main([*base, "--header", "no", "--out", tmp_path / "no"]) == 0
    assert json.loads((tmp_path / "no" / "summary.json").read_text())["n_samples"] == len(X) + 1


def test_header_applies_to_text_tables_only(tmp_path, capsys):
    np.save(tmp_path / "x.npy", planted())
    argv = ["fit", tmp_path / "x.npy", "-k", "2", "--header", "yes", "--out", tmp_path / "o"]
    assert cli.main(argv) == 1
    assert "--header applies to CSV/TSV/TXT tables only" in capsys.readouterr().err


def test_fit_one_sided_two_d_pca_on_an_image_stack(tmp_path):
    """2DPCA keeps k columns of each image (one-sided): -k 3 fitted (3, 3) and failed
    with a traceback."""
    rng = np.random.default_rng(0)
    np.save(tmp_path / "s.npy", rng.normal(size=(12, 6, 5)))
    out = tmp_path / "o"
    argv = ["fit", tmp_path / "s.npy", "--method", "2dpca", "-k", "3", "--no-figures"]
    assert cli.main([*argv, "--out", out]) == 0
    assert json.loads((out / "summary.json").read_text())["params"]["n_components"] == 3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a,b\n1,2\n3,x\n", "column 'b' holds 'x'"),
        ("a,b\n1,2\n,\n3,4\n", "sample(s) 'sample1' have no value at all"),
        ("a,b\n1,2\n3,inf\n", "infinite"),
        ("a,b\n1,2\n", "at least 2 samples"),
        ("a,b\n1,2\n3,4,5\n", "3 fields, expected 2"),
        # a spreadsheet's ';' table with decimal commas, and a tab-separated .csv
        ("a;b;c\n1,5;2;3\n", "split by semicolons, not ','"),
        ("a\tb\n1\t2\n3\t4\n5\t1\n", "split by tabs, not ','"),
        ("a,b\n1,2\n3,4\n1e160,1\n", "X holds entries of magnitude up to 1e+160"),
        ("", "empty"),
        ("a,b\n", "no data rows"),
    ],
)
def test_bad_csv_gives_a_clear_message(tmp_path, capsys, content, message):
    src = tmp_path / "bad.csv"
    src.write_text(content)
    out = tmp_path / "out"
    assert cli.main(["fit", src, "-k", "1", "--out", out]) == 1
    err = capsys.readouterr().err
    assert "robustpca fit: error:" in err and message in err
    assert not out.exists()


def test_unreadable_inputs(tmp_path, capsys):
    (tmp_path / "x.npy").write_bytes(b"not an array")
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(b"not a png")
    (tmp_path / "notes.docx").write_text("x")
    cases = [
        (tmp_path / "missing.csv", "no such file"),
        (tmp_path / "x.npy", "not a readable"),
        (tmp_path / "img", "not a readable image"),
        (tmp_path / "notes.docx", "unsupported file type"),
    ]
    for path, message in cases:
        assert cli.main(["fit", path, "-k", "1", "--out", tmp_path / "o"]) == 1
        assert message in capsys.readouterr().err


def test_bad_options(tmp_path, capsys):
    src = write_csv(tmp_path / "d.csv", planted())
    for argv, message in [
        (["--method", "nope"], "unknown method 'nope'"),
        (["--method", "RobustTransferPCA"], "needs a source"),
        (["-k", "9"], "--n-components must be between 1 and 8"),
        (["--method", "glram"], "works on images"),
        (["--image-shape", "3x3"], "does not match the 8 features"),
        (["--quantile", "2"], "--quantile"),
        (["--method", "godec", "-k", "auto"], "GoDec needs a whole number -k"),
        (["--method", "pcp", "-k", "0.9"], "needs a whole number -k or auto"),
        (["--max-iter", "5"], "ROBPCA has no iteration cap"),
        (["--max-iter", "0"], "--max-iter: expected a positive integer"),
        (["--random-state", "-1"], "--random-state: expected a non-negative integer"),
    ]:
        full = ["fit", src, "--out", tmp_path / "o", *argv]
        if "-k" not in argv:
            full += ["-k", "2"]
        try:
            assert cli.main(full) == 1, argv
        except SystemExit as stop:  # argparse's own errors
            assert stop.code == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not (tmp_path / "o").exists()


@pytest.mark.realdata
@pytest.mark.parametrize("method", ["pcp", "outlier-pursuit", "crpca-om"])
def test_penalty_methods_fit_with_the_default_k(shared_data, tmp_path, capsys, method):
    """``robustpca fit table.csv --method pcp`` failed: the default ``-k auto`` went to an
    estimator whose penalty, not a rule on the spectrum, sets the rank."""
    src = shared_data / "rrcov" / "bushfire.csv"
    out = tmp_path / "o"
    assert cli.main(["fit", src, "--method", method, "--out", out, "--no-figures"]) == 0
    assert (out / "summary.json").exists()


def test_existing_output_is_kept_unless_overwrite(tmp_path, capsys):
    src = write_csv(tmp_path / "d.csv", planted())
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert cli.main(["fit", src, "-k", "2", "--out", out]) == 1
    assert "not empty" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "mine"
    assert cli.main(["fit", src, "-k", "2", "--out", out, "--overwrite", "--no-figures"]) == 0
    assert not (out / "keep.txt").exists() and (out / "summary.json").exists()


def test_atomic_output_dir_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "result"
    with pytest.raises(RuntimeError), atomic_output_dir(target) as tmp:
        (tmp / "half.csv").write_text("1,2")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_output_into_the_current_empty_folder(tmp_path, monkeypatch, capsys):
    """``--out .`` in an empty folder writes there and keeps the folder (the shell's
    current folder is not replaced); a folder holding the current one is never
    replaced, even with --overwrite; a folder that cannot be made is a one-line error."""
    src = tmp_path / "x.npy"
    np.save(src, planted())
    here = tmp_path / "here"
    here.mkdir()
    inode = here.stat().st_ino
    monkeypatch.chdir(here)
    assert cli.main(["fit", src, "-k", "2", "--out", ".", "--no-figures"]) == 0
    assert (here / "summary.json").exists() and here.stat().st_ino == inode
    assert not [p for p in here.iterdir() if p.name.startswith(".")]  # no temporary left
    for out in (".", ".."):
        assert cli.main(["fit", src, "-k", "2", "--out", out, "--overwrite"]) == 1
        assert "holds the current folder" in capsys.readouterr().err
    assert (here / "summary.json").exists()
    assert cli.main(["fit", src, "-k", "2", "--out", src / "sub"]) == 1
    err = capsys.readouterr().err
    assert "cannot be made" in err and "Traceback" not in err


def test_atomic_output_dir_keeps_an_empty_target_on_failure(tmp_path):
    target = tmp_path / "result"
    target.mkdir()
    with pytest.raises(RuntimeError), atomic_output_dir(target) as tmp:
        (tmp / "half.csv").write_text("1,2")
        raise RuntimeError("boom")
    assert target.is_dir() and list(target.iterdir()) == []


def test_input_file_is_not_modified(tmp_path):
    X = planted()
    np.save(tmp_path / "x.npy", X)
    before = (tmp_path / "x.npy").read_bytes()
    assert (
        cli.main(["fit", tmp_path / "x.npy", "-k", "2", "--out", tmp_path / "o", "--no-figures"])
        == 0
    )
    assert (tmp_path / "x.npy").read_bytes() == before


def test_read_input_stack_of_images(tmp_path):
    stack = np.random.default_rng(0).random((5, 4, 3))
    np.save(tmp_path / "s.npy", stack)
    data = read_input(tmp_path / "s.npy")
    assert data.image_shape == (4, 3) and data.X.shape == (5, 12)
    with pytest.raises(InputError, match="not numbers"):
        np.save(tmp_path / "t.npy", np.array([["a", "b"], ["c", "d"]]))
        read_input(tmp_path / "t.npy")


def write_labelled(path, X, ids, extra=None):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        head = ["id", *[f"f{j}" for j in range(X.shape[1])]]
        writer.writerow(head + (["group"] if extra is not None else []))
        for i, row in enumerate(X.tolist()):
            writer.writerow([ids[i], *row] + ([extra[i]] if extra is not None else []))
    return path


def test_an_id_column_is_a_clear_error_naming_the_options(tmp_path, capsys):
    X = planted()
    src = write_labelled(tmp_path / "d.csv", X, [f"case{i}" for i in range(len(X))])
    assert cli.main(["fit", src, "-k", "2", "--out", tmp_path / "o"]) == 1
    err = capsys.readouterr().err
    assert "column 'id' holds 'case0'" in err
    assert "--index-col id" in err and "--drop id" in err


def test_index_col_labels_the_outputs_and_drop_leaves_columns_out(tmp_path):
    X = planted()
    ids = [f"case{i}" for i in range(len(X))]
    src = write_labelled(tmp_path / "d.csv", X, ids, extra=["a"] * len(X))
    out = tmp_path / "o"
    argv = ["fit", src, "--method", "rpca-om", "-k", "2", "--out", out, "--no-figures"]
    assert cli.main([*argv, "--index-col", "id", "--drop", "group"]) == 0
    with open(out / "distances.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["sample"] for r in rows] == ids
    assert all(r["outlier"] == "True" for r in rows[:6])
    header = (out / "components.csv").read_text().splitlines()[0]
    assert header == "component," + ",".join(f"f{j}" for j in range(8))
    # the same fit by 1-based column numbers, and the numeric result equals the plain table's
    out2 = tmp_path / "o2"
    argv2 = ["fit", src, "--method", "rpca-om", "-k", "2", "--out", out2, "--no-figures"]
    assert cli.main([*argv2, "--index-col", "1", "--drop", "10"]) == 0
    plain = write_csv(tmp_path / "plain.csv", X)
    out3 = tmp_path / "o3"
    assert cli.main(["fit", plain, "--method", "rpca-om", "-k", "2", "--out", out3]) == 0
    a = np.loadtxt(out2 / "scores.csv", delimiter=",", skiprows=1, usecols=(1, 2))
    b = np.loadtxt(out3 / "scores.csv", delimiter=",", skiprows=1, usecols=(1, 2))
    np.testing.assert_allclose(a, b)


def test_outlier_map_is_drawn_with_the_row_labels(tmp_path, monkeypatch):
    import robustpca.diagnostics as diagnostics

    seen = {}
    original = diagnostics.plot_outlier_map

    def spy(diag, **kwargs):
        seen.update(kwargs)
        return original(diag, **kwargs)

    monkeypatch.setattr(diagnostics, "plot_outlier_map", spy)
    X = planted()
    ids = [f"case{i}" for i in range(len(X))]
    src = write_labelled(tmp_path / "d.csv", X, ids)
    argv = ["fit", src, "--method", "rpca-om", "-k", "2", "--out", tmp_path / "o"]
    assert cli.main([*argv, "--index-col", "id"]) == 0
    assert list(seen["labels"]) == ids


@pytest.mark.parametrize(("option", "message"), [("--index-col", "'nope' is not a column")])
def test_unknown_index_column(tmp_path, capsys, option, message):
    src = write_csv(tmp_path / "d.csv", planted())
    assert cli.main(["fit", src, "-k", "2", "--out", tmp_path / "o", option, "nope"]) == 1
    assert message in capsys.readouterr().err


def test_scale_robust_is_median_mad_and_zero_mad_is_named(tmp_path, capsys):
    X = planted() * np.array([1, 10, 100, 1, 1, 1, 1, 1]) + 50
    src = write_csv(tmp_path / "d.csv", X)
    out = tmp_path / "o"
    argv = ["fit", src, "--method", "pca", "-k", "2", "--no-figures", "--scale", "robust"]
    assert cli.main([*argv, "--out", out]) == 0
    scaling = np.loadtxt(out / "scaling.csv", delimiter=",", skiprows=1, usecols=range(1, 9))
    med = np.median(X, axis=0)
    np.testing.assert_allclose(scaling[0], med)
    np.testing.assert_allclose(scaling[1], 1.482602218505602 * np.median(np.abs(X - med), axis=0))
    import robustpca

    Z = (X - scaling[0]) / scaling[1]
    direct = robustpca.PCA(n_components=2).fit(Z).reconstruct(Z) * scaling[1] + scaling[0]
    np.testing.assert_allclose(np.load(out / "reconstructions.npy"), direct, atol=1e-8)
    assert json.loads((out / "summary.json").read_text())["scale"] == "robust"
    X[: len(X) // 2 + 1, 3] = 7.0  # more than half equal: MAD zero
    src = write_csv(tmp_path / "z.csv", X)
    assert cli.main([*argv[:1], src, *argv[2:], "--out", tmp_path / "z"]) == 1
    err = capsys.readouterr().err
    assert "column(s) 'f3'" in err and "MAD" in err
    argv_std = [*argv[:1], src, *argv[2:-1], "standard", "--out", tmp_path / "s"]
    assert cli.main(argv_std) == 0
    X[:, 5] = 3.0  # a constant column: no scale at all; the advice is the option left
    src = write_csv(tmp_path / "c.csv", X)
    argv_const = [*argv[:1], src, *argv[2:-1], "standard", "--out", tmp_path / "c"]
    assert cli.main(argv_const) == 1
    err = capsys.readouterr().err
    assert "--scale standard: the standard deviation" in err and err.rstrip().endswith(
        "use --scale none"
    )


@pytest.mark.parametrize("k", ["auto", "0.9"])
def test_automatic_rank(tmp_path, k):
    src = write_csv(tmp_path / "d.csv", planted())
    out = tmp_path / "o"
    argv = ["fit", src, "--method", "pca", "-k", k, "--out", out, "--no-figures"]
    assert cli.main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["params"]["n_components"] == (k if k == "auto" else 0.9)
    assert 1 <= summary["n_components"] <= 8
    scores = (out / "scores.csv").read_text().splitlines()[0].split(",")
    assert len(scores) == 1 + summary["n_components"]


@pytest.mark.parametrize("k", ["0", "1.5", "-1", "many"])
def test_bad_k_is_a_usage_error(tmp_path, k, capsys):
    src = write_csv(tmp_path / "d.csv", planted())
    with pytest.raises(SystemExit):
        cli.main(["fit", src, "-k", k, "--out", tmp_path / "o"])
    assert "share of variance in (0, 1)" in capsys.readouterr().err


def test_default_method_suits_the_input(tmp_path):
    import robustpca
    from robustpca.cli._fit import default_method

    expected = "ROBPCA" if "ROBPCA" in robustpca.ESTIMATOR_NAMES else "OptimalMeanPCA"
    assert default_method(is_images=False) == expected
    assert default_method(is_images=True) == "AdaptiveNeighborsPCA"
    src = write_csv(tmp_path / "d.csv", planted())
    out = tmp_path / "o"
    assert cli.main(["fit", src, "-k", "2", "--out", out, "--no-figures"]) == 0
    assert json.loads((out / "summary.json").read_text())["method"] == expected


@pytest.mark.realdata
def test_default_fit_of_hbk_with_an_id_column_flags_the_documented_cases(shared_data, tmp_path):
    """hbk (rrcov README): cases 1-14 are the documented outliers; ids label the output."""
    X = np.loadtxt(shared_data / "rrcov" / "hbk.csv", delimiter=",", skiprows=1)
    ids = [f"case{i + 1}" for i in range(len(X))]
    src = write_labelled(tmp_path / "hbk.csv", X, ids)
    out = tmp_path / "o"
    assert cli.main(["fit", src, "--index-col", "id", "-k", "2", "--out", out]) == 0
    with open(out / "distances.csv", encoding="utf-8") as handle:
        flagged = {r["sample"] for r in csv.DictReader(handle) if r["outlier"] == "True"}
    assert flagged == {f"case{i}" for i in range(1, 15)}
    assert (out / "outlier_map.png").read_bytes()[:8] == PNG


def test_methods_are_resolved_from_estimator_names_when_they_land(monkeypatch, tmp_path):
    """An estimator exported later (here a stand-in ROBPCA) is found by alias and becomes
    the default for tables, without touching the CLI."""
    import robustpca
    from robustpca.cli._fit import default_method, resolve_method

    class ROBPCA(robustpca.PCA):
        pass

    names = tuple(n for n in robustpca.ESTIMATOR_NAMES if n != "ROBPCA")
    with pytest.raises(InputError, match="unknown method 'robpca'"):
        monkeypatch.setattr(robustpca, "ESTIMATOR_NAMES", names)
        resolve_method("robpca")
    monkeypatch.setattr(robustpca, "ESTIMATOR_NAMES", (*names, "ROBPCA"))
    monkeypatch.setattr(robustpca, "ROBPCA", ROBPCA, raising=False)
    assert resolve_method("robpca") is ROBPCA and resolve_method("ROBPCA") is ROBPCA
    assert default_method(is_images=False) == "ROBPCA"
    src = write_csv(tmp_path / "d.csv", planted())
    assert cli.main(["fit", src, "-k", "2", "--out", tmp_path / "o", "--no-figures"]) == 0
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["method"] == "ROBPCA"
