"""Oh & Kwak (2016): the paper's printed values, the draws of its two figures, and shared
helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core import RunConfig, Task, registrar, seeds_for

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


def draw_tasks(
    config: RunConfig, name: str, task: Callable[..., list[dict]], **params
) -> list[Task]:
    """One ``task(seed=..., **params)`` per draw of the synthetic data (50 in a full run).

    The paper shows one draw; we repeat it over 50 seeds from the base seed.
    """
    _no_datasets(config, name)
    return [
        Task(task, dict(seed=seed, **params), label=f"seed {seed}")
        for seed in seeds_for(config, n_full=50)
    ]


def _inliers_first(inliers: np.ndarray, outliers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``inliers`` then of ``outliers``, and the mask of the inliers."""
    X = np.vstack([inliers, outliers])
    return X, np.arange(len(X)) < len(inliers)


def figure1_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Fig. 1: 100 inliers from N(0, 0.5 I), then 10 outliers from N([5, 5], 0.3 I).

    Parameters
    ----------
    seed : int
        Seed of :func:`numpy.random.default_rng`: one draw of the data.

    Returns
    -------
    X : ndarray of shape (110, 2)
        The inliers, then the outliers.
    inliers : ndarray of shape (110,), bool
        True on the first 100 rows.
    """
    rng = np.random.default_rng(seed)
    inliers = rng.normal(0.0, np.sqrt(0.5), size=(100, 2))
    return _inliers_first(inliers, rng.normal(5.0, np.sqrt(0.3), size=(10, 2)))


def figure2_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Fig. 2: x ~ N(0, 1), y = x + e; e ~ N(0, 0.5^2) (100 inliers), N(0, 3^2) (10).

    Parameters
    ----------
    seed : int
        Seed of :func:`numpy.random.default_rng`: one draw of the data.

    Returns
    -------
    X : ndarray of shape (110, 2)
        The points ``(x, y)``, inliers first.
    inliers : ndarray of shape (110,), bool
        True on the first 100 rows.
    """
    rng = np.random.default_rng(seed)
    x = rng.normal(size=110)
    e = np.concatenate([rng.normal(0.0, 0.5, 100), rng.normal(0.0, 3.0, 10)])
    X = np.column_stack([x, x + e])
    return _inliers_first(X[:100], X[100:])
