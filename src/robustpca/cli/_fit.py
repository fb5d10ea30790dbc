"""``robustpca fit``: a robust PCA of the user's own data, with outlier diagnostics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from ._io import InputError, atomic_output_dir, read_input
from ._methods import (
    CSV_LIMIT,
    DEFAULT_METHOD,
    METHOD_ALIASES,
    SCALES,
    TABLE_SUFFIXES,
    TWO_D,
    UNSUPPORTED,
    build_model,
    check_missing,
    default_method,
    fit_model,
    parse_shape,
    resolve_method,
    scale_columns,
    supports_missing,
)
from ._options import add_command, add_folder, figures_available, int_at_least
from ._outputs import (
    GALLERY_SIZE,
    distance_block,
    distances_header,
    gallery,
    make_summary,
    outlier_map,
    report,
    write_csv,
    write_model,
    write_scaling,
)

# the method helpers live in ._methods (shared with the chunked route); re-exported here
__all__ = [
    "DEFAULT_METHOD",
    "METHOD_ALIASES",
    "TWO_D",
    "UNSUPPORTED",
    "add_parser",
    "default_method",
    "parse_size",
    "resolve_method",
    "run",
    "supports_missing",
]

#: ``--chunked-above``'s default: a table file larger than this is fitted chunk by chunk.
#: The whole-file reader holds every cell as text before converting it, several times
#: the file's size.
CHUNKED_ABOVE = float(1 << 30)


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


def add_parser(sub) -> None:
    """Add the ``fit`` sub-command."""
    fit = add_command(
        sub,
        "fit",
        run,
        help="fit a robust PCA to your data and flag outliers",
        description=(
            "Fit a robust PCA to INPUT (a CSV/TSV or Parquet table with one sample per "
            "row, a .npy array, or a folder of same-size images) and write to --out: "
            "components, mean, scores, reconstructions, score and orthogonal distances "
            "with rrcov-style cutoffs and flags, a summary, and figures where matplotlib "
            "is installed (outlier map; for images, a gallery and the components). "
            "Empty, NA and NaN cells are missing entries: they are fitted on the observed "
            "entries and completed.csv (completed.npy) holds the table with them filled "
            "in. The folder appears only when everything is written. A table larger than "
            "--chunked-above is read "
            "and fitted chunk by chunk (--chunked)."
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
        help="table column (name or 1-based number) holding the row labels; it is not "
        "fitted and labels the outputs and the flagged points of the outlier map. A name "
        "that several columns share is refused: give the column's number",
    )
    fit.add_argument(
        "--drop",
        metavar="COLS",
        action="append",
        default=[],
        help="comma-separated table columns (names or 1-based numbers) left out of the fit; "
        "may be repeated. A name that several columns share is refused: give the numbers",
    )
    fit.add_argument(
        "--header",
        choices=("auto", "yes", "no"),
        default="auto",
        help="whether a CSV/TSV/TXT table's first line names its columns; auto (default): "
        "when one of its cells is not a number, nor empty or NA (a header of years needs "
        "yes)",
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
    fit.add_argument(
        "--chunked",
        action="store_true",
        help="read the table (CSV/TSV or Parquet) with dask.dataframe and fit it chunk by "
        "chunk, never holding it in memory; only the methods with a chunked fit (the "
        "Dask route, docs/dask.md) are available. Done by default for a table larger "
        "than --chunked-above",
    )
    fit.add_argument(
        "--chunked-above",
        type=parse_size,
        default=CHUNKED_ABOVE,
        metavar="SIZE",
        help="a table file larger than this is read and fitted chunk by chunk, as with "
        "--chunked: a size such as 500MB or 2GB, or never (default 1GB)",
    )
    fit.add_argument(
        "--chunk-rows",
        type=int_at_least(1),
        default=None,
        metavar="N",
        help="rows per chunk of the chunked route (default: chunks of about 32 MB)",
    )


def parse_size(text: str) -> float:
    """``--chunked-above``: a byte count with an optional unit (KB, MB, GB, TB; powers
    of 1024), or ``never`` (infinity)."""
    value = str(text).strip().lower().replace(" ", "")
    if value in ("never", "inf", "none"):
        return float("inf")
    units = {"tb": 1 << 40, "gb": 1 << 30, "mb": 1 << 20, "kb": 1 << 10, "b": 1}
    factor = 1
    for unit, size in units.items():
        if value.endswith(unit):
            value, factor = value[: -len(unit)], size
            break
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not number >= 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(
            f"expected a size such as 500MB or 2GB, or never; got {text!r}"
        )
    return number * factor


def use_chunked(args) -> bool:
    """Whether ``args.input`` goes to the chunked route: ``--chunked``, or a table file
    (CSV/TSV/TXT or Parquet) larger than ``--chunked-above``."""
    if args.chunked:
        return True
    path = Path(args.input)
    if path.suffix.lower() not in TABLE_SUFFIXES or not path.exists():
        return False
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) > args.chunked_above


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
    output = atomic_output_dir(args.out, overwrite=args.overwrite, inputs=(args.input,))
    output.check()  # a bad --out (one holding the input included) before any reading
    if not args.no_figures and not figures_available("fit"):
        args.no_figures = True  # said up front, then the other outputs as usual
    if use_chunked(args):
        from ._chunked import run_chunked

        return run_chunked(args, drop)
    data = read_input(args.input, index_col=args.index_col, drop=drop, header=args.header)
    X_input, n_features = data.X, data.X.shape[1]
    image_shape = parse_shape(args.image_shape, n_features) or data.image_shape
    missing = np.isnan(X_input)
    n_missing = int(missing.sum())
    method = args.method or default_method(image_shape is not None, n_missing > 0)
    cls = resolve_method(method)
    check_missing(cls, n_missing, args.input)
    X, center, scale = scale_columns(X_input, args.scale, data.feature_names)
    model, params = build_model(cls, args, X.shape, image_shape)
    seconds, not_converged = fit_model(model, X)
    diag = outlier_diagnostics(model, X, quantile=args.quantile)
    scores = model.transform(X)
    recon = model.reconstruct(X)
    if scale is not None:
        recon = recon * scale + center  # back in the input's units
    completed = np.where(missing, recon, X_input) if n_missing else X_input
    with output as tmp:
        write_model(tmp, model, data.feature_names)
        comp_names = [f"pc{j + 1}" for j in range(model.components_.shape[0])]
        write_csv(tmp / "scores.csv", comp_names, scores, index=data.sample_names)
        np.save(tmp / "reconstructions.npy", recon)
        if recon.size <= CSV_LIMIT:
            write_csv(
                tmp / "reconstructions.csv", data.feature_names, recon, index=data.sample_names
            )
        if n_missing:  # the input with its gaps filled by the fit
            np.save(tmp / "completed.npy", completed)
            if completed.size <= CSV_LIMIT:
                write_csv(
                    tmp / "completed.csv",
                    data.feature_names,
                    completed,
                    index=data.sample_names,
                )
        weights = getattr(model, "weights_", None)
        with open(tmp / "distances.csv", "w", encoding="utf-8") as handle:
            handle.write(distances_header(weights is not None) + "\n")
            weights = None if weights is None else np.ravel(weights)
            handle.write(distance_block(data.sample_names, diag, weights))
        write_scaling(tmp, data.feature_names, center, scale)
        summary = make_summary(
            args,
            model,
            params,
            diag,
            kind=data.kind,
            shape=X.shape,
            n_missing=n_missing,
            seconds=seconds,
            converged=not not_converged,
            image_shape=image_shape,
            drop=drop,
        )
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        if not args.no_figures:
            outlier_map(tmp, diag, data.sample_names)
            if image_shape is not None:
                shown = np.argsort(-diag.orthogonal_distances)[:GALLERY_SIZE]
                # in the input's units, as recon (gaps filled by the fit)
                gallery(tmp, model, completed[shown], recon[shown], image_shape)
    flagged = np.flatnonzero(diag.outliers)
    top = flagged[np.argsort(-diag.orthogonal_distances[flagged])][:10]
    report(args, summary, [data.sample_names[i] for i in top])
    return 0
