"""The output files of ``robustpca fit``, shared by the in-memory and the chunked routes:
the same names, columns and number format (``repr`` of each value) either way."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import numpy as np

__all__ = [
    "GALLERY_SIZE",
    "chosen_rank",
    "csv_block",
    "csv_field",
    "csv_header",
    "distance_block",
    "distances_header",
    "gallery",
    "make_summary",
    "outlier_map",
    "report",
    "write_csv",
    "write_model",
    "write_scaling",
]


def _lines(row_format: str, columns: list) -> str:
    """Rows of ``columns`` (sequences of equal length) through ``row_format``, by one
    %-formatting of the whole block: the loop runs in C, not per row in Python."""
    n = len(columns[0]) if columns else 0
    return (row_format * n) % tuple(itertools.chain.from_iterable(zip(*columns, strict=True)))


#: The characters that make a CSV field quoted, as the csv module's minimal quoting does.
_SPECIAL = re.compile(r'[,"\r\n]')


def csv_field(text: str) -> str:
    """``text`` as one CSV field: quoted (inner quotes doubled) when it holds a comma, a
    quote or a line break, as :mod:`csv` writes it, so that labels and names read back."""
    if _SPECIAL.search(text) is None:
        return text
    return '"' + text.replace('"', '""') + '"'


def csv_fields(texts) -> list[str]:
    """:func:`csv_field` of each of ``texts``."""
    return [csv_field(str(text)) for text in texts]


def csv_block(rows, index=None) -> str:
    """The CSV lines (each ending in a newline) of the rows of a matrix, ``repr`` of each
    value (round-trip exact), led by its label when ``index`` is given."""
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    columns = rows.T.tolist()
    if not columns:  # no column: an empty cell list per row
        columns = [[""] * rows.shape[0]]
        cells = "%s"
    else:
        cells = ",".join(["%r"] * len(columns))
    if index is None:
        return _lines(cells + "\n", columns)
    return _lines("%s," + cells + "\n", [csv_fields(index), *columns])


def csv_header(header: list[str], labelled: bool, label: str = "sample") -> str:
    """The header line (no newline) of a CSV output, its names quoted where needed; the
    first column, the rows' labels where ``labelled``, is named ``label``."""
    return ",".join(csv_fields([*([label] if labelled else []), *header]))


def write_csv(
    path: Path, header: list[str], rows, index: list[str] | None = None, label: str = "sample"
) -> None:
    """The CSV file ``path``: ``header``, then ``rows``, each led by its label from
    ``index`` (where given) in a first column named ``label``."""
    path.write_text(
        csv_header(header, index is not None, label) + "\n" + csv_block(rows, index),
        encoding="utf-8",
    )


def chosen_rank(model) -> int:
    k_chosen = getattr(model, "n_components_", None)
    if not isinstance(k_chosen, (int, np.integer)):  # 2-D methods: a pair
        k_chosen = model.components_.shape[0]
    return int(k_chosen)


def write_model(folder: Path, model, feature_names: list[str]) -> None:
    """components.csv (a row per component, pc1, pc2, ..., in a column ``component``) and
    mean.csv."""
    comp_names = [f"pc{j + 1}" for j in range(model.components_.shape[0])]
    write_csv(
        folder / "components.csv",
        feature_names,
        model.components_,
        index=comp_names,
        label="component",
    )
    write_csv(folder / "mean.csv", feature_names, model.mean_[None, :])


def write_scaling(folder: Path, feature_names: list[str], center, scale) -> None:
    """scaling.csv, the centres and scales of ``--scale`` (nothing without scaling)."""
    if scale is not None:
        write_csv(
            folder / "scaling.csv",
            feature_names,
            np.vstack([center, scale]),
            index=["center", "scale"],
        )


def make_summary(
    args, model, params, diag, *, kind, shape, n_missing, seconds, converged, image_shape, drop
) -> dict:
    """summary.json's content."""
    return {
        "input": str(args.input),
        "kind": kind,
        "n_samples": int(shape[0]),
        "n_features": int(shape[1]),
        "n_missing": int(n_missing),
        "missing_fraction": round(n_missing / (shape[0] * shape[1]), 6),
        "method": type(model).__name__,
        "params": {key: (list(v) if isinstance(v, tuple) else v) for key, v in params.items()},
        "n_components": chosen_rank(model),
        "scale": args.scale,
        "index_col": args.index_col,
        "dropped": list(drop),
        "n_iter": int(getattr(model, "n_iter_", 0)),
        "converged": bool(getattr(model, "converged_", True)) and converged,
        "fit_seconds": round(seconds, 4),
        "quantile": args.quantile,
        "score_cutoff": float(diag.score_cutoff),
        "orthogonal_cutoff": float(diag.orthogonal_cutoff),
        "n_score_outliers": int(diag.score_outliers.sum()),
        "n_orthogonal_outliers": int(diag.orthogonal_outliers.sum()),
        "n_outliers": int(diag.outliers.sum()),
        "image_shape": list(image_shape) if image_shape else None,
    }


def distances_header(weighted: bool) -> str:
    return "sample,score_distance,orthogonal_distance,score_outlier,orthogonal_outlier,outlier" + (
        ",weight" if weighted else ""
    )


def distance_block(names, diag, weights=None, start: int = 0, stop: int | None = None) -> str:
    """The lines of distances.csv (each ending in a newline) for the rows ``start:stop``
    of ``diag`` (``names`` and ``weights`` hold those rows only)."""
    rows = slice(start, stop)
    columns = [
        csv_fields(names),
        diag.score_distances[rows].tolist(),
        diag.orthogonal_distances[rows].tolist(),
        diag.score_outliers[rows].tolist(),
        diag.orthogonal_outliers[rows].tolist(),
        diag.outliers[rows].tolist(),
    ]
    row_format = "%s,%r,%r,%s,%s,%s"
    if weights is not None:
        columns.append(np.asarray(weights, dtype=np.float64).tolist())
        row_format += ",%r"
    return _lines(row_format + "\n", columns)


#: The samples farthest from the subspace shown in gallery.png.
GALLERY_SIZE = 8


def outlier_map(folder: Path, diag, labels) -> None:
    """outlier_map.png (``labels=False``: no labels on the flagged points)."""
    from ..diagnostics import plot_outlier_map

    ax = plot_outlier_map(diag, labels=labels if labels is False else list(labels))
    ax.figure.savefig(folder / "outlier_map.png", dpi=110, bbox_inches="tight")


def gallery(folder: Path, model, X_shown, recon_shown, image_shape) -> None:
    """gallery.png (the given samples, farthest first) and components.png."""
    from ..plotting import plot_gallery

    fig = plot_gallery(
        {
            "input": X_shown,
            "reconstructed": recon_shown,
            "|residual|": np.abs(X_shown - recon_shown),
        },
        image_shape,
        indices=np.arange(len(X_shown)),
        title="The samples farthest from the subspace",
    )
    fig.savefig(folder / "gallery.png", dpi=110)
    comps = model.components_[: min(8, model.components_.shape[0])]
    fig = plot_gallery({"components": comps}, image_shape, n_images=len(comps))
    fig.savefig(folder / "components.png", dpi=110)


def _input_format(path, kind: str) -> str:
    """The input's format as the report names it: a text table's suffix (csv, tsv or
    txt; its ``kind`` is "csv" whatever the separator), else ``kind``."""
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if kind == "csv" and suffix in ("csv", "tsv", "txt") else kind


def report(args, summary, most_outlying: list[str]) -> None:
    """The lines printed at the end: the fit, the outliers, where the output is."""
    out = sys.stdout
    n_iter = summary["n_iter"]
    print(
        f"{summary['method']} on {summary['n_samples']} x {summary['n_features']} "
        f"({_input_format(args.input, summary['kind'])}), k = {summary['n_components']}: "
        f"{n_iter} iteration{'' if n_iter == 1 else 's'}, "
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
    if most_outlying:
        print("Most outlying: " + ", ".join(most_outlying), file=out)
    print(f"Wrote {args.out}/", file=out)
