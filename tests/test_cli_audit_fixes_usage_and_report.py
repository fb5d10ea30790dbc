"""The sub-commands' own errors print their own usage (``robustpca demo: error:``), the
demo checks ``--n-components`` before it loads the digits, and ``robustpca fit`` labels
its outputs and its summary line as they are: components.csv's first column is
``component``, the format is the input's (tsv, txt) and one iteration is singular."""

from __future__ import annotations

import pytest

from robustpca import cli
from robustpca.cli import _demo

TOP_USAGE = "usage: robustpca [-h] [--version] COMMAND ..."


def usage_error(capsys, argv: list[str]) -> str:
    """The stderr of ``argv``, which must stop as a usage error (exit status 2)."""
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


def test_too_many_demo_components_is_the_demos_usage_error_before_loading(
    tmp_path, capsys, monkeypatch
):
    def refuse():
        raise AssertionError("the digits were loaded before --n-components was checked")

    monkeypatch.setattr(_demo, "load_digits_images", refuse)
    err = usage_error(capsys, ["demo", "--n-components", "5", "100", "--out", tmp_path / "d"])
    assert err.startswith("usage: robustpca demo ") and TOP_USAGE not in err
    assert "robustpca demo: error: --n-components must be at most 64 for the digits" in err
    assert err.rstrip().endswith("got 100")
    assert not (tmp_path / "d").exists()


def test_the_demos_bound_is_the_digits_shape():
    from robustpca.datasets import load_digits_images

    assert load_digits_images().data.shape == _demo.DIGITS_SHAPE


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--n-jobs", "0"], "--n-jobs must be a positive integer or -1, got 0"),
        (["--n-jobs", "-2"], "--n-jobs must be a positive integer or -1, got -2"),
    ],
)
def test_reproduce_option_errors_are_its_usage_errors(tmp_path, capsys, argv, message):
    err = usage_error(capsys, ["reproduce", "nie2014-table1", *argv, "--out", tmp_path / "r"])
    assert err.startswith("usage: robustpca reproduce ") and TOP_USAGE not in err
    assert f"robustpca reproduce: error: {message}" in err


def test_an_unknown_experiment_is_reproduces_usage_error(capsys):
    err = usage_error(capsys, ["reproduce", "no-such-experiment"])
    assert err.startswith("usage: robustpca reproduce ") and TOP_USAGE not in err
    assert "robustpca reproduce: error: unknown experiment(s) no-such-experiment" in err


def write_table(path, separator: str) -> None:
    rows = [[float((3 * i + 7 * j) % 11) for j in range(4)] for i in range(12)]
    lines = [separator.join(f"c{j}" for j in range(4))]
    lines += [separator.join(repr(v) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(("suffix", "separator"), [(".csv", ","), (".tsv", "\t"), (".txt", " ")])
def test_the_summary_line_names_the_inputs_format(tmp_path, capsys, suffix, separator):
    src = tmp_path / f"table{suffix}"
    write_table(src, separator)
    out = tmp_path / "out"
    assert cli.main(["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "2"]) == 0
    printed = capsys.readouterr().out
    assert f"PCA on 12 x 4 ({suffix[1:]}), k = 2: " in printed
    with open(out / "components.csv", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    assert lines[0] == "component,c0,c1,c2,c3"
    assert [line.split(",")[0] for line in lines[1:]] == ["pc1", "pc2"]


@pytest.mark.parametrize(("n_iter", "words"), [(1, "1 iteration,"), (2, "2 iterations,")])
def test_one_iteration_is_singular(tmp_path, capsys, monkeypatch, n_iter, words):
    from robustpca.cli import _fit

    real = _fit.fit_model

    def fit_in(model, X):
        result = real(model, X)
        model.n_iter_ = n_iter
        return result

    monkeypatch.setattr(_fit, "fit_model", fit_in)
    src = tmp_path / "t.csv"
    write_table(src, ",")
    argv = ["fit", src, "--out", tmp_path / "o", "--no-figures", "--method", "pca", "-k", "1"]
    assert cli.main(argv) == 0
    assert f"k = 1: {words} converged" in capsys.readouterr().out
