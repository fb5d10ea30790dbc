"""Guo (2013), Table 1: denoising within a subject (intra-subject tasks)."""

from __future__ import annotations

from .._core import RunConfig, Task
from ._common import (
    PAPER_TABLE1,
    TABLE1_PLAN,
    _denoising,
    _subjects,
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
            tasks += [
                _denoising(
                    config,
                    ds,
                    pair,
                    noise=0.05,
                    repeats=n_repeats,
                    pixel_max=pixel_max,
                    label=f"source {pair[1]}",
                )
                for pair in intra_subject_pairs(labels, subjects, n_sources)
            ]
    return tasks


def _table1_table(rows: list[dict], config: RunConfig) -> str:
    return _comparison_report(rows, ("task",), PAPER_TABLE1, "task", "task")


def _table1_figure(rows: list[dict], config: RunConfig):
    return _comparison_figure(rows, ("task",), PAPER_TABLE1, "Guo 2013, Table 1: intra-subject")
