"""The experiment framework, and every registered protocol end to end in quick mode."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from robustpca import cli, experiments
from robustpca.experiments._report import atomic_write_text

PNG = b"\x89PNG\r\n\x1a\n"
EXPECTED = {
    "nie2014-table1",
    "nie2014-figure1",
    "niehuang-figure2",
    "niehuang-figure3",
    "niehuang-figure4",
    "niehuang-figure6",
    "ohkwak-figure1",
    "ohkwak-figure2",
    "guo2013-table1",
    "guo2013-table2",
    "guo2013-figure2",
    "zhangtong2019-table2",
    "zhangtong2019-figure1",
    "zhangtong2019-figure2",
    "zhangtong2019-table3",
}


def _square(x: float, seed: int) -> list[dict]:
    return [
        {"x": x, "seed": seed, "method": m, "y": (x - s) ** 2} for m, s in (("a", 0.0), ("b", 1.0))
    ]


def _toy(name="toy-figure1"):
    def tasks(config):
        xs = [0.0, 1.0] if config.quick else [0.0, 1.0, 2.0]
        return [
            experiments.Task(_square, {"x": x, "seed": config.seed}, label=f"x={x}") for x in xs
        ]

    from robustpca.experiments import line_plot

    return experiments.Experiment(
        name=name,
        paper="Toy (2026)",
        exhibit="Figure 1",
        summary="squares",
        paper_datasets=("none",),
        datasets=("digits",),
        tasks=tasks,
        table=lambda rows, config: experiments.markdown_table(
            rows, "method", "x", "y", highlight="min"
        ),
        figure=lambda rows, config: line_plot(rows, "x", "y", "method"),
        notes="A toy.",
        claim="b is best at x = 1.",
    )


def test_runner_writes_csv_markdown_png(tmp_path):
    result = experiments.run_experiment(_toy(), out=tmp_path)
    assert [f.name for f in result.files] == [
        "toy-figure1.csv",
        "toy-figure1.md",
        "toy-figure1.png",
    ]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "toy-figure1.csv").read_text())))
    assert len(rows) == 6 and rows[0] == {"x": "0.0", "seed": "0", "method": "a", "y": "0.0"}
    md = (tmp_path / "toy-figure1.md").read_text()
    assert "Data sets run: digits" in md and "A toy." in md and "| b | 1 | **0** | 1 |" in md
    assert (tmp_path / "toy-figure1.png").read_bytes()[:8] == PNG
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_runner_is_reproducible_and_parallel_matches_serial():
    serial = experiments.run_experiment(_toy(), seed=3)
    parallel = experiments.run_experiment(_toy(), seed=3, n_jobs=2)
    assert serial.rows == parallel.rows
    assert experiments.run_experiment(_toy(), quick=True).rows != serial.rows


def test_synthetic_experiments_take_no_datasets(capsys, tmp_path):
    synthetic = [e for e in experiments.list_experiments() if not e.datasets]
    assert {e.name for e in synthetic} >= {"ohkwak-figure1", "ohkwak-figure2"}
    with pytest.raises(ValueError, match="synthetic"):
        experiments.run_experiment(synthetic[0], datasets=["orl"])
    assert (
        "synthetic, generated from the seed"
        in experiments.run_experiment(synthetic[0], quick=True).markdown
    )


def test_runner_validates_arguments():
    with pytest.raises(ValueError, match="n_jobs"):
        experiments.run_experiment(_toy(), n_jobs=0)
    for seed in (2.7, "3", True, -1):
        with pytest.raises(ValueError, match="seed"):
            experiments.run_experiment(_toy(), seed=seed)
    with pytest.raises(TypeError, match="datasets must be a sequence"):
        experiments.run_experiment("nie2014-table1", datasets="orl")
    with pytest.raises(ValueError, match="unknown data set 'nope'"):
        experiments.run_experiment(_toy(), datasets=["nope"])
    with pytest.raises(ValueError, match="known experiments"):
        experiments.get_experiment("nope-table9")


def test_dataset_specs():
    assert experiments.parse_dataset_spec("orl:112x92") == ("orl", {"resolution": "112x92"})
    assert experiments.parse_dataset_spec("ar") == ("ar", {})
    for bad in ("", "palm:16x16", "nope"):
        with pytest.raises(ValueError, match="datasets"):
            experiments.parse_dataset_spec(bad)


def test_loaded_data_are_read_only():
    digits = experiments.load_dataset("digits")
    with pytest.raises(ValueError, match="read-only"):
        digits.data[0, 0] = 1.0
    assert experiments.load_dataset("digits") is digits


def test_reports():
    rows = [
        {"m": "a", "k": 1, "v": 2.0},
        {"m": "a", "k": 1, "v": 4.0},
        {"m": "b", "k": 1, "v": 1.0},
        {"m": "b", "k": 2, "v": np.nan},
    ]
    assert experiments.markdown_table(rows, "m", "k", "v", highlight="max").splitlines()[2:] == [
        "| a | **3** |  |",
        "| b | **1** | nan |",
    ]
    assert experiments.rows_to_csv(rows).splitlines()[0] == "m,k,v"
    # best per column: a (mean 3) beats b (1) under max at k = 1; k = 2 has only NaN
    by_column = experiments.markdown_table(
        rows, "m", "k", "v", highlight="max", highlight_by="column"
    )
    assert by_column.splitlines()[2:] == ["| a | **3** |  |", "| b | 1 | nan |"]
    with pytest.raises(ValueError, match="highlight_by"):
        experiments.markdown_table(rows, "m", "k", "v", highlight_by="diagonal")
    with pytest.raises(ValueError, match="highlight must"):  # a typo highlighted nothing
        experiments.markdown_table(rows, "m", "k", "v", highlight="mx")


def test_atomic_write_keeps_old_file_on_failure(tmp_path, monkeypatch):
    path = atomic_write_text(tmp_path / "a.md", "old")
    monkeypatch.setattr("os.replace", lambda *a: (_ for _ in ()).throw(OSError("disk")))
    with pytest.raises(OSError):
        atomic_write_text(path, "new")
    assert path.read_text() == "old" and len(list(tmp_path.iterdir())) == 1


def test_every_exhibit_is_registered():
    assert EXPECTED <= set(experiments.EXPERIMENTS)
    for e in experiments.list_experiments():
        assert e.name.split("-")[0] in {"nie2014", "niehuang", "ohkwak", "guo2013", "zhangtong2019"}
        assert e.summary and e.paper and e.exhibit and e.notes


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(experiments.EXPERIMENTS))
def test_quick_run_on_real_data(name, shared_data, tmp_path):
    """Every protocol runs end to end in quick mode on the data in ../shared/data."""
    result = experiments.run_experiment(name, quick=True, out=tmp_path, data_home=shared_data)
    assert result.rows, name
    # NaN may mark "not applicable" (e.g. the rank of the unprocessed input), but no
    # column may be NaN throughout: that would be a protocol computing nothing.
    columns = {key for row in result.rows for key in row}
    for key in columns:
        values = [row.get(key) for row in result.rows]
        assert not all(isinstance(v, float) and np.isnan(v) for v in values), (name, key)
    assert (tmp_path / f"{name}.png").read_bytes()[:8] == PNG
    assert "quick" in (tmp_path / f"{name}.md").read_text()


def test_cli_list(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in experiments.EXPERIMENTS:
        assert name in out


def reproduce_table1_quick(out, data_home) -> int:
    """``robustpca reproduce nie2014-table1 --quick``; the command's exit status."""
    args = ["reproduce", "nie2014-table1", "--quick", "--out", out, "--data-home", data_home]
    return cli.main([*args, "--no-progress"])


@pytest.mark.realdata
def test_cli_reproduce_quick(shared_data, tmp_path, capsys):
    assert reproduce_table1_quick(tmp_path, shared_data) == 0
    assert "nie2014-table1.md" in capsys.readouterr().out
    assert (tmp_path / "nie2014-table1.csv").exists()


def test_cli_reproduce_errors(tmp_path, capsys, monkeypatch):
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "nope-table9", "--out", tmp_path])
    assert "robustpca list" in capsys.readouterr().err
    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)
    assert reproduce_table1_quick(tmp_path, tmp_path / "empty") == 1
    assert "error" in capsys.readouterr().err


def test_cli_reproduce_reports_a_failed_download(tmp_path, capsys, monkeypatch):
    """Without the data and without internet the download's own message (where to put
    the file by hand) came as the last line of a traceback."""
    from robustpca.datasets import DatasetDownloadError
    from robustpca.experiments import _data

    def offline(name, **kwargs):
        raise DatasetDownloadError(f"Could not download data set {name!r}: offline.")

    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)
    monkeypatch.setattr(_data, "fetch_dataset", offline)
    _data._load_cached.cache_clear()
    try:
        args = ["reproduce", "nie2014-table1", "--quick", "--out", tmp_path, "--no-progress"]
        assert cli.main(args) == 1
    finally:
        _data._load_cached.cache_clear()
    assert "error: Could not download data set 'orl': offline." in capsys.readouterr().err


def test_cli_seeds_are_non_negative(tmp_path, capsys):
    """NumPy refuses negative seeds: ``--seed -1`` ended in its traceback."""
    for command in (["demo"], ["reproduce", "nie2014-table1"]):
        with pytest.raises(SystemExit) as info:
            cli.main([*command, "--seed", "-1", "--out", tmp_path])
        assert info.value.code == 2
        assert "--seed: expected a non-negative integer" in capsys.readouterr().err


def test_run_config_is_hashable():
    assert hash(experiments.RunConfig(datasets=("orl",)))


def test_without_local_data_the_experiments_download(monkeypatch, tmp_path):
    """No data_home and no ROBUSTPCA_DATA: load_dataset goes through the fetchers (tested
    against a real local HTTP server in test_fetch.py)."""
    from robustpca.experiments import _data

    calls = []

    def fake_fetch(name, **kwargs):
        calls.append((name, kwargs))
        return experiments.load_dataset("digits")

    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)
    monkeypatch.setattr(_data, "fetch_dataset", fake_fetch)
    _data._load_cached.cache_clear()
    try:
        experiments.load_dataset("orl:112x92")
        assert calls == [("orl", {"resolution": "112x92"})]
        monkeypatch.setenv("ROBUSTPCA_DATA", str(tmp_path))
        with pytest.raises(FileNotFoundError):
            experiments.load_dataset("yale")
        assert len(calls) == 1
    finally:
        _data._load_cached.cache_clear()
