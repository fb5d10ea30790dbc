"""Guo (2013), Table 1: denoising within a subject (intra-subject tasks)."""

from __future__ import annotations

from .._core import RunConfig, Task
from ._common import (
    BETA,
    DEFAULT_RANKS,
    METHODS,
    PAPER_TABLE1,
    TABLE1_PLAN,
    _solver_options,
    _subjects,
    denoising_task,
    face_images,
    intra_subject_pairs,
)
from ._compare import _comparison_figure, _comparison_report


def _table1_tasks(config: RunConfig) -> list[Task]:
    tasks = []
    for ds in config.datasets:
        _, labels = face_images(ds, config.data_home)
        subjects = _subjects(ds, config)
        for pixel_max, (n_sources, n_repeats) in TABLE1_PLAN.items():
            if config.quick:
                n_sources = n_repeats = 1
            for name, src, tgt in intra_subject_pairs(labels, subjects, n_sources):
                params = dict(
                    dataset=ds,
                    data_home=config.data_home,
                    task=name,
                    source=src,
                    target=tgt,
                    noise=0.05,
                    seed=config.seed,
                    repeats=list(range(n_repeats)),
                    methods=list(METHODS),
                    settings=[(*DEFAULT_RANKS, BETA)],
                    pixel_max=pixel_max,
                    **_solver_options(config),
                )
                label = f"{ds} {name} source {src} pixels 0-{pixel_max:g}"
                tasks.append(Task(denoising_task, params, label=label))
    return tasks


def _table1_table(rows: list[dict], config: RunConfig) -> str:
    return _comparison_report(rows, ("task",), PAPER_TABLE1, "task", "task")


def _table1_figure(rows: list[dict], config: RunConfig):
    return _comparison_figure(rows, ("task",), PAPER_TABLE1, "Guo 2013, Table 1: intra-subject")
