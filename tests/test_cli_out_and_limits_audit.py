"""``robustpca fit`` options and --out, from the mutation audit: documented limits.

Counts parse from their minimum (``--random-state 0``, ``--max-iter 1``); ``--quantile``
lies in (0.5, 1); ``--chunked-above 0`` is a size; an existing file as ``--out`` is
refused; the output folder gets the usual permissions and nothing else is left beside
it; a fit that raised a ConvergenceWarning is reported as not converged.
"""

from __future__ import annotations

import json
import os

import numpy as np

from robustpca import cli
from robustpca.cli._fit import parse_size
from robustpca.cli._options import int_at_least


def table(path, n=40, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 0.1 * rng.normal(size=(n, d))
    np.savetxt(path, X, delimiter=",")
    return path


def test_counts_parse_from_their_minimum():
    assert int_at_least(0)("0") == 0 and int_at_least(1)("1") == 1
    assert parse_size("0") == 0.0


def test_a_quantile_below_one_half_is_an_error(tmp_path, capsys):
    src = table(tmp_path / "d.csv")
    assert cli.main(["fit", src, "--quantile", "0.3", "--out", tmp_path / "o"]) == 1
    assert "--quantile must be in (0.5, 1)" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_an_existing_file_as_out_is_refused_and_kept(tmp_path, capsys):
    src = table(tmp_path / "d.csv")
    out = tmp_path / "results"
    out.write_text("mine")
    assert cli.main(["fit", src, "--out", out, "--overwrite"]) == 1
    assert "exists and is not a folder" in capsys.readouterr().err
    assert out.read_text() == "mine"


def test_out_has_the_usual_mode_and_overwrite_leaves_nothing_beside_it(tmp_path):
    src = table(tmp_path / "d.csv")
    out = tmp_path / "o"
    argv = ["fit", src, "--method", "pca", "-k", "1", "--no-figures", "--out", out]
    assert cli.main(argv) == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask
    assert cli.main([*argv, "--overwrite"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "o"]


def test_a_convergence_warning_is_reported_as_not_converged(tmp_path):
    src = table(tmp_path / "d.csv")
    out = tmp_path / "o"
    argv = ["fit", src, "--method", "rpca-om", "-k", "2", "--max-iter", "1", "--no-figures"]
    assert cli.main([*argv, "--out", out]) == 0  # the run records the warning itself
    assert json.loads((out / "summary.json").read_text())["converged"] is False
