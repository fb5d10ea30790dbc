"""Run an experiment's tasks (in parallel, with a progress bar) and write its outputs."""

from __future__ import annotations

import io
import numbers
import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..plotting import matplotlib_installed
from ._core import Experiment, RunConfig, Task, get_experiment
from ._data import parse_dataset_spec
from ._report import atomic_write_bytes, atomic_write_text, rows_to_csv

__all__ = ["ExperimentResult", "run_experiment"]


@dataclass
class ExperimentResult:
    """What one run produced.

    Attributes
    ----------
    experiment : Experiment
    config : RunConfig
    rows : list of dict
        Tidy rows, one observation each (also written as ``<name>.csv``).
    markdown : str
        The report (also written as ``<name>.md``).
    figure : matplotlib.figure.Figure or None
        Also written as ``<name>.png``; None where matplotlib is not installed.
    files : list of Path
        The files written (empty when ``out`` was None).
    seconds : float
        Wall time of the run.
    """

    experiment: Experiment
    config: RunConfig
    rows: list[dict[str, Any]]
    markdown: str
    figure: Any
    files: list[Path] = field(default_factory=list)
    seconds: float = 0.0


def _execute(task: Task) -> list[dict[str, Any]]:
    from threadpoolctl import threadpool_limits

    # Worker processes share the cores: one BLAS thread each avoids oversubscription.
    with threadpool_limits(limits=1, user_api="blas"):
        return task()


def _run_tasks(tasks: list[Task], n_jobs: int, progress: bool, desc: str) -> list[list]:
    from tqdm.auto import tqdm

    bar = tqdm(total=len(tasks), desc=desc, disable=not progress, unit="task", leave=False)
    results: list[list] = [None] * len(tasks)  # type: ignore[list-item]
    try:
        if n_jobs == 1:
            for i, task in enumerate(tasks):
                bar.set_postfix_str(task.label, refresh=False)
                results[i] = task()
                bar.update()
        else:
            from joblib import Parallel, delayed

            parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            indexed = parallel(delayed(_indexed)(i, task) for i, task in enumerate(tasks))
            for i, rows in indexed:
                results[i] = rows
                bar.update()
    finally:
        bar.close()
    return results


def _indexed(i: int, task: Task) -> tuple[int, list]:
    return i, _execute(task)


def _header(experiment: Experiment, config: RunConfig, seconds: float) -> str:
    lines = [
        f"# {experiment.name}: {experiment.paper}, {experiment.exhibit}",
        "",
        experiment.summary,
        "",
        f"- Data sets run: {', '.join(config.datasets) or 'synthetic, generated from the seed'}",
        f"- Data sets of the paper: {', '.join(experiment.paper_datasets)}",
        f"- Mode: {'quick (smoke run, not the reproduction)' if config.quick else 'full'}; "
        f"seed {config.seed}; {seconds:.1f} s",
    ]
    if experiment.claim:
        lines.append(f"- The paper's claim: {experiment.claim}")
    if experiment.notes:
        lines += ["", experiment.notes.strip()]
    return "\n".join(lines) + "\n\n"


def _check_out(out: str | os.PathLike) -> Path:
    """The output folder ``out``; a ValueError naming ``out`` when it is a file or lies
    under one, so that a bad folder is refused before any task runs."""
    folder = Path(out)
    for path in (folder, *folder.parents):
        if path.exists():
            if path.is_dir():
                return folder
            where = "exists" if path == folder else f"cannot be made: {path} exists"
            raise ValueError(f"out: {folder} {where} and is not a folder")
    return folder


def run_experiment(
    name: str | Experiment,
    *,
    datasets: Sequence[str] | None = None,
    quick: bool = False,
    out: str | os.PathLike | None = None,
    n_jobs: int = 1,
    seed: int = 0,
    data_home: str | os.PathLike | None = None,
    progress: bool = False,
) -> ExperimentResult:
    """Run the protocol of one exhibit and write ``<name>.csv``, ``.md`` and ``.png``.

    Without matplotlib (an optional dependency) the run warns before it starts and makes
    no figure: the rows, the table and their files are those of a run with it.

    Parameters
    ----------
    name : str or Experiment
        A registered name (see :func:`list_experiments`), e.g. ``"nie2014-table1"``.
    datasets : sequence of str, optional
        Data set specifications (``"orl"``, ``"yale:64x64"``); default: the
        experiment's own (its quick subset when ``quick``).
    quick : bool
        Small grids and few seeds: a smoke run of the whole protocol.
    out : path, optional
        Output folder, made if needed; nothing is written when None. Each file is
        written atomically. A file, or a path under one, is refused before any task runs.
    n_jobs : int
        Worker processes for the tasks (joblib); ``-1`` uses every core.
    seed : int
        Base seed: the same seed gives the same numbers.
    data_home : path, optional
        Where the raw data live (default ``ROBUSTPCA_DATA``; without it, each data set
        is downloaded once into the cache, :func:`robustpca.datasets.fetch_dataset`).
    progress : bool
        Show a progress bar (tqdm) on stderr.

    Returns
    -------
    ExperimentResult
    """
    experiment = name if isinstance(name, Experiment) else get_experiment(name)
    if (
        isinstance(n_jobs, bool)
        or not isinstance(n_jobs, numbers.Integral)
        or n_jobs == 0
        or n_jobs < -1
    ):
        raise ValueError(f"n_jobs must be a positive int or -1, got {n_jobs!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    if isinstance(datasets, str):
        raise TypeError(
            f"datasets must be a sequence of specifications, got the string {datasets!r}"
        )
    if datasets is None or len(datasets) == 0:
        specs = experiment.default_datasets(quick)
    elif not experiment.datasets:
        raise ValueError(
            f"datasets: {experiment.name} runs on synthetic data generated from the seed "
            f"and takes no data sets, got {list(datasets)}"
        )
    else:
        specs = tuple(datasets)
    for spec in specs:
        parse_dataset_spec(spec)
    folder = None if out is None else _check_out(out)
    config = RunConfig(
        datasets=tuple(specs),
        quick=bool(quick),
        seed=int(seed),
        data_home=None if data_home is None else str(data_home),
    )
    draw = matplotlib_installed()
    if not draw:
        warnings.warn(
            f"matplotlib is not installed: {experiment.name} makes no figure "
            "(pip install 'robustpca[plot]'); its rows and table are written as usual.",
            UserWarning,
            stacklevel=2,
        )
    start = time.perf_counter()
    tasks = experiment.tasks(config)
    nested = _run_tasks(tasks, int(n_jobs), progress, experiment.name)
    rows = [row for task_rows in nested for row in task_rows]
    table = experiment.table(rows, config)
    figure = experiment.figure(rows, config) if draw else None
    seconds = time.perf_counter() - start
    markdown = _header(experiment, config, seconds) + table.rstrip() + "\n"
    result = ExperimentResult(experiment, config, rows, markdown, figure, seconds=seconds)
    if folder is not None:
        result.files = [
            atomic_write_text(folder / f"{experiment.name}.csv", rows_to_csv(rows)),
            atomic_write_text(folder / f"{experiment.name}.md", markdown),
        ]
        if figure is not None:
            png = io.BytesIO()
            figure.savefig(png, format="png", dpi=110)
            png_path = folder / f"{experiment.name}.png"
            result.files.append(atomic_write_bytes(png_path, png.getvalue()))
    return result
