"""The chunked route's error messages explain what the user did, not what they did not:
a chunked fit that refuses a complete table does not blame missing cells, and ``-k auto``
with a method the user named does not call it "the chunked default"."""

from __future__ import annotations

import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")


def small_table(path, gap=False):
    rows = [f"{i}.5,{(2 * i) % 13}.25,{i % 7}" for i in range(30)]
    if gap:
        rows[3] = ",2,3"
    path.write_text("a,b,c\n" + "\n".join(rows) + "\n")
    return path


def test_a_chunked_fit_refusing_a_complete_table_does_not_blame_missing_cells(tmp_path, capsys):
    """AccAltProj's chunked fit needs ``2 k <= features``: on a complete three-column
    table with ``-k 2`` it refuses, and the message has no hint about missing cells."""
    src = small_table(tmp_path / "t.csv")
    argv = ["fit", src, "--out", tmp_path / "o", "--method", "accaltproj", "-k", "2"]
    assert cli.main([*argv, "--chunked"]) == 1
    err = capsys.readouterr().err
    assert "fitting AccAltProj failed" in err and "missing" not in err


def test_automatic_rank_with_a_named_method_is_not_called_the_default(tmp_path, capsys):
    """``-k auto`` (the default) with ``--method pca`` on a table with a missing cell: the
    message asks for a whole number of components and does not say that PCA was chosen
    as the chunked default (the user chose it)."""
    src = small_table(tmp_path / "g.csv", gap=True)
    assert cli.main(["fit", src, "--out", tmp_path / "o", "--method", "pca", "--chunked"]) == 1
    err = capsys.readouterr().err
    assert "-k auto: PCA chunk by chunk needs a whole number" in err
    assert "chunked default" not in err


def test_a_refused_chunked_fit_says_how_to_fit_in_memory_from_the_shell(tmp_path, capsys):
    """The library's way out of a refused dask fit (``fit X.compute()``) means nothing at
    the command line: the message names ``--chunked-above never``, and with it the same
    table fits."""
    src = small_table(tmp_path / "t.csv")
    argv = ["fit", src, "--method", "accaltproj", "-k", "2", "--no-figures"]
    assert cli.main([*argv, "--out", tmp_path / "o", "--chunked"]) == 1
    err = capsys.readouterr().err
    assert "--chunked-above never" in err and "compute()" not in err
    assert cli.main([*argv, "--out", tmp_path / "m", "--chunked-above", "never"]) == 0
