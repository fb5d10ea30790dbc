"""A fixed bug: Zhang & Tong's Figure 1 on images smaller than each of its d1 (8 x 8
digits, a data set the harness takes for Figure 2) ran every fit for no point and then
divided by zero while drawing an empty figure; ``robustpca reproduce`` ended in a
traceback. The run is now refused first, with a ``ValueError`` naming the data set,
which the command reports on one line."""

from __future__ import annotations

import pytest

from robustpca import cli
from robustpca.experiments import run_experiment


def test_figure1_on_images_smaller_than_every_d1_is_refused():
    with pytest.raises(ValueError, match=r"'digits' \(8 x 8\) are smaller than every d1"):
        run_experiment("zhangtong2019-figure1", datasets=["digits"])


def test_reproduce_figure1_on_small_images_ends_with_one_line(tmp_path, capsys):
    argv = ["reproduce", "zhangtong2019-figure1", "--datasets", "digits", "--no-progress"]
    assert cli.main([*argv, "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "smaller than every d1" in err
