"""Oh & Kwak (2016): the paper's printed values and shared helpers."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core import RunConfig, registrar

PAPER = "Oh & Kwak (2016), Generalized mean for robust principal component analysis"

#: Fig. 2 as printed (degrees): PCA's minimiser, PCA-GM's (p = 0.3), the first step of
#: Algorithm 2 from 30 degrees, and "the solution without the outliers".
PAPER_FIGURE2 = {
    "PCA": 60.0,
    "PCA-GM": 48.9,
    "one step from 30°": 32.1,
    "without outliers (W*)": 45.0,
}

FIGURE1_POWERS = (0.1, 0.2)

FIGURE2_POWER = 0.3

#: p values of Fig. 2 beyond the paper's 0.3 (a sensitivity check of ours).
FIGURE2_POWERS = (0.1, 0.3, 0.5, 0.7)

SAMPLE_MEAN = "sample mean"

#: Registers an exhibit of the paper (synthetic data only: no data sets).
register_exhibit = registrar(paper=PAPER, datasets=())

GRID_STEP = 0.01  # degrees, for the global minimiser of objective (9)


def _scatter_samples(ax: Any, X: np.ndarray, inliers: np.ndarray) -> None:
    """The panel of one draw: its inliers and outliers."""
    ax.scatter(*X[inliers].T, s=8, c="tab:blue", alpha=0.6, label="inliers")
    ax.scatter(*X[~inliers].T, s=14, c="tab:red", marker="x", label="outliers")


def _no_datasets(config: RunConfig, name: str) -> None:
    if config.datasets:
        raise ValueError(
            f"datasets: {name} runs on the paper's synthetic 2-D data and takes no data "
            f"set, got {list(config.datasets)}"
        )
