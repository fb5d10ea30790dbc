"""Zhang & Tong (2019), Table 2: reconstruction errors of the occluded face sets."""

from __future__ import annotations

import math

import numpy as np

from .._core import RunConfig, Task, grid, seeds_for, trial_tasks
from .._report import markdown_table, table_header, table_row
from ._common import (
    CAP_GRID,
    EXTRA_METHODS,
    FILL,
    K_RATE,
    NOISE_RATE,
    PAPER_METHODS,
    PAPER_TABLE2,
    QUICK_DIMS,
    TABLE2_DIMS,
    TABLE2_FILLS,
    _fits,
    _scores,
    _setting,
    occluded_faces,
)


def table2_task(
    dataset: str,
    noise_rate: float,
    seed: int,
    method: str,
    data_home: str | None,
    max_iter: int | None,
    caps: list[float],
    dims: tuple[int, int] = TABLE2_DIMS,
    fill: str | float = FILL,
) -> list[dict]:
    """Fit ``method`` on the (occluded) faces and score it against the clean ones.

    Parameters
    ----------
    dataset : str
        Data set specification (see :func:`load_faces`).
    noise_rate : float
        Fraction of the images occluded by :func:`occluded_faces`; 0 is the raw data.
    seed : int
        Seed of the occlusion and of the estimator.
    method : str
        A label of :data:`PAPER_METHODS` or :data:`EXTRA_METHODS`.
    data_home : str or None
        Folder holding ``raw/<dataset>/...`` (see :func:`load_faces`).
    max_iter : int or None
        Iteration cap of the estimator; ``None`` keeps its default.
    caps : list of float
        The multipliers of capped R2DPCA's threshold (:func:`capped_thresholds`), one
        fit each; the other methods ignore them.
    dims : (int, int), default=TABLE2_DIMS
        The 2-D ranks ``(d1, d2)`` (see :func:`make_estimator`).
    fill : str or float, default=FILL
        What the occluding blocks hold (see :func:`occluded_faces`).

    Returns
    -------
    list of dict
        One row per fit. ``error`` is :func:`weighted_reconstruction_error` with
        uniform weights (the mean squared error over every image), ``error_own`` with
        the method's own ``weights_`` where it has them (the literal formula of
        sec. 5.2), both for pixels in [0, 1].
    """
    data, X, occluded = occluded_faces(dataset, noise_rate, seed, data_home, fill)
    rows = []
    for cap, model, seconds in _fits(method, data, X, tuple(dims), seed, max_iter, caps):
        rows.append(
            {
                "dataset": dataset,
                "noise_rate": noise_rate,
                "seed": seed,
                "method": method,
                "in_paper": method in PAPER_METHODS,
                "cap": cap,
                "dims": f"{dims[0]}x{dims[1]}",
                "fill": fill,
                "setting": _setting(noise_rate, fill),
                "n_components": int(model.n_components_),
                **_scores(model, X, data, occluded, seconds),
            }
        )
    return rows


def _table2_tasks(config: RunConfig) -> list[Task]:
    methods = PAPER_METHODS + EXTRA_METHODS
    caps = grid(CAP_GRID, (1.0, 3.0), config)
    max_iter = 5 if config.quick else None
    dims = QUICK_DIMS if config.quick else TABLE2_DIMS
    # one seed for the raw data (only RWL-AN (random p0) depends on it)
    settings = [(0.0, FILL, seeds_for(config, n_full=1))]
    settings += [(NOISE_RATE, fill, seeds_for(config, n_full=2)) for fill in TABLE2_FILLS]
    tasks = []
    for ds in config.datasets:
        for noise, fill, seeds in settings:
            tasks += trial_tasks(
                table2_task,
                config,
                seeds=seeds,
                methods=methods,
                datasets=[ds],
                label=_setting(noise, fill),
                noise_rate=noise,
                max_iter=max_iter,
                caps=caps,
                dims=dims,
                fill=fill,
            )
    return tasks


def _best_cap_means(rows: list[dict], value: str, key: str, best=min) -> tuple[dict, dict]:
    """Mean of ``value`` over seeds per (dataset, ``key``, method), capped R2DPCA at the
    cap of best mean. Returns ({(dataset, key): {method: mean}}, {(dataset, key): cap})."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["dataset"], r[key], r["method"], r["cap"]), []).append(r[value])
    cells: dict = {}
    chosen: dict = {}
    for (ds, k, method, cap), values in groups.items():
        mean = float(np.mean(values))
        cell = cells.setdefault((ds, k), {})
        if cap is None:
            cell[method] = mean
        elif method not in cell or (mean < cell[method] if best is min else mean > cell[method]):
            cell[method] = mean
            chosen[(ds, k)] = cap
    return cells, chosen


def _rank_marks(values: dict, methods, best=min) -> dict:
    """Bold the best and italicise the runner-up of ``methods`` (paper: underline)."""
    ranked = sorted((m for m in methods if m in values), key=values.__getitem__)
    if best is max:
        ranked.reverse()
    return dict(zip(ranked[:2], ("**", "_"), strict=False))


def _value_table(cells: dict, methods, fmt: str, first: str, best=min) -> list[str]:
    lines = [
        *table_header(first, *methods),
    ]
    for key, values in cells.items():
        marks = _rank_marks(values, [m for m in methods if m in PAPER_METHODS], best)
        out = []
        for m in methods:
            mark = marks.get(m, "")
            out.append(f"{mark}{fmt.format(values[m])}{mark}" if m in values else "")
        label = ", ".join(str(k) for k in key) if isinstance(key, tuple) else str(key)
        lines.append(table_row(label, *out))
    return lines


def _table2_claims(cells: dict, reading: str, per_seed: dict) -> list[str]:
    lines = []
    robust = ("RWL-AN", "R2DPCA", "capped R2DPCA", "RPCA-OM")
    for (ds, setting), noisy in cells.items():
        raw = cells.get((ds, "raw"), {})
        if setting == "raw" or len(raw) < len(PAPER_METHODS):
            continue
        paper_noisy = {m: noisy[m] for m in PAPER_METHODS}
        best_all = min(noisy, key=noisy.__getitem__)
        claim1 = min(paper_noisy, key=paper_noisy.__getitem__) == "RWL-AN"
        paper_raw = sorted(PAPER_METHODS, key=raw.__getitem__)
        claim2a = paper_raw[1] == "RPCA-OM"
        claim2b = all(raw[a] < raw[b] for a in ("RWL-AN", "R2DPCA") for b in ("GLRAM", "PCA"))
        claim4 = sum(noisy[m] < min(noisy["GLRAM"], noisy["PCA"]) for m in robust)
        wins, total = per_seed.get((ds, setting), (0, 0))
        lines.append(
            f"| {ds} | {setting} | {reading} | {'yes' if claim1 else 'no'} ({wins}/{total} "
            f"seeds; best of all: {best_all}) | {'yes' if claim2a else 'no'} (runner-up: "
            f"{paper_raw[1]}) | {'yes' if claim2b else 'no'} | {claim4}/4 |"
        )
    return lines


def _per_seed_wins(rows: list[dict], value: str, chosen: dict) -> dict:
    """Per (dataset, noised setting): seeds where RWL-AN is below every paper method."""
    by: dict = {}
    for r in rows:
        key = (r["dataset"], r["setting"])
        if r["noise_rate"] == 0 or not r["in_paper"]:
            continue
        if r["method"] == "capped R2DPCA" and r["cap"] != chosen.get(key):
            continue
        by.setdefault((*key, r["seed"]), {})[r["method"]] = r[value]
    out: dict = {}
    for (ds, setting, _), values in by.items():
        wins, total = out.get((ds, setting), (0, 0))
        won = min(values, key=values.get) == "RWL-AN" and len(values) == len(PAPER_METHODS)
        out[(ds, setting)] = (wins + int(won), total + 1)
    return out


def _paper_ratio_lines(cells_u: dict, cells_o: dict) -> list[str]:
    lines = [
        *table_header("data set", "setting", "source", *PAPER_METHODS),
    ]
    for ds, setting in cells_u:
        printed = PAPER_TABLE2.get((ds.partition(":")[0], setting.split()[0]))
        sources = [("ours, uniform p", cells_u[(ds, setting)])]
        sources.append(("ours, own p", cells_o[(ds, setting)]))
        if printed is not None:
            sources.insert(0, ("paper", dict(zip(PAPER_METHODS, printed, strict=True))))
        for label, values in sources:
            if all(m in values for m in PAPER_METHODS):
                ratios = " | ".join(f"{values[m] / values['GLRAM']:.3g}" for m in PAPER_METHODS)
                lines.append(f"| {ds} | {setting} | {label} | {ratios} |")
    return lines


def _table2_table(rows: list[dict], config: RunConfig) -> str:
    methods = [m for m in PAPER_METHODS + EXTRA_METHODS if any(r["method"] == m for r in rows)]
    cells_u, caps_u = _best_cap_means(rows, "error", "setting")
    cells_o, caps_o = _best_cap_means(rows, "error_own", "setting")
    parts = [
        "## Table 2: reconstruction error against the clean images (pixels in [0, 1])\n",
        "Settings: raw faces, or noise rate 0.2 with blocks of uniform noise ('noise') or "
        "white blocks ('max'). Mean over seeds. Bold: best of the paper's six methods, "
        "italic: runner-up (the paper underlines it). Capped R2DPCA at the cap of best mean "
        "per row.\n",
        "### Uniform weights (mean squared error over every image)\n",
        *_value_table(cells_u, methods, "{:.4g}", "data set, setting"),
        "\n### Each method's own normalised weights (the literal formula of sec. 5.2)\n",
        *_value_table(cells_o, methods, "{:.4g}", "data set, setting"),
        "\n## Error relative to GLRAM (scale-free comparison with the paper)\n",
        *_paper_ratio_lines(cells_u, cells_o),
        "\n## The claim, per data set\n",
        "1) RWL-AN best on the noised data; 2) raw data: RPCA-OM runner-up, RWL-AN and R2DPCA "
        "below GLRAM and PCA; 4) noised data: how many of the robust methods (RWL-AN, "
        "R2DPCA, capped R2DPCA, RPCA-OM) are below both GLRAM and PCA.\n",
        *table_header(
            "data set",
            "setting",
            "reading",
            "1) RWL-AN best (of the paper's six)",
            "2a) RPCA-OM runner-up, raw",
            "2b) RWL-AN, R2DPCA < GLRAM, PCA, raw",
            "4) robust < GLRAM, PCA",
        ),
        *_table2_claims(cells_u, "uniform p", _per_seed_wins(rows, "error", caps_u)),
        *_table2_claims(cells_o, "own p", _per_seed_wins(rows, "error_own", caps_o)),
        "\n## Capped R2DPCA: the cap kept (multiple of the starting median residual)\n",
        *table_header("data set, setting", "uniform p", "own p"),
        *[f"| {ds}, {s} | {caps_u.get((ds, s))} | {caps_o.get((ds, s))} |" for ds, s in cells_u],
    ]
    rejected = [
        {**r, "frac": r["rejected_occluded"] / r["n_occluded"]}
        for r in rows
        if r["method"] == "RWL-AN" and r["noise_rate"] > 0
    ]
    if rejected:
        parts += [
            "\n## RWL-AN: fraction of the occluded images it rejects (weight 0), per seed\n",
            f"It rejects N - floor({K_RATE} N) images, so at most {1 - K_RATE:.2f} / "
            f"{NOISE_RATE:g} = {(1 - K_RATE) / NOISE_RATE:.2f} of the occluded ones.\n",
            markdown_table(rejected, ["dataset", "setting"], "seed", "frac", fmt="{:.2f}"),
        ]
    printed = [
        {"row": f"{ds} {noise}", "method": m, "error": v}
        for (ds, noise), values in PAPER_TABLE2.items()
        for m, v in zip(PAPER_METHODS, values, strict=True)
    ]
    parts += [
        "\n## Paper's Table 2 as printed\n",
        markdown_table(printed, "row", "method", "error", fmt="{:.2f}"),
    ]
    return "\n".join(parts)


def _table2_figure(rows: list[dict], config: RunConfig):
    from matplotlib.figure import Figure

    cells_u, _ = _best_cap_means(rows, "error", "setting")
    cells_o, _ = _best_cap_means(rows, "error_own", "setting")
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    settings = [s for s in dict.fromkeys(r["setting"] for r in rows) if s != "raw"]
    fig = Figure(figsize=(4.4 * len(datasets), 3.3 * len(settings)), layout="constrained")
    axes = fig.subplots(len(settings), len(datasets), squeeze=False)
    x = np.arange(len(PAPER_METHODS))
    for i, setting in enumerate(settings):
        for ax, ds in zip(axes[i], datasets, strict=True):
            series = [("ours, uniform p", cells_u.get((ds, setting), {}))]
            series.append(("ours, own p", cells_o.get((ds, setting), {})))
            printed = PAPER_TABLE2.get((ds.partition(":")[0], setting.split()[0]))
            if printed is not None:
                series.insert(0, ("paper", dict(zip(PAPER_METHODS, printed, strict=True))))
            for j, (label, values) in enumerate(series):
                if "GLRAM" in values:
                    ratios = [values.get(m, math.nan) / values["GLRAM"] for m in PAPER_METHODS]
                    ax.bar(x + (j - 1) * 0.27, ratios, width=0.27, label=label)
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_xticks(x, [m.replace(" ", "\n") for m in PAPER_METHODS], fontsize=7)
            ax.set_yscale("log")
            ax.set_title(f"{ds}, {setting}", fontsize=9)
            ax.set_ylabel("error / GLRAM's error")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Zhang & Tong 2019, Table 2: reconstruction error relative to GLRAM")
    return fig


FIGURE1_D1 = (15, 20, 25, 30, 35)

#: the caps of Table 2's winners (1 with the methods' own weights, 2 with uniform ones)
#: and one beyond: Figure 1 refits every method at five ranks
FIGURE1_CAPS = (1.0, 2.0, 3.0)

FIGURE1_METHODS = ("RWL-AN", "GLRAM", "RPCA-OM", "R2DPCA", "capped R2DPCA", "Baseline")
