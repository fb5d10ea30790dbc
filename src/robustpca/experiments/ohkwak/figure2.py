"""Oh & Kwak (2016), Figure 2: PCA-GM on a noisy line."""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...estimators import PCA, GeneralizedMeanPCA
from ...solvers.generalized_mean import solve_generalized_mean_pca
from .._core import RunConfig, Task, grid
from .._report import finish_figure, strip_plot, style_panel, table_header, table_row
from ._common import (
    FIGURE2_POWER,
    FIGURE2_POWERS,
    GRID_STEP,
    PAPER_FIGURE2,
    _scatter_samples,
    draw_tasks,
    figure2_samples,
    register_exhibit,
)
from .figure1 import _stats


def _degrees(direction) -> float:
    """Angle of a 2-D direction in [0, 180) degrees."""
    return float(np.degrees(np.arctan2(direction[1], direction[0])) % 180.0)


def _squared_errors(Xc: np.ndarray, thetas_deg: np.ndarray) -> np.ndarray:
    """e_i(W) for the lines at ``thetas_deg`` (columns) through the origin of ``Xc``."""
    t = np.radians(np.asarray(thetas_deg, dtype=float))
    proj = Xc @ np.vstack([np.cos(t), np.sin(t)])
    return np.maximum(np.einsum("ij,ij->i", Xc, Xc)[:, None] - proj**2, 0.0)


def figure2_objective(X, mean, thetas_deg, p: float, delta: float) -> np.ndarray:
    r"""Objective (10) with eq. (13), :math:`\sum_i (e_i(W) + \delta)^p`, of lines through
    ``mean`` (monotone in objective (9)).

    Parameters
    ----------
    X : ndarray of shape (n_samples, 2)
        The data.
    mean : ndarray of shape (2,)
        The point the lines pass through.
    thetas_deg : array-like of shape (n_angles,)
        The lines' angles, in degrees.
    p : float
        The power of the generalized mean.
    delta : float
        The perturbation :math:`\delta` of eq. (13), in squared data units.

    Returns
    -------
    ndarray of shape (n_angles,)
        The objective of each line.
    """
    return ((_squared_errors(X - mean, thetas_deg) + delta) ** p).sum(axis=0)


def _one_step_from_30(X: np.ndarray, model: GeneralizedMeanPCA) -> float:
    """The direction (degrees) after one step of Algorithm 2 from the line at 30 degrees,
    about the centre and with the p and delta of the fitted ``model``."""
    step = solve_generalized_mean_pca(
        X,
        1,
        model.p,
        mean=model.mean_,
        delta=model.delta_,
        rng=np.random.default_rng(0),
        init=np.array([[np.cos(np.pi / 6)], [np.sin(np.pi / 6)]]),
        max_iter=1,
        tol=0.0,
    )
    return _degrees(step.components[0])


def figure2_task(seed: int, powers: list[float], max_iter: int, tol: float) -> list[dict]:
    """Directions (degrees) found on one draw of Fig. 2's data.

    Methods: PCA; PCA of the 100 inliers alone (the reference "without outliers"); for
    each ``p``: PCA-GM (Algorithm 2 from PCA about :math:`m_G`; ``local_minimum``: no
    value of (10) lower by more than 1e-10 relative within 0.001 degree), the global
    minimiser of objective (9) on a 0.01-degree grid about the same :math:`m_G`, and
    one step of Algorithm 2 from 30 degrees.

    Parameters
    ----------
    seed : int
        The draw (:func:`figure2_samples`).
    powers : list of float
        The powers ``p`` of PCA-GM.
    max_iter : int
        Iteration cap of :class:`~robustpca.estimators.GeneralizedMeanPCA`.
    tol : float
        Its stopping tolerance: PCA-GM stops when the relative change of :math:`M_p`
        (eq. 9) is at most ``tol``.

    Returns
    -------
    list of dict
        One row per direction: its angle and its distances to 45 degrees and to the
        inliers' PCA.
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
    for p in powers:
        model = GeneralizedMeanPCA(1, p=p, max_iter=max_iter, tol=tol)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X)
        theta = _degrees(model.components_[0])
        steps = np.array([-1e-3, -1e-4, 0.0, 1e-4, 1e-3])  # degrees
        near = figure2_objective(X, model.mean_, theta + steps, p, model.delta_)
        values = figure2_objective(X, model.mean_, grid_deg, p, model.delta_)
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
            row("one step from 30°", p, _one_step_from_30(X, model)),
        ]
    return rows


def _figure2_tasks(config: RunConfig) -> list[Task]:
    powers = grid(FIGURE2_POWERS, (FIGURE2_POWER,), config)
    return draw_tasks(
        config, "ohkwak-figure2", figure2_task, powers=powers, max_iter=100_000, tol=1e-13
    )


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
        *table_header("method", "p", "θ", "abs(θ - 45)", "abs(θ - θ_in)", "paper"),
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
        *table_header(
            "p",
            "PCA-GM closer to 45° than PCA",
            "closer to θ_in than PCA",
            "PCA-GM in 45-50°",
            "grid minimiser of (9) in 44-50°",
            "PCA-GM at a local minimum of (9)",
            "one step from 30° lands between 30° and PCA-GM",
        ),
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
        lines.append(table_row(f"{p:g}", *(f"{c}/{n}" for c in counts)))
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
    _scatter_samples(ax, X, inliers)
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
    style_panel(ax, title=f"(a) draw {seed}")

    thetas = np.arange(0.0, 90.0, 0.05)
    objective = figure2_objective(X, model.mean_, thetas, p, model.delta_)
    ax2.plot(thetas, objective, "k", lw=1, label="objective (10)")
    Xc = X - model.mean_
    surrogates: tuple[tuple[float, str, str | None], ...] = (
        (30.0, "r--", "surrogate at 30°"),
        (by["PCA-GM"], "m-.", None),
    )
    for angle, style, given in surrogates:
        beta = (_squared_errors(Xc, np.array([angle]))[:, 0] + model.delta_) ** (p - 1)
        surrogate = beta @ (_squared_errors(Xc, thetas) + model.delta_)
        ax2.plot(thetas, surrogate, style, lw=1, label=given or f"surrogate at {angle:.1f}°")
    ax2.axvline(by["PCA"], color="tab:blue", ls=":", lw=0.8)
    ax2.set_ylim(objective.min() * 0.95, objective.max() * 1.05)
    style_panel(ax2, title=f"(b) objective and surrogates, p = {p:g}", xlabel="θ (degrees)")

    methods = ["PCA", "PCA-GM", "min of (9) on a grid", "PCA, inliers only"]
    strip_plot(
        ax3,
        [[r["angle"] for r in rows if r["method"] == m and r["p"] in (1.0, p)] for m in methods],
    )
    ax3.axhline(45.0, color="k", ls=":", lw=0.8)
    ax3.scatter([0, 1], [PAPER_FIGURE2["PCA"], PAPER_FIGURE2["PCA-GM"]], marker="*", s=120,
                c="k", label="paper")  # fmt: skip
    ax3.set_xticks(range(len(methods)), ["PCA", "PCA-GM", "grid min (9)", "PCA inliers"])
    style_panel(ax3, title=f"(c) all draws, p = {p:g}", ylabel="θ (degrees)")
    title = "Oh & Kwak 2016, Fig. 2: PCA-GM on a noisy line"
    return finish_figure(fig, [ax, ax2, ax3], title, every=True)


register_exhibit(
    name="ohkwak-figure2",
    exhibit="Figure 2",
    summary=(
        "Direction of PCA against PCA-GM (p = 0.3) on 110 points of a noisy line with "
        "10 noisier outliers; objective (9) against the angle; one step of "
        "Algorithm 2 from 30 degrees."
    ),
    paper_datasets=("synthetic 2-D data (sec. 3.2)",),
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
