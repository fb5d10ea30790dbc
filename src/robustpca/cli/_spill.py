"""Reading a table larger than memory for ``robustpca fit --chunked``.

:func:`scan_table` reads a CSV/TSV or Parquet table with :mod:`dask.dataframe`, partition
by partition, and writes its fitted columns as float64 to a raw binary file, a
:class:`Spill`, with the row labels (``--index-col``, or a Parquet table's named index)
in a text file beside it. On the way it gathers what the whole-file reader checks (no
infinite value, no row or column without a value) and counts the missing cells, and the
column moments of ``--scale standard``.

Why a binary copy: the chunked fits take one or more passes over the data per
iteration, and parsing text is the slow part of a pass; the copy is parsed once and read
back at the speed of the disk (or its cache). Blocks are read with ``np.fromfile`` at an
offset, never memory-mapped: mapped pages would count in the process's resident memory
as the passes sweep the file.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._io import (
    PARQUET_SUFFIXES,
    InputError,
    _listed,
    check_cells,
    column_position,
    parquet_columns,
    parquet_labelled,
    parquet_labels,
    parquet_numbers,
)
from ._text import (
    NA_TOKENS,
    QUOTED_WHITESPACE,
    WHITESPACE,
    TableLayout,
    _separator_hint,
    split_rows,
    table_layout,
)

__all__ = ["Scan", "Spill", "chunk_rows", "column_median_mad", "release_memory", "scan_table"]

#: dask.dataframe's partitions of a CSV: bytes of text each.
BLOCKSIZE = "32MB"
#: dask.dataframe's sample of a CSV (its default): bytes read to infer the columns,
#: read on to the end of a line.
SAMPLE_BYTES = 256000
#: The default chunk of the fit: about this many values (32 MB of float64).
CHUNK_VALUES = 1 << 22
#: ``--scale robust`` gathers whole columns to take their exact medians: at most this
#: many values at a time (128 MB), so one pass over the spill per group of columns.
MEDIAN_VALUES = 1 << 24


def _missing_tokens() -> list[str]:
    """Every spelling (any case) of the cells the whole-file reader reads as missing."""
    tokens = [""]
    for word in NA_TOKENS:
        for cases in itertools.product(*[(c.lower(), c.upper()) for c in word]):
            tokens.append("".join(cases))
    return sorted(set(tokens))


def _escape(label: str) -> str:
    """``label`` on one line of the labels file (backslash, line breaks escaped)."""
    return label.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def _unescape(line: str) -> str:
    """The label written by :func:`_escape` on ``line`` (its newline removed)."""
    line = line.rstrip("\n")
    if "\\" not in line:
        return line
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m[1], m[1]), line)


class Spill:
    """A float64 matrix in a raw binary file (C order), read by blocks of rows.

    It has ``shape``, ``dtype``, ``ndim`` and row-slicing ``__getitem__``, so that
    :func:`dask.array.from_array` reads each chunk from the file when a pass needs it.
    """

    def __init__(self, path: Path, n_features: int):
        self.path = Path(path)
        self.n_features = n_features
        self.n_samples = 0
        self.dtype = np.dtype(np.float64)
        self.ndim = 2

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_samples, self.n_features)

    def append(self, handle, X: np.ndarray) -> None:
        handle.write(np.ascontiguousarray(X, dtype=np.float64).tobytes())
        self.n_samples += X.shape[0]

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` as a new array."""
        stop = min(stop, self.n_samples)
        count = max(stop - start, 0) * self.n_features
        with open(self.path, "rb") as handle:
            data = np.fromfile(
                handle, dtype=np.float64, count=count, offset=start * self.n_features * 8
            )
        return data.reshape(-1, self.n_features)

    def take(self, indices) -> np.ndarray:
        """The rows at ``indices`` (a few: one read each)."""
        out = np.empty((len(indices), self.n_features))
        for i, row in enumerate(indices):
            out[i] = self.rows(int(row), int(row) + 1)[0]
        return out

    def __getitem__(self, key):
        rows, cols = key if isinstance(key, tuple) else (key, slice(None))
        start, stop, step = rows.indices(self.n_samples)
        return self.rows(start, stop)[::step, cols]

    def blocks(self, size: int):
        """``(start, stop)`` of consecutive blocks of ``size`` rows."""
        for start in range(0, self.n_samples, size):
            yield start, min(start + size, self.n_samples)

    def to_dask(self, size: int):
        """The matrix as a dask array chunked by ``size`` rows (nothing read yet)."""
        import dask.array as da

        return da.from_array(
            self,
            chunks=(size, self.n_features),
            name=f"robustpca-spill-{uuid.uuid4().hex}",
            lock=False,
            asarray=True,
            meta=np.empty((0, 0)),
        )


def chunk_rows(requested: int | None, n_features: int) -> int:
    """``--chunk-rows``, or rows of about :data:`CHUNK_VALUES` values."""
    return requested or max(1, CHUNK_VALUES // max(n_features, 1))


@dataclass
class Scan:
    """What :func:`scan_table` found: the spill, the labels and the checks' counts."""

    spill: Spill
    feature_names: list[str]
    kind: str
    labels_path: Path | None = None
    n_missing: int = 0
    observed: np.ndarray | None = None  # observed cells per column
    count: np.ndarray | None = None  # --scale standard: per column count, mean, M2
    mean: np.ndarray | None = None
    m2: np.ndarray | None = None
    n_inf: int = 0
    first_inf: tuple[int, int] | None = None
    empty_rows: list[str] = field(default_factory=list)
    n_empty_rows: int = 0

    def labels(self, start: int, stop: int, handle=None) -> list[str]:
        """The labels of rows ``start:stop``: read on from ``handle`` (the labels file,
        read in order) or the default names ``sample<i>``."""
        if handle is None:
            return [f"sample{i}" for i in range(start, stop)]
        return [_unescape(line) for line in itertools.islice(handle, stop - start)]

    def open_labels(self):
        if self.labels_path is None:
            return None
        return open(self.labels_path, encoding="utf-8", newline="\n")

    def labels_at(self, indices) -> list[str]:
        """The labels of a few rows, in the order of ``indices``."""
        if self.labels_path is None:
            return [f"sample{int(i)}" for i in indices]
        wanted = {int(i) for i in indices}
        found = {}
        with open(self.labels_path, encoding="utf-8", newline="\n") as handle:
            for i, line in enumerate(handle):
                if i in wanted:
                    found[i] = _unescape(line)
        return [found[int(i)] for i in indices]

    def add(self, X: np.ndarray, names, moments: bool) -> None:
        """Count the partition ``X``'s missing and infinite cells and empty rows."""
        start = self.spill.n_samples
        nan = np.isnan(X)
        self.n_missing += int(nan.sum())
        observed = X.shape[0] - nan.sum(axis=0)
        self.observed = observed if self.observed is None else self.observed + observed
        inf = np.isinf(X)
        if inf.any():
            if self.first_inf is None:
                i, j = np.argwhere(inf)[0]
                self.first_inf = (start + int(i), int(j))
            self.n_inf += int(inf.sum())
        empty = np.flatnonzero(nan.all(axis=1))
        if empty.size:
            self.n_empty_rows += int(empty.size)
            shown = names(start, start + X.shape[0]) if len(self.empty_rows) < 5 else []
            self.empty_rows += [shown[i] for i in empty[: 5 - len(self.empty_rows)]]
        if moments:
            self._merge_moments(X, nan)

    def _merge_moments(self, X: np.ndarray, nan: np.ndarray) -> None:
        """Per-column count, mean and centred sum of squares of the observed values,
        merged by the pairwise update of Chan, Golub & LeVeque (1982)."""
        nb = (~nan).sum(axis=0).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mb = np.where(nb > 0, np.nansum(X, axis=0) / np.maximum(nb, 1), 0.0)
        m2b = np.nansum((X - mb) ** 2, axis=0)
        if self.count is None:
            self.count, self.mean, self.m2 = nb, mb, m2b
            return
        assert self.mean is not None and self.m2 is not None
        na, ma = self.count, self.mean
        total = na + nb
        share = np.where(total > 0, nb / np.maximum(total, 1), 0.0)
        delta = mb - ma
        self.mean = ma + delta * share
        self.m2 = self.m2 + m2b + delta**2 * na * share
        self.count = total

    def check(self, path: Path) -> None:
        """The whole-file reader's checks, on the counts (the same messages)."""
        n = self.spill.n_samples
        if n == 0:
            raise InputError(f"{path}: the file has a header but no data rows")
        if n < 2:
            raise InputError(f"{path}: at least 2 samples (rows) are needed, got {n}")
        if self.first_inf is not None:
            i, j = self.first_inf
            raise InputError(
                f"{path}: {self.n_inf} infinite value(s), the first at sample {i + 1}, "
                f"feature {j + 1}; remove them or mark them missing (an empty cell)"
            )
        if self.n_empty_rows:
            shown = ", ".join(repr(name) for name in self.empty_rows)
            more = f" ... ({self.n_empty_rows} in all)" if self.n_empty_rows > 5 else ""
            raise InputError(
                f"{path}: sample(s) {shown}{more} have no value at all (every cell "
                "missing); remove them"
            )
        assert self.observed is not None
        empty = np.flatnonzero(self.observed == 0)
        if self.n_missing and empty.size:
            raise InputError(
                f"{path}: column(s) {_listed(self.feature_names, empty)} have no value at "
                "all (every cell missing); remove them or --drop them"
            )

    def standard_scale(self) -> tuple[np.ndarray, np.ndarray]:
        """The observed columns' means and standard deviations (``ddof=1``)."""
        assert self.count is not None and self.mean is not None and self.m2 is not None
        with np.errstate(invalid="ignore", divide="ignore"):
            sd = np.sqrt(self.m2 / (self.count - 1))
        return self.mean, np.where(self.count > 1, sd, 0.0)


def _frames(ddf):
    """The partitions of a dask DataFrame as pandas frames, in order, computed a few at a
    time (one per worker thread)."""
    import dask

    parts = ddf.to_delayed()
    width = max(1, min(4, os.cpu_count() or 1))
    for i in range(0, len(parts), width):
        yield from dask.compute(*parts[i : i + width])


def _pandas_reason(error: Exception) -> str:
    """pandas' message, unwrapped from dask's, without its "column N" (counted from 0
    among the columns read, unlike the options' 1-based numbers)."""
    message = str(error).split("Original Message:")[-1].strip()
    return re.sub(r"\s*in column \d+", "", message)


def _parse_error(path: Path, error: Exception, hint: str) -> InputError:
    """pandas' parsing error, where the whole-file reader's checks found nothing."""
    message = _pandas_reason(error)
    return InputError(
        f"{path}: {message}; a column that labels the rows needs --index-col, one that "
        f"is not a number --drop{hint}"
    )


#: The ragged-row check reads the text by blocks of about this many characters.
CHECK_BLOCK = 1 << 24


def _line_bounds(block: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bytes of ``block`` as an array, and the start and end (its LF or CRLF
    excluded) of each of its lines."""
    data = np.frombuffer(block, np.uint8)
    ends = np.flatnonzero(data == 10)
    if not block.endswith(b"\n"):
        ends = np.append(ends, data.size)
    starts = np.concatenate([[0], ends[:-1] + 1])
    stops = ends.copy()
    cr = (stops > starts) & (data[np.maximum(stops - 1, 0)] == 13)
    stops[cr] -= 1
    return data, starts, stops


def _ragged(block: bytes, delimiter: str, width: int) -> tuple[int, int]:
    """The first non-empty line of ``block`` (its number among them, from 1) whose
    number of fields is not ``width``, and that number; else (0, the number of
    non-empty lines). The bytes hold no quote and no lone CR, so a field ends at each
    delimiter (an ASCII byte, never part of a UTF-8 character)."""
    data, starts, stops = _line_bounds(block)
    where = np.flatnonzero(data == ord(delimiter))
    fields = np.searchsorted(where, stops) - np.searchsorted(where, starts) + 1
    filled = stops > starts
    bad = np.flatnonzero(filled & (fields != width))
    if not bad.size:
        return 0, int(np.count_nonzero(filled))
    first = int(bad[0])
    return int(np.count_nonzero(filled[: first + 1])), int(fields[first])


def _check_fields(path: Path, layout: TableLayout) -> None:
    """Refuse a row whose number of fields is not the first row's, with the whole-file
    reader's message and line (pandas would pad a short row with missing cells and drop
    the extra fields of a long one, and skip a line of spaces)."""
    width, delimiter = len(layout.names), layout.delimiter
    lead = 2 if layout.has_header else 1

    def refuse(line: int, fields: int):
        if fields == width:  # a line of spaces in a one-column table: an empty sample
            return InputError(
                f"{path}: sample(s) 'sample{line - lead}' have no value at all (every cell "
                "missing); remove them"
            )
        return InputError(
            f"{path}, line {line}: {fields} fields, expected {width}"
            + _separator_hint(layout.sample, delimiter)
        )

    line = 0  # the non-empty rows read, the first included: the whole-file reader's count
    try:
        with open(path, "rb") as raw:
            raw.seek(3 if raw.read(3) == codecs.BOM_UTF8 else 0)
            while delimiter not in (WHITESPACE, QUOTED_WHITESPACE) and width > 1:  # bytes
                offset = raw.tell()
                block = raw.read(CHECK_BLOCK)
                if block and not block.endswith(b"\n"):
                    block += raw.readline()
                if not block:
                    return
                lone_cr = b"\r" in block and block.count(b"\r") != block.count(b"\r\n")
                if b'"' in block or lone_cr:
                    raw.seek(offset)  # quotes or lone CRs: the csv reader, from here
                    break
                bad, fields = _ragged(block, delimiter, width)
                if bad:
                    raise refuse(line + bad, fields)
                line += fields
            text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
            for row in split_rows(text, delimiter):
                line += 1
                if len(row) != width or (width == 1 and not row[0].strip()):
                    raise refuse(line, len(row))
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the file ({error})") from None


def _sample_bytes(path: Path, lines: int = 2) -> int:
    """dask.dataframe's sample of ``path``: :data:`SAMPLE_BYTES`, or the bytes of its
    first ``lines`` non-empty lines where they are longer (dask refuses a sample without
    a row of data after the header)."""
    size = found = 0
    try:
        with open(path, "rb") as raw:
            for line in raw:
                size += len(line)
                found += bool(line.strip())
                if found == lines:
                    break
    except OSError as error:
        raise InputError(f"{path}: cannot read the file ({error})") from None
    return max(SAMPLE_BYTES, size)


def _csv_partitions(path: Path, index_col, drop, header_rule: str = "auto"):
    """The feature names, and an iterator of (numbers, labels or None) per partition."""
    import dask.dataframe as dd

    layout = table_layout(path, header_rule)
    names, header = layout.names, layout.has_header
    skip: set[int] = set()
    index = None
    if index_col is not None:
        index = column_position(index_col, names, header, "--index-col", path)
        skip.add(index)
    for spec in drop:
        skip.add(column_position(spec, names, header, "--drop", path))
    keep = [j for j in range(len(names)) if j not in skip]
    if not keep:
        raise InputError(f"{path}: no column left to fit after --index-col/--drop")
    cols = [f"c{j}" for j in range(len(names))]  # positional: header names may repeat
    used = sorted([*keep, *([index] if index is not None else [])])
    dtype = {cols[j]: "float64" for j in keep}
    if index is not None:
        dtype[cols[index]] = "object"
    hint = _separator_hint(layout.sample, layout.delimiter)
    _check_fields(path, layout)

    def failed(error: Exception) -> InputError:
        """The whole-file reader's message (line, column) for the cell pandas could not
        read, with pandas' own words where they quote the cell."""
        reason = _pandas_reason(error)
        try:
            check_cells(path, layout, index_col, drop, header_rule)
        except InputError as found:
            quoted = reason.startswith("could not convert")
            return InputError(f"{found} (pandas: {reason})" if quoted else str(found))
        return _parse_error(path, error, hint)

    try:  # dask reads a sample of the file here
        ddf = dd.read_csv(
            str(path),
            sep=WHITESPACE if layout.delimiter == QUOTED_WHITESPACE else layout.delimiter,
            quoting=csv.QUOTE_NONE if layout.delimiter == WHITESPACE else csv.QUOTE_MINIMAL,
            index_col=False,
            header=0 if header else None,
            names=cols,
            usecols=[cols[j] for j in used],
            dtype=dtype,
            na_values={cols[j]: _missing_tokens() for j in keep},
            keep_default_na=False,
            skipinitialspace=True,
            encoding="utf-8-sig",
            blocksize=BLOCKSIZE,
            sample=_sample_bytes(path),
        )
    except (ValueError, TypeError) as error:
        raise failed(error) from None

    def parts():
        try:
            for frame in _frames(ddf):
                X = frame[[cols[j] for j in keep]].to_numpy(dtype=np.float64)
                labels = None
                if index is not None:
                    labels = [str(v).strip() for v in frame[cols[index]].fillna("")]
                yield X, labels
        except (ValueError, TypeError) as error:  # pandas' ParserError is a ValueError
            raise failed(error) from None

    return [names[j] for j in keep], index is not None, parts()


def _parquet_partitions(path: Path, index_col, drop):
    import dask.dataframe as dd

    try:
        ddf = dd.read_parquet(str(path))
    except Exception as error:  # pyarrow's errors are not OSError/ValueError only
        raise InputError(f"{path}: not a readable Parquet table ({error})") from None
    names = [str(c) for c in ddf.columns]
    index, keep = parquet_columns(path, names, index_col, drop)
    labelled = index is not None or parquet_labelled(ddf.index.name)

    def parts():
        for frame in _frames(ddf):
            X = parquet_numbers(frame, keep, path)
            labels = parquet_labels(frame)
            if index is not None:
                labels = [str(v).strip() for v in frame.iloc[:, index]]
            yield X, labels

    return [names[j] for j in keep], labelled, parts()


def scan_table(
    path: Path, folder: Path, index_col, drop, moments: bool, header: str = "auto"
) -> Scan:
    """Read the table ``path`` partition by partition into a :class:`Spill` in
    ``folder`` (see the module docstring); ``moments``: gather those of
    ``--scale standard``."""
    try:
        import dask.dataframe  # noqa: F401
    except ImportError as error:
        raise InputError(
            f"{path}: the chunked route reads tables with dask.dataframe, which is not "
            f"installed ({error}); pip install 'dask[dataframe]' pyarrow"
        ) from None
    parquet = path.suffix.lower() in PARQUET_SUFFIXES
    if parquet and header != "auto":
        raise InputError(f"{path}: --header applies to CSV/TSV/TXT tables only")
    if parquet:
        feature_names, labelled, parts = _parquet_partitions(path, index_col, drop)
    else:
        feature_names, labelled, parts = _csv_partitions(path, index_col, drop, header)
    spill = Spill(folder / "table.f8", len(feature_names))
    scan = Scan(spill, feature_names, "parquet" if parquet else "csv")
    if labelled:
        scan.labels_path = folder / "labels.txt"
    labels_file = None
    if scan.labels_path is not None:
        labels_file = open(scan.labels_path, "w", encoding="utf-8", newline="\n")
    try:
        with open(spill.path, "wb") as handle:
            for X, labels in parts:
                if X.shape[0] == 0:
                    continue
                if labels_file is not None:
                    first = spill.n_samples
                    labels = labels or [f"sample{first + i}" for i in range(X.shape[0])]
                    labels_file.write("".join(_escape(s) + "\n" for s in labels))

                def names(a, b, _labels=labels, _start=spill.n_samples):
                    if _labels is None:
                        return [f"sample{i}" for i in range(a, b)]
                    return _labels[a - _start : b - _start]

                scan.add(X, names, moments)
                spill.append(handle, X)
    finally:
        if labels_file is not None:
            labels_file.close()
    scan.check(path)
    release_memory()
    return scan


def release_memory() -> None:
    """Give the memory freed by the parsing threads back to the system (glibc's
    ``malloc_trim``; nothing elsewhere). Each thread's allocator arena keeps what the
    partitions it parsed freed, and the per-row arrays of the later passes would come
    on top of it."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        trim = getattr(libc, "malloc_trim", None)
    except OSError:  # pragma: no cover - no C library to load
        return
    if trim is not None:
        trim(0)


def column_median_mad(spill: Spill, size: int, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """Each column's median and MAD (times ``factor``) over its observed values, exact:
    whole columns are gathered, as many at a time as :data:`MEDIAN_VALUES` allows (one
    pass over the spill per group of columns)."""
    n, d = spill.shape
    group = max(1, MEDIAN_VALUES // max(n, 1))
    center, scale = np.empty(d), np.empty(d)
    for first in range(0, d, group):
        cols = slice(first, min(first + group, d))
        values = np.empty((n, cols.stop - cols.start))
        for start, stop in spill.blocks(size):
            values[start:stop] = spill.rows(start, stop)[:, cols]
        for j in range(values.shape[1]):
            v = values[:, j]
            v = v[~np.isnan(v)]
            center[first + j] = np.median(v)
            scale[first + j] = factor * np.median(np.abs(v - center[first + j]))
    return center, scale
