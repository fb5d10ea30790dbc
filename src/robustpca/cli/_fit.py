"""``robustpca fit``: a robust PCA of the user's own data, with outlier diagnostics."""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._io import InputError, atomic_output_dir, read_input
from ._options import add_command, add_folder, int_at_least

__all__ = ["METHOD_ALIASES", "add_parser", "resolve_method", "run"]

#: Short names accepted by ``--method`` (any estimator class name works too).
METHOD_ALIASES = {
    "robpca": "ROBPCA",
    "spherical-pca": "SphericalPCA",
    "locantore": "SphericalPCA",
    "pp-pca": "ProjectionPursuitPCA",
    "pcagrid": "ProjectionPursuitPCA",
    "cov-pca": "CovariancePCA",
    "pca": "PCA",
    "rpca-om": "OptimalMeanPCA",
    "pca-l21": "L21PCA",
    "pca-l1": "L1PCA",
    "r1-pca": "R1PCA",
    "pca-gm": "GeneralizedMeanPCA",
    "hq-pca": "HQPCA",
    "rwl-an": "AdaptiveNeighborsPCA",
    "pcp": "PrincipalComponentPursuit",
    "outlier-pursuit": "OutlierPursuit",
    "crpca-om": "ConvexOptimalMeanPCA",
    "rank-rpca": "RankConstrainedRobustPCA",
    "2dpca": "TwoDPCA",
    "glram": "GLRAM",
    "r2dpca": "Robust2DPCA",
    "capped-r2dpca": "CappedRobust2DPCA",
    "l21-2dpca": "L21TwoDPCA",
}
#: Estimators ``fit`` cannot run: they need more than one data matrix, or are not linear.
UNSUPPORTED = {
    "RobustTransferPCA": "it needs a source data set as well as the target",
    "KernelL21PCA": "it is a kernel method without linear components or a mean",
}
TWO_D = {"TwoDPCA", "GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"}
#: ``--method`` default, by input (the evidence is in docs/which-method.md, measured by
#: benchmarks/which_method.py). Tables: the high-breakdown ROBPCA, the only method that
#: keeps its subspace under a tight cluster of bad leverage points (every l2,1/M-type
#: method of ours breaks there at small shares); RPCA-OM in a build without ROBPCA.
#: Images: RWL-AN (AdaptiveNeighborsPCA), which on the occluded AT&T faces finds the
#: occluded images best and reconstructs them best, in a fraction of a second.
DEFAULT_METHOD = {
    "table": ("ROBPCA", "OptimalMeanPCA"),
    "images": ("AdaptiveNeighborsPCA", "OptimalMeanPCA"),
}
SCALES = ("none", "standard", "robust")
#: Above this many values the reconstructions are written as .npy only (not CSV too).
CSV_LIMIT = 2_000_000


def resolve_method(name: str):
    """The estimator class for ``--method`` (alias or class name, case-insensitive)."""
    import robustpca

    available = tuple(robustpca.ESTIMATOR_NAMES)
    by_lower = {n.lower(): n for n in available}
    key = name.strip().lower()
    cls_name = METHOD_ALIASES.get(key) or by_lower.get(key)
    if cls_name is None or cls_name not in available:
        aliases = [a for a, c in METHOD_ALIASES.items() if c in available]
        choices = ", ".join([*aliases, *available])
        raise InputError(f"--method: unknown method {name!r}; choose from {choices}")
    if cls_name in UNSUPPORTED:
        raise InputError(f"--method {cls_name} is not available in `fit`: {UNSUPPORTED[cls_name]}")
    return getattr(robustpca, cls_name)


def supports_missing(cls) -> bool:
    """Whether the estimator class fits data with missing (NaN) entries."""
    return bool(getattr(cls, "_supports_missing", False))


def default_method(is_images: bool, has_missing: bool = False) -> str:
    """The ``--method`` used when none is given (:data:`DEFAULT_METHOD`); with missing
    entries, the first candidate whose class fits them (``_supports_missing``)."""
    import robustpca

    candidates = DEFAULT_METHOD["images" if is_images else "table"]
    available = [c for c in candidates if c in robustpca.ESTIMATOR_NAMES]
    if has_missing:
        usable = [c for c in available if supports_missing(getattr(robustpca, c))]
        available = usable or available
    return available[0]


def parse_n_components(text: str) -> int | float | str:
    """``-k``: a positive int, a variance share in (0, 1), or ``auto``."""
    value = str(text).strip().lower()
    if value == "auto":
        return "auto"
    try:
        whole = int(value)
    except ValueError:
        pass
    else:
        if whole >= 1:
            return whole
    try:
        share = float(value)
    except ValueError:
        share = float("nan")
    if not 0 < share < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number of components (1, 2, ...), a share of variance in (0, 1) "
            f"such as 0.9, or auto; got {text!r}"
        )
    return share


def scale_columns(X: np.ndarray, how: str, names: list[str]):
    """Centre and scale the columns: ``standard`` (mean/sd) or ``robust`` (median/MAD).

    The MAD is multiplied by 1.4826 (consistent for the normal sd), as R's ``mad`` that
    rrcov users pass as ``scale=mad``. A column whose scale is zero (constant, or for the
    MAD more than half its values equal) cannot be scaled: InputError names it.
    Returns the scaled copy, the centres and the scales (None for ``none``).
    """
    if how == "none":
        return X, None, None
    if how == "standard":  # on the observed values of each column (NaN is missing)
        center = np.nanmean(X, axis=0)
        scale = np.nanstd(X, axis=0, ddof=1)
    else:
        center = np.nanmedian(X, axis=0)
        scale = 1.482602218505602 * np.nanmedian(np.abs(X - center), axis=0)
    zero = np.flatnonzero(~(scale > 1e-12 * np.maximum(1.0, np.abs(center))))
    if zero.size:
        which = ", ".join(repr(names[j]) for j in zero[:5]) + (" ..." if zero.size > 5 else "")
        rule = "standard deviation" if how == "standard" else "MAD (median absolute deviation)"
        raise InputError(
            f"--scale {how}: the {rule} of column(s) {which} is zero, so they cannot be "
            "scaled; --drop them, or use --scale standard / none"
        )
    return (X - center) / scale, center, scale


def add_parser(sub) -> None:
    """Add the ``fit`` sub-command."""
    fit = add_command(
        sub,
        "fit",
        run,
        help="fit a robust PCA to your data and flag outliers",
        description=(
            "Fit a robust PCA to INPUT (a CSV/TSV table with one sample per row, a .npy "
            "array, or a folder of same-size images) and write to --out: components, "
            "mean, scores, reconstructions, score and orthogonal distances with "
            "rrcov-style cutoffs and flags, a summary, and figures (outlier map; for "
            "images, a gallery and the components). Empty, NA and NaN cells are "
            "missing entries: they are fitted on the observed entries and completed.csv "
            "(completed.npy) holds the table with them filled in. The folder appears "
            "only when everything is written."
        ),
    )
    fit.add_argument("input", type=Path, metavar="INPUT")
    fit.add_argument(
        "--method",
        default=None,
        help="method: an alias (rpca-om, pca-l21, r1-pca, pca-l1, pca, pca-gm, hq-pca, "
        f"rwl-an, pcp, ...) or a class name; default {default_method(False)} for tables "
        f"and {default_method(True)} for images (see docs/which-method.md)",
    )
    fit.add_argument(
        "--n-components",
        "-k",
        type=parse_n_components,
        default="auto",
        metavar="K",
        help="number of components; a share of variance in (0, 1) such as 0.9; or auto "
        "(rrcov's rule: 80%% of the robust variance; the default; for pcp, "
        "outlier-pursuit and crpca-om their penalty sets the rank). The known-rank "
        "methods (godec, accaltproj, rank-rpca) and the 2-D ones need a whole number",
    )
    fit.add_argument(
        "--scale",
        choices=SCALES,
        default="none",
        help="scale the columns before fitting: none (default), standard (mean/sd) or "
        "robust (median/MAD, as rrcov's scale=mad); a zero-scale column is an error. "
        "components/mean/scores are in the scaled units, reconstructions in the input's; "
        "scaling.csv holds the centres and scales",
    )
    fit.add_argument(
        "--index-col",
        metavar="COL",
        help="CSV column (name or 1-based number) holding the row labels; it is not "
        "fitted and labels the outputs and the flagged points of the outlier map",
    )
    fit.add_argument(
        "--drop",
        metavar="COLS",
        action="append",
        default=[],
        help="comma-separated CSV columns (names or 1-based numbers) left out of the fit; "
        "may be repeated",
    )
    add_folder(fit, "--out", "output folder (created)", required=True)
    fit.add_argument("--overwrite", action="store_true", help="replace a non-empty --out")
    fit.add_argument(
        "--image-shape",
        metavar="HxW",
        help="image height x width for CSV/.npy rows that are images",
    )
    fit.add_argument(
        "--quantile",
        type=float,
        default=0.975,
        help="quantile of the outlier cutoffs (default 0.975)",
    )
    fit.add_argument("--random-state", type=int_at_least(0), default=0)
    fit.add_argument(
        "--max-iter",
        type=int_at_least(1),
        default=None,
        help="iteration cap of the solver (iterative methods only)",
    )
    fit.add_argument("--no-figures", action="store_true", help="skip the PNG figures")


def _parse_shape(text: str | None, n_features: int) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        h, w = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InputError(f"--image-shape must look like 32x32, got {text!r}") from None
    if h < 1 or w < 1 or h * w != n_features:
        raise InputError(f"--image-shape {h}x{w} does not match the {n_features} features")
    return h, w


def _write_csv(path: Path, header: list[str], rows, index: list[str] | None = None) -> None:
    buffer = io.StringIO()
    lead = ["sample"] if index is not None else []
    buffer.write(",".join([*lead, *header]) + "\n")
    for i, row in enumerate(np.atleast_2d(rows)):
        cells = [repr(float(v)) for v in row]
        buffer.write(",".join(([index[i]] if index is not None else []) + cells) + "\n")
    path.write_text(buffer.getvalue())


def run(args, parser: argparse.ArgumentParser) -> int:
    try:
        return _run(args)
    except InputError as error:
        print(f"robustpca fit: error: {error}", file=sys.stderr)
        return 1


def _run(args) -> int:
    from ..diagnostics import outlier_diagnostics

    if args.method is not None:
        resolve_method(args.method)  # an unknown method fails before reading the data
    if not 0.5 < args.quantile < 1:
        raise InputError(f"--quantile must be in (0.5, 1), got {args.quantile}")
    drop = tuple(c.strip() for spec in args.drop for c in spec.split(",") if c.strip())
    data = read_input(args.input, index_col=args.index_col, drop=drop)
    X_input, n_features = data.X, data.X.shape[1]
    image_shape = _parse_shape(args.image_shape, n_features) or data.image_shape
    missing = np.isnan(X_input)
    n_missing = int(missing.sum())
    method = args.method or default_method(image_shape is not None, n_missing > 0)
    cls = resolve_method(method)
    if n_missing and not supports_missing(cls):
        import robustpca

        able = [n for n in robustpca.ESTIMATOR_NAMES if supports_missing(getattr(robustpca, n))]
        raise InputError(
            f"{args.input}: {n_missing} cell(s) are missing (empty or NaN), and --method "
            f"{cls.__name__} cannot fit missing entries; use one of {', '.join(able)}, or "
            "fill them first"
        )
    X, center, scale = scale_columns(X_input, args.scale, data.feature_names)
    k = args.n_components
    if isinstance(k, int) and not 1 <= k <= min(X.shape):
        raise InputError(
            f"--n-components must be between 1 and {min(X.shape)} "
            f"(samples x features = {X.shape[0]} x {X.shape[1]}), got {k}"
        )
    if not isinstance(k, int) and not cls._supports_auto_rank and cls.__name__ not in TWO_D:
        if k == "auto" and not cls._n_components_is_rank:
            k = None  # the penalty of PCP, outlier pursuit and CRPCA-OM sets the rank
        else:
            also = "" if cls._n_components_is_rank else " or auto (its penalty sets the rank)"
            raise InputError(f"--method {cls.__name__} needs a whole number -k{also}; got {k}")
    params = {"n_components": k}
    model = cls()
    if "random_state" in model.get_params():
        params["random_state"] = args.random_state
    if args.max_iter is not None:
        if "max_iter" not in model.get_params():
            raise InputError(f"--max-iter: {cls.__name__} has no iteration cap")
        params["max_iter"] = args.max_iter
    if cls.__name__ in TWO_D:
        if image_shape is None:
            raise InputError(
                f"--method {cls.__name__} works on images: give a folder of "
                "images or --image-shape HxW"
            )
        if not isinstance(k, int):
            raise InputError(f"--method {cls.__name__} needs a whole number -k (got {k})")
        params["n_components"] = (k, k)
        params["image_shape"] = image_shape
    model.set_params(**params)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        try:
            model.fit(X)
        except ValueError as error:
            raise InputError(f"fitting {cls.__name__} failed: {error}") from None
    seconds = time.perf_counter() - start
    not_converged = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    diag = outlier_diagnostics(model, X, quantile=args.quantile)
    scores = model.transform(X)
    recon = model.reconstruct(X)
    if scale is not None:
        recon = recon * scale + center  # back in the input's units
    completed = np.where(missing, recon, X_input) if n_missing else X_input
    k_chosen = getattr(model, "n_components_", None)
    if not isinstance(k_chosen, (int, np.integer)):  # 2-D methods: a pair
        k_chosen = model.components_.shape[0]
    k_chosen = int(k_chosen)
    with atomic_output_dir(args.out, overwrite=args.overwrite) as tmp:
        comp_names = [f"pc{j + 1}" for j in range(model.components_.shape[0])]
        _write_csv(tmp / "components.csv", data.feature_names, model.components_, index=comp_names)
        _write_csv(tmp / "mean.csv", data.feature_names, model.mean_[None, :])
        _write_csv(tmp / "scores.csv", comp_names, scores, index=data.sample_names)
        np.save(tmp / "reconstructions.npy", recon)
        if recon.size <= CSV_LIMIT:
            _write_csv(
                tmp / "reconstructions.csv", data.feature_names, recon, index=data.sample_names
            )
        if n_missing:  # the input with its gaps filled by the fit
            np.save(tmp / "completed.npy", completed)
            if completed.size <= CSV_LIMIT:
                _write_csv(
                    tmp / "completed.csv",
                    data.feature_names,
                    completed,
                    index=data.sample_names,
                )
        _write_distances(tmp / "distances.csv", data.sample_names, diag, model)
        if scale is not None:
            _write_csv(
                tmp / "scaling.csv",
                data.feature_names,
                np.vstack([center, scale]),
                index=["center", "scale"],
            )
        summary = {
            "input": str(args.input),
            "kind": data.kind,
            "n_samples": X.shape[0],
            "n_features": n_features,
            "n_missing": n_missing,
            "missing_fraction": round(n_missing / X_input.size, 6),
            "method": cls.__name__,
            "params": {key: (list(v) if isinstance(v, tuple) else v) for key, v in params.items()},
            "n_components": k_chosen,
            "scale": args.scale,
            "index_col": args.index_col,
            "dropped": list(drop),
            "n_iter": int(getattr(model, "n_iter_", 0)),
            "converged": bool(getattr(model, "converged_", True)) and not not_converged,
            "fit_seconds": round(seconds, 4),
            "quantile": args.quantile,
            "score_cutoff": float(diag.score_cutoff),
            "orthogonal_cutoff": float(diag.orthogonal_cutoff),
            "n_score_outliers": int(diag.score_outliers.sum()),
            "n_orthogonal_outliers": int(diag.orthogonal_outliers.sum()),
            "n_outliers": int(diag.outliers.sum()),
            "image_shape": list(image_shape) if image_shape else None,
        }
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        if not args.no_figures:
            X_shown = np.where(missing, model.reconstruct(X), X) if n_missing else X
            _figures(tmp, model, X_shown, recon, diag, data.sample_names, image_shape)
    _report(args, summary, diag, data.sample_names)
    return 0


def _write_distances(path: Path, names, diag, model) -> None:
    weights = getattr(model, "weights_", None)
    lines = [
        "sample,score_distance,orthogonal_distance,score_outlier,orthogonal_outlier,"
        "outlier" + (",weight" if weights is not None else "")
    ]
    for i, name in enumerate(names):
        cells = [
            name,
            repr(float(diag.score_distances[i])),
            repr(float(diag.orthogonal_distances[i])),
            str(bool(diag.score_outliers[i])),
            str(bool(diag.orthogonal_outliers[i])),
            str(bool(diag.outliers[i])),
        ]
        if weights is not None:
            cells.append(repr(float(np.ravel(weights)[i])))
        lines.append(",".join(cells))
    path.write_text("\n".join(lines) + "\n")


def _figures(folder: Path, model, X, recon, diag, names, image_shape) -> None:
    from ..diagnostics import plot_outlier_map
    from ..plotting import plot_gallery

    ax = plot_outlier_map(diag, labels=list(names))
    ax.figure.savefig(folder / "outlier_map.png", dpi=110, bbox_inches="tight")
    if image_shape is None:
        return
    order = np.argsort(-diag.orthogonal_distances)
    shown = order[: min(8, len(order))]
    fig = plot_gallery(
        {"input": X, "reconstructed": recon, "|residual|": np.abs(X - recon)},
        image_shape,
        indices=shown,
        title="The samples farthest from the subspace",
    )
    fig.savefig(folder / "gallery.png", dpi=110)
    comps = model.components_[: min(8, model.components_.shape[0])]
    fig = plot_gallery({"components": comps}, image_shape, n_images=len(comps))
    fig.savefig(folder / "components.png", dpi=110)


def _report(args, summary, diag, names) -> None:
    out = sys.stdout
    print(
        f"{summary['method']} on {summary['n_samples']} x {summary['n_features']} "
        f"({summary['kind']}), k = {summary['n_components']}: {summary['n_iter']} iterations, "
        f"{'converged' if summary['converged'] else 'NOT converged (raise --max-iter)'}, "
        f"{summary['fit_seconds']:.2f} s",
        file=out,
    )
    print(
        f"Outliers at the {100 * args.quantile:g}% cutoffs: "
        f"{summary['n_outliers']} ({summary['n_score_outliers']} by score distance, "
        f"{summary['n_orthogonal_outliers']} by orthogonal distance)",
        file=out,
    )
    if summary["n_missing"]:
        print(
            f"Missing entries: {summary['n_missing']} "
            f"({100 * summary['missing_fraction']:.3g}% of the cells), fitted on the observed "
            "entries; completed.csv holds the table with them filled in",
            file=out,
        )
    flagged = np.flatnonzero(diag.outliers)
    if flagged.size:
        top = flagged[np.argsort(-diag.orthogonal_distances[flagged])][:10]
        print("Most outlying: " + ", ".join(names[i] for i in top), file=out)
    print(f"Wrote {args.out}/", file=out)
