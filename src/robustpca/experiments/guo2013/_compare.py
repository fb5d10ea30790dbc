"""Guo (2013): the comparison report and figure that Tables 1 and 2 share."""

from __future__ import annotations

import math

import numpy as np

from .._report import markdown_table, table_header, table_row
from ._common import METHODS, PAPER_RMSE_FACTOR


# --------------------------------------------------------------------------- reports
def _means(rows: list[dict], keys: tuple[str, ...]) -> dict[tuple, dict[str, float]]:
    """``{key: {method: mean RMSE}}`` for the grouping ``keys``."""
    groups: dict[tuple, dict[str, list[float]]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), {}).setdefault(r["method"], []).append(
            r["rmse"]
        )
    return {k: {m: float(np.mean(v)) for m, v in g.items()} for k, g in groups.items()}


def _paper_rows(paper: dict, index: str) -> list[dict]:
    rows = []
    for key, values in paper.items():
        label = key if isinstance(key, str) else f"{key[0]} {key[1]:.0%}"
        rows += [
            {index: label, "method": m, "rmse": v} for m, v in zip(METHODS, values, strict=True)
        ]
    return rows


def _label(key: tuple) -> str:
    return " ".join(f"{k:.0%}" if isinstance(k, float) else str(k) for k in key)


def _claim_lines(means: dict[tuple, dict[str, float]], paper: dict) -> list[str]:
    """Per task: does R-T-PCA beat each method, and does the source help?"""
    others = [m for m in METHODS if m != "R-T-PCA"]
    head = ["task", "R-T-PCA best", *[f"below {m}" for m in others], "source helps"]
    lines = table_header(*head)
    counts = np.zeros(len(head) - 1, dtype=int)
    for key, m in means.items():
        if any(x not in m for x in METHODS):
            continue
        cells = _claim_cells(m)
        counts += np.array(cells, dtype=int)
        lines.append(table_row(_label(key), *("yes" if c else "no" for c in cells)))
    n = len(lines) - 2
    lines.append(table_row("**ours: holds on**", *(f"{c}/{n}" for c in counts)))
    return lines


def _ratio_lines(means: dict[tuple, dict[str, float]], paper: dict) -> list[str]:
    """Scale-free comparison: mean over tasks of each method's RMSE / R-T-PCA's."""
    ours = {m: np.mean([v[m] / v["R-T-PCA"] for v in means.values() if m in v]) for m in METHODS}
    keys = [k if len(k) > 1 else k[0] for k in means]
    theirs = {
        m: np.mean([paper[k][i] / paper[k][0] for k in keys if k in paper])
        for i, m in enumerate(METHODS)
    }
    lines = ["| | " + " | ".join(METHODS) + " |", "|" + "---|" * (len(METHODS) + 1)]
    lines.append(table_row("ours", *(f"{ours[m]:.3f}" for m in METHODS)))
    lines.append(table_row("paper", *(f"{theirs[m]:.3f}" for m in METHODS)))
    return lines


def _normalisation_lines(means: dict[tuple, dict[str, float]], paper: dict) -> list[str]:
    """Paper / ours for PCA and S-PCA over the common tasks, against 255 / 64."""
    lines = [
        *table_header(
            "method", "paper / ours: mean", "std", "min-max", f"255/64 = {PAPER_RMSE_FACTOR:.3f}"
        ),
    ]
    for method in ("PCA", "S-PCA"):
        i = METHODS.index(method)
        ratios = np.array(
            [
                paper[k if len(k) > 1 else k[0]][i] / v[method]
                for k, v in means.items()
                if (k if len(k) > 1 else k[0]) in paper and method in v
            ]
        )
        if not len(ratios):
            continue
        lines.append(
            f"| {method} | {ratios.mean():.3f} | {ratios.std():.3f} | "
            f"{ratios.min():.2f}-{ratios.max():.2f} | "
            f"{ratios.mean() / PAPER_RMSE_FACTOR - 1:+.1%} |"
        )
    return lines


def _spread_lines(rows: list[dict], keys: tuple[str, ...]) -> list[str]:
    """Per method: the range over tasks of the standard deviation over runs, the share
    of runs R-T-PCA beats it (paired), and the runs that stopped at max_iter."""
    runs: dict[tuple, dict[str, float]] = {}
    for r in rows:
        run = (*(r[k] for k in keys), r["source"], r["repeat"], r["kc"], r["ks"], r["kt"])
        runs.setdefault(run, {})[r["method"]] = r["rmse"]
    groups: dict[tuple, dict[str, list[float]]] = {}
    capped = dict.fromkeys(METHODS, 0)
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), {}).setdefault(r["method"], []).append(
            r["rmse"]
        )
        capped[r["method"]] += bool(r["max_iter_reached"])
    lines = [
        *table_header(
            "method",
            "std over runs (min-max over tasks)",
            "runs where R-T-PCA is lower",
            "fits at max_iter",
        ),
    ]
    for m in METHODS:
        stds = [np.std(g[m], ddof=1) for g in groups.values() if len(g.get(m, [])) > 1]
        std = f"{min(stds):.4f}-{max(stds):.4f}" if stds else "(one run per task)"
        paired = [v["R-T-PCA"] < v[m] for v in runs.values() if m in v and "R-T-PCA" in v]
        wins = f"{sum(paired)}/{len(paired)}" if m != "R-T-PCA" else ""
        n = sum(1 for r in rows if r["method"] == m)
        lines.append(f"| {m} | {std} | {wins} | {capped[m]}/{n} |")
    return lines


def _claim_cells(m: dict[str, float]) -> list[bool]:
    """R-T-PCA best, below each other method, and 'a related source helps'."""
    cells = [m["R-T-PCA"] <= min(m.values())]
    cells += [m["R-T-PCA"] < m[o] for o in METHODS if o != "R-T-PCA"]
    cells.append(m["R-S-PCA"] < m["R-PCA"] and m["S-PCA"] < m["PCA"])
    return cells


def _scale_of(row: dict) -> float:
    return float(row.get("pixel_max", 1.0))


def _comparison_report(
    rows: list[dict],
    keys: tuple[str, ...],
    paper: dict,
    index: str,
    what: str,
    extra=None,
) -> str:
    """Per pixel scale: means, claim check, spread; then the paper's numbers."""
    others = [m for m in METHODS if m != "R-T-PCA"]
    head = ["pixel scale", "runs", "R-T-PCA best", *[f"below {m}" for m in others]]
    head.append("source helps")
    summary = table_header(*head)
    sections = []
    for pixel_max in dict.fromkeys(_scale_of(r) for r in rows):
        sub = [r for r in rows if _scale_of(r) == pixel_max]
        means = {k: v for k, v in _means(sub, keys).items() if all(x in v for x in METHODS)}
        counts = np.sum([_claim_cells(v) for v in means.values()], axis=0)
        n_runs = sum(len(v) for v in _runs_per_key(sub, keys).values())
        summary.append(
            table_row(_scale_label(pixel_max), n_runs, *(f"{c}/{len(means)}" for c in counts))
        )
        shown = [dict(r, **{index: _label(tuple(r[k] for k in keys))}) for r in sub]
        overall = [dict(r, **{index: "mean"}) for r in sub]
        per_key = sorted({len(v) for v in _runs_per_key(sub, keys).values()})
        sections += [
            f"\n## {_scale_label(pixel_max).capitalize()}"
            + (" (the tests' scale)" if pixel_max == 1.0 else " (the paper's scale)")
            + "\n",
            f"### Mean RMSE (on the [0, 1] scale) over {'/'.join(map(str, per_key))} runs per "
            f"{what}, best in bold\n",
            markdown_table(shown + overall, index, "method", "rmse", fmt="{:.4f}", highlight="min"),
            "\n### Scale-free: mean over tasks of RMSE / R-T-PCA's RMSE\n",
            *_ratio_lines(means, paper),
            "\n### The claim, per task (R-T-PCA's mean RMSE below each method's; a related "
            "source helps: R-S-PCA < R-PCA and S-PCA < PCA)\n",
            *_claim_lines(means, paper),
            "\n### Spread, paired wins and convergence\n",
            *_spread_lines(sub, keys),
        ]
        if extra is not None:
            sections += extra(sub)
    paper_counts = np.sum(
        [_claim_cells(dict(zip(METHODS, v, strict=True))) for v in paper.values()], axis=0
    )
    summary.append("| paper | | " + " | ".join(f"{c}/{len(paper)}" for c in paper_counts) + " |")
    first = [r for r in rows if _scale_of(r) == _scale_of(rows[0])] if rows else []
    parts = [
        f"## The claim, per {what}, at each pixel scale\n",
        *summary,
        *sections,
        "\n## The paper's numbers, as printed\n",
        markdown_table(
            _paper_rows(paper, index), index, "method", "rmse", fmt="{:.3f}", highlight="min"
        ),
        "\n## The paper's numbers / (255/64), on our scale\n",
        "The paper does not define its RMSE's scale. Our reading: the Frobenius error over "
        "the number of pixels, on 0-255 pixels, i.e. 255/64 times our RMSE. The check: the "
        "two methods with no parameter, whose RMSE depends only on the images and the noise "
        "level (and is the same at both pixel scales), give these ratios paper / ours over "
        "the tasks:\n",
        *_normalisation_lines(_means(first, keys), paper),
        "",
        markdown_table(
            [dict(r, rmse=r["rmse"] / PAPER_RMSE_FACTOR) for r in _paper_rows(paper, index)],
            index,
            "method",
            "rmse",
            fmt="{:.4f}",
            highlight="min",
        ),
    ]
    return "\n".join(parts)


def _runs_per_key(rows: list[dict], keys: tuple[str, ...]) -> dict[tuple, list]:
    out: dict[tuple, list] = {}
    for r in rows:
        if r["method"] == "R-T-PCA":
            out.setdefault(tuple(r[k] for k in keys), []).append(r["rmse"])
    return out


def _scale_label(pixel_max: float) -> str:
    return f"pixels in [0, {pixel_max:g}]"


# --------------------------------------------------------------------------- figures
def _method_lines(ax, means: dict, labels: list, title: str, ylabel: str) -> None:
    x = np.arange(len(labels))
    for m in METHODS:
        ax.plot(x, [means[k].get(m, math.nan) for k in means], marker="o", ms=3, label=m)
    ax.set_xticks(x, labels, rotation=60, fontsize=7)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def _comparison_figure(rows: list[dict], keys: tuple[str, ...], paper: dict, title: str):
    """One panel per pixel scale (our mean RMSE per task) and the paper's / (255/64)."""
    from matplotlib.figure import Figure

    scales = list(dict.fromkeys(_scale_of(r) for r in rows))
    fig = Figure(figsize=(5.5 * (1 + len(scales)), 4), layout="constrained")
    axes = fig.subplots(1, 1 + len(scales), sharey=True)
    for ax, pixel_max in zip(axes, scales, strict=False):
        means = _means([r for r in rows if _scale_of(r) == pixel_max], keys)
        labels = [_label(k) for k in means]
        _method_lines(ax, means, labels, f"ours, {_scale_label(pixel_max)}", "mean RMSE")
    paper_means = {
        k: {m: v / PAPER_RMSE_FACTOR for m, v in zip(METHODS, values, strict=True)}
        for k, values in paper.items()
    }
    paper_labels = [_label(k if isinstance(k, tuple) else (k,)) for k in paper]
    _method_lines(axes[-1], paper_means, paper_labels, "paper / (255/64)", "RMSE")
    axes[0].legend(fontsize=7)
    fig.suptitle(title + " (RMSE on [0, 1] pixels)")
    return fig
