"""Zhang & Tong (2019), RWL-AN: Table 2, Figure 1, Figure 2 and Table 3 (sec. 5).

Every exhibit uses the corruption of sec. 5.1: "occlusions are placed with random size
(over 25% area) on part of images (number of noised samples = total number of samples x
noise rate)", noise rate 0.2. The methods are fitted on the occluded images and judged
against the clean ones.

- Table 2 (sec. 5.2): reconstruction error :math:`\\sum_i p_i \\lVert x^r_i - x^o_i
  \\rVert_2^2` (normalised weights) of RWL-AN, GLRAM, R2DPCA, capped R2DPCA, PCA and
  RPCA-OM, 2-D methods at :math:`(d_1, d_2) = (9, 10)`, 1-D ones at :math:`m = 90`, on
  raw data and at noise rate 0.2.
- Figure 1 (sec. 5.3): k-means clustering accuracy of the reconstructed images against
  :math:`d_1 = d_2`, with k-means on the occluded images as the baseline.
- Figure 2 (sec. 5.4): RWL-AN's reconstruction error against ``k_rate = k / N``.
- Table 3: CPU time of 50 iterations of RWL-AN, GLRAM, R2DPCA and RPCA-OM.
"""

from __future__ import annotations

import functools
import math
import platform
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..datasets import ImageDataset, occlude_blocks
from ..estimators import (
    GLRAM,
    HQPCA,
    L1PCA,
    L21PCA,
    PCA,
    R1PCA,
    AdaptiveNeighborsPCA,
    CappedRobust2DPCA,
    GeneralizedMeanPCA,
    L21TwoDPCA,
    OptimalMeanPCA,
    Robust2DPCA,
    TwoDPCA,
)
from ..metrics import kmeans_scores, weighted_reconstruction_error
from ..solvers.two_d import image_residuals, initial_two_d_bases
from ._core import Experiment, RunConfig, Task, grid, register, seeds_for
from ._data import load_dataset
from ._report import markdown_table

__all__ = [
    "BLOCK_FRACTION",
    "CAP_GRID",
    "EXTRA_METHODS",
    "PAPER_METHODS",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "TABLE2_DIMS",
    "capped_thresholds",
    "figure1_task",
    "figure2_task",
    "load_faces",
    "make_estimator",
    "occluded_faces",
    "table2_task",
    "table3_task",
]

PAPER = "Zhang & Tong (2019), Robust PCA with adaptive neighbors (RWL-AN)"
PAPER_DATASETS = ("AT&T 64x64", "UMIST 64x64", "FEI 32x32 (2,600 images)", "FERET 80x80")
#: The closest versions available in ../shared/data, in the paper's order.
DATASETS = ("orl:64x64", "umist", "fei", "feret:40x40")

#: "random size (over 25% area)": each block's area fraction uniform in [0.25, 0.5]
BLOCK_FRACTION = (0.25, 0.5)
#: "occluded by noises" (sec. 5.3): uniform noise between the data's min and max
FILL = "noise"
#: the paper does not say what the blocks hold: Table 2 runs noise and white blocks
TABLE2_FILLS = ("noise", "max")
NOISE_RATE = 0.2
#: sec. 5.2: d1 = 9, d2 = 10; the 1-D methods use m = d1 * d2 = 90
TABLE2_DIMS = (9, 10)
#: the ranks of a quick (smoke) run
QUICK_DIMS = (3, 3)
#: sec. 5.1: k = [0.85 N]
K_RATE = 0.85
#: the capped threshold is searched over five values and the best kept, as in sec. 5.1
#: (their {10, ..., 50} are in units we do not know): c x the median residual of the start
CAP_GRID = (1.0, 2.0, 3.0, 4.0, 5.0)
#: errors are reported for pixel values scaled to [0, 1]
SCALE = 255.0**2

PAPER_METHODS = ("RWL-AN", "GLRAM", "R2DPCA", "capped R2DPCA", "PCA", "RPCA-OM")
#: Not in the paper; shown for context.
EXTRA_METHODS = (
    "RWL-AN (random p0)",
    "2DPCA",
    "L21-2DPCA",
    "PCA-L21",
    "R1-PCA",
    "PCA-L1",
    "HQ-PCA",
    "PCA-GM",
)
_ONE_D = {
    "RWL-AN": AdaptiveNeighborsPCA,
    "RWL-AN (random p0)": AdaptiveNeighborsPCA,
    "PCA": PCA,
    "RPCA-OM": OptimalMeanPCA,
    "PCA-L21": L21PCA,
    "R1-PCA": R1PCA,
    "PCA-L1": L1PCA,
    "HQ-PCA": HQPCA,
    "PCA-GM": GeneralizedMeanPCA,
}
_TWO_D = {
    "GLRAM": GLRAM,
    "R2DPCA": Robust2DPCA,
    "capped R2DPCA": CappedRobust2DPCA,
    "L21-2DPCA": L21TwoDPCA,
}

#: Table 2 as printed: (data set, "raw" or "0.2") -> errors in the order of PAPER_METHODS.
PAPER_TABLE2 = {
    ("orl", "raw"): (3.56, 21.87, 13.44, 13.44, 1197.25, 5.27),
    ("orl", "0.2"): (6.65, 59.45, 26.91, 21.88, 1291.10, 19.19),
    ("umist", "raw"): (4.31, 23.45, 16.16, 16.16, 674.67, 6.43),
    ("umist", "0.2"): (8.50, 59.18, 28.13, 24.11, 720.49, 26.66),
    ("fei", "raw"): (1.35, 21.26, 4.29, 4.29, 533.63, 1.99),
    ("fei", "0.2"): (2.19, 24.81, 7.45, 6.52, 505.60, 10.30),
    ("feret", "raw"): (14.70, 44.89, 30.90, 30.90, 1661.45, 19.21),
    ("feret", "0.2"): (23.26, 99.61, 51.32, 33.20, 1603.78, 67.75),
}
#: Table 3 as printed: CPU seconds of 50 iterations (MATLAB R2015b, 3.2 GHz i5-3470).
PAPER_TABLE3 = {
    "RWL-AN": {"orl": 8.14, "umist": 11.40, "fei": 16.76, "feret": 49.03},
    "GLRAM": {"orl": 6.81, "umist": 8.78, "fei": 14.71, "feret": 45.22},
    "R2DPCA": {"orl": 8.55, "umist": 12.55, "fei": 17.49, "feret": 49.69},
    "RPCA-OM": {"orl": 848.46, "umist": 925.73, "fei": 266.58, "feret": 2902.15},
}
#: Figure 1's y-axis ranges (clustering accuracy, %): the curves are not legible.
PAPER_FIGURE1_RANGES = {"orl": (30, 40), "fei": (28, 42), "feret": (26.5, 30.5), "umist": (38, 49)}
#: Figure 2's y-axis ranges (reconstruction error): the curves are not legible.
PAPER_FIGURE2_RANGES = {"orl": (10, 25), "feret": (20, 45)}


# -- data and corruption ----------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def load_faces(spec: str, data_home: str | None = None) -> ImageDataset:
    """:func:`load_dataset` (kept as the protocols' entry point; ``"orl:64x64"`` is the
    paper's AT&T size)."""
    return load_dataset(spec, data_home)


def occluded_faces(
    dataset: str, noise_rate: float, seed: int, data_home: str | None = None, fill=FILL
) -> tuple[ImageDataset, np.ndarray, np.ndarray]:
    """The clean data set, its occluded copy and the mask of occluded images (sec. 5.1).

    ``round(noise_rate * N)`` images each get one square block of uniform noise (or
    another ``fill`` of :func:`occlude_blocks`) whose area fraction is drawn uniformly in
    :data:`BLOCK_FRACTION`; ``noise_rate=0`` is the raw data (the read-only clean array
    itself).
    """
    data = load_faces(dataset, data_home)
    if noise_rate == 0:
        return data, data.data, np.zeros(data.n_samples, dtype=bool)
    X, mask = occlude_blocks(
        data.data,
        data.image_shape,
        image_fraction=noise_rate,
        block_fraction=BLOCK_FRACTION,
        fill=fill,
        random_state=seed,
    )
    return data, X, mask.any(axis=1)


def capped_thresholds(
    X: np.ndarray, image_shape: tuple[int, int], dims: tuple[int, int], seed: int, caps
) -> list[float]:
    """``c x`` the median image residual of the capped model's starting point, per ``c``."""
    images = X.reshape(-1, *image_shape)
    E = images - images.mean(axis=0)
    r0 = image_residuals(E, *initial_two_d_bases(E, *dims, np.random.default_rng(seed)))
    median = float(np.median(r0))
    return [c * median for c in caps]


def _setting(noise_rate: float, fill) -> str:
    return "raw" if noise_rate == 0 else f"{noise_rate:g} {fill}"


def make_estimator(
    method: str,
    image_shape: tuple[int, int],
    n_samples: int,
    dims: tuple[int, int],
    seed: int,
    *,
    max_iter: int | None = None,
    tol: float | None = None,
    threshold: float | None = None,
    neighbor_rate: float = K_RATE,
):
    """The estimator of ``method`` at 2-D ranks ``dims`` (1-D: ``m = d1 d2``, clipped).

    1-D methods get ``m = min(d1 d2, N - 1, n_features)`` components (beyond ``N - 1``
    every centred image is reconstructed exactly). 2DPCA keeps ``round(d1 d2 / h)``
    columns (``h x k`` features, the closest to ``d1 d2``). ``max_iter``/``tol`` of None
    keep each estimator's default.
    """
    h, w = image_shape
    if method == "2DPCA":
        return TwoDPCA(max(1, round(dims[0] * dims[1] / h)), image_shape=image_shape)
    if method in _TWO_D:
        model = _TWO_D[method](tuple(dims), image_shape=image_shape, random_state=seed)
        if method == "capped R2DPCA":
            model.set_params(threshold=threshold)
    elif method in _ONE_D:
        m = min(dims[0] * dims[1], n_samples - 1, h * w)
        model = _ONE_D[method](m, random_state=seed)
        if method.startswith("RWL-AN"):
            init = "random" if "random" in method else "uniform"
            model.set_params(neighbor_rate=neighbor_rate, init=init)
    else:
        raise ValueError(f"unknown method {method!r}")
    params = model.get_params()
    if max_iter is not None and "max_iter" in params:
        model.set_params(max_iter=max_iter)
    if tol is not None and "tol" in params:
        model.set_params(tol=tol)
    return model


def _fit(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # capped: every image beyond the cap
        start = time.perf_counter()
        model.fit(X)
    return time.perf_counter() - start


def _fits(method, data, X, dims, seed, max_iter, caps):
    """[(cap, fitted model, seconds)]: one per cap for capped R2DPCA, else one."""
    if method == "capped R2DPCA":
        thresholds = capped_thresholds(X, data.image_shape, dims, seed, caps)
        settings = list(zip(caps, thresholds, strict=True))
    else:
        settings = [(None, None)]
    out = []
    for cap, threshold in settings:
        model = make_estimator(
            method,
            data.image_shape,
            data.n_samples,
            dims,
            seed,
            max_iter=max_iter,
            threshold=threshold,
        )
        out.append((cap, model, _fit(model, X)))
    return out


def _rejection(model, occluded) -> dict:
    w = getattr(model, "weights_", None)
    if w is None:
        return {"rejected": None, "rejected_occluded": None}
    zero = np.asarray(w) == 0
    return {"rejected": int(zero.sum()), "rejected_occluded": int((zero & occluded).sum())}


# -- Table 2 ------------------------------------------------------------------------------


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

    ``error`` is :func:`weighted_reconstruction_error` with uniform weights (the mean
    squared error over every image), ``error_own`` with the method's own ``weights_``
    where it has them (the literal formula of sec. 5.2), both for pixels in [0, 1].
    """
    data, X, occluded = occluded_faces(dataset, noise_rate, seed, data_home, fill)
    rows = []
    for cap, model, seconds in _fits(method, data, X, tuple(dims), seed, max_iter, caps):
        rec = model.reconstruct(X)
        weights = getattr(model, "weights_", None)
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
                "error": weighted_reconstruction_error(rec, data.data) / SCALE,
                "error_own": weighted_reconstruction_error(rec, data.data, weights) / SCALE,
                "n_occluded": int(occluded.sum()),
                **_rejection(model, occluded),
                "n_iter": int(getattr(model, "n_iter_", 1)),
                "converged": bool(getattr(model, "converged_", True)),
                "seconds": seconds,
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
            for seed in seeds:
                for method in methods:
                    params = dict(
                        dataset=ds,
                        noise_rate=noise,
                        seed=seed,
                        method=method,
                        data_home=config.data_home,
                        max_iter=max_iter,
                        caps=caps,
                        dims=dims,
                        fill=fill,
                    )
                    label = f"{ds} {_setting(noise, fill)} {method} {seed}"
                    tasks.append(Task(table2_task, params, label))
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
    ranked = sorted((m for m in methods if m in values), key=values.get)
    if best is max:
        ranked.reverse()
    return dict(zip(ranked[:2], ("**", "_"), strict=False))


def _value_table(cells: dict, methods, fmt: str, first: str, best=min) -> list[str]:
    lines = [
        f"| {first} | " + " | ".join(methods) + " |",
        "|---" * (len(methods) + 1) + "|",
    ]
    for key, values in cells.items():
        marks = _rank_marks(values, [m for m in methods if m in PAPER_METHODS], best)
        out = []
        for m in methods:
            mark = marks.get(m, "")
            out.append(f"{mark}{fmt.format(values[m])}{mark}" if m in values else "")
        label = ", ".join(str(k) for k in key) if isinstance(key, tuple) else str(key)
        lines.append(f"| {label} | " + " | ".join(out) + " |")
    return lines


def _table2_claims(cells: dict, reading: str, per_seed: dict) -> list[str]:
    lines = []
    robust = ("RWL-AN", "R2DPCA", "capped R2DPCA", "RPCA-OM")
    for (ds, setting), noisy in cells.items():
        raw = cells.get((ds, "raw"), {})
        if setting == "raw" or len(raw) < len(PAPER_METHODS):
            continue
        paper_noisy = {m: noisy[m] for m in PAPER_METHODS}
        best_all = min(noisy, key=noisy.get)
        claim1 = min(paper_noisy, key=paper_noisy.get) == "RWL-AN"
        paper_raw = sorted(PAPER_METHODS, key=raw.get)
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
        "| data set | setting | source | " + " | ".join(PAPER_METHODS) + " |",
        "|---" * (len(PAPER_METHODS) + 3) + "|",
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
        "| data set | setting | reading | 1) RWL-AN best (of the paper's six) | "
        "2a) RPCA-OM runner-up, raw | 2b) RWL-AN, R2DPCA < GLRAM, PCA, raw | "
        "4) robust < GLRAM, PCA |",
        "|---|---|---|---|---|---|---|",
        *_table2_claims(cells_u, "uniform p", _per_seed_wins(rows, "error", caps_u)),
        *_table2_claims(cells_o, "own p", _per_seed_wins(rows, "error_own", caps_o)),
        "\n## Capped R2DPCA: the cap kept (multiple of the starting median residual)\n",
        "| data set, setting | uniform p | own p |",
        "|---|---|---|",
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


# -- Figure 1 -----------------------------------------------------------------------------

FIGURE1_D1 = (15, 20, 25, 30, 35)
#: the caps of Table 2's winners (1 with the methods' own weights, 2 with uniform ones)
#: and one beyond: Figure 1 refits every method at five ranks
FIGURE1_CAPS = (1.0, 2.0, 3.0)
FIGURE1_METHODS = ("RWL-AN", "GLRAM", "RPCA-OM", "R2DPCA", "capped R2DPCA", "Baseline")


def _kmeans(Z, target, seed: int, n_runs: int) -> dict:
    from threadpoolctl import threadpool_limits

    # one OpenMP thread: k-means on a few hundred points is 10x slower on busy cores
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
    (orthonormal components plus a constant), so the clusterings are the same. The
    baseline clusters the occluded images (one set of runs, repeated on every ``d1``).
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
    h, w = load_faces(dataset, data_home).image_shape
    return [d for d in grid(FIGURE1_D1, (5,), config) if d <= min(h, w)]


def _figure1_tasks(config: RunConfig) -> list[Task]:
    caps = grid(FIGURE1_CAPS, (1.0, 3.0), config)
    max_iter = 10 if config.quick else 50
    n_kmeans = 2 if config.quick else 10
    tasks = []
    for ds in config.datasets:
        d1_grid = _figure1_grid(ds, config, config.data_home)
        for seed in seeds_for(config, n_full=1):
            for method in FIGURE1_METHODS:
                params = dict(
                    dataset=ds,
                    seed=seed,
                    method=method,
                    d1_grid=d1_grid,
                    n_kmeans=n_kmeans,
                    caps=caps,
                    data_home=config.data_home,
                    max_iter=max_iter,
                )
                tasks.append(Task(figure1_task, params, f"{ds} {method} {seed}"))
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
    claim = [
        "| data set | RWL-AN best (of d1) | R2DPCA > GLRAM | capped > GLRAM | RWL-AN > GLRAM "
        "| capped >= R2DPCA | any method > baseline |",
        "|---|---|---|---|---|---|---|",
    ]
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
        "| data set | " + " | ".join(f"d1={d}" for d in FIGURE1_D1) + " |",
        "|---" * (len(FIGURE1_D1) + 1) + "|",
    ]
    for ds in by_ds:
        parts.append(
            f"| {ds} | " + " | ".join(str(chosen.get((ds, d), "")) for d in FIGURE1_D1) + " |"
        )
    parts += [
        "\nThe paper's curves are not legible in our copy; their y-axis ranges (accuracy, %): "
        + ", ".join(f"{k} {lo}-{hi}" for k, (lo, hi) in PAPER_FIGURE1_RANGES.items())
        + "."
    ]
    return "\n".join(parts)


def _figure1_figure(rows: list[dict], config: RunConfig):
    from matplotlib.figure import Figure

    cells, _ = _figure1_cells(rows)
    datasets = list(dict.fromkeys(ds for ds, _ in cells))
    fig = Figure(figsize=(4.4 * len(datasets), 3.6), layout="constrained")
    axes = fig.subplots(1, len(datasets), squeeze=False).ravel()
    for ax, ds in zip(axes, datasets, strict=True):
        d1s = sorted(d1 for d, d1 in cells if d == ds)
        for m in FIGURE1_METHODS:
            ys = [cells[(ds, d1)].get(m, math.nan) for d1 in d1s]
            style = {"ls": "--", "color": "k"} if m == "Baseline" else {"marker": "o", "ms": 3}
            ax.plot(d1s, ys, label=m, **style)
        ax.set_title(ds)
        ax.set_xlabel("d1 = d2")
        ax.set_ylabel("clustering accuracy (%)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("Zhang & Tong 2019, Figure 1: k-means on the reconstructed images")
    return fig


# -- Figure 2 -----------------------------------------------------------------------------

FIGURE2_RATES = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
ORACLE = "PCA of the unoccluded images"


def figure2_task(
    dataset: str,
    seed: int,
    k_rates: list[float],
    data_home: str | None,
    max_iter: int | None,
) -> list[dict]:
    """RWL-AN at each ``k_rate`` (``k = floor(k_rate N)``; 1.0 is PCA), and the oracle:
    PCA fitted on the unoccluded images only, reconstructing every occluded image."""
    data, X, occluded = occluded_faces(dataset, NOISE_RATE, seed, data_home)
    m = min(TABLE2_DIMS[0] * TABLE2_DIMS[1], data.n_samples - 1)
    rows = []
    fits = [
        (
            rate,
            make_estimator(
                "RWL-AN",
                data.image_shape,
                data.n_samples,
                TABLE2_DIMS,
                seed,
                max_iter=max_iter,
                neighbor_rate=rate,
            ),
        )
        for rate in k_rates
    ]
    fits.append((None, PCA(m)))
    for rate, model in fits:
        seconds = _fit(model, X[~occluded] if rate is None else X)
        rec = model.reconstruct(X)
        weights = getattr(model, "weights_", None)
        rows.append(
            {
                "dataset": dataset,
                "seed": seed,
                "method": ORACLE if rate is None else "RWL-AN",
                "k_rate": rate,
                "n_neighbors": getattr(model, "n_neighbors_", int((~occluded).sum())),
                "error": weighted_reconstruction_error(rec, data.data) / SCALE,
                "error_own": weighted_reconstruction_error(rec, data.data, weights) / SCALE,
                "n_occluded": int(occluded.sum()),
                **_rejection(model, occluded),
                "n_iter": int(getattr(model, "n_iter_", 1)),
                "converged": bool(getattr(model, "converged_", True)),
                "seconds": seconds,
            }
        )
    return rows


def _figure2_tasks(config: RunConfig) -> list[Task]:
    rates = grid(FIGURE2_RATES, (0.6, 0.8, 1.0), config)
    max_iter = 10 if config.quick else None
    return [
        Task(
            figure2_task,
            dict(
                dataset=ds, seed=seed, k_rates=rates, data_home=config.data_home, max_iter=max_iter
            ),
            label=f"{ds} seed {seed}",
        )
        for ds in config.datasets
        for seed in seeds_for(config, n_full=3)
    ]


def _figure2_table(rows: list[dict], config: RunConfig) -> str:
    rwl = [r for r in rows if r["method"] == "RWL-AN"]
    parts = [
        "## Figure 2: RWL-AN's reconstruction error against k_rate (pixels in [0, 1])\n",
        "Mean over seeds; k_rate 1.0 is PCA. Uniform weights:\n",
        markdown_table(rwl, "dataset", "k_rate", "error", fmt="{:.3g}", highlight="min"),
        "\nEach fit's own normalised weights (the literal sec. 5.2 formula):\n",
        markdown_table(rwl, "dataset", "k_rate", "error_own", fmt="{:.3g}", highlight="min"),
        "\nRejected images (weight 0) that are occluded, as a fraction of the rejected:\n",
        markdown_table(
            [{**r, "frac": r["rejected_occluded"] / max(r["rejected"], 1)} for r in rwl],
            "dataset",
            "k_rate",
            "frac",
            fmt="{:.2f}",
        ),
        "\n## The claim, per data set\n",
        "Steady up to k_rate 0.8 (the clean fraction), rising fast beyond it. Spread: "
        "(max - min) / min of the uniform-weight error over k_rate <= 0.8; rise: error at "
        "0.95 over the error at 0.8.\n",
        "| data set | spread <= 0.8 | rise 0.8 -> 0.95 | argmin k_rate | holds | oracle "
        f"({ORACLE}) | RWL-AN at 0.8 / oracle |",
        "|---|---|---|---|---|---|---|",
    ]
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        mean: dict = {}
        for r in rwl:
            if r["dataset"] == ds:
                mean.setdefault(r["k_rate"], []).append(r["error"])
        mean = {k: float(np.mean(v)) for k, v in mean.items()}
        oracle = [r["error"] for r in rows if r["dataset"] == ds and r["method"] == ORACLE]
        low = [v for k, v in mean.items() if k <= 0.8 + 1e-9]
        if not low or 0.8 not in mean:
            continue
        spread = (max(low) - min(low)) / min(low)
        top = mean.get(0.95, mean[max(mean)])
        rise = top / mean[0.8] - 1
        holds = top > max(low) and spread < rise
        parts.append(
            f"| {ds} | {100 * spread:.1f}% | {100 * rise:+.1f}% | {min(mean, key=mean.get)} | "
            f"{'yes' if holds else 'no'} | {np.mean(oracle):.3g} | "
            f"{mean[0.8] / np.mean(oracle):.3f} |"
        )
    parts.append(
        "\nThe paper's curves are not legible in our copy; their y-axis ranges: "
        + ", ".join(f"{k} {lo}-{hi}" for k, (lo, hi) in PAPER_FIGURE2_RANGES.items())
        + "."
    )
    return "\n".join(parts)


def _figure2_figure(rows: list[dict], config: RunConfig):
    from matplotlib.figure import Figure

    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    fig = Figure(figsize=(4.4 * len(datasets), 3.6), layout="constrained")
    axes = fig.subplots(1, len(datasets), squeeze=False).ravel()
    for ax, ds in zip(axes, datasets, strict=True):
        sub = [r for r in rows if r["dataset"] == ds]
        rates = sorted({r["k_rate"] for r in sub if r["method"] == "RWL-AN"})
        for value, label in (("error", "uniform p"), ("error_own", "own p")):
            ys = [
                np.mean([r[value] for r in sub if r["method"] == "RWL-AN" and r["k_rate"] == k])
                for k in rates
            ]
            ax.plot(rates, ys, marker="o", ms=3, label=f"RWL-AN, {label}")
        oracle = np.mean([r["error"] for r in sub if r["method"] == ORACLE])
        ax.axhline(oracle, color="k", ls="--", lw=0.8, label=ORACLE)
        ax.axvline(1 - NOISE_RATE, color="grey", ls=":", lw=0.8)
        ax.set_title(ds)
        ax.set_xlabel("k_rate")
        ax.set_ylabel("reconstruction error")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("Zhang & Tong 2019, Figure 2: sensitivity to k = N x k_rate")
    return fig


# -- Table 3 ------------------------------------------------------------------------------

TABLE3_METHODS = ("RWL-AN", "GLRAM", "R2DPCA", "RPCA-OM")


def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}; {platform.system()}; numpy {np.__version__}; 1 BLAS thread"


def table3_task(
    dataset: str, method: str, n_iter: int, repeats: int, seed: int, data_home: str | None
) -> list[dict]:
    """CPU and wall time of ``n_iter`` iterations (``tol=0``) of ``method``, ``repeats``
    times, on the faces with 20% occluded, single-threaded BLAS."""
    from threadpoolctl import threadpool_limits

    data, X, _ = occluded_faces(dataset, NOISE_RATE, seed, data_home)
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        for repeat in range(repeats):
            model = make_estimator(
                method,
                data.image_shape,
                data.n_samples,
                TABLE2_DIMS,
                seed,
                max_iter=n_iter,
                tol=0.0,
            )
            cpu = time.process_time()
            wall = _fit(model, X)
            cpu = time.process_time() - cpu
            iters = int(model.n_iter_)
            rows.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "repeat": repeat,
                    "n_iter": iters,
                    "cpu_seconds": cpu,
                    "wall_seconds": wall,
                    "cpu_per_iter_ms": 1e3 * cpu / max(iters, 1),
                    "machine": _machine(),
                }
            )
    return rows


def _table3_tasks(config: RunConfig) -> list[Task]:
    n_iter, repeats = (3, 1) if config.quick else (50, 3)
    return [
        Task(
            table3_task,
            dict(
                dataset=ds,
                method=m,
                n_iter=n_iter,
                repeats=repeats,
                seed=config.seed,
                data_home=config.data_home,
            ),
            label=f"{ds} {m}",
        )
        for ds in config.datasets
        for m in TABLE3_METHODS
    ]


def _fastest(rows: list[dict]) -> dict:
    """The repeat of least CPU time per (dataset, method)."""
    best: dict = {}
    for r in rows:
        key = (r["dataset"], r["method"])
        if key not in best or r["cpu_seconds"] < best[key]["cpu_seconds"]:
            best[key] = r
    return best


def _table3_table(rows: list[dict], config: RunConfig) -> str:
    best = _fastest(rows)
    machine = rows[0]["machine"] if rows else ""
    n_iter = max((r["n_iter"] for r in rows), default=0)
    parts = [
        "## Table 3: CPU time (MACHINE-DEPENDENT)\n",
        f"Ours: {machine}; the fastest of {max((r['repeat'] for r in rows), default=0) + 1} "
        "repeats, measured in this run (process CPU time). The paper: MATLAB R2015b, "
        "Windows 7, 3.20 GHz i5-3470, 50 iterations each. Absolute times compare machines "
        "and implementations, not methods. With tol = 0 our GLRAM, R2DPCA and RPCA-OM "
        f"still stop before {n_iter} iterations, when their objective stops changing at all "
        "(RWL-AN re-picks gamma every iteration and never does), so the comparison is per "
        "iteration: 'x 50' is our time per iteration times 50, and the ratios to GLRAM are "
        "per iteration (the paper's: of its 50-iteration times). The per-iteration time "
        "includes the fit's set-up, which weighs more in short fits.\n",
        "| data set | method | iterations run | CPU (s) | per iteration (ms) | x 50 (s) | "
        "paper (s) | ours / GLRAM | paper / GLRAM |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    claims = [
        "| data set | GLRAM fastest | RWL-AN / R2DPCA (paper) | RPCA-OM / RWL-AN (paper) |",
        "|---|---|---|---|",
    ]
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        name = ds.partition(":")[0]
        per = {m: best[(ds, m)]["cpu_per_iter_ms"] for m in TABLE3_METHODS if (ds, m) in best}
        paper = {m: PAPER_TABLE3[m].get(name) for m in TABLE3_METHODS}
        for m, ms in per.items():
            p = paper[m]
            p_ratio = f"{p / paper['GLRAM']:.2f}" if p else ""
            parts.append(
                f"| {ds} | {m} | {best[(ds, m)]['n_iter']} | {best[(ds, m)]['cpu_seconds']:.3f} "
                f"| {ms:.1f} | {50 * ms / 1e3:.2f} | {p or ''} | {ms / per['GLRAM']:.2f} | "
                f"{p_ratio} |"
            )
        if len(per) == len(TABLE3_METHODS):
            p_an = f"{paper['RWL-AN'] / paper['R2DPCA']:.2f}" if paper["RWL-AN"] else "-"
            p_om = f"{paper['RPCA-OM'] / paper['RWL-AN']:.0f}" if paper["RWL-AN"] else "-"
            claims.append(
                f"| {ds} | {'yes' if min(per, key=per.get) == 'GLRAM' else 'no'} | "
                f"{per['RWL-AN'] / per['R2DPCA']:.2f} ({p_an}) | "
                f"{per['RPCA-OM'] / per['RWL-AN']:.1f} ({p_om}) |"
            )
    parts += [
        "\n## The claim, per data set (time per iteration)\n",
        "GLRAM is the fastest; RWL-AN takes about as long as R2DPCA; RPCA-OM is far slower.\n",
        *claims,
    ]
    return "\n".join(parts)


def _table3_figure(rows: list[dict], config: RunConfig):
    from matplotlib.figure import Figure

    best = _fastest(rows)
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    fig = Figure(figsize=(4.2 * len(datasets), 3.4), layout="constrained")
    axes = fig.subplots(1, len(datasets), squeeze=False).ravel()
    x = np.arange(len(TABLE3_METHODS))
    for ax, ds in zip(axes, datasets, strict=True):
        ours = [
            best[(ds, m)]["cpu_per_iter_ms"] if (ds, m) in best else math.nan
            for m in TABLE3_METHODS
        ]
        paper = [PAPER_TABLE3[m].get(ds.partition(":")[0], math.nan) for m in TABLE3_METHODS]
        ax.bar(x - 0.2, np.divide(ours, ours[1]), width=0.4, label="ours, per iteration")
        ax.bar(x + 0.2, np.divide(paper, paper[1]), width=0.4, label="paper, 50 iterations")
        ax.set_xticks(x, TABLE3_METHODS, fontsize=8)
        ax.set_yscale("log")
        ax.set_title(ds)
        ax.set_ylabel("CPU time / GLRAM's")
    axes[0].legend(fontsize=8)
    fig.suptitle("Zhang & Tong 2019, Table 3: CPU time relative to GLRAM (machine-dependent)")
    return fig


# -- registration -------------------------------------------------------------------------

_DATA_NOTE = (
    "Data: AT&T at 64x64 as in the paper (Deng Cai's ORL_64x64.mat). UMIST only at 32x32 "
    "(all 575 images; the paper's is 64x64). FEI: only a partial set of 500 of the 2,800 "
    "images at 48x64, 496 after the loader drops 4 dog photos (the paper lists 2,600 "
    "images at 32x32). FERET: the 1,400-image, 200-subject subset at 40x40 (the paper's "
    "80x80 version is not available). No data set is missing altogether. Occlusion: "
    f"{NOISE_RATE:g} of the images get one square block of uniform noise (the paper: "
    "'occluded by noises') whose area fraction is drawn uniformly in [0.25, 0.5] (our "
    "reading of 'random size (over 25% area)'; no upper bound is given). Errors are for "
    "pixel values scaled to [0, 1]; the paper does not give its scale (its PCA errors are "
    "50-300 times its other methods', which no scaling of ours reproduces)."
)

register(
    Experiment(
        name="zhangtong2019-table2",
        paper=PAPER,
        exhibit="Table 2",
        summary=(
            "Reconstruction error against the clean faces of RWL-AN, GLRAM, R2DPCA, capped "
            "R2DPCA, PCA and RPCA-OM (plus eight methods not in the paper), (d1, d2) = "
            "(9, 10) and m = 90, on raw faces and with 20% of them occluded by noise or "
            "white blocks."
        ),
        paper_datasets=PAPER_DATASETS,
        datasets=DATASETS,
        quick_datasets=("orl",),
        tasks=_table2_tasks,
        table=_table2_table,
        figure=_table2_figure,
        claim=(
            "RWL-AN has the smallest error on every noised data set; on raw data RPCA-OM is "
            "runner-up and RWL-AN and R2DPCA beat GLRAM and PCA; the robust methods beat "
            "GLRAM and PCA under occlusion."
        ),
        notes=(
            _DATA_NOTE
            + " The metric sum_i p_i ||x_r - x_o||^2 with 'normalised' weights is reported "
            "two ways: uniform p (the mean squared error over every image, which a method "
            "cannot lower by giving an image weight zero) and each method's own weights_ "
            "(the literal formula; RWL-AN then scores only its 85% kept images, 1/r-weighted "
            "methods such as RPCA-OM mostly the images they fit best). RWL-AN uses k = "
            "floor(0.85 N) and starts from p = 1/N (our estimator's default; 'RWL-AN "
            "(random p0)' is the paper's random start). Capped R2DPCA: the cap is searched "
            "over 1..5 times the median image residual of its starting point (the paper's "
            "{10, ..., 50} are in unknown units) and the best mean is kept per data set and "
            "setting. 2DPCA keeps round(90 / height) columns. The paper does not say what "
            "the blocks hold ('occluded by noises', sec. 5.3): we run uniform noise and "
            "white (data maximum) blocks, 2 occlusion seeds each (the paper: 50 random "
            "initialisations); raw data are fitted once (every fit but RWL-AN (random p0) is "
            "deterministic). Each method runs to its own convergence. The paper's units "
            "appear to be ours: on raw AT&T our R2DPCA (own p) gives 13.44 as printed, "
            "RWL-AN (own p) 3.80 against 3.56 and RPCA-OM (uniform p) 5.30 against 5.27; "
            "its PCA (1197.25) is close to the mean squared norm of the images (1213.7), as "
            "if the mean were not added back."
        ),
    )
)

register(
    Experiment(
        name="zhangtong2019-figure1",
        paper=PAPER,
        exhibit="Figure 1",
        summary=(
            "k-means clustering accuracy of the reconstructed faces (20% occluded) against "
            "d1 = d2 in 15..35, RWL-AN / GLRAM / RPCA-OM / R2DPCA / capped R2DPCA, with "
            "k-means on the occluded faces as the baseline."
        ),
        paper_datasets=PAPER_DATASETS,
        datasets=DATASETS,
        quick_datasets=("orl",),
        tasks=_figure1_tasks,
        table=_figure1_table,
        figure=_figure1_figure,
        claim=(
            "RWL-AN, R2DPCA and capped R2DPCA cluster better than GLRAM; capped R2DPCA is a "
            "little better than R2DPCA; RWL-AN is the best in most cases."
        ),
        notes=(
            _DATA_NOTE
            + " The 1-D methods use m = d1 x d2 components as the paper says, clipped to "
            "N - 1: beyond it every occluded image is reconstructed exactly, so on AT&T "
            "(N = 400) from d1 = 20 and on UMIST and FEI from d1 = 25 their accuracy is the "
            "baseline's. d1 stops at the image side (UMIST 32x32: 15..30). k-means (k = the "
            "number of subjects) runs 10 times with one random initialisation each (the "
            "paper: 50) on one occlusion seed; every fit is capped at 50 iterations (the "
            "iteration count of the paper's Table 3) to keep RPCA-OM at m up to 1,225 "
            "affordable. The capped threshold is searched over 1, 2 and 3 times the "
            "starting median residual (Table 2's winners were 1 and 2; its grid of five at "
            "five ranks would double the run) and the best accuracy kept per d1, as the "
            "paper records its best."
        ),
    )
)

register(
    Experiment(
        name="zhangtong2019-figure2",
        paper=PAPER,
        exhibit="Figure 2",
        summary=(
            "RWL-AN's reconstruction error (m = 90) against k_rate = k / N from 0.5 to 1.0 "
            "on faces with 20% occluded, against PCA fitted on the unoccluded faces only."
        ),
        paper_datasets=("AT&T 64x64", "FERET 80x80"),
        datasets=("orl:64x64", "feret:40x40"),
        quick_datasets=("orl",),
        tasks=_figure2_tasks,
        table=_figure2_table,
        figure=_figure2_figure,
        claim=(
            "The error is steady for k_rate up to 0.8 (the clean fraction) and rises rapidly "
            "beyond it, so k_rate can be set to a medium value such as 0.5."
        ),
        notes=(
            _DATA_NOTE + " The paper does not give Figure 2's dimension or metric weights; we use "
            "Table 2's m = 90 and report both readings. k_rate 1.0 (k = N) is PCA exactly. "
            "The reference line is PCA fitted on the unoccluded 80% only (an oracle that "
            "knows the outliers), reconstructing every image. 3 occlusion seeds."
        ),
    )
)

register(
    Experiment(
        name="zhangtong2019-table3",
        paper=PAPER,
        exhibit="Table 3",
        summary=(
            "CPU time of 50 iterations (tol = 0) of RWL-AN, GLRAM, R2DPCA and RPCA-OM at "
            "(d1, d2) = (9, 10) / m = 90 on faces with 20% occluded; machine-dependent."
        ),
        paper_datasets=PAPER_DATASETS,
        datasets=DATASETS,
        quick_datasets=("orl",),
        tasks=_table3_tasks,
        table=_table3_table,
        figure=_table3_figure,
        claim=(
            "GLRAM is the fastest; the optimal-mean methods are slower; RWL-AN takes about "
            "as long as R2DPCA; RPCA-OM is 16-104 times slower than RWL-AN."
        ),
        notes=(
            _DATA_NOTE
            + " Timings are CPU seconds of this process with one BLAS thread, the fastest of "
            "3 repeats, on whatever machine ran this file: they are machine-dependent and "
            "only their ratios on one machine compare methods. With tol = 0 a fit still "
            "stops once its objective stops changing at all, which GLRAM, R2DPCA and "
            "RPCA-OM often do before 50 iterations (the count is shown), so the methods "
            "are compared per iteration. RPCA-OM and RWL-AN solve eigenproblems of the same "
            "size per iteration: the paper's 16-104-fold gap between them reflects its "
            "implementations, not the methods."
        ),
    )
)
