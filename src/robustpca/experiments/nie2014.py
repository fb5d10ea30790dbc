"""Nie, Yuan & Huang (2014), Optimal mean robust PCA: Table 1 and Figure 1.

Table 1 (sec. 5.1-5.2): in each of 12 face/object data sets, 20% of the images are
occluded by a randomly placed block of 1/4 of the image size; PCA, PCA-L1 (Kwak 2008),
R1-PCA (Ding et al. 2006) and RPCA-OM are fitted on the occluded images, and the error
:math:`\\sum_i \\lVert x^r_i - x^o_i \\rVert_2` of the reconstructions against the clean
images is reported at dimensions 10, 15, ..., 50.

Figure 1 (sec. 4, 5.3): the same occluded data, the convex robust PCA of problem (29)
(CRPCA, outlier pursuit on data centred by their arithmetic mean) against problem (30)
(CRPCA-OM, the mean optimised), with the reconstruction error of the recovered low-rank
part plotted against the nuclear-norm weight :math:`\\gamma`.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..datasets import occlude_blocks
from ..estimators import (
    L1PCA,
    PCA,
    R1PCA,
    ConvexOptimalMeanPCA,
    OptimalMeanPCA,
    OutlierPursuit,
)
from ..metrics import total_reconstruction_error
from ..solvers.alm import gamma_max, spectral_norm
from ._core import Experiment, RunConfig, Task, grid, register, seeds_for
from ._data import load_dataset
from ._report import line_plot, markdown_table

__all__ = ["FIGURE1_METHODS", "TABLE1_METHODS", "figure1_task", "table1_task"]

PAPER = "Nie, Yuan & Huang (2014), Optimal mean robust PCA"

#: Method label (as in the paper) -> estimator class.
TABLE1_METHODS = {
    "PCA": PCA,
    "L1PCA": L1PCA,
    "R1PCA": R1PCA,
    "RPCA-OM": OptimalMeanPCA,
}

#: Table 1 as printed, for the data sets whose block is legible: (scale, {method: errors
#: at dimensions 10, 15, ..., 50}). The AR block has no legible title or scale.
PAPER_TABLE1 = {
    "orl": (
        1e4,
        {
            "PCA": [29.333, 27.426, 26.152, 25.119, 24.270, 23.613, 23.002, 22.425, 21.931],
            "L1PCA": [28.948, 27.141, 26.026, 24.980, 24.128, 23.432, 22.873, 22.319, 21.798],
            "R1PCA": [28.877, 27.109, 25.784, 24.857, 23.903, 23.266, 22.742, 22.176, 21.676],
            "RPCA-OM": [28.774, 27.036, 25.713, 24.756, 23.814, 23.153, 22.631, 22.064, 21.549],
        },
    ),
    "umist": (
        1e4,
        {
            "PCA": [28.917, 27.248, 25.966, 24.910, 24.053, 23.330, 22.780, 22.180, 21.698],
            "L1PCA": [28.568, 27.022, 25.765, 24.726, 23.888, 23.243, 22.640, 22.054, 21.628],
            "R1PCA": [28.486, 26.971, 25.709, 24.603, 23.740, 23.050, 22.532, 21.964, 21.448],
            "RPCA-OM": [28.383, 26.900, 25.600, 24.498, 23.655, 22.944, 22.424, 21.850, 21.312],
        },
    ),
    "yale": (
        1e4,
        {
            "PCA": [22.119, 19.445, 17.995, 16.940, 16.152, 15.658, 15.139, 14.728, 14.218],
            "L1PCA": [17.959, 16.591, 15.514, 14.872, 14.310, 13.745, 13.308, 12.874, 12.434],
            "R1PCA": [17.742, 16.253, 15.207, 14.526, 14.015, 13.530, 12.997, 12.631, 12.331],
            "RPCA-OM": [17.692, 15.150, 14.461, 14.009, 13.507, 12.890, 12.889, 12.502, 12.200],
        },
    ),
    "extended_yale_b": (
        1e5,
        {
            "PCA": [10.451, 9.6717, 9.0074, 8.5250, 8.0723, 7.7539, 7.4673, 7.2194, 6.8686],
            "L1PCA": [9.9809, 9.3133, 8.7559, 8.2912, 7.8940, 7.5742, 7.2877, 7.0594, 6.8297],
            "R1PCA": [10.020, 9.3594, 8.7214, 8.2502, 7.8399, 7.5261, 7.2370, 6.9991, 6.7686],
            "RPCA-OM": [9.9742, 9.3290, 8.6944, 8.2169, 7.8154, 7.4969, 7.2078, 6.9719, 6.7420],
        },
    ),
    "palm": (
        1e5,
        {
            "PCA": [14.703, 13.355, 12.376, 11.596, 11.011, 10.561, 10.119, 9.7871, 9.4969],
            "L1PCA": [14.734, 13.373, 12.377, 11.628, 11.033, 10.580, 10.156, 9.7885, 9.4881],
            "R1PCA": [14.665, 13.319, 12.300, 11.527, 10.954, 10.461, 10.053, 9.7027, 9.4058],
            "RPCA-OM": [14.651, 13.300, 12.287, 11.499, 10.935, 10.437, 10.035, 9.6745, 9.3826],
        },
    ),
    "cmu_pie": (
        1e3,
        {
            "PCA": [7.8659, 6.6812, 5.8340, 5.2123, 4.7648, 4.3930, 4.0672, 3.8033, 3.5799],
            "L1PCA": [7.8727, 6.6765, 5.8485, 5.2148, 4.7691, 4.3852, 4.0694, 3.8020, 3.5889],
            "R1PCA": [7.8431, 6.6478, 5.8068, 5.1777, 4.7334, 4.3555, 4.0319, 3.7716, 3.5473],
            "RPCA-OM": [7.8010, 6.6134, 5.7799, 5.1547, 4.7089, 4.3315, 4.0096, 3.7547, 3.5345],
        },
    ),
    "feret": (
        1e5,
        {
            "PCA": [21.619, 20.394, 19.543, 18.864, 18.294, 17.753, 17.307, 16.880, 16.518],
            "L1PCA": [21.570, 20.308, 19.470, 18.805, 18.232, 17.726, 17.293, 16.871, 16.536],
            "R1PCA": [21.481, 20.302, 19.435, 18.791, 18.220, 17.673, 17.232, 16.811, 16.442],
            "RPCA-OM": [21.430, 20.262, 19.395, 18.763, 18.154, 17.638, 17.200, 16.784, 16.413],
        },
    ),
    "msra25": (
        1e5,
        {
            "PCA": [28.314, 27.593, 26.326, 24.612, 23.127, 21.938, 21.511, 20.592, 20.039],
            "L1PCA": [16.181, 15.372, 14.765, 14.265, 13.827, 13.476, 13.180, 12.945, 12.737],
            "R1PCA": [16.237, 15.440, 14.786, 14.180, 13.796, 13.462, 13.162, 12.927, 12.728],
            "RPCA-OM": [16.112, 15.302, 14.683, 14.068, 13.708, 13.345, 13.074, 12.837, 12.631],
        },
    ),
    "coil20": (
        1e5,
        {
            "PCA": [19.632, 18.912, 17.766, 17.092, 16.554, 16.029, 15.528, 15.204, 14.907],
            "L1PCA": [19.694, 18.091, 17.095, 16.446, 15.913, 15.497, 15.124, 14.799, 14.509],
            "R1PCA": [19.569, 17.988, 16.972, 16.326, 15.828, 15.411, 15.032, 14.706, 14.419],
            "RPCA-OM": [19.397, 17.905, 16.903, 16.270, 15.766, 15.376, 14.995, 14.667, 14.380],
        },
    ),
    "jaffe": (
        1e4,
        {
            "PCA": [34.429, 29.642, 25.499, 24.791, 24.020, 23.188, 22.321, 21.066, 12.855],
            "L1PCA": [17.162, 15.852, 14.958, 14.472, 14.052, 13.635, 13.328, 13.021, 12.594],
            "R1PCA": [16.824, 15.567, 14.847, 14.414, 13.973, 13.662, 13.275, 12.993, 12.641],
            "RPCA-OM": [16.640, 15.420, 14.716, 14.265, 13.818, 13.526, 13.155, 12.867, 12.500],
        },
    ),
    "mnist": (
        1e4,
        {
            "PCA": [20.964, 17.354, 15.849, 14.866, 13.890, 13.193, 12.559, 11.924, 10.776],
            "L1PCA": [18.255, 16.384, 15.198, 14.282, 13.584, 12.895, 12.256, 11.666, 11.359],
            "R1PCA": [17.911, 16.005, 14.865, 13.895, 13.044, 12.350, 11.719, 11.148, 10.774],
            "RPCA-OM": [17.885, 15.974, 14.859, 13.899, 13.037, 12.303, 11.707, 11.064, 10.627],
        },
    ),
}
#: The twelve data sets of sec. 5.1, as the paper names them, and ours in the same order.
PAPER_DATASETS = (
    "AT&T",
    "UMIST",
    "Yale",
    "Yale B",
    "Palm",
    "CMU-PIE",
    "FERET",
    "MSRA",
    "Coil20",
    "JAFFE",
    "MNIST",
    "AR",
)
OUR_DATASETS = (
    "orl",
    "umist",
    "yale",
    "extended_yale_b",
    "palm",
    "cmu_pie",
    "feret",
    "msra25",
    "coil20",
    "jaffe",
    "mnist",
    "ar",
)
TABLE1_DIMENSIONS = (10, 15, 20, 25, 30, 35, 40, 45, 50)


def table1_task(
    dataset: str, seed: int, method: str, dims: list[int], data_home: str | None, max_iter: int
) -> list[dict]:
    """Occlude ``dataset`` with ``seed``, fit ``method`` at each of ``dims``, score it."""
    data = load_dataset(dataset, data_home)
    X, _ = occlude_blocks(
        data.data,
        data.image_shape,
        image_fraction=0.2,
        block_fraction=0.25,
        fill="max",
        random_state=seed,
    )
    rows = []
    for k in dims:
        model = TABLE1_METHODS[method](n_components=k, random_state=seed)
        if hasattr(model, "max_iter"):
            model.set_params(max_iter=max_iter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X)
        rows.append(
            {
                "dataset": dataset,
                "seed": seed,
                "method": method,
                "k": k,
                "error": total_reconstruction_error(model.reconstruct(X), data.data),
                "n_iter": getattr(model, "n_iter_", 0),
                "converged": bool(getattr(model, "converged_", True)),
            }
        )
    return rows


def _table1_tasks(config: RunConfig) -> list[Task]:
    dims = grid(TABLE1_DIMENSIONS, (10, 30), config)
    max_iter = 30 if config.quick else 300
    return [
        Task(
            table1_task,
            dict(
                dataset=ds,
                seed=seed,
                method=method,
                dims=dims,
                data_home=config.data_home,
                max_iter=max_iter,
            ),
            label=f"{ds} {method} seed {seed}",
        )
        for ds in config.datasets
        for seed in seeds_for(config, n_full=3)
        for method in TABLE1_METHODS
    ]


def _claim_lines(rows: list[dict]) -> list[str]:
    lines = [
        "| data set | RPCA-OM best (of dims) | below PCA | below L1PCA | below R1PCA |",
        "|---|---|---|---|---|",
    ]
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        mean = {}
        for r in rows:
            if r["dataset"] == ds:
                mean.setdefault((r["method"], r["k"]), []).append(r["error"])
        mean = {key: float(np.mean(v)) for key, v in mean.items()}
        dims = sorted({k for _, k in mean})
        om = np.array([mean[("RPCA-OM", k)] for k in dims])
        cells = []
        best = sum(om[i] <= min(mean[(m, k)] for m in TABLE1_METHODS) for i, k in enumerate(dims))
        cells.append(f"{best}/{len(dims)}")
        for base in ("PCA", "L1PCA", "R1PCA"):
            below = int(np.sum(om < np.array([mean[(base, k)] for k in dims])))
            cells.append(f"{below}/{len(dims)}")
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    return lines


def _paper_lines(datasets) -> list[str]:
    out = []
    for ds in datasets:
        name = ds.partition(":")[0]
        if name not in PAPER_TABLE1 or ":" in ds:
            continue
        scale, table = PAPER_TABLE1[name]
        rows = [
            {"method": m, "k": k, "error": v * scale}
            for m, values in table.items()
            for k, v in zip(TABLE1_DIMENSIONS, values, strict=True)
        ]
        out += [
            f"\nPaper's Table 1, {name}:\n",
            markdown_table(rows, "method", "k", "error", fmt="{:.4g}", highlight=None),
        ]
    return out


def _table1_table(rows: list[dict], config: RunConfig) -> str:
    parts = ["## Total reconstruction error (mean over seeds), best per dimension in bold\n"]
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        subset = [r for r in rows if r["dataset"] == ds]
        by_k = [{"k": r["k"], "method": r["method"], "error": r["error"]} for r in subset]
        parts += [
            f"\n### {ds}\n",
            markdown_table(
                by_k, "method", "k", "error", fmt="{:.5g}", highlight="min", highlight_by="column"
            ),
        ]
    parts += ["\n## The claim, per data set\n", *_claim_lines(rows)]
    parts += _paper_lines(dict.fromkeys(r["dataset"] for r in rows))
    return "\n".join(parts)


def _table1_figure(rows: list[dict], config: RunConfig):
    return line_plot(
        rows,
        "k",
        "error",
        "method",
        "dataset",
        title="Nie et al. 2014, Table 1: error against the clean images",
        xlabel="dimension",
        ylabel="total reconstruction error",
    )


register(
    Experiment(
        name="nie2014-table1",
        paper=PAPER,
        exhibit="Table 1",
        summary=(
            "Total reconstruction error against the clean images, 20% of the images "
            "occluded by a quarter-size block, PCA / L1PCA / R1PCA / RPCA-OM at "
            "dimensions 10 to 50."
        ),
        paper_datasets=PAPER_DATASETS,
        datasets=OUR_DATASETS,
        quick_datasets=("orl",),
        tasks=_table1_tasks,
        table=_table1_table,
        figure=_table1_figure,
        claim=(
            "RPCA-OM has the smallest error at every dimension on most data sets; R1PCA "
            "and RPCA-OM beat PCA and L1PCA."
        ),
        notes=(
            "All twelve data sets are available, at the sizes of the usual Deng Cai / "
            "Feiping Nie collections (32x32, Palm and MSRA 16x16, MNIST 28x28); the paper "
            "does not give its image sizes, the fill of the block or its number of runs. "
            "We fill the block with the data maximum (white), average 3 seeds, and run "
            "every method to its own convergence (max_iter 300)."
        ),
    )
)


# --------------------------------------------------------------------------------------
# Figure 1: CRPCA against CRPCA-OM over gamma
# --------------------------------------------------------------------------------------

#: Method label (as in the paper) -> (estimator class, fixed parameters). CRPCA is problem
#: (29) on the data centred by their arithmetic mean (sec. 4: "we can center the data
#: such that X1 = 0 before solving problem (29)"); CRPCA-OM is problem (30).
FIGURE1_METHODS = {
    "CRPCA": (OutlierPursuit, {"center": True}),
    "CRPCA-OM": (ConvexOptimalMeanPCA, {}),
}
#: The do-nothing reference: the occluded images themselves as the reconstruction.
FIGURE1_BASELINE = "occluded input"
#: The paper's gamma range (sec. 5.3: "we select the range of gamma from 30 to 90").
FIGURE1_PAPER_GAMMAS = (30, 40, 50, 60, 70, 80, 90)
#: Our range: the same seven points as fractions of gamma_max (30 -> 0.3 gamma_max, ...).
FIGURE1_FRACTIONS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
_GRID_NAMES = {"relative": "gamma / gamma_max", "paper": "gamma (paper's range)"}


def _occluded_data(dataset: str, seed: int, data_home: str | None):
    """The Table 1 corruption: 20% of the images, a white block of 1/4 of the image."""
    data = load_dataset(dataset, data_home)
    X, _ = occlude_blocks(
        data.data,
        data.image_shape,
        image_fraction=0.2,
        block_fraction=0.25,
        fill="max",
        random_state=seed,
    )
    return data, X


def figure1_task(
    dataset: str,
    seed: int,
    method: str,
    grid_name: str,
    values: list[float],
    data_home: str | None,
    accurate: bool,
    max_iter: int,
) -> list[dict]:
    """Occlude ``dataset`` with ``seed``; fit ``method`` at each gamma of one grid.

    ``grid_name`` is ``"paper"`` (``values`` are gammas) or ``"relative"`` (``values``
    are fractions of :math:`\\gamma_{\\max}`, the smallest gamma at which problem (29)
    on the centred occluded data has ``Z = 0``; see
    :func:`robustpca.solvers.alm.gamma_max`). The error is that of the recovered
    low-rank part ``low_rank_`` (:math:`b1^\\top + Z`) against the clean images. With
    ``accurate``, the ALM penalty is capped at 10 times its start (the estimators'
    Notes), so that both methods reach a certified optimum (``duality_gap``).
    ``method`` may be :data:`FIGURE1_BASELINE`: the occluded images unchanged.
    """
    data, X = _occluded_data(dataset, seed, data_home)
    Xc = X - X.mean(axis=0)
    g_max = gamma_max(Xc)
    scale = g_max if grid_name == "relative" else 1.0
    base = {"dataset": dataset, "seed": seed, "method": method, "grid": grid_name}
    rows = []
    if method == FIGURE1_BASELINE:
        error = total_reconstruction_error(X, data.data)
        for value in values:
            rows.append(
                {
                    **base,
                    "value": value,
                    "gamma": value * scale,
                    "gamma_max": g_max,
                    "error": error,
                    "rank": math.nan,
                    "n_iter": 0,
                    "converged": True,
                    "duality_gap": math.nan,
                }
            )
        return rows
    cls, fixed = FIGURE1_METHODS[method]
    alm: dict = {"max_iter": max_iter}
    if accurate:
        mu0 = 1.25 / spectral_norm(Xc, np.random.default_rng(0), rtol=1e-10)
        alm.update(mu=mu0, mu_max=10.0 * mu0, tol=1e-8)
    for value in values:
        model = cls(gamma=value * scale, random_state=seed, **fixed, **alm)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X)
        rows.append(
            {
                **base,
                "value": value,
                "gamma": model.gamma_,
                "gamma_max": g_max,
                "error": total_reconstruction_error(model.low_rank_, data.data),
                "rank": int(model.rank_),
                "n_iter": int(model.n_iter_),
                "converged": bool(model.converged_),
                "duality_gap": float(model.duality_gap_),
            }
        )
    return rows


def _figure1_tasks(config: RunConfig) -> list[Task]:
    grids = {
        "relative": grid(FIGURE1_FRACTIONS, (0.5,), config),
        "paper": grid(FIGURE1_PAPER_GAMMAS, (30,), config),
    }
    return [
        Task(
            figure1_task,
            dict(
                dataset=ds,
                seed=seed,
                method=method,
                grid_name=name,
                values=values,
                data_home=config.data_home,
                # certified optima where they are cheap (Z = 0 on the paper's grid); the
                # estimators' default ALM on our grid, for time (the gap is reported)
                accurate=name == "paper",
                max_iter=50 if config.quick and name == "relative" else 1000,
            ),
            label=f"{ds} {method} {name} seed {seed}",
        )
        for ds in config.datasets
        for seed in seeds_for(config, n_full=1)
        for method in (*FIGURE1_METHODS, FIGURE1_BASELINE)
        for name, values in grids.items()
    ]


def _column_label(grid_name: str, value: float) -> str:
    return f"{value:g} γmax" if grid_name == "relative" else f"γ = {value:g}"


def _figure1_means(rows: list[dict], dataset: str) -> tuple[list, dict]:
    """Columns (grid, value) in run order and the mean over seeds of each quantity."""
    columns: list = []
    cells: dict = {}
    for r in rows:
        if r["dataset"] != dataset:
            continue
        col = (r["grid"], r["value"])
        if col not in columns:
            columns.append(col)
        for key in ("error", "rank", "gamma", "gamma_max", "duality_gap"):
            cells.setdefault((r["method"], col, key), []).append(float(r[key]))
    return columns, {k: float(np.mean(v)) for k, v in cells.items()}


def _figure1_dataset_table(rows: list[dict], dataset: str) -> str:
    columns, m = _figure1_means(rows, dataset)
    om, cr = "CRPCA-OM", "CRPCA"
    header = "| | " + " | ".join(_column_label(*c) for c in columns) + " |"
    lines = [header, "|" + "---|" * (len(columns) + 1)]

    def line(name, cell):
        lines.append(f"| {name} | " + " | ".join(cell(c) for c in columns) + " |")

    line("γ", lambda c: f"{m[(cr, c, 'gamma')]:.3g}")
    for method in (cr, om):
        other = om if method == cr else cr

        def cell(c, method=method, other=other):
            text = f"{m[(method, c, 'error')]:.5g}"
            return f"**{text}**" if m[(method, c, "error")] < m[(other, c, "error")] else text

        line(method, cell)
    line(
        "CRPCA-OM vs CRPCA",
        lambda c: f"{100 * (m[(om, c, 'error')] / m[(cr, c, 'error')] - 1):+.2f}%",
    )
    line("rank of Z (CRPCA / OM)", lambda c: f"{m[(cr, c, 'rank')]:.3g} / {m[(om, c, 'rank')]:.3g}")
    line(
        "duality gap (CRPCA / OM)",
        lambda c: f"{m[(cr, c, 'duality_gap')]:.0e} / {m[(om, c, 'duality_gap')]:.0e}",
    )
    line(FIGURE1_BASELINE, lambda c: f"{m[(FIGURE1_BASELINE, c, 'error')]:.5g}")
    return "\n".join(lines)


def _rises(values: list[float]) -> int:
    return int(sum(b > a * (1 + 1e-9) for a, b in itertools.pairwise(values)))


def _figure1_claim_lines(rows: list[dict]) -> list[str]:
    lines = [
        "| data set | γmax | relative grid: OM below CRPCA | relative: error rises with γ "
        "(CRPCA; OM) | relative: a method below the occluded input | paper grid: OM below "
        "CRPCA | paper grid: Z = 0 (both) | paper grid: error rises with γ (CRPCA; OM) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    totals: dict = {}
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        columns, m = _figure1_means(rows, ds)
        cells = [ds, f"{m[('CRPCA', columns[0], 'gamma_max')]:.3g}"]
        for name in ("relative", "paper"):
            cols = [c for c in columns if c[0] == name]
            n = len(cols)
            cr = [m[("CRPCA", c, "error")] for c in cols]
            om = [m[("CRPCA-OM", c, "error")] for c in cols]
            below = sum(o < c for o, c in zip(om, cr, strict=True))
            rises = f"{_rises(cr)}/{n - 1}; {_rises(om)}/{n - 1}"
            totals[(name, "below")] = totals.get((name, "below"), 0) + below
            totals[(name, "n")] = totals.get((name, "n"), 0) + n
            if name == "relative":
                base = [m[(FIGURE1_BASELINE, c, "error")] for c in cols]
                better = sum(min(a, b) < z for a, b, z in zip(cr, om, base, strict=True))
                cells += [f"{below}/{n}", rises, f"{better}/{n}"]
            else:
                zero = sum(
                    m[("CRPCA", c, "rank")] == 0 and m[("CRPCA-OM", c, "rank")] == 0 for c in cols
                )
                cells += [f"{below}/{n}", f"{zero}/{n}", rises]
        lines.append("| " + " | ".join(cells) + " |")
    for name in ("relative", "paper"):
        lines.append(
            f"\nCRPCA-OM below CRPCA, {_GRID_NAMES[name]}: {totals[(name, 'below')]} of "
            f"{totals[(name, 'n')]} (data set, γ) cells."
        )
    return lines


def _figure1_table(rows: list[dict], config: RunConfig) -> str:
    parts = [
        "## Total reconstruction error of the low-rank part (mean over seeds)\n",
        "Columns `0.3 γmax` ... are our grid (fractions of γmax, the smallest γ at which "
        "problem (29) gives Z = 0 on the centred occluded data); columns `γ = 30` ... are "
        "the paper's values. The smaller of CRPCA / CRPCA-OM is in bold; `occluded input` "
        "is the error of the occluded images themselves (no reconstruction).",
    ]
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        parts += [f"\n### {ds}\n", _figure1_dataset_table(rows, ds)]
    parts += ["\n## The claim, per data set\n", *_figure1_claim_lines(rows)]
    parts += [
        "\nThe paper's Figure 1 has no legible numbers in our copy of the text (its "
        "claims are qualitative: the error grows with γ for both methods, and CRPCA-OM is "
        "consistently below CRPCA)."
    ]
    return "\n".join(parts)


def _figure1_figure(rows: list[dict], config: RunConfig):
    from matplotlib.figure import Figure

    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    ncols = min(len(datasets), 4)
    nrows = math.ceil(len(datasets) / ncols)
    fig = Figure(figsize=(max(3.6 * ncols, 6.0), 3.0 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, ds in zip(axes, datasets, strict=False):
        columns, m = _figure1_means(rows, ds)
        for method, marker in (("CRPCA", "o"), ("CRPCA-OM", "s")):
            pts = sorted((m[(method, c, "gamma")], m[(method, c, "error")]) for c in columns)
            ax.plot(*zip(*pts, strict=True), marker=marker, ms=3, label=method)
        ax.axhline(
            m[(FIGURE1_BASELINE, columns[0], "error")], color="grey", ls=":", label="occluded"
        )
        ax.axvline(m[("CRPCA", columns[0], "gamma_max")], color="k", ls="--", lw=0.8)
        ax.axvspan(30, 90, color="tab:orange", alpha=0.08, label="paper's γ range")
        ax.set_xscale("log")
        ax.set_title(ds)
        ax.set_xlabel("γ (dashed: γmax)")
        ax.set_ylabel("total reconstruction error")
        ax.grid(alpha=0.3)
    for ax in axes[len(datasets) :]:
        ax.set_visible(False)
    axes[0].legend(fontsize=7)
    fig.suptitle("Nie et al. 2014, Fig. 1: CRPCA vs CRPCA-OM against γ")
    return fig


register(
    Experiment(
        name="nie2014-figure1",
        paper=PAPER,
        exhibit="Figure 1",
        summary=(
            "Total reconstruction error of the low-rank part against the clean images, "
            "Table 1's occlusion, CRPCA (problem 29, centred) and CRPCA-OM (problem 30) "
            "over γ: the paper's 30-90 and 0.3-0.9 γmax."
        ),
        paper_datasets=PAPER_DATASETS,
        datasets=OUR_DATASETS,
        quick_datasets=("orl",),
        tasks=_figure1_tasks,
        table=_figure1_table,
        figure=_figure1_figure,
        claim=(
            "The error grows with γ for both methods, and CRPCA-OM is consistently below CRPCA."
        ),
        notes=(
            "Problem (29)+(30) are 1-homogeneous in the data, so γ does not depend on the "
            "pixel scale but on the number of images: Z = 0 is optimal for "
            "γ ≥ γmax = ||G||_2 ≤ √n (G: the centred samples scaled to unit norm). On our "
            "data γmax is 5.6 (Yale) to 30.4 (CMU-PIE), so the paper's 30-90 gives Z = 0 "
            "(CRPCA: the arithmetic mean, CRPCA-OM: the geometric median) almost "
            "everywhere; we run it as printed and, beside it, the same seven points as "
            "fractions 0.3-0.9 of γmax. The paper does not say how its images were scaled, "
            "how CRPCA was centred, nor its ALM settings: CRPCA centres by the arithmetic "
            "mean (sec. 4); both use the inexact ALM of Algorithm 3, with the same "
            "settings in each cell: on the paper's grid the penalty is capped at 10 μ0 "
            "(μ0 = 1.25/||X - mean||_2, tol 1e-8), which certifies the optimum (duality "
            "gap below 1e-6); on our grid, for time, the estimators' defaults (μ growing "
            "to 1e9 μ0, tol 1e-7), whose certified duality gap is reported per cell. The "
            "reconstruction is the low-rank part b1ᵀ + Z. Occlusion as in Table 1, one "
            "seed (the certified fits took up to 7 minutes each on the larger sets). "
            "Points below 0.3 γmax are left out for time (at 0.1 γmax Z is nearly full "
            "rank and the reconstruction is the occluded input)."
        ),
    )
)
