"""Without matplotlib (an optional dependency: ``robustpca[plot]``) the commands and the
runner write everything but their figures, and say so; the plotting functions raise an
``ImportError`` that says what to install.

A fixed bug: ``robustpca fit data.csv --out DIR`` and ``robustpca reproduce`` on a plain
``pip install robustpca`` ended in a ``ModuleNotFoundError`` traceback when they came to
the figure, after the fit, and wrote nothing.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from robustpca import cli, experiments
from robustpca.diagnostics import outlier_diagnostics
from robustpca.plotting import matplotlib_installed, plot_gallery, plot_outlier_map

from .test_cli_fit import planted, write_csv
from .test_cli_reproduce import FAST

NOTE = "matplotlib is not installed"


@pytest.fixture
def no_matplotlib(monkeypatch):
    """Every ``import matplotlib...`` fails, as on a machine without it."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert not matplotlib_installed()


@pytest.mark.parametrize("route", [[], ["--chunked"]], ids=["in-memory", "chunked"])
def test_fit_writes_every_output_but_the_figure(no_matplotlib, route, tmp_path, capsys):
    if route:
        pytest.importorskip("dask.dataframe")
    src = write_csv(tmp_path / "data.csv", planted())
    out = tmp_path / "out"
    assert cli.main(["fit", src, "-k", "2", "--out", out, *route]) == 0
    names = {p.name for p in out.iterdir()}
    assert {"components.csv", "scores.csv", "distances.csv", "summary.json"} <= names
    assert not any(name.endswith(".png") for name in names)
    assert json.loads((out / "summary.json").read_text())["n_samples"] == 60
    captured = capsys.readouterr()
    assert captured.err.count(NOTE) == 1 and "robustpca[plot]" in captured.err
    assert "Outliers" in captured.out


def test_fit_without_figures_says_nothing_of_matplotlib(no_matplotlib, tmp_path, capsys):
    src = write_csv(tmp_path / "data.csv", planted())
    assert cli.main(["fit", src, "-k", "2", "--out", tmp_path / "o", "--no-figures"]) == 0
    assert NOTE not in capsys.readouterr().err


def test_reproduce_writes_its_rows_and_table(no_matplotlib, tmp_path, capsys):
    out = tmp_path / "results"
    assert cli.main(["reproduce", FAST, "--quick", "--no-progress", "--out", out]) == 0
    assert sorted(p.name for p in out.iterdir()) == [f"{FAST}.csv", f"{FAST}.md"]
    captured = capsys.readouterr()
    assert captured.err.count(NOTE) == 1
    assert "Wrote" in captured.out


def test_the_runner_warns_before_the_run_and_keeps_the_numbers(no_matplotlib, tmp_path):
    with pytest.warns(UserWarning, match=NOTE):
        result = experiments.run_experiment(FAST, quick=True, out=tmp_path)
    assert result.figure is None
    assert [p.name for p in result.files] == [f"{FAST}.csv", f"{FAST}.md"]
    assert result.markdown == (tmp_path / f"{FAST}.md").read_text()


def test_the_runner_with_matplotlib_writes_the_figure(tmp_path):
    pytest.importorskip("matplotlib")
    result = experiments.run_experiment(FAST, quick=True, out=tmp_path)
    assert [p.name for p in result.files] == [f"{FAST}.csv", f"{FAST}.md", f"{FAST}.png"]


def test_demo_runs_without_a_figure(no_matplotlib, tmp_path, capsys):
    assert cli.main(["demo", "--out", tmp_path / "demo"]) == 0
    assert not (tmp_path / "demo").exists()
    assert capsys.readouterr().err.count(NOTE) == 1


def test_plotting_functions_name_what_to_install(no_matplotlib):
    from robustpca import ROBPCA

    X = np.random.default_rng(0).normal(size=(40, 5))
    diag = outlier_diagnostics(ROBPCA(2, random_state=0).fit(X), X)
    with pytest.raises(ImportError, match=r"plot_outlier_map draws with matplotlib.*\[plot\]"):
        plot_outlier_map(diag)
    with pytest.raises(ImportError, match=r"plot_gallery draws with matplotlib.*\[plot\]"):
        plot_gallery({"x": np.zeros((2, 4))}, (2, 2))
