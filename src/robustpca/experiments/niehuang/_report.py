"""Nie & Huang: the reports of the occlusion and outlier exhibits."""

from __future__ import annotations

import numpy as np

from .._core import RunConfig
from .._report import line_plot, markdown_table, pivot_table, table_header, table_row
from ._data import METHODS, PAPER_TABLE1, paper_images


def _means(rows: list[dict]) -> dict[str, dict[tuple[str, int], float]]:
    """Data set -> (method, m) -> error averaged over seeds."""
    keys, _, cells = pivot_table(rows, ["dataset", "method", "k"], "k", "error")
    out: dict[str, dict[tuple[str, int], float]] = {}
    for ds, method, k in keys:
        out.setdefault(ds, {})[(method, k)] = cells[(ds, method, k)][k]
    return out


def _best_per_column(rows: list[dict]) -> str:
    """Methods as rows, m as columns, the smallest error of each column in bold."""
    return markdown_table(
        rows, "method", "k", "error", fmt="{:.5g}", highlight="min", highlight_by="column"
    )


_CLAIMS = (
    ("PCA-L21 best", lambda e, k: e[("PCA-L21", k)] <= min(e[(m, k)] for m in METHODS)),
    ("PCA-L21 < PCA", lambda e, k: e[("PCA-L21", k)] < e[("PCA", k)]),
    ("R1-PCA < PCA", lambda e, k: e[("R1-PCA", k)] < e[("PCA", k)]),
    ("PCA-L1 < PCA", lambda e, k: e[("PCA-L1", k)] < e[("PCA", k)]),
    ("PCA-L21 < R1-PCA", lambda e, k: e[("PCA-L21", k)] < e[("R1-PCA", k)]),
    ("PCA-L21 < PCA-L1", lambda e, k: e[("PCA-L21", k)] < e[("PCA-L1", k)]),
)


def claim_counts(rows: list[dict]) -> dict[str, dict[str, tuple[int, int]]]:
    """Data set -> claim -> (dimensions where it holds, dimensions), on seed means.

    Parameters
    ----------
    rows : list of dict
        Tidy rows of an exhibit, with the keys ``dataset``, ``method``, ``k`` (the
        dimension) and ``error``; every method of :data:`METHODS` at every ``k``.

    Returns
    -------
    dict
        ``{dataset: {claim: (held, n_dimensions)}}``, the claims in the order of the
        report's claim table; each compares the errors averaged over seeds.
    """
    out = {}
    for ds, errors in _means(rows).items():
        ks = sorted({k for _, k in errors})
        out[ds] = {
            name: (sum(bool(test(errors, k)) for k in ks), len(ks)) for name, test in _CLAIMS
        }
    return out


def _claim_lines(rows: list[dict], expected: dict[str, str]) -> list[str]:
    counts = claim_counts(rows)
    names = [name for name, _ in _CLAIMS]
    lines = table_header("data set", *names)
    lines.append(table_row("*the paper*", *(expected[name] for name in names)))
    total = {name: [0, 0] for name in names}
    for ds, per_claim in counts.items():
        cells = []
        for name in names:
            held, of = per_claim[name]
            total[name][0] += held
            total[name][1] += of
            cells.append(f"{held}/{of}")
        lines.append(table_row(ds, *cells))
    lines.append(table_row("all", *(f"{h}/{o}" for h, o in total.values())))
    return lines


def _gap_lines(rows: list[dict]) -> list[str]:
    """Error relative to PCA, in percent, averaged over the dimensions."""
    gaps = []
    for ds, errors in _means(rows).items():
        ks = sorted({k for _, k in errors})
        for method in METHODS:
            rel = [100.0 * (errors[(method, k)] / errors[("PCA", k)] - 1.0) for k in ks]
            gaps.append({"dataset": ds, "method": method, "gap": float(np.mean(rel))})
    return [markdown_table(gaps, "dataset", "method", "gap", fmt="{:+.2f}", highlight="min")]


def _iteration_lines(rows: list[dict]) -> list[str]:
    lines = table_header("data set", "PCA-L21 iterations: median", "max", "converged")
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        sub = [r for r in rows if r["dataset"] == ds and r["method"] == "PCA-L21"]
        if not sub:
            continue
        its = [r["n_iter"] for r in sub]
        conv = sum(r["converged"] for r in sub)
        lines.append(f"| {ds} | {np.median(its):.0f} | {max(its)} | {conv}/{len(sub)} |")
    return lines


def _table(rows: list[dict], config: RunConfig, *, metric: str, expected: dict[str, str]) -> str:
    parts = [f"## Reconstruction error {metric}, mean over seeds; best per dimension in bold\n"]
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        data = paper_images(ds, config.data_home)
        h, w = data.image_shape
        parts += [
            f"\n### {ds}: {data.n_samples} images of {h}x{w} = {h * w} pixels\n",
            _best_per_column([r for r in rows if r["dataset"] == ds]),
        ]
    parts += [
        "\n## The claim, per data set (dimensions where it holds, on seed means)\n",
        *_claim_lines(rows, expected),
        "\n## Error relative to PCA, percent, mean over the dimensions (lowest in bold)\n",
        *_gap_lines(rows),
        "\n## Iterations of PCA-L21 (sec. III.C: it 'usually converges in ten iterations')\n",
        *_iteration_lines(rows),
        "\n## The paper's numbers\n",
        "The paper shows these results as plots only; its text gives no numbers to set "
        "beside ours. Table I, the paper's data: "
        + "; ".join(f"{name} {n} x {d}" for name, (n, d) in PAPER_TABLE1.items())
        + ".",
    ]
    return "\n".join(parts)


def _figure(rows: list[dict], config: RunConfig, *, title: str, ylabel: str):
    return line_plot(
        rows, "k", "error", "method", "dataset", title=title, xlabel="m", ylabel=ylabel
    )
