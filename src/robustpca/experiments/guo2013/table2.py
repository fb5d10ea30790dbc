"""Guo (2013), Table 2: denoising across subjects at several noise levels."""

from __future__ import annotations

from .._core import RunConfig, Task, grid
from ._common import (
    CROSS_SUBJECT_TASKS,
    METHODS,
    PAPER_TABLE2,
    TABLE2_PLAN,
    _denoising,
    cross_subject_pairs,
    face_images,
)
from ._compare import _comparison_figure, _comparison_report, _means


def _table2_tasks(config: RunConfig) -> list[Task]:
    tasks = []
    for ds in config.datasets:
        _, labels = face_images(ds, config.data_home)
        pairs = cross_subject_pairs(
            labels, grid(CROSS_SUBJECT_TASKS, CROSS_SUBJECT_TASKS[:1], config)
        )
        for pixel_max, n_repeats in TABLE2_PLAN.items():
            tasks += [
                _denoising(
                    config,
                    ds,
                    pair,
                    noise=noise,
                    repeats=1 if config.quick else n_repeats,
                    pixel_max=pixel_max,
                    label=f"{noise:.0%}",
                )
                for pair in pairs
                for noise in (0.05, 0.10)
            ]
    return tasks


def _table2_table(rows: list[dict], config: RunConfig) -> str:
    return _comparison_report(
        rows, ("task", "noise"), PAPER_TABLE2, "task", "task and level", extra=_degrade_lines
    )


def _degrade_lines(rows: list[dict]) -> list[str]:
    means = _means(rows, ("task", "noise"))
    worse = [
        means[(t, 0.10)][m] > means[(t, 0.05)][m]
        for (t, noise) in means
        if noise == 0.05 and (t, 0.10) in means
        for m in METHODS
    ]
    return [
        "\n### Every method degrades from 5% to 10% noise\n",
        f"Holds for {sum(worse)}/{len(worse)} (task, method) pairs (paper: 30/30).",
    ]


def _table2_figure(rows: list[dict], config: RunConfig):
    return _comparison_figure(
        rows, ("task", "noise"), PAPER_TABLE2, "Guo 2013, Table 2: cross-subject"
    )
