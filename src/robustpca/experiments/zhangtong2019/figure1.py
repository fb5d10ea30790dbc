"""Zhang & Tong (2019), Figure 1: k-means clustering on the projected images."""

from __future__ import annotations

import math

import numpy as np

from ...metrics import kmeans_scores
from .._core import RunConfig, Task, grid, seeds_for, trial_tasks
from .._report import finish_figure, panel_figure, style_panel, table_header, table_row
from ._common import NOISE_RATE, PAPER_FIGURE1_RANGES, _fits, load_faces, occluded_faces
from .table2 import FIGURE1_CAPS, FIGURE1_D1, FIGURE1_METHODS, _best_cap_means, _value_table


def _kmeans(Z, target, seed: int, n_runs: int) -> dict:
    from threadpoolctl import threadpool_limits

    # one OpenMP thread: k-means on a few hundred points is much slower on busy cores
    # with more, and the results do not depend on it
    with threadpool_limits(limits=1):
        scores = [
            kmeans_scores(Z, target, n_init=1, random_state=1000 * seed + r) for r in range(n_runs)
        ]
    acc = [100.0 * s["accuracy"] for s in scores]
    return {
        "accuracy": float(np.mean(acc)),
        "accuracy_std": float(np.std(acc)),
        "nmi": float(np.mean([s["nmi"] for s in scores])),
        "n_kmeans": n_runs,
    }


def figure1_task(
    dataset: str,
    seed: int,
    method: str,
    d1_grid: list[int],
    n_kmeans: int,
    caps: list[float],
    data_home: str | None,
    max_iter: int | None,
) -> list[dict]:
    """k-means accuracy (%) of ``method``'s reconstructions at each ``d1 = d2``.

    k-means runs on ``transform(X)``: the reconstructions are an isometric image of it
    (orthonormal components plus a constant), so the clusterings are the same.

    Parameters
    ----------
    dataset : str
        Data set specification, occluded by :func:`occluded_faces` at
        :data:`NOISE_RATE`.
    seed : int
        Seed of the occlusion, of the estimator and of the k-means runs.
    method : str
        A label of :data:`FIGURE1_METHODS`. ``"Baseline"`` clusters the occluded images
        (one set of runs, repeated on every ``d1``).
    d1_grid : list of int
        The ranks ``d1 = d2``; the 1-D methods get ``d1 d2`` components, clipped as in
        :func:`make_estimator`.
    n_kmeans : int
        The k-means runs (one initialisation each) whose scores are averaged.
    caps : list of float
        The multipliers of capped R2DPCA's threshold (:func:`capped_thresholds`), one
        fit each; the other methods ignore them.
    data_home : str or None
        Folder holding ``raw/<dataset>/...`` (see :func:`load_faces`).
    max_iter : int or None
        Iteration cap of the estimators; ``None`` keeps their defaults.

    Returns
    -------
    list of dict
        One row per (``d1``, cap): the mean and standard deviation of the accuracy over
        the k-means runs, their mean NMI and, for a fitted method, the fit's time.
    """
    data, X, _ = occluded_faces(dataset, NOISE_RATE, seed, data_home)
    base = {"dataset": dataset, "seed": seed, "method": method}
    if method == "Baseline":
        scores = _kmeans(X, data.target, seed, n_kmeans)
        return [
            {**base, "d1": d1, "cap": None, "n_components": X.shape[1], **scores} for d1 in d1_grid
        ]
    rows = []
    for d1 in d1_grid:
        for cap, model, seconds in _fits(method, data, X, (d1, d1), seed, max_iter, caps):
            row = {**base, "d1": d1, "cap": cap, "n_components": int(model.n_components_)}
            rows.append({**row, **_kmeans(model.transform(X), data.target, seed, n_kmeans)})
            rows[-1]["fit_seconds"] = seconds
    return rows


def _figure1_grid(dataset: str, config: RunConfig, data_home) -> list[int]:
    """The d1 of the figure that fit ``dataset``'s images; a ``ValueError`` where none
    does (the figure would have no point)."""
    h, w = load_faces(dataset, data_home).image_shape
    d1 = grid(FIGURE1_D1, (5,), config)
    fitting = [d for d in d1 if d <= min(h, w)]
    if not fitting:
        raise ValueError(
            f"zhangtong2019-figure1: the images of {dataset!r} ({h} x {w}) are smaller than "
            f"every d1 of the figure ({', '.join(map(str, d1))}); choose larger images."
        )
    return fitting


def _figure1_tasks(config: RunConfig) -> list[Task]:
    caps = grid(FIGURE1_CAPS, (1.0, 3.0), config)
    max_iter = 10 if config.quick else 50
    n_kmeans = 2 if config.quick else 10
    tasks = []
    for ds in config.datasets:
        tasks += trial_tasks(
            figure1_task,
            config,
            seeds=seeds_for(config, n_full=1),
            methods=FIGURE1_METHODS,
            datasets=[ds],
            d1_grid=_figure1_grid(ds, config, config.data_home),
            n_kmeans=n_kmeans,
            caps=caps,
            max_iter=max_iter,
        )
    return tasks


def _figure1_cells(rows):
    return _best_cap_means(rows, "accuracy", "d1", best=max)


def _figure1_table(rows: list[dict], config: RunConfig) -> str:
    cells, chosen = _figure1_cells(rows)
    parts = [
        "## Figure 1: k-means clustering accuracy (%) of the reconstructed images\n",
        f"Mean over {rows[0]['n_kmeans'] if rows else 0} k-means runs (one random "
        "initialisation each) and the occlusion seeds; capped R2DPCA at the cap of best mean "
        "accuracy per d1. Bold: best, italic: runner-up. 1-D methods use m = d1 x d2 "
        "components (at most N - 1).\n",
    ]
    by_ds: dict = {}
    for (ds, d1), values in cells.items():
        by_ds.setdefault(ds, {})[d1] = values
    claim = table_header(
        "data set",
        "RWL-AN best (of d1)",
        "R2DPCA > GLRAM",
        "capped > GLRAM",
        "RWL-AN > GLRAM",
        "capped >= R2DPCA",
        "any method > baseline",
    )
    for ds, per_d1 in by_ds.items():
        methods = [m for m in FIGURE1_METHODS if any(m in v for v in per_d1.values())]
        table = {(d1,): {m: v[m] for m in methods if m in v} for d1, v in per_d1.items()}
        parts += [f"\n### {ds}\n", *_value_table(table, methods, "{:.2f}", "d1", best=max)]
        n = len(per_d1)

        def count(pred, per_d1=per_d1, n=n):
            return f"{sum(bool(pred(v)) for v in per_d1.values())}/{n}"

        claim.append(
            f"| {ds} | {count(lambda v: max(v, key=v.get) == 'RWL-AN')} | "
            f"{count(lambda v: v['R2DPCA'] > v['GLRAM'])} | "
            f"{count(lambda v: v['capped R2DPCA'] > v['GLRAM'])} | "
            f"{count(lambda v: v['RWL-AN'] > v['GLRAM'])} | "
            f"{count(lambda v: v['capped R2DPCA'] >= v['R2DPCA'])} | "
            f"{count(lambda v: max(x for m, x in v.items() if m != 'Baseline') > v['Baseline'])} |"
        )
    parts += ["\n## The claim, per data set (counted over d1)\n", *claim]
    parts += [
        "\n## Capped R2DPCA: the cap kept per d1\n",
        *table_header("data set", *(f"d1={d}" for d in FIGURE1_D1)),
    ]
    for ds in by_ds:
        parts.append(table_row(ds, *(chosen.get((ds, d), "") for d in FIGURE1_D1)))
    parts += [
        "\nThe paper's curves are not legible in our copy; their y-axis ranges (accuracy, %): "
        + ", ".join(f"{k} {lo}-{hi}" for k, (lo, hi) in PAPER_FIGURE1_RANGES.items())
        + "."
    ]
    return "\n".join(parts)


def _figure1_figure(rows: list[dict], config: RunConfig):
    cells, _ = _figure1_cells(rows)
    datasets = list(dict.fromkeys(ds for ds, _ in cells))
    fig, axes = panel_figure(len(datasets))
    for ax, ds in zip(axes, datasets, strict=True):
        d1s = sorted(d1 for d, d1 in cells if d == ds)
        for m in FIGURE1_METHODS:
            ys = [cells[(ds, d1)].get(m, math.nan) for d1 in d1s]
            style = {"ls": "--", "color": "k"} if m == "Baseline" else {"marker": "o", "ms": 3}
            ax.plot(d1s, ys, label=m, **style)
        style_panel(ax, title=ds, xlabel="d1 = d2", ylabel="clustering accuracy (%)")
    return finish_figure(
        fig, axes, "Zhang & Tong 2019, Figure 1: k-means on the reconstructed images"
    )


FIGURE2_RATES = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
