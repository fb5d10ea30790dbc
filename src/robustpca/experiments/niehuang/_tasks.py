"""Nie & Huang: one fit and score per (method, dimension, seed) task."""

from __future__ import annotations

import functools
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


def corruption_task(
    corruption: str,
    dataset: str,
    seed: int,
    method: str,
    fraction: float,
    dims: list[int],
    data_home: str | None,
    max_iter: int | None,
) -> list[dict]:
    """Corrupt ``dataset`` with ``seed``, then e(m) for ``method`` at every m of ``dims``.

    ``corruption`` is ``"occlusion"`` (sec. V.A: occlude ``fraction`` of the images,
    eq. (37) over all of them) or ``"outliers"`` (sec. V.B: append Palm outliers, eq. (38)
    over the faces).
    """
    data = paper_images(dataset, data_home)
    if corruption == "occlusion":
        X, _ = occlude(data, fraction, seed)
        scored = np.ones(data.n_samples, dtype=bool)
        base = {"dataset": dataset, "occluded": fraction, "seed": seed, "method": method}
    elif corruption == "outliers":
        X, is_outlier = with_outliers(data, fraction, seed, data_home)
        scored = ~is_outlier
        base = {
            "dataset": dataset,
            "outliers": int(is_outlier.sum()),
            "seed": seed,
            "method": method,
        }
    else:
        raise ValueError(f"corruption must be 'occlusion' or 'outliers', got {corruption!r}")
    scores = _score(method, X, data.data, scored, dims, seed, max_iter)
    return [{**base, **r} for r in scores]


#: The task of the occlusion exhibits: ``occlusion_task(dataset, seed, method, fraction,
#: dims, data_home, max_iter)``.
occlusion_task = functools.partial(corruption_task, "occlusion")
occlusion_task.__doc__ = (
    "Occlude ``fraction`` of ``dataset`` with ``seed``; e(m) of eq. (37) for ``method``."
)

#: The task of the outlier exhibit, with the same parameters.
outlier_task = functools.partial(corruption_task, "outliers")
outlier_task.__doc__ = (
    "Append Palm outliers to ``dataset`` with ``seed``; e(m) of eq. (38) for ``method``."
)


def _tasks(config: RunConfig, *, fn, fraction: float) -> list[Task]:
    return trial_tasks(
        fn,
        config,
        seeds=seeds_for(config, n_full=3),
        methods=METHODS,
        fraction=fraction,
        dims=grid(DIMENSIONS, QUICK_DIMENSIONS, config),
        max_iter=20 if config.quick else None,
    )
