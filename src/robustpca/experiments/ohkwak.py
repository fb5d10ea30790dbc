r"""Oh & Kwak (2016), Generalized mean for robust PCA: Figures 1 and 2 (toy data).

Figure 1 (sec. 3.1): 100 inliers from :math:`N(0, 0.5 I)` and 10 outliers from
:math:`N([5, 5]^\top, 0.3 I)` in the plane; the arithmetic sample mean against the
generalized sample mean :math:`m_G` (eq. 6, Algorithm 1) with ``p = 0.1`` and ``0.2``.

Figure 2 (sec. 3.2): 110 points :math:`(x_i, x_i + \epsilon_i)`, :math:`x_i \sim N(0, 1)`,
:math:`\epsilon_i \sim N(0, 0.5^2)` for 100 inliers and :math:`N(0, 3^2)` for 10
outliers; the direction of PCA (about 60 degrees in the paper) against that of PCA-GM
with ``p = 0.3`` (Algorithm 2, 48.9 degrees; 45 degrees without outliers), the objective
(9) against the angle, and one step of Algorithm 2 from 30 degrees (to 32.1).

Both figures use synthetic data: the experiments take no data set (``datasets=()``).
The paper's real-data experiments (sec. 4: face reconstruction, clustering, object
categorisation) are not in our copy of the text, so they are not reproduced here.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..estimators import PCA, GeneralizedMeanPCA
from ..solvers.generalized_mean import (
    resolve_delta,
    solve_generalized_mean,
    solve_generalized_mean_pca,
)
from ._core import Experiment, RunConfig, Task, grid, register, seeds_for

__all__ = [
    "figure1_samples",
    "figure1_task",
    "figure2_objective",
    "figure2_samples",
    "figure2_task",
]

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
GRID_STEP = 0.01  # degrees, for the global minimiser of objective (9)


def _no_datasets(config: RunConfig, name: str) -> None:
    if config.datasets:
        raise ValueError(
            f"datasets: {name} runs on the paper's synthetic 2-D data and takes no data "
            f"set, got {list(config.datasets)}"
        )


# --------------------------------------------------------------------------------------
# Figure 1: the generalized sample mean
# --------------------------------------------------------------------------------------


def figure1_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Fig. 1: 100 inliers from N(0, 0.5 I), then 10 outliers from N([5, 5], 0.3 I).

    Returns the (110, 2) data and the inlier mask (the first 100 rows).
    """
    rng = np.random.default_rng(seed)
    inliers = rng.normal(0.0, np.sqrt(0.5), size=(100, 2))
    outliers = rng.normal(5.0, np.sqrt(0.3), size=(10, 2))
    return np.vstack([inliers, outliers]), np.arange(110) < 100


def _mean_label(p: float) -> str:
    return SAMPLE_MEAN if p == 1.0 else f"m_G, p = {p:g}"


def figure1_task(seed: int, powers: list[float], max_iter: int) -> list[dict]:
    """The sample mean and the generalized sample means of one draw of Fig. 1's data.

    Algorithm 1 starts from the sample mean and uses ``delta='auto'`` (1e-6 of the
    mean squared spread). Rows give the mean, its distance to the inliers' true centre
    (the origin) and to the inliers' sample mean, and whether every outlier has a
    smaller weight :math:`\\alpha_i` (eq. 7) than every inlier.
    """
    X, inliers = figure1_samples(seed)
    inlier_mean = X[inliers].mean(axis=0)
    delta = resolve_delta("auto", X)
    rows = []
    for p in (1.0, *powers):
        result = solve_generalized_mean(X, p, delta, max_iter=max_iter)
        m = result.mean
        rows.append(
            {
                "seed": seed,
                "method": _mean_label(p),
                "p": p,
                "mean_x": float(m[0]),
                "mean_y": float(m[1]),
                "distance_to_origin": float(np.linalg.norm(m)),
                "distance_to_inlier_mean": float(np.linalg.norm(m - inlier_mean)),
                "outliers_lightest": bool(
                    result.weights[~inliers].max() < result.weights[inliers].min()
                )
                if p < 1.0
                else False,
                "n_iter": int(result.n_iter),
                "converged": bool(result.converged),
            }
        )
    return rows


def _figure1_tasks(config: RunConfig) -> list[Task]:
    _no_datasets(config, "ohkwak-figure1")
    return [
        Task(
            figure1_task,
            dict(seed=seed, powers=list(FIGURE1_POWERS), max_iter=500),
            label=f"seed {seed}",
        )
        for seed in seeds_for(config, n_full=50)
    ]


def _stats(values: list[float], digits: int = 3) -> str:
    v = np.asarray(values, dtype=float)
    return (
        f"{v.mean():.{digits}f} ± {v.std():.{digits}f} ({v.min():.{digits}f}-{v.max():.{digits}f})"
    )


def _figure1_table(rows: list[dict], config: RunConfig) -> str:
    methods = list(dict.fromkeys(r["method"] for r in rows))
    seeds = sorted({r["seed"] for r in rows})
    by = {(r["method"], r["seed"]): r for r in rows}
    lines = [
        f"## Distance of each mean to the inliers' centre, over {len(seeds)} draws\n",
        "Mean ± standard deviation (min-max). The inliers' centre is the origin; their "
        "sample mean is the mean of the 100 inliers alone.\n",
        "| mean | distance to the origin | distance to the inliers' sample mean |",
        "|---|---|---|",
    ]
    for m in methods:
        d0 = [by[(m, s)]["distance_to_origin"] for s in seeds]
        d1 = [by[(m, s)]["distance_to_inlier_mean"] for s in seeds]
        lines.append(f"| {m} | {_stats(d0)} | {_stats(d1)} |")
    lines += [
        "\n## The claim, per p\n",
        "| mean | closer to the origin than the sample mean | within half its distance "
        "| outliers carry the smallest weights |",
        "|---|---|---|---|",
    ]
    for m in methods:
        if m == SAMPLE_MEAN:
            continue
        ours = np.array([by[(m, s)]["distance_to_origin"] for s in seeds])
        base = np.array([by[(SAMPLE_MEAN, s)]["distance_to_origin"] for s in seeds])
        light = sum(by[(m, s)]["outliers_lightest"] for s in seeds)
        n = len(seeds)
        lines.append(
            f"| {m} | {int(np.sum(ours < base))}/{n} | {int(np.sum(ours < 0.5 * base))}/{n} "
            f"| {light}/{n} |"
        )
    lines.append(
        "\nThe paper shows one draw as a scatter plot (no numbers): the generalized "
        "sample means lie close to [0, 0], the sample mean is pulled towards the outliers."
    )
    return "\n".join(lines)


def _figure1_figure(rows: list[dict], config: RunConfig):
    from matplotlib.figure import Figure

    seed = min(r["seed"] for r in rows)
    X, inliers = figure1_samples(seed)
    fig = Figure(figsize=(9.5, 4.0), layout="constrained")
    ax, ax2 = fig.subplots(1, 2)
    ax.scatter(*X[inliers].T, s=8, c="tab:blue", alpha=0.6, label="inliers")
    ax.scatter(*X[~inliers].T, s=14, c="tab:red", marker="x", label="outliers")
    markers = {SAMPLE_MEAN: "s", "m_G, p = 0.1": "*", "m_G, p = 0.2": "^"}
    methods = list(dict.fromkeys(r["method"] for r in rows))
    for m in methods:
        r = next(r for r in rows if r["seed"] == seed and r["method"] == m)
        ax.scatter(r["mean_x"], r["mean_y"], s=90, marker=markers.get(m, "D"), label=m)
    ax.set_aspect("equal")
    ax.set_title(f"Fig. 1, draw {seed}")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    for i, m in enumerate(methods):
        d = [r["distance_to_origin"] for r in rows if r["method"] == m]
        jitter = np.linspace(-0.15, 0.15, len(d)) if len(d) > 1 else np.zeros(1)
        ax2.scatter(i + jitter, d, s=10, alpha=0.7)
    ax2.set_xticks(range(len(methods)), methods, fontsize=8)
    ax2.set_ylabel("distance to the inliers' centre (0, 0)")
    ax2.set_title("over all draws")
    ax2.grid(alpha=0.3)
    fig.suptitle("Oh & Kwak 2016, Fig. 1: generalized sample mean")
    return fig


register(
    Experiment(
        name="ohkwak-figure1",
        paper=PAPER,
        exhibit="Figure 1",
        summary=(
            "Sample mean against the generalized sample mean (Algorithm 1, p = 0.1, 0.2) "
            "on 100 Gaussian inliers at the origin and 10 outliers at (5, 5)."
        ),
        paper_datasets=("synthetic 2-D Gaussian data (sec. 3.1)",),
        datasets=(),
        tasks=_figure1_tasks,
        table=_figure1_table,
        figure=_figure1_figure,
        claim=(
            "The generalized sample means lie close to the inliers' mean [0, 0]; the "
            "sample mean is biased by the ten outliers."
        ),
        notes=(
            "Synthetic data drawn as the paper describes (its covariances diag[0.5, 0.5] "
            "and diag[0.3, 0.3] read as variances); no data set is used. The paper shows "
            "one draw; we draw 50 (seeds 0-49 from the base seed). Algorithm 1 starts at "
            "the sample mean (line 3) and stops when objective (6) changes by less than "
            "1e-6 relative (the paper gives no stopping rule); delta of eq. (13) is 1e-6 "
            "of the mean squared spread. For p < 1/2 every sample is a local minimiser of "
            "(6), so m_G stops on a central inlier rather than at the origin."
        ),
    )
)


# --------------------------------------------------------------------------------------
# Figure 2: PCA-GM on a noisy line
# --------------------------------------------------------------------------------------


def figure2_samples(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Fig. 2: x ~ N(0, 1), y = x + e; e ~ N(0, 0.5^2) (100 inliers), N(0, 3^2) (10).

    Returns the (110, 2) data and the inlier mask (the first 100 rows).
    """
    rng = np.random.default_rng(seed)
    x = rng.normal(size=110)
    e = np.concatenate([rng.normal(0.0, 0.5, 100), rng.normal(0.0, 3.0, 10)])
    return np.column_stack([x, x + e]), np.arange(110) < 100


def _degrees(direction) -> float:
    """Angle of a 2-D direction in [0, 180) degrees."""
    return float(np.degrees(np.arctan2(direction[1], direction[0])) % 180.0)


def _squared_errors(Xc: np.ndarray, thetas_deg: np.ndarray) -> np.ndarray:
    """e_i(W) for the lines at ``thetas_deg`` (columns) through the origin of ``Xc``."""
    t = np.radians(np.asarray(thetas_deg, dtype=float))
    proj = Xc @ np.vstack([np.cos(t), np.sin(t)])
    return np.maximum(np.einsum("ij,ij->i", Xc, Xc)[:, None] - proj**2, 0.0)


def figure2_objective(X, mean, thetas_deg, p: float, delta: float) -> np.ndarray:
    r"""Objective (10) with eq. (13), :math:`\sum_i (e_i(W) + \delta)^p`, of the lines at
    ``thetas_deg`` degrees through ``mean`` (monotone in objective (9))."""
    return ((_squared_errors(X - mean, thetas_deg) + delta) ** p).sum(axis=0)


def figure2_task(seed: int, powers: list[float], max_iter: int, tol: float) -> list[dict]:
    """Directions (degrees) found on one draw of Fig. 2's data.

    Methods: PCA; PCA of the 100 inliers alone (the reference "without outliers"); for
    each ``p``: PCA-GM (Algorithm 2 from PCA about :math:`m_G`, run until objective (10)
    changes by at most ``tol``; ``local_minimum``: no value of (10) lower by more than
    1e-10 relative within 0.001 degree), the global minimiser of objective (9) on a
    0.01-degree grid about the same :math:`m_G`, and one step of Algorithm 2 from 30
    degrees.
    """
    X, inliers = figure2_samples(seed)
    reference = _degrees(PCA(1).fit(X[inliers]).components_[0])
    base = {"seed": seed, "reference": reference}

    def row(method, p, angle, **extra):
        return {
            **base,
            "method": method,
            "p": p,
            "angle": angle,
            "distance_to_45": abs(angle - 45.0),
            "distance_to_reference": abs(angle - reference),
            **extra,
        }

    rows = [
        row("PCA", 1.0, _degrees(PCA(1).fit(X).components_[0])),
        row("PCA, inliers only", 1.0, reference),
    ]
    grid_deg = np.arange(0.0, 180.0, GRID_STEP)
    w0 = np.array([[np.cos(np.pi / 6)], [np.sin(np.pi / 6)]])
    for p in powers:
        model = GeneralizedMeanPCA(1, p=p, max_iter=max_iter, tol=tol)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X)
        theta = _degrees(model.components_[0])
        steps = np.array([-1e-3, -1e-4, 0.0, 1e-4, 1e-3])  # degrees
        near = figure2_objective(X, model.mean_, theta + steps, p, model.delta_)
        values = figure2_objective(X, model.mean_, grid_deg, p, model.delta_)
        step = solve_generalized_mean_pca(
            X,
            1,
            p,
            mean=model.mean_,
            delta=model.delta_,
            rng=np.random.default_rng(0),
            init=w0,
            max_iter=1,
            tol=0.0,
        )
        rows += [
            row(
                "PCA-GM",
                p,
                theta,
                n_iter=int(model.n_iter_),
                converged=bool(model.converged_),
                local_minimum=bool(near[2] <= near.min() * (1 + 1e-10)),
            ),
            row("min of (9) on a grid", p, float(grid_deg[np.argmin(values)])),
            row("one step from 30°", p, _degrees(step.components[0])),
        ]
    return rows


def _figure2_tasks(config: RunConfig) -> list[Task]:
    _no_datasets(config, "ohkwak-figure2")
    powers = grid(FIGURE2_POWERS, (FIGURE2_POWER,), config)
    return [
        Task(
            figure2_task,
            dict(seed=seed, powers=list(powers), max_iter=100_000, tol=1e-13),
            label=f"seed {seed}",
        )
        for seed in seeds_for(config, n_full=50)
    ]


def _angles(rows, method, p=None) -> dict[int, dict]:
    return {r["seed"]: r for r in rows if r["method"] == method and (p is None or r["p"] == p)}


def _figure2_table(rows: list[dict], config: RunConfig) -> str:
    seeds = sorted({r["seed"] for r in rows})
    n = len(seeds)
    keys = list(dict.fromkeys((r["method"], r["p"]) for r in rows))
    lines = [
        f"## Directions in degrees over {n} draws\n",
        "Mean ± standard deviation (min-max); `|θ - 45|` and `|θ - θ_in|` are mean "
        "distances to 45 degrees and to PCA of the inliers alone (θ_in).\n",
        "| method | p | θ | abs(θ - 45) | abs(θ - θ_in) | paper |",
        "|---|---|---|---|---|---|",
    ]
    paper = {
        ("PCA", 1.0): PAPER_FIGURE2["PCA"],
        ("PCA-GM", FIGURE2_POWER): PAPER_FIGURE2["PCA-GM"],
        ("min of (9) on a grid", FIGURE2_POWER): PAPER_FIGURE2["PCA-GM"],
        ("one step from 30°", FIGURE2_POWER): PAPER_FIGURE2["one step from 30°"],
        ("PCA, inliers only", 1.0): PAPER_FIGURE2["without outliers (W*)"],
    }
    for method, p in keys:
        sel = [r for r in rows if r["method"] == method and r["p"] == p]
        a = [r["angle"] for r in sel]
        d45 = np.mean([r["distance_to_45"] for r in sel])
        dref = np.mean([r["distance_to_reference"] for r in sel])
        ref = paper.get((method, p))
        lines.append(
            f"| {method} | {p:g} | {_stats(a, 1)} | {d45:.2f} | {dref:.2f} "
            f"| {'' if ref is None else f'{ref:g}'} |"
        )
    pca = _angles(rows, "PCA")
    lines += [
        "\n## The claim, per p\n",
        "| p | PCA-GM closer to 45° than PCA | closer to θ_in than PCA | PCA-GM in 45-50° "
        "| grid minimiser of (9) in 44-50° | PCA-GM at a local minimum of (9) | one step "
        "from 30° lands between 30° and PCA-GM |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in sorted({r["p"] for r in rows if r["method"] == "PCA-GM"}):
        gm = _angles(rows, "PCA-GM", p)
        best = _angles(rows, "min of (9) on a grid", p)
        step = _angles(rows, "one step from 30°", p)
        counts = [
            sum(gm[s]["distance_to_45"] < pca[s]["distance_to_45"] for s in seeds),
            sum(gm[s]["distance_to_reference"] < pca[s]["distance_to_reference"] for s in seeds),
            sum(45.0 <= gm[s]["angle"] <= 50.0 for s in seeds),
            sum(44.0 <= best[s]["angle"] <= 50.0 for s in seeds),
            sum(gm[s]["local_minimum"] for s in seeds),
            sum(30.0 < step[s]["angle"] < gm[s]["angle"] for s in seeds),
        ]
        lines.append(f"| {p:g} | " + " | ".join(f"{c}/{n}" for c in counts) + " |")
    lines.append(
        f"\nThe paper's single draw (p = {FIGURE2_POWER:g}): PCA "
        f"{PAPER_FIGURE2['PCA']:g}°, PCA-GM {PAPER_FIGURE2['PCA-GM']:g}°, one step from 30° "
        f"to {PAPER_FIGURE2['one step from 30°']:g}°, the solution without the outliers "
        f"{PAPER_FIGURE2['without outliers (W*)']:g}°."
    )
    return "\n".join(lines)


def _figure2_figure(rows: list[dict], config: RunConfig):
    from matplotlib.figure import Figure

    seed = min(r["seed"] for r in rows)
    p = FIGURE2_POWER
    X, inliers = figure2_samples(seed)
    model = GeneralizedMeanPCA(1, p=p, max_iter=100_000, tol=1e-13)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X)
    by = {r["method"]: r["angle"] for r in rows if r["seed"] == seed and r["p"] in (1.0, p)}
    fig = Figure(figsize=(13.5, 4.0), layout="constrained")
    ax, ax2, ax3 = fig.subplots(1, 3)
    ax.scatter(*X[inliers].T, s=8, c="tab:blue", alpha=0.6, label="inliers")
    ax.scatter(*X[~inliers].T, s=14, c="tab:red", marker="x", label="outliers")
    t = np.linspace(-4.0, 4.0, 2)
    for label, angle, style in (
        ("PCA", by["PCA"], "-"),
        (f"PCA-GM (p = {p:g})", by["PCA-GM"], "-"),
        ("45°", 45.0, ":"),
    ):
        a = math.radians(angle)
        ax.plot(t * math.cos(a), t * math.sin(a), style, label=f"{label}: {angle:.1f}°")
    ax.set_aspect("equal")
    ax.set_ylim(-6, 6)
    ax.legend(fontsize=7)
    ax.set_title(f"(a) draw {seed}")
    ax.grid(alpha=0.3)

    thetas = np.arange(0.0, 90.0, 0.05)
    objective = figure2_objective(X, model.mean_, thetas, p, model.delta_)
    ax2.plot(thetas, objective, "k", lw=1, label="objective (10)")
    Xc = X - model.mean_
    for angle, style, label in ((30.0, "r--", "surrogate at 30°"), (by["PCA-GM"], "m-.", None)):
        beta = (_squared_errors(Xc, [angle])[:, 0] + model.delta_) ** (p - 1)
        surrogate = beta @ (_squared_errors(Xc, thetas) + model.delta_)
        ax2.plot(thetas, surrogate, style, lw=1, label=label or f"surrogate at {angle:.1f}°")
    ax2.axvline(by["PCA"], color="tab:blue", ls=":", lw=0.8)
    ax2.set_ylim(objective.min() * 0.95, objective.max() * 1.05)
    ax2.set_xlabel("θ (degrees)")
    ax2.set_title(f"(b) objective and surrogates, p = {p:g}")
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)

    methods = ["PCA", "PCA-GM", "min of (9) on a grid", "PCA, inliers only"]
    for i, method in enumerate(methods):
        vals = [r["angle"] for r in rows if r["method"] == method and r["p"] in (1.0, p)]
        jitter = np.linspace(-0.15, 0.15, len(vals)) if len(vals) > 1 else np.zeros(1)
        ax3.scatter(i + jitter, vals, s=10, alpha=0.7)
    ax3.axhline(45.0, color="k", ls=":", lw=0.8)
    ax3.scatter([0, 1], [PAPER_FIGURE2["PCA"], PAPER_FIGURE2["PCA-GM"]], marker="*", s=120,
                c="k", label="paper")  # fmt: skip
    ax3.set_xticks(range(len(methods)), ["PCA", "PCA-GM", "grid min (9)", "PCA inliers"])
    ax3.set_ylabel("θ (degrees)")
    ax3.set_title(f"(c) all draws, p = {p:g}")
    ax3.legend(fontsize=7)
    ax3.grid(alpha=0.3)
    fig.suptitle("Oh & Kwak 2016, Fig. 2: PCA-GM on a noisy line")
    return fig


register(
    Experiment(
        name="ohkwak-figure2",
        paper=PAPER,
        exhibit="Figure 2",
        summary=(
            "Direction of PCA against PCA-GM (p = 0.3) on 110 points of a noisy line with "
            "10 noisier outliers; objective (9) against the angle; one step of "
            "Algorithm 2 from 30 degrees."
        ),
        paper_datasets=("synthetic 2-D data (sec. 3.2)",),
        datasets=(),
        tasks=_figure2_tasks,
        table=_figure2_table,
        figure=_figure2_figure,
        claim=(
            "PCA is pulled to about 60 degrees by the outliers; PCA-GM (p = 0.3) finds "
            "48.9 degrees, close to the outlier-free 45; one step from 30 goes to 32.1 and "
            "Algorithm 2 converges to the local minimum of (9)."
        ),
        notes=(
            "Synthetic data drawn as the paper describes; no data set is used. The paper "
            "shows one draw; we draw 50 (seeds 0-49 from the base seed) and also run "
            "p = 0.1, 0.5, 0.7 as a sensitivity check. PCA-GM is centred on m_G with the "
            "same p (Algorithm 2's input) and run until objective (10) changes by less "
            "than 1e-13 relative (the paper gives no stopping rule; near a cusp the "
            "iteration is slow, and 1e-10 left one draw 0.001 degree short of its local "
            "minimum); 'local minimum' means no lower objective within 0.001 degree. "
            "delta of eq. (13) is 1e-6 of the mean squared spread. The paper's reference "
            "'without the outliers' is 45 degrees, the line y = x; PCA of the inliers alone "
            "is a "
            "different reference (it is biased above 45, to about 48.6 degrees in the "
            "population, since the noise is only in y): we report both."
        ),
    )
)
