"""Reproduction protocols for the tables and figures of robustpca's five founding papers.

Each exhibit is an :class:`Experiment` registered under ``<paper>-<exhibit>``:

>>> from robustpca.experiments import list_experiments
>>> names = [e.name for e in list_experiments()]
>>> "nie2014-table1" in names
True

:func:`run_experiment` runs one (``quick=True`` for a smoke run) and writes a tidy CSV,
a markdown report and a PNG figure; ``robustpca reproduce NAME`` does the same from
the command line. docs/reproduction.md sets our numbers beside the papers'.
"""

from . import guo2013, nie2014, niehuang, ohkwak, zhangtong2019  # noqa: F401 (registers)
from ._core import (
    EXPERIMENTS,
    Experiment,
    RunConfig,
    Task,
    get_experiment,
    list_experiments,
    register,
)
from ._data import load_dataset, parse_dataset_spec
from ._report import line_plot, markdown_table, pivot_table, rows_to_csv
from ._runner import ExperimentResult, run_experiment

__all__ = [
    "EXPERIMENTS",
    "Experiment",
    "ExperimentResult",
    "RunConfig",
    "Task",
    "get_experiment",
    "line_plot",
    "list_experiments",
    "load_dataset",
    "markdown_table",
    "parse_dataset_spec",
    "pivot_table",
    "register",
    "rows_to_csv",
    "run_experiment",
]
