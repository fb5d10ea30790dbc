"""Pins of the command line's shared options (``robustpca.cli._options``) that no test
held:

- ``--seed`` is 0 by default (``add_seed``'s docstring; the help of ``demo`` and
  ``reproduce`` says "default: 0"), so that two runs without it give the same numbers;
- a folder option's default is a :class:`~pathlib.Path`, like a value given on the
  command line (``add_folder``: "parsed to a Path"): the commands use ``args.out``'s
  path methods whether or not the user passed ``--out``;
- an ``--out`` that is a symbolic link: the link itself is what ``--overwrite``
  replaces, so the inputs are compared with the link's path, not with its target; a
  link to the folder that holds the input is replaced and the input left alone, and
  nothing of the old output stays beside the new one (the old link had been left as
  ``.out.old-<pid>``, one more per run: ``shutil.rmtree`` refuses a link, and its
  errors were ignored).
"""

import os
from pathlib import Path

import numpy as np
import pytest

from robustpca import cli
from robustpca.cli import _build_parser


@pytest.mark.parametrize(
    "argv, out",
    [(["demo"], "robustpca-demo"), (["reproduce", "nie2014-table1"], "robustpca-results")],
)
def test_seed_is_zero_and_out_is_a_path_by_default(argv, out):
    args = _build_parser().parse_args(argv)
    assert args.seed == 0
    assert isinstance(args.out, Path) and args.out == Path(out)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_an_out_link_to_the_inputs_folder_is_replaced_not_its_target(tmp_path, capsys):
    store = tmp_path / "store"
    store.mkdir()
    rng = np.random.default_rng(0)
    src = store / "data.csv"
    np.savetxt(src, rng.normal(size=(30, 4)), delimiter=",", header="a,b,c,d", comments="")
    before = src.read_bytes()
    out = tmp_path / "out"
    try:
        out.symlink_to(store, target_is_directory=True)
    except OSError:
        pytest.skip("symbolic links cannot be made here")
    argv = ["fit", src, "--out", out, "--overwrite", "--method", "pca", "-k", "1"]
    assert cli.main([*argv, "--no-figures"]) == 0, capsys.readouterr().err
    assert not out.is_symlink() and (out / "summary.json").is_file()
    assert src.read_bytes() == before and sorted(p.name for p in store.iterdir()) == ["data.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "store"]
