"""``robustpca fit`` reports a mistyped ``--method`` and a bad ``--out`` before it reads
the input (``_fit._run``: "an unknown method fails before reading the data", "a bad
--out ... before any reading"): on a table of gigabytes the user learns of the typo at
once, not after the read. Here the input does not exist at all, so an error about it
would mean it was looked at first; the table reader is also made to fail loudly.
"""

import pytest

from robustpca import cli
from robustpca.cli import _fit


@pytest.fixture
def reading_fails(monkeypatch):
    def read_input(*args, **kwargs):
        raise AssertionError("the input was read before the options were checked")

    monkeypatch.setattr(_fit, "read_input", read_input)


def test_an_unknown_method_is_reported_before_the_input_is_read(tmp_path, capsys, reading_fails):
    missing = tmp_path / "missing.csv"
    assert cli.main(["fit", missing, "--method", "nope", "--out", tmp_path / "o"]) == 1
    err = capsys.readouterr().err
    assert "unknown method 'nope'" in err and "no such file" not in err
    assert not (tmp_path / "o").exists()


def test_a_bad_out_is_reported_before_the_input_is_read(tmp_path, capsys, reading_fails):
    missing = tmp_path / "missing.csv"
    out = tmp_path / "results"
    out.write_text("mine")
    assert cli.main(["fit", missing, "--method", "pca", "-k", "1", "--out", out]) == 1
    err = capsys.readouterr().err
    assert f"--out {out} exists and is not a folder" in err and "no such file" not in err
    assert out.read_text() == "mine"
