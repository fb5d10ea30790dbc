"""Nie & Huang: one fit and score per (method, dimension, seed) task."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...metrics import projection_reconstruction_error
from .._core import RunConfig, Task, grid, seeds_for, trial_tasks
from ._data import (
    DIMENSIONS,
    METHODS,
    NESTED_METHODS,
    QUICK_DIMENSIONS,
    occlude,
    paper_images,
    with_outliers,
)


def _fit(method: str, X: np.ndarray, k: int, seed: int, max_iter: int | None):
    model = METHODS[method](n_components=k, random_state=seed)
    if max_iter is not None and "max_iter" in model.get_params():
        model.set_params(max_iter=max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)


def _score(
    method: str,
    X_train: np.ndarray,
    clean: np.ndarray,
    rows: np.ndarray,
    dims: list[int],
    seed: int,
    max_iter: int | None,
) -> list[dict]:
    """Eq. (37)/(38) at every m of ``dims``: ``clean`` against ``X_train[rows]``."""
    out = []
    nested = _fit(method, X_train, max(dims), seed, max_iter) if method in NESTED_METHODS else None
    for k in dims:
        if nested is not None:
            model, W = nested, nested.components_[:k]
            per_component = getattr(nested, "n_iter_per_component_", None)
            n_iter = int(per_component[:k].sum() if per_component is not None else nested.n_iter_)
        else:
            model = _fit(method, X_train, k, seed, max_iter)
            W, n_iter = model.components_, int(model.n_iter_)
        error = projection_reconstruction_error(W, X_train[rows], clean, mean=model.mean_)
        out.append({"k": k, "error": error, "n_iter": n_iter, "converged": bool(model.converged_)})
    return out


def occlusion_task(
    dataset: str,
    seed: int,
    method: str,
    fraction: float,
    dims: list[int],
    data_home: str | None,
    max_iter: int | None,
) -> list[dict]:
    """Occlude ``fraction`` of ``dataset`` with ``seed``; e(m) of eq. (37) for ``method``."""
    data = paper_images(dataset, data_home)
    X, _ = occlude(data, fraction, seed)
    every = np.ones(data.n_samples, dtype=bool)
    base = {"dataset": dataset, "occluded": fraction, "seed": seed, "method": method}
    return [{**base, **r} for r in _score(method, X, data.data, every, dims, seed, max_iter)]


def outlier_task(
    dataset: str,
    seed: int,
    method: str,
    fraction: float,
    dims: list[int],
    data_home: str | None,
    max_iter: int | None,
) -> list[dict]:
    """Append Palm outliers to ``dataset`` with ``seed``; e(m) of eq. (38) for ``method``."""
    data = paper_images(dataset, data_home)
    X, is_outlier = with_outliers(data, fraction, seed, data_home)
    base = {
        "dataset": dataset,
        "outliers": int(is_outlier.sum()),
        "seed": seed,
        "method": method,
    }
    scores = _score(method, X, data.data, ~is_outlier, dims, seed, max_iter)
    return [{**base, **r} for r in scores]


def _tasks(config: RunConfig, *, fn, fraction: float) -> list[Task]:
    dims = grid(DIMENSIONS, QUICK_DIMENSIONS, config)
    max_iter = 20 if config.quick else None
    return trial_tasks(
        fn,
        config,
        seeds=seeds_for(config, n_full=3),
        methods=METHODS,
        fraction=fraction,
        dims=dims,
        max_iter=max_iter,
    )
