"""``robustpca fit`` options, from the mutation audit: documented ranges and records.

``-k`` takes a share of variance in the open interval (0, 1); summary.json records the
columns left out with ``--drop``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from robustpca import cli


def write_table(path, n=40, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 0.1 * rng.normal(size=(n, d))
    header = ",".join(f"f{j}" for j in range(d))
    np.savetxt(path, X, delimiter=",", header=header, comments="")
    return path


@pytest.mark.parametrize("k", ["1.0", "1e0"])
def test_a_whole_share_of_variance_is_a_usage_error(tmp_path, k, capsys):
    """A share of 1 is not in (0, 1) (and not a number of components, 1 is written '1')."""
    src = write_table(tmp_path / "d.csv")
    with pytest.raises(SystemExit):
        cli.main(["fit", src, "-k", k, "--out", tmp_path / "o"])
    assert "share of variance in (0, 1)" in capsys.readouterr().err


def test_summary_records_the_dropped_columns(tmp_path):
    """``--drop f1,f3 --drop f4``: summary.json's ``dropped`` lists the three, in order,
    and n_features counts the two columns fitted."""
    src = write_table(tmp_path / "d.csv")
    out = tmp_path / "o"
    argv = ["fit", src, "--method", "pca", "-k", "1", "--no-figures", "--out", out]
    assert cli.main([*argv, "--drop", "f1,f3", "--drop", "f4"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["dropped"] == ["f1", "f3", "f4"]
    assert summary["n_features"] == 2


@pytest.mark.parametrize("text", ["auto", "AUTO", " Auto "])
def test_auto_rank_is_read_whatever_its_case_and_spaces(text):
    """``-k auto`` as typed (``AUTO``, with spaces from a script's quoting) is the rule."""
    from robustpca.cli._fit import parse_n_components

    assert parse_n_components(text) == "auto"


def test_the_quantile_sets_the_cutoffs(tmp_path):
    """``--quantile`` is the quantile of the outlier cutoffs: a higher one gives higher
    cutoffs on the same fit (summary.json records both)."""
    src = write_table(tmp_path / "d.csv")
    cutoffs = []
    for q in ("0.9", "0.99"):
        out = tmp_path / f"o{q}"
        argv = ["fit", src, "--method", "pca", "-k", "2", "--no-figures", "--quantile", q]
        assert cli.main([*argv, "--out", out]) == 0
        summary = json.loads((out / "summary.json").read_text())
        assert summary["quantile"] == float(q)
        cutoffs.append((summary["score_cutoff"], summary["orthogonal_cutoff"]))
    assert cutoffs[1][0] > cutoffs[0][0] and cutoffs[1][1] > cutoffs[0][1]
