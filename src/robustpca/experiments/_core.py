"""Declarative experiment protocols: what an exhibit of a paper runs and how it reports.

An :class:`Experiment` names one table or figure of one of the five founding papers
(``nie2014-table1``, ``zhangtong2019-figure2``, ...). It does not run anything itself: it
turns a :class:`RunConfig` into a list of independent :class:`Task` objects (one fit or
one small group of fits each), and knows how to summarise the tidy rows those tasks
return as a markdown table and a figure. :func:`robustpca.experiments.run_experiment`
executes the tasks (in parallel, with a progress bar) and writes the outputs.

The papers' packages register their exhibits through :func:`registrar` (the fields a
paper's exhibits share, given once) and build the usual grid of tasks, one per data set,
seed and method, with :func:`trial_tasks` (:func:`seeds_for` and :func:`grid` size it
for a quick or a full run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EXPERIMENTS",
    "Experiment",
    "RunConfig",
    "Task",
    "get_experiment",
    "list_experiments",
    "register",
]

Row = dict[str, Any]


@dataclass(frozen=True)
class RunConfig:
    """How one run of an experiment is configured.

    Parameters
    ----------
    datasets : tuple of str
        Data set specifications (``"orl"``, ``"orl:112x92"``, ``"yale:64x64"``; see
        :func:`robustpca.experiments.load_dataset`).
    quick : bool
        Smaller grids, fewer seeds and iterations: a smoke run of the whole protocol in
        seconds to a minute, used by the test suite. Numbers from a quick run are not the
        reproduction.
    seed : int
        Base seed; every task derives its own seeds from it, so a run is reproducible.
    data_home : str or None
        Folder holding ``raw/<dataset>/...`` (default: ``ROBUSTPCA_DATA``; without it,
        each data set is downloaded once into the cache).
    """

    datasets: tuple[str, ...]
    quick: bool = False
    seed: int = 0
    data_home: str | None = None


@dataclass(frozen=True)
class Task:
    """One independent unit of work: ``fn(**params)`` returns a list of tidy rows.

    Parameters
    ----------
    fn : callable
        The task function, called as ``fn(**params)``. It must be a module-level
        function: tasks may run in worker processes.
    params : dict
        Its keyword arguments, plain picklable values.
    label : str, default=""
        Shown by the progress bar.
    """

    fn: Callable[..., list[Row]]
    params: dict[str, Any]
    label: str = ""

    def __call__(self) -> list[Row]:
        return self.fn(**self.params)


@dataclass(frozen=True)
class Experiment:
    """A table or figure of a paper, as a protocol we can run.

    Parameters
    ----------
    name : str
        ``<paper>-<exhibit>``, e.g. ``"nie2014-table1"``.
    paper : str
        Short citation, e.g. ``"Nie, Yuan & Huang (2014), Optimal mean robust PCA"``.
    exhibit : str
        ``"Table 1"``, ``"Figure 2"``, ...
    summary : str
        One line: what is measured, on what, against what.
    paper_datasets : tuple of str
        The data sets the paper used (names as the paper writes them).
    datasets : tuple of str
        Our default data set specifications for the full run (those available).
    tasks : callable
        ``tasks(config) -> list[Task]``.
    table : callable
        ``table(rows, config) -> str``: the markdown table(s) of the exhibit.
    figure : callable
        ``figure(rows, config) -> matplotlib.figure.Figure``.
    notes : str
        What differs from the paper and why (unavailable data sets, vague details and
        what we chose). Printed at the top of the markdown output.
    claim : str
        The paper's qualitative claim for this exhibit, in one sentence.
    quick_datasets : tuple of str, optional
        Data sets of a ``--quick`` run when none are given (default: the first of
        ``datasets``).
    """

    name: str
    paper: str
    exhibit: str
    summary: str
    paper_datasets: tuple[str, ...]
    datasets: tuple[str, ...]
    tasks: Callable[[RunConfig], list[Task]]
    table: Callable[[list[Row], RunConfig], str]
    figure: Callable[[list[Row], RunConfig], Any]
    notes: str = ""
    claim: str = ""
    quick_datasets: tuple[str, ...] = field(default=())

    def default_datasets(self, quick: bool) -> tuple[str, ...]:
        """The data sets a run uses when the caller names none.

        Parameters
        ----------
        quick : bool
            Whether the run is a quick one: then ``quick_datasets``, or the first of
            ``datasets`` when that is empty; otherwise ``datasets``.

        Returns
        -------
        tuple of str
        """
        if quick:
            return self.quick_datasets or self.datasets[:1]
        return self.datasets


#: Registered experiments by name, filled by the protocol modules at import.
EXPERIMENTS: dict[str, Experiment] = {}


def register(experiment: Experiment) -> Experiment:
    """Add an experiment to :data:`EXPERIMENTS`.

    Parameters
    ----------
    experiment : Experiment
        The experiment to register, under its ``name``.

    Returns
    -------
    Experiment
        ``experiment`` itself.

    Raises
    ------
    ValueError
        If an experiment of the same name is already registered.
    """
    if experiment.name in EXPERIMENTS:
        raise ValueError(f"experiment {experiment.name!r} is registered twice")
    EXPERIMENTS[experiment.name] = experiment
    return experiment


def registrar(**shared: Any) -> Callable[..., Experiment]:
    """A :func:`register` for the exhibits of one paper, which share the fields ``shared``.

    ``registrar(paper=PAPER, datasets=...)(name=..., exhibit=..., ...)`` registers
    ``Experiment(paper=PAPER, datasets=..., name=..., exhibit=..., ...)``; a field given
    to the call overrides the shared one.
    """

    def register_exhibit(**fields: Any) -> Experiment:
        return register(Experiment(**{**shared, **fields}))

    return register_exhibit


def list_experiments() -> list[Experiment]:
    """Every registered experiment, sorted by name."""
    return [EXPERIMENTS[name] for name in sorted(EXPERIMENTS)]


def get_experiment(name: str) -> Experiment:
    """The registered experiment called ``name``.

    Parameters
    ----------
    name : str
        ``<paper>-<exhibit>``, e.g. ``"nie2014-table1"``.

    Returns
    -------
    Experiment

    Raises
    ------
    ValueError
        If no experiment has that name; the message lists the registered names.
    """
    try:
        return EXPERIMENTS[name]
    except KeyError:
        known = ", ".join(sorted(EXPERIMENTS)) or "(none registered)"
        raise ValueError(f"unknown experiment {name!r}; known experiments: {known}") from None


def seeds_for(config: RunConfig, n_full: int, n_quick: int = 1) -> list[int]:
    """The seeds of a run: ``n_quick`` of them in quick mode, ``n_full`` otherwise."""
    n = n_quick if config.quick else n_full
    return [config.seed + i for i in range(n)]


def grid(values_full: Sequence, values_quick: Sequence, config: RunConfig) -> list:
    """``values_quick`` in quick mode, ``values_full`` otherwise."""
    return list(values_quick if config.quick else values_full)


def trial_tasks(
    fn: Callable[..., list[Row]],
    config: RunConfig,
    *,
    seeds: Iterable[int],
    methods: Iterable[str],
    datasets: Iterable[str] | None = None,
    label: str = "",
    **params: Any,
) -> list[Task]:
    """One :class:`Task` per (data set, seed, method), in that order: the usual protocol.

    Each task calls ``fn(dataset=ds, seed=seed, method=method,
    data_home=config.data_home, **params)``.

    Parameters
    ----------
    fn : callable
        The module-level task function.
    config : RunConfig
        The run (its data sets and data folder).
    seeds : iterable of int
        The seeds of every data set (see :func:`seeds_for`).
    methods : iterable of str
        The methods fitted for every seed.
    datasets : iterable of str, optional
        The data sets (default: ``config.datasets``); one data set when the other
        parameters depend on it.
    label : str
        Shown in the progress bar between the data set and the method.
    **params
        The parameters shared by every task.

    Returns
    -------
    list of Task
    """
    seeds, methods = list(seeds), list(methods)
    prefix = f"{label} " if label else ""
    return [
        Task(
            fn,
            dict(dataset=ds, seed=seed, method=method, data_home=config.data_home, **params),
            label=f"{ds} {prefix}{method} seed {seed}",
        )
        for ds in (config.datasets if datasets is None else datasets)
        for seed in seeds
        for method in methods
    ]
