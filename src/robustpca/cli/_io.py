"""Reading users' data for ``robustpca fit``: CSV, ``.npy`` or a folder of images."""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..datasets._video_read import _sixteen_bit
from ._options import InputError, atomic_output_dir
from ._text import (
    NA_TOKENS,
    TEXT_SUFFIXES,
    TableLayout,
    _default_names,
    _is_number,
    _separator_hint,
    _sniff,
    has_header,
    read_head,
    split_rows,
    table_layout,
)

__all__ = [
    "InputData",
    "InputError",
    "TableLayout",
    "atomic_output_dir",
    "column_position",
    "parquet_labelled",
    "read_input",
    "table_layout",
]

IMAGE_SUFFIXES = {".pgm", ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff"}
PARQUET_SUFFIXES = {".parquet", ".pq"}


@dataclass
class InputData:
    """What was read: the data matrix and how to name its rows and columns."""

    X: np.ndarray
    sample_names: list[str]
    feature_names: list[str]
    image_shape: tuple[int, int] | None
    kind: str  # "csv", "parquet", "npy" or "images"


def read_input(
    path: str | os.PathLike,
    *,
    index_col: str | None = None,
    drop: tuple[str, ...] = (),
    header: str = "auto",
) -> InputData:
    """Read ``path`` (CSV/TSV/TXT table, ``.npy`` array, or a folder of images).

    Parameters
    ----------
    path : path-like
    index_col : str, optional
        Table column holding the row labels (a name from the header, or a 1-based column
        number); it is not fitted and labels the rows of the outputs.
    drop : tuple of str
        Table columns left out of the fit (names or 1-based numbers).
    header : {"auto", "yes", "no"}, default="auto"
        Whether a text table's first line names its columns; "auto": when one of its
        cells is not a number, nor empty or a missing-value token (a header of years,
        2019,2020,..., needs "yes"). The fields of a ``.txt`` table aligned with runs of
        spaces are split at each run (write a missing cell NA there).

    Raises
    ------
    InputError
        With a message naming the file and the problem: missing or unreadable file,
        non-numeric cells, infinite values, rows or columns with every cell missing,
        ragged rows, fewer than 2 samples, images of different sizes. Images are read
        as grey levels of 0..255, 16-bit ones divided by 257 (not rounded); hidden files
        and folders are left out. Empty, ``NA``,
        ``NaN`` (``-nan``, ``+nan``) and ``null`` cells (and NaN in a ``.npy``) are
        missing entries: kept as NaN for the fit. A number is what pandas reads as one
        (``1_000`` and non-ASCII digits are not), so that both routes take the same.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if path.is_dir() and path.suffix.lower() in PARQUET_SUFFIXES:  # a Parquet dataset
        data = _read_parquet(path, index_col, tuple(drop))
    elif path.is_dir():
        data = _read_images(path)
    elif path.suffix.lower() == ".npy":
        data = _read_npy(path)
    elif path.suffix.lower() in TEXT_SUFFIXES:
        delimiter = TEXT_SUFFIXES[path.suffix.lower()]
        data = _read_table(path, delimiter, index_col, tuple(drop), header)
    elif path.suffix.lower() in PARQUET_SUFFIXES:
        data = _read_parquet(path, index_col, tuple(drop))
    else:
        raise InputError(
            f"{path}: unsupported file type {path.suffix!r}; give a .csv, .tsv, .txt, "
            ".parquet or .npy file, or a folder of images"
        )
    if data.kind not in ("csv", "parquet") and (index_col is not None or drop):
        raise InputError(f"{path}: --index-col and --drop apply to CSV/TSV/Parquet tables only")
    if data.kind != "csv" and header != "auto":
        raise InputError(f"{path}: --header applies to CSV/TSV/TXT tables only")
    _check_matrix(data.X, path, data)
    return data


def column_position(spec: str, names: list[str], has_header: bool, option: str, path) -> int:
    """0-based position of the column ``spec`` (a header name, else a 1-based number); a
    name that several columns share is an error (which one is meant is not known)."""
    if has_header and spec in names:
        found = [j + 1 for j, name in enumerate(names) if name == spec]
        if len(found) > 1:
            raise InputError(
                f"{path}: {option} {spec!r} names {len(found)} columns (numbers "
                f"{', '.join(map(str, found))}); give the 1-based number of each one meant"
            )
        return names.index(spec)
    if spec.isdigit() and 1 <= int(spec) <= len(names):
        return int(spec) - 1
    if not has_header:  # the default names (x0, x1, ...) are not the table's
        raise InputError(
            f"{path}: {option} {spec!r} is not a column; the table has no header: give "
            f"a column by its 1-based number, 1-{len(names)}"
        )
    raise InputError(
        f"{path}: {option} {spec!r} is not a column; the columns are {', '.join(names)} "
        f"(or their 1-based numbers 1-{len(names)})"
    )


def _listed(names: list[str], positions: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(repr(names[int(i)]) for i in positions[:limit])
    return shown + (f" ... ({positions.size} in all)" if positions.size > limit else "")


def _check_matrix(X: np.ndarray, path: Path, data: InputData | None = None) -> None:
    """Shape, no infinity; NaN (empty or NA cells) is missing and fitted, but a row or
    column with no value at all is refused, by name."""
    if X.ndim != 2 or X.shape[1] == 0:
        raise InputError(f"{path}: expected a 2-D table of numbers, got shape {X.shape}")
    if X.shape[0] < 2:
        raise InputError(f"{path}: at least 2 samples (rows) are needed, got {X.shape[0]}")
    bad = np.isinf(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InputError(
            f"{path}: {int(bad.sum())} infinite value(s), the first at sample {i + 1}, "
            f"feature {j + 1}; remove them or mark them missing (an empty cell)"
        )
    missing = np.isnan(X)
    if not missing.any():
        return
    rows = data.sample_names if data is not None else _default_names("sample", X.shape[0])
    cols = data.feature_names if data is not None else _default_names("x", X.shape[1])
    empty = np.flatnonzero(missing.all(axis=1))
    if empty.size:
        raise InputError(
            f"{path}: sample(s) {_listed(rows, empty)} have no value at all (every cell "
            "missing); remove them"
        )
    empty = np.flatnonzero(missing.all(axis=0))
    if empty.size:
        raise InputError(
            f"{path}: column(s) {_listed(cols, empty)} have no value at all (every cell "
            "missing); remove them or --drop them"
        )


def _read_npy(path: Path) -> InputData:
    try:
        X = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: not a readable .npy array ({error})") from None
    if X.dtype.kind not in "biuf":
        raise InputError(f"{path}: the array holds {X.dtype}, not numbers")
    image_shape = None
    if X.ndim == 3:  # a stack of images
        image_shape = (int(X.shape[1]), int(X.shape[2]))
        X = X.reshape(X.shape[0], -1)
    if X.ndim == 1:
        raise InputError(f"{path}: expected a 2-D array (samples x features), got 1-D")
    X = np.asarray(X, dtype=np.float64)
    return InputData(
        X, _default_names("sample", X.shape[0]), _default_names("x", X.shape[1]), image_shape, "npy"
    )


#: The whole-file reader converts the rows to numbers by batches of this many, so that
#: only one batch is ever held as text.
READ_BATCH = 8192


def _read_table(
    path: Path,
    delimiter: str | None,
    index_col: str | None = None,
    drop: tuple[str, ...] = (),
    header: str = "auto",
) -> InputData:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            sample = read_head(handle)
            handle.seek(0)
            delimiter = _sniff(path, delimiter, sample)
            reader = split_rows(handle, delimiter)
            data = _parse_rows(path, reader, sample, delimiter, index_col, drop, header)
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the file ({error})") from None
    assert data is not None
    return data


def check_cells(path: Path, layout: TableLayout, index_col, drop, header: str) -> None:
    """The whole-file reader's checks of the text table ``path``, the table not kept:
    the first ragged row or cell that is not a number is an :class:`InputError` with
    the whole-file reader's message (its line and column)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = split_rows(handle, layout.delimiter)
            _parse_rows(
                path, reader, layout.sample, layout.delimiter, index_col, drop, header, False
            )
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the file ({error})") from None


def _parse_rows(
    path: Path,
    reader,
    sample: str,
    delimiter: str,
    index_col,
    drop,
    header_rule: str = "auto",
    keep_data: bool = True,
) -> InputData | None:
    """The table of the non-empty rows of ``reader``, converted by batches of
    :data:`READ_BATCH` rows (``keep_data`` False: checked only, None returned)."""
    first = next(reader, None)
    if first is None:
        raise InputError(f"{path}: the file is empty")
    first = [cell.strip() for cell in first]
    header = first if has_header(first, header_rule) else None
    width = len(first)
    names = list(header) if header is not None else _default_names("x", width)
    skip: set[int] = set()
    position = None
    if index_col is not None:
        position = column_position(index_col, names, header is not None, "--index-col", path)
        skip.add(position)
    for spec in drop:
        skip.add(column_position(spec, names, header is not None, "--drop", path))
    keep = [j for j in range(width) if j not in skip]
    if not keep:
        raise InputError(f"{path}: no column left to fit after --index-col/--drop")
    kept = [names[j] for j in keep]

    def convert(batch, line):
        return _numbers(batch, line, kept, keep, path, sample, delimiter)

    labels: list[str] = []
    blocks: list[np.ndarray] = []
    batch: list[list[str]] = []
    lead = 2 if header is not None else 1  # the line number of the first data row
    rows = reader if header is not None else itertools.chain([first], reader)
    count = 0
    for raw in rows:
        row = [cell.strip() for cell in raw]
        if len(row) != width:
            raise InputError(
                f"{path}, line {count + lead}: {len(row)} fields, expected {width}"
                + _separator_hint(sample, delimiter)
            )
        if position is not None and keep_data:
            labels.append(row[position])
        batch.append([row[j] for j in keep])
        count += 1
        if len(batch) == READ_BATCH:
            block = _numbers(batch, count - len(batch) + lead, kept, keep, path, sample, delimiter)
            if keep_data:
                blocks.append(block)
            batch = []
    if batch:
        blocks.append(
            _numbers(batch, count - len(batch) + lead, kept, keep, path, sample, delimiter)
        )
    if not count:
        raise InputError(f"{path}: the file has a header but no data rows")
    if not keep_data:
        return None
    X = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
    sample_names = labels if position is not None else _default_names("sample", count)
    return InputData(X, sample_names, kept, None, "csv")


def _numbers(rows, first_line: int, names, keep, path, sample, delimiter) -> np.ndarray:
    """A batch of rows of text as float64 (empty and NA cells as NaN); a cell that is not
    a number (:func:`_is_number`) is an error naming its line and column."""
    try:  # the common case, vectorised; the cell-by-cell loop below finds the culprit
        X = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(keep))
        text = "".join(itertools.chain.from_iterable(rows))
        if "_" not in text and text.isascii():  # float() takes "1_000", pandas does not
            return X
    except ValueError:
        pass
    X = np.empty((len(rows), len(keep)))
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            if cell == "" or cell.lower() in NA_TOKENS:
                X[i, j] = math.nan
            elif _is_number(cell):
                X[i, j] = float(cell)
            else:
                ref = names[j] if names[j] and "," not in names[j] else str(keep[j] + 1)
                raise InputError(
                    f"{path}, line {first_line + i}: column {names[j]!r} holds {cell!r}, which "
                    f"is not a number; if it labels the rows pass --index-col {ref}, or leave "
                    f"it out of the fit with --drop {ref}" + _separator_hint(sample, delimiter)
                )
    return X


def parquet_labelled(index_name) -> bool:
    """Whether a Parquet table's stored index labels its rows: it has a name, other
    than the placeholders of an unnamed one (``__null_dask_index__``, ...)."""
    return index_name is not None and not str(index_name).startswith("__")


def parquet_labels(frame) -> list[str] | None:
    """The row labels of a Parquet table: its stored index when it has a name (pandas
    writes a named index with the table), else None (default names)."""
    return [str(v) for v in frame.index] if parquet_labelled(frame.index.name) else None


def parquet_columns(path: Path, names: list[str], index_col, drop) -> tuple[int | None, list[int]]:
    """The position of ``--index-col`` and those of the fitted columns of a Parquet table."""
    skip: set[int] = set()
    index = None
    if index_col is not None:
        index = column_position(index_col, names, True, "--index-col", path)
        skip.add(index)
    for spec in drop:
        skip.add(column_position(spec, names, True, "--drop", path))
    keep = [j for j in range(len(names)) if j not in skip]
    if not keep:
        raise InputError(f"{path}: no column left to fit after --index-col/--drop")
    return index, keep


def parquet_numbers(frame, keep: list[int], path: Path) -> np.ndarray:
    """The fitted columns of a Parquet frame as float64 (missing values as NaN); a column
    that does not hold numbers is an error naming it."""
    import pandas as pd

    X = np.empty((len(frame), len(keep)))
    for i, j in enumerate(keep):
        column = frame.iloc[:, j]
        if _object_numbers(column):  # pyarrow's decimals, or bools with nulls, as objects
            column = column.astype(np.float64)
        elif not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            name = str(frame.columns[j])
            values = column.dropna()
            shown = f" holds {str(values.iloc[0])!r}, which" if len(values) else ""
            raise InputError(
                f"{path}: column {name!r}{shown} is not a number ({column.dtype}); if it "
                f"labels the rows pass --index-col {name}, or leave it out of the fit with "
                f"--drop {name}"
            )
        X[:, i] = column.to_numpy(dtype=np.float64, na_value=np.nan)
    return X


def _object_numbers(column) -> bool:
    """Whether ``column`` is an object column of ``decimal.Decimal`` values, or of bools
    (pyarrow's boolean column with nulls, read without pandas' metadata), and missing
    ones: numbers that pandas leaves as objects."""
    import decimal

    if column.dtype != object:
        return False
    values = column.dropna()
    return len(values) > 0 and (
        all(isinstance(v, decimal.Decimal) for v in values)
        or all(isinstance(v, bool | np.bool_) for v in values)
    )


def _read_parquet(path: Path, index_col: str | None, drop: tuple[str, ...]) -> InputData:
    try:
        import pandas as pd

        frame = pd.read_parquet(path)
    except ImportError as error:
        raise InputError(f"{path}: reading Parquet needs pandas and pyarrow ({error})") from None
    except Exception as error:  # pyarrow's errors are not OSError/ValueError only
        raise InputError(f"{path}: not a readable Parquet table ({error})") from None
    names = [str(c) for c in frame.columns]
    index, keep = parquet_columns(path, names, index_col, drop)
    X = parquet_numbers(frame, keep, path)
    labels = parquet_labels(frame)
    if index is not None:
        labels = [str(v).strip() for v in frame.iloc[:, index]]
    rows = labels if labels is not None else _default_names("sample", X.shape[0])
    return InputData(X, rows, [names[j] for j in keep], None, "parquet")


def _read_image(path: Path) -> np.ndarray:
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with matplotlib
        if path.suffix.lower() != ".pgm":
            raise InputError(f"{path}: reading {path.suffix} images needs Pillow") from None
        from ..datasets import read_pgm

        return read_pgm(path).astype(np.float64)
    try:
        with Image.open(path) as image:
            if _sixteen_bit(image):  # in 8-bit units, unrounded (Pillow's "L" clips them)
                return np.asarray(image, dtype=np.float64) / 257.0
            return np.asarray(image.convert("L"), dtype=np.float64)
    except OSError as error:
        raise InputError(f"{path}: not a readable image ({error})") from None


def _image_files(folder: Path) -> list[Path]:
    """The image files under ``folder``, sorted; hidden files and folders (macOS's
    ``._name.png`` and ``__MACOSX/`` beside each image of a copied folder) are not
    images."""

    def hidden(p: Path) -> bool:
        return any(part.startswith(".") or part == "__MACOSX" for part in p.parts)

    return sorted(
        p
        for p in folder.rglob("*")
        if p.suffix.lower() in IMAGE_SUFFIXES and not hidden(p.relative_to(folder)) and p.is_file()
    )


def _read_images(folder: Path) -> InputData:
    files = _image_files(folder)
    if not files:
        raise InputError(
            f"{folder}: no images found (looked for {', '.join(sorted(IMAGE_SUFFIXES))})"
        )
    images = [_read_image(f) for f in files]
    shape = images[0].shape
    for f, image in zip(files, images, strict=True):
        if image.shape != shape:
            raise InputError(
                f"{f}: size {image.shape[1]}x{image.shape[0]} differs from "
                f"{shape[1]}x{shape[0]} of {files[0].name}; resize the images to one size"
            )
    X = np.stack([image.ravel() for image in images])
    names = [str(f.relative_to(folder)) for f in files]
    return InputData(
        X, names, _default_names("pixel", X.shape[1]), (int(shape[0]), int(shape[1])), "images"
    )
