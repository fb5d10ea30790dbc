"""``robustpca fit`` on a table larger than memory: read, fitted and written chunk by chunk.

Taken with ``--chunked``, or for a CSV/TSV or Parquet file larger than
``--chunked-above``. The steps, none of which holds the table:

1. **Read** (:func:`~robustpca.cli._spill.scan_table`): :mod:`dask.dataframe` reads the
   table partition by partition into a float64 binary copy beside ``--out`` (removed at
   the end), with the whole-file reader's checks and the counts of missing cells.
2. **Fit**: the estimator's chunked fit (the Dask route, :data:`robustpca._dask.fit.FITS`)
   on a dask array whose chunks are read from that copy. A method without a chunked fit
   is refused before the table is read, naming those that have one (looked up in
   ``FITS`` when the command runs).
3. **Diagnose and write**: the Dask fit stores the reference statistics of the
   diagnostics, exactly those of the in-memory fit, by counting passes over the chunks
   (:mod:`robustpca._dask.reference`: no per-row array); one pass writes each chunk's
   scores, reconstructions (and the completed table) and keeps each row's score and
   orthogonal distance (two floats a row), and distances.csv is written chunk by chunk
   with them.

The outputs are those of the in-memory run (names, columns, number format); the figures
draw at most :data:`MAP_POINTS` samples of the outlier map.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np

from ._io import InputError, atomic_output_dir
from ._methods import (
    CSV_LIMIT,
    DEFAULT_METHOD,
    MAD_FACTOR,
    TABLE_SUFFIXES,
    UNSUPPORTED,
    build_model,
    check_missing,
    check_scales,
    fit_model,
    parse_shape,
    resolve_method,
    supports_missing,
)
from ._outputs import (
    GALLERY_SIZE,
    csv_block,
    csv_header,
    distance_block,
    distances_header,
    gallery,
    make_summary,
    outlier_map,
    report,
    write_model,
    write_scaling,
)
from ._spill import Scan, chunk_rows, column_median_mad, release_memory, scan_table

__all__ = ["MAP_POINTS", "chunked_methods", "run_chunked"]

#: The outlier map of a larger table draws this many samples: the flagged ones farthest
#: beyond their cutoffs first, the rest drawn at random (``--random-state``), unlabelled.
MAP_POINTS = 20_000


def chunked_methods() -> list[str]:
    """The estimators ``fit`` can run chunk by chunk: those whose ``_dask_fit`` names a
    chunked fit in :data:`robustpca._dask.fit.FITS`, as registered now."""
    import robustpca

    try:
        from .._dask.fit import FITS
    except ImportError as exc:  # dask missing: no chunked fit; any other failure is a bug
        if (exc.name or "").partition(".")[0] not in ("dask", "toolz", "cloudpickle"):
            raise
        return []
    return [
        name
        for name in robustpca.ESTIMATOR_NAMES
        if name not in UNSUPPORTED and getattr(getattr(robustpca, name), "_dask_fit", None) in FITS
    ]


def check_chunked(cls) -> None:
    """InputError for a method without a chunked fit, naming those with one."""
    able = chunked_methods()
    if cls.__name__ not in able:
        raise InputError(
            f"--method {cls.__name__} has no chunked fit, so it cannot fit a table chunk "
            f"by chunk (--chunked, or a file larger than --chunked-above); the methods "
            f"with one: {', '.join(able) or 'none (is dask installed?)'}. Or fit in memory "
            "with --chunked-above never"
        )


def takes_missing_chunked(cls) -> bool:
    """Whether the chunked fit of ``cls`` takes missing entries: tried on a small Dask
    array with one NaN (the chunked fits take them where their solver's route does, which
    the class alone does not say)."""
    import warnings

    import dask.array as da

    X = np.add.outer(np.arange(12.0), [0.0, 1.0, 3.0]) + np.sin(np.arange(36.0)).reshape(12, 3)
    X[1, 2] = np.nan
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls(n_components=1).fit(da.from_array(X, chunks=(6, 3)))
    except (ValueError, TypeError, NotImplementedError):
        return False
    return True


def default_chunked(has_missing: bool, is_images: bool = False) -> str:
    """The in-memory default (:data:`DEFAULT_METHOD`: the table one, the image one for
    rows that are images, ``--image-shape``) among the methods with a chunked fit (and,
    with missing cells, whose chunked fit takes them), so that the route does not change
    the method."""
    import robustpca

    able = chunked_methods()
    kind = "images" if is_images else "table"
    candidates = [c for c in DEFAULT_METHOD[kind] if c in able] or able
    if has_missing:
        fits = [c for c in candidates if supports_missing(getattr(robustpca, c))]
        fits = [c for c in fits if takes_missing_chunked(getattr(robustpca, c))]
        candidates = fits or candidates
    if not candidates:
        raise InputError("no method has a chunked fit (is dask installed?)")
    return candidates[0]


def run_chunked(args, drop: tuple[str, ...]) -> int:
    """``robustpca fit`` by chunks (module docstring); the exit status."""
    path = Path(args.input)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if path.suffix.lower() not in TABLE_SUFFIXES:
        raise InputError(
            f"{path}: the chunked route reads CSV/TSV/TXT or Parquet tables; fit a .npy "
            "array or a folder of images in memory (without --chunked)"
        )
    if args.method is not None:
        check_chunked(resolve_method(args.method))
    with atomic_output_dir(args.out, overwrite=args.overwrite, inputs=(path,)) as tmp:
        work = tmp / ".chunks"
        work.mkdir()
        try:
            summary, most_outlying = _fit_and_write(args, drop, path, tmp, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    report(args, summary, most_outlying)
    return 0


def _scaling(args, scan: Scan, size: int):
    if args.scale == "none":
        return None, None
    if args.scale == "standard":
        center, scale = scan.standard_scale()
    else:
        center, scale = column_median_mad(scan.spill, size, MAD_FACTOR)
    check_scales(center, scale, args.scale, scan.feature_names)
    return center, scale


#: How the dask fits' messages say to fit in memory (``fit X.compute()``, ...).
_IN_MEMORY = re.compile(r"(?:fit|pass) (?:a NumPy array |the NumPy array )?\(?X\.compute\(\)\)?")


def _fit(args, cls, scan: Scan, size: int, center, scale, image_shape):
    """The chunked fit: the model, its parameters, the seconds, converged."""
    X = scan.spill.to_dask(size)
    if scale is not None:
        X = (X - center) / scale  # lazily, chunk by chunk
    model, params = build_model(cls, args, scan.spill.shape, image_shape)
    try:
        seconds, not_converged = fit_model(model, X)
    except InputError as error:
        k = params["n_components"]
        if not isinstance(k, int) and "n_components" in str(error):
            why = ""
            first = DEFAULT_METHOD["table" if image_shape is None else "images"][0]
            if scan.n_missing and args.method is None and cls.__name__ != first:
                why = (
                    f" (it is the chunked default for a table with missing cells, here "
                    f"{scan.n_missing}: {first}'s chunked fit needs complete data)"
                )
            raise InputError(
                f"-k {args.n_components}: {cls.__name__} chunk by chunk needs a whole number "
                f"of components; pass -k 3, ...{why}"
            ) from None
        # the library's way out of a chunked fit is the command line's in-memory fit
        error = InputError(_IN_MEMORY.sub("fit in memory (--chunked-above never)", str(error)))
        hint = ""
        if scan.n_missing:
            hint += (
                f"; the table has {scan.n_missing} missing cell(s): fill them first, or "
                "fit in memory (--chunked-above never)"
            )
        raise InputError(f"{str(error).rstrip('.')}{hint}") from None
    except NotImplementedError as error:
        raise InputError(f"fitting {cls.__name__} chunk by chunk failed: {error}") from None
    return model, params, seconds, not_converged


def _fit_and_write(args, drop, path: Path, out: Path, work: Path):
    scan = scan_table(
        path, work, args.index_col, drop, moments=args.scale == "standard", header=args.header
    )
    n, d = scan.spill.shape
    size = chunk_rows(args.chunk_rows, d)
    image_shape = parse_shape(args.image_shape, d)
    cls = resolve_method(
        args.method or default_chunked(scan.n_missing > 0, image_shape is not None)
    )
    check_chunked(cls)
    check_missing(cls, scan.n_missing, path)
    center, scale = _scaling(args, scan, size)
    model, params, seconds, not_converged = _fit(args, cls, scan, size, center, scale, image_shape)
    release_memory()  # what the fit's threads freed, before the per-row arrays
    names = scan.feature_names
    write_model(out, model, names)
    diag = _diagnose_and_write(args, model, scan, size, center, scale, out)
    _write_distances(out / "distances.csv", model, scan, diag, size)
    write_scaling(out, names, center, scale)
    summary = make_summary(
        args,
        model,
        params,
        diag,
        kind=scan.kind,
        shape=(n, d),
        n_missing=scan.n_missing,
        seconds=seconds,
        converged=not not_converged,
        image_shape=image_shape,
        drop=drop,
    )
    summary["chunked"] = {
        "rows_per_chunk": size,
        "n_chunks": -(-n // size),
        "n_passes": int(getattr(model, "n_passes_", 0)),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if not args.no_figures:
        _figures(args, out, model, scan, diag, center, scale, image_shape)
    flagged = np.flatnonzero(diag.outliers)
    top = flagged[np.argsort(-diag.orthogonal_distances[flagged])][:10]
    return summary, scan.labels_at(top)


class _NpyWriter:
    """A ``.npy`` file of known shape written by blocks of rows (never held whole)."""

    def __init__(self, path: Path, shape: tuple[int, int]):
        self.handle = open(path, "wb")
        descr = np.lib.format.dtype_to_descr(np.dtype(np.float64))
        header: dict[str, object] = {"descr": descr, "fortran_order": False, "shape": shape}
        np.lib.format.write_array_header_2_0(self.handle, header)

    def write(self, block: np.ndarray) -> None:
        self.handle.write(np.ascontiguousarray(block, dtype=np.float64).tobytes())

    def close(self) -> None:
        self.handle.close()


class _CsvWriter:
    def __init__(self, path: Path, header: list[str]):
        self.handle = open(path, "w", encoding="utf-8")
        self.handle.write(csv_header(header, True) + "\n")

    def write(self, block: np.ndarray, labels: list[str]) -> None:
        self.handle.write(csv_block(block, labels))

    def close(self) -> None:
        self.handle.close()


def _diagnose_and_write(args, model, scan: Scan, size, center, scale, out: Path):
    """One pass: scores.csv, the reconstructions (and completed table) by chunks, and
    each row's score and orthogonal distances under the training cutoffs, which the
    Dask fit stored (``_outlier_reference``, by exact counting passes,
    :mod:`robustpca._dask.reference`): two floats a row are kept, nothing more."""
    from ..diagnostics import model_distances

    reference = model._outlier_reference
    n, d = scan.spill.shape
    k = model.components_.shape[0]
    sd, od = np.empty(n), np.empty(n)
    names = scan.feature_names
    writers: list = [_CsvWriter(out / "scores.csv", [f"pc{j + 1}" for j in range(k)])]
    recon_npy = _NpyWriter(out / "reconstructions.npy", (n, d))
    recon_csv = _CsvWriter(out / "reconstructions.csv", names) if n * d <= CSV_LIMIT else None
    done_npy = _NpyWriter(out / "completed.npy", (n, d)) if scan.n_missing else None
    done_csv = (
        _CsvWriter(out / "completed.csv", names) if scan.n_missing and n * d <= CSV_LIMIT else None
    )
    writers += [w for w in (recon_npy, recon_csv, done_npy, done_csv) if w is not None]
    labels_file = scan.open_labels()
    try:
        for start, stop in scan.spill.blocks(size):
            x = scan.spill.rows(start, stop)
            xs = x if scale is None else (x - center) / scale
            t, o, sk, _ = model_distances(model, xs)
            od[start:stop] = o
            skewed = reference.sd_skew_cutoff > 0 and sk is not None
            sd[start:stop] = sk if skewed else reference.score_distances(t)
            recon = model.reconstruct(xs)
            if scale is not None:
                recon = recon * scale + center  # back in the input's units
            labels = scan.labels(start, stop, labels_file)
            writers[0].write(t, labels)
            recon_npy.write(recon)
            if recon_csv is not None:
                recon_csv.write(recon, labels)
            if done_npy is not None:
                done = np.where(np.isnan(x), recon, x)
                done_npy.write(done)
                if done_csv is not None:
                    done_csv.write(done, labels)
    finally:
        for writer in writers:
            writer.close()
        if labels_file is not None:
            labels_file.close()
    return reference.diagnostics(sd, od, args.quantile)  # as outlier_diagnostics does


def _write_distances(path: Path, model, scan: Scan, diag, size: int) -> None:
    """distances.csv by chunks; lazy ``weights_`` (a Dask fit's) computed chunk by chunk."""
    weights = getattr(model, "weights_", None)
    labels_file = scan.open_labels()
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(distances_header(weights is not None) + "\n")
            for start, stop in scan.spill.blocks(size):
                w = None
                if weights is not None:
                    w = weights[start:stop]
                    w = np.ravel(w.compute() if hasattr(w, "compute") else w)
                labels = scan.labels(start, stop, labels_file)
                rows = replace(  # this chunk's rows only: its flags, not all n of them
                    diag,
                    score_distances=diag.score_distances[start:stop],
                    orthogonal_distances=diag.orthogonal_distances[start:stop],
                )
                handle.write(distance_block(labels, rows, w))
    finally:
        if labels_file is not None:
            labels_file.close()


def _figures(args, out: Path, model, scan: Scan, diag, center, scale, image_shape) -> None:
    """outlier_map.png (at most :data:`MAP_POINTS` samples) and, for images, the gallery
    of the samples farthest from the subspace, read back from the table's copy."""

    n = diag.orthogonal_distances.shape[0]
    if n <= MAP_POINTS:
        shown = diag
        labels: list[str] | bool = scan.labels_at(range(n))
    else:
        flagged = np.flatnonzero(diag.outliers)
        flagged = flagged[np.argsort(diag.margins[flagged])][: MAP_POINTS // 2]
        regular = np.flatnonzero(~diag.outliers)
        rng = np.random.default_rng(args.random_state)
        count = min(regular.size, MAP_POINTS - flagged.size)
        picked = rng.choice(regular, size=count, replace=False)
        rows = np.sort(np.concatenate([flagged, picked]))
        shown = replace(
            diag,
            score_distances=diag.score_distances[rows],
            orthogonal_distances=diag.orthogonal_distances[rows],
        )
        labels = False
    outlier_map(out, shown, labels)
    if image_shape is None:
        return
    rows = np.argsort(-diag.orthogonal_distances)[:GALLERY_SIZE]
    x = scan.spill.take(rows)
    xs = x if scale is None else (x - center) / scale
    fitted = model.reconstruct(xs)
    recon = fitted if scale is None else fitted * scale + center
    X_shown = np.where(np.isnan(x), recon, x)  # as the in-memory run shows them
    gallery(out, model, X_shown, recon, image_shape)
