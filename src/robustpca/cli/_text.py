"""Splitting a text table (CSV/TSV/TXT) into rows and fields, as both readers of
``robustpca fit`` do: its separator, sniffed from the first lines; whether its first row
is a header; and the :class:`TableLayout` the chunked reader takes from its first row."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ._options import InputError

__all__ = [
    "NA_TOKENS",
    "QUOTED_WHITESPACE",
    "TEXT_SUFFIXES",
    "WHITESPACE",
    "TableLayout",
    "has_header",
    "read_head",
    "split_rows",
    "table_layout",
]

TEXT_SUFFIXES = {".csv": ",", ".tsv": "\t", ".txt": None}
#: The cells read as missing (any case), besides the empty cell.
NA_TOKENS = ("na", "nan", "null", "-nan", "+nan")
#: The delimiter of a ``.txt`` table whose fields are separated by runs of spaces (an
#: aligned table, as ``np.savetxt`` writes with a field width); a quote is a character.
WHITESPACE = r"\s+"
#: The same, in a table whose fields split that way only where double quotes hold
#: spaces (labels such as ``"New York"``, as R's ``write.table`` writes them).
QUOTED_WHITESPACE = r'\s+"'
#: The separator is sniffed from about this many characters of a table's first lines.
SNIFF_CHARS = 65536


def _default_names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def _is_number(text: str) -> bool:
    """Whether ``text`` is a number as the chunked (pandas) reader reads one: Python's
    ``float`` without its extensions, digit-group underscores and non-ASCII digits."""
    if "_" in text or not text.isascii():
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def _separator_hint(sample: str, delimiter: str) -> str:
    """Why the rows of a ``.csv`` may not split: its first line is split by another
    separator (spreadsheets write ``;`` where the decimal mark is a comma)."""
    first = sample.split("\n", 1)[0]
    for other, name in ((";", "semicolons"), ("\t", "tabs")):
        if other != delimiter and first.count(other) > first.count(delimiter):
            return (
                f"; its first line is split by {name}, not {delimiter!r}: write the table "
                "with ',' between fields and '.' as the decimal mark, or name a "
                "tab-separated file .tsv"
            )
    return ""


@dataclass
class TableLayout:
    """How a text table is split: its separator (sniffed from ``sample``, the table's
    first lines: :func:`read_head`), header and column names (its first row's)."""

    delimiter: str
    names: list[str]
    has_header: bool
    sample: str


def _aligned(sample: str, split=str.split) -> bool:
    """Whether the complete lines of ``sample`` split by runs of spaces (``split``) into
    one number (above 1) of fields, with no comma in the text: an aligned table."""
    if "," in sample:
        return False
    lines = sample.splitlines()
    if not sample.endswith(("\n", "\r")):
        lines = lines[:-1]  # cut by the sample's length
    widths = {len(split(line)) for line in lines if line.strip()}
    return len(widths) == 1 and widths.pop() > 1


def _split_quoted(line: str) -> list[str]:
    """The fields of ``line`` separated by runs of spaces or tabs, where a double-quoted
    field (``csv``'s quoting) may hold spaces; tabs inside quotes become spaces."""
    if '"' not in line:
        return line.split()
    cleaned = [line.replace("\t", " ").strip()]
    return next(csv.reader(cleaned, delimiter=" ", skipinitialspace=True), [])


def _split_single_spaces(line: str) -> list[str]:
    """The fields of ``line`` split by :mod:`csv` at single spaces, or none where a
    field is empty (a run of spaces: an aligned table, not one space per field)."""
    fields = next(csv.reader([line], delimiter=" "), [])
    return fields if all(fields) else []


def _sniff(path: Path, delimiter: str | None, sample: str) -> str:
    """The delimiter of a ``.txt`` table (``delimiter`` None): the sniffer's, or
    :data:`WHITESPACE` where the fields are separated by spaces and runs of them split
    every line into the same number of fields. With double quotes in the sample, single
    spaces, runs of spaces outside the quotes (:data:`QUOTED_WHITESPACE`) and runs of
    spaces with the quotes as characters are tried in that order."""
    if delimiter is not None:
        return delimiter
    try:
        found = csv.Sniffer().sniff(sample, delimiters=",;\t ").delimiter
    except csv.Error:
        found = ""
    if found in ("", " ") and '"' not in sample and _aligned(sample):
        return WHITESPACE
    if found in ("", " ") and '"' in sample:
        if found == " " and _aligned(sample, _split_single_spaces):
            return " "  # R's write.table: one space, quoted labels
        if _aligned(sample, _split_quoted):
            return QUOTED_WHITESPACE
        if _aligned(sample):
            return WHITESPACE  # a stray quote ('"q29', 'x"y') is a character
    return found or ","


def split_rows(lines, delimiter: str):
    """The non-empty rows (lists of fields) of the text ``lines``, an iterable of lines
    read with ``newline=""``: by :mod:`csv`, or by runs of spaces for :data:`WHITESPACE`
    (outside double quotes for :data:`QUOTED_WHITESPACE`)."""
    if delimiter == WHITESPACE:
        return (row for row in (line.split() for line in lines) if row)
    if delimiter == QUOTED_WHITESPACE:
        return (row for row in map(_split_quoted, lines) if row)
    return (row for row in csv.reader(lines, delimiter=delimiter) if row)


def has_header(first: list[str], header: str = "auto") -> bool:
    """Whether the stripped cells ``first`` of a table's first line are its header:
    ``header`` "yes" or "no", or "auto": when a cell is not a number (nor empty, nor
    one of the missing-value tokens :data:`NA_TOKENS`)."""
    if header == "auto":
        return any(
            cell and cell.lower() not in NA_TOKENS and not _is_number(cell) for cell in first
        )
    return header == "yes"


def read_head(handle) -> str:
    """The first :data:`SNIFF_CHARS` characters of the text ``handle`` (opened with
    ``newline=""``), read on to the end of the line they stop in: whole lines, however
    long the first one is, for the separator's sniffing and the first row."""
    head = handle.read(SNIFF_CHARS)
    if head and not head.endswith(("\n", "\r")):
        head += handle.readline()
    return head


def table_layout(path: Path, header: str = "auto") -> TableLayout:
    """The :class:`TableLayout` of the text table ``path`` from its first lines only (the
    chunked reader's; the whole-file reader applies the same rules): the separator
    sniffed from :func:`read_head`'s lines, the names and their number from the first
    row, read whole however long it is."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            sample = read_head(handle)
            delimiter = _sniff(path, TEXT_SUFFIXES[path.suffix.lower()], sample)
            handle.seek(0)
            first = next(split_rows(handle, delimiter), None)  # a quoted field may span lines
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the file ({error})") from None
    if first is None:
        raise InputError(f"{path}: the file is empty")
    first = [cell.strip() for cell in first]
    named = has_header(first, header)
    names = first if named else _default_names("x", len(first))
    return TableLayout(delimiter, names, named, sample)
