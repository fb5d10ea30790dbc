"""``robustpca reproduce`` and :func:`~robustpca.experiments.run_experiment`: the checks
of their arguments, made before any task runs."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

from robustpca import cli, experiments
from robustpca.experiments import _runner

#: A synthetic experiment that runs in about a second in quick mode.
FAST = "ohkwak-figure1"


@pytest.fixture
def task_runs(monkeypatch) -> list[str]:
    """The names of the experiments whose tasks ran (they still run)."""
    runs: list[str] = []
    run_tasks = _runner._run_tasks

    def spy(tasks, n_jobs, progress, desc):
        runs.append(desc)
        return run_tasks(tasks, n_jobs, progress, desc)

    monkeypatch.setattr(_runner, "_run_tasks", spy)
    return runs


def test_reproduce_refuses_a_file_out_before_any_work(tmp_path, capsys, task_runs):
    """An --out that is a file, or a path under one, failed only after the whole
    experiment had run, with a raw "[Errno 17] File exists" message."""
    afile = tmp_path / "afile"
    afile.write_text("keep")
    args = ["reproduce", FAST, "--quick", "--no-progress", "--out"]
    assert cli.main([*args, str(afile)]) == 1
    assert f"error: --out {afile} exists and is not a folder" in capsys.readouterr().err
    assert cli.main([*args, str(afile / "sub")]) == 1
    err = capsys.readouterr().err
    assert f"out: {afile / 'sub'} cannot be made: {afile} exists and is not a folder" in err
    assert task_runs == []
    assert afile.read_text() == "keep"


def test_run_experiment_refuses_a_file_out_before_running(tmp_path, task_runs):
    afile = tmp_path / "afile"
    afile.touch()
    for out in (afile, afile / "sub"):
        with pytest.raises(ValueError, match=r"out: .* not a folder"):
            experiments.run_experiment(FAST, quick=True, out=out)
    assert task_runs == []
    result = experiments.run_experiment(FAST, quick=True, out=tmp_path / "new" / "folder")
    assert [f.parent for f in result.files] == [tmp_path / "new" / "folder"] * 3


def test_reproduce_all_with_names_runs_every_experiment_once(tmp_path, capsys, monkeypatch):
    """``all NAME`` said "unknown experiment(s) all"; 'all' expands wherever it is."""
    ran: list[str] = []

    def fake_run(name, **options):
        ran.append(name)
        return SimpleNamespace(markdown=f"# {name}", files=[], seconds=0.0)

    monkeypatch.setattr(experiments, "run_experiment", fake_run)
    assert cli.main(["reproduce", FAST, "all", FAST, "--out", str(tmp_path)]) == 0
    assert ran == sorted(experiments.EXPERIMENTS)
    ran.clear()
    assert cli.main(["reproduce", FAST, FAST, "--out", str(tmp_path)]) == 0
    assert ran == [FAST]
    with pytest.raises(SystemExit) as info:
        cli.main(["reproduce", "all", "nope-table9", "--out", str(tmp_path)])
    assert info.value.code == 2
    assert "unknown experiment(s) nope-table9" in capsys.readouterr().err


def test_dataset_spec_with_an_empty_variant_is_refused():
    """``"orl:"`` was taken for the plain data set, and labelled every row ``orl:``."""
    for spec in ("orl:", "digits:"):
        with pytest.raises(ValueError, match=f"datasets: '{spec}' has an empty variant"):
            experiments.parse_dataset_spec(spec)
    assert experiments.parse_dataset_spec("orl") == ("orl", {})


@pytest.mark.realdata
def test_load_dataset_docstring_specs_load(shared_data):
    """The docstring offered ``"mnist:10k"``, which the MNIST loader refuses."""
    doc = experiments.load_dataset.__doc__
    specs = re.findall(r'``"([a-z]+(?::[^"]+)?)"``', doc)
    assert len(specs) >= 8 and "mnist:test" in specs
    for spec in specs:
        assert experiments.load_dataset(spec, str(shared_data)).data.ndim == 2, spec


def test_run_experiment_takes_a_numpy_integer_n_jobs():
    """``n_jobs=np.int64(1)`` was refused though ``seed=np.int64(1)`` was taken."""
    result = experiments.run_experiment(FAST, quick=True, n_jobs=np.int64(1), seed=np.int64(1))
    assert result.rows == experiments.run_experiment(FAST, quick=True, seed=1).rows
    for bad in (np.True_, True, 1.0, 0, -2):
        with pytest.raises(ValueError, match="n_jobs"):
            experiments.run_experiment(FAST, quick=True, n_jobs=bad)
