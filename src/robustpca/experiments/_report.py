"""Tidy rows to CSV, markdown tables and figures, written atomically."""

from __future__ import annotations

import csv
import io
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "finish_figure",
    "line_plot",
    "markdown_table",
    "panel_figure",
    "pivot_table",
    "rows_to_csv",
    "strip_plot",
    "style_panel",
    "table_header",
    "table_row",
]

Row = dict[str, Any]


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file and an atomic rename.

    A reader never sees a half-written file, and a failure leaves any previous file
    untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """:func:`atomic_write_bytes` for UTF-8 text."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def _columns(rows: Sequence[Row]) -> list[str]:
    columns: list[str] = []
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    return columns


def rows_to_csv(rows: Sequence[Row]) -> str:
    """Tidy rows as CSV text, columns in first-seen order.

    Parameters
    ----------
    rows : sequence of dict
        Tidy rows, one observation each; a row may lack some columns (empty cells).
        Floats are written with ``repr``, so they read back exactly.

    Returns
    -------
    str
        The header line and one line per row.
    """
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=_columns(rows), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_value(v) for k, v in row.items()})
    return buffer.getvalue()


def _csv_value(value: Any) -> Any:
    if isinstance(value, (float, np.floating)):  # NumPy 2's repr is "np.float64(0.5)"
        return repr(float(value))
    return value


def _mean(values: Iterable[float]) -> float:
    values = [float(v) for v in values]
    return math.fsum(values) / len(values) if values else math.nan


def pivot_table(
    rows: Sequence[Row],
    index: str | Sequence[str],
    columns: str,
    value: str,
    aggregate: Callable[[list[float]], float] = _mean,
) -> tuple[list[tuple], list[Any], dict[tuple, dict[Any, float]]]:
    """Group ``rows`` by ``index`` and ``columns`` and aggregate ``value`` in each cell.

    Parameters
    ----------
    rows : sequence of dict
        Tidy rows; each must have the keys ``index``, ``columns`` and ``value``.
    index : str or sequence of str
        The key or keys whose values make a row of the table.
    columns : str
        The key whose values make the columns.
    value : str
        The key of the values aggregated in each cell.
    aggregate : callable, default=mean
        ``aggregate(values) -> float`` on the list of a cell's values; the default is
        their mean.

    Returns
    -------
    row_keys : list of tuple
        The tuples of ``index`` values, in first-seen order.
    column_keys : list
        The values of ``columns``, in first-seen order.
    cells : dict
        ``cells[row_key][column_key]``: the aggregated value; a cell without rows is
        missing.
    """
    index = [index] if isinstance(index, str) else list(index)
    cells: dict[tuple, dict[Any, list[float]]] = {}
    col_keys: list[Any] = []
    for row in rows:
        key = tuple(row[i] for i in index)
        col = row[columns]
        if col not in col_keys:
            col_keys.append(col)
        cells.setdefault(key, {}).setdefault(col, []).append(row[value])
    aggregated = {k: {c: aggregate(v) for c, v in cols.items()} for k, cols in cells.items()}
    return list(cells), col_keys, aggregated


def table_row(*cells: Any) -> str:
    """One row of a markdown table: ``| a | b |``."""
    return "| " + " | ".join(map(str, cells)) + " |"


def table_header(*columns: Any) -> list[str]:
    """The first two lines of a markdown table: the column names and the rule below."""
    return [table_row(*columns), "|" + "---|" * len(columns)]


def markdown_table(
    rows: Sequence[Row],
    index: str | Sequence[str],
    columns: str,
    value: str,
    *,
    fmt: str = "{:.4g}",
    aggregate: Callable[[list[float]], float] = _mean,
    highlight: str | None = None,
    highlight_by: str = "row",
) -> str:
    """A markdown pivot table of ``value`` (rows ``index``, columns ``columns``).

    Parameters
    ----------
    rows : sequence of dict
        Tidy rows, grouped as in :func:`pivot_table`.
    index : str or sequence of str
        The key or keys whose values label the rows (one table column each).
    columns : str
        The key whose values make the columns.
    value : str
        The key of the values shown in the cells.
    fmt : str, default="{:.4g}"
        Format string of a cell's value; cells without rows are left empty.
    aggregate : callable, default=mean
        ``aggregate(values) -> float`` on the list of a cell's values.
    highlight : {"min", "max"} or None, default=None
        Put the smallest or largest cell in bold (``nan`` cells are skipped), or
        nothing.
    highlight_by : {"row", "column"}, default="row"
        Highlight the best cell of every row, or of every column (e.g. the best
        method at each dimension when methods are rows, the layout of the papers'
        tables).

    Returns
    -------
    str
        The table, one line per row key, without a trailing newline.

    Raises
    ------
    ValueError
        If ``highlight`` is not ``"min"``, ``"max"`` or None, or ``highlight_by``
        is neither ``"row"`` nor ``"column"``.
    """
    if highlight not in (None, "min", "max"):
        raise ValueError(f"highlight must be 'min', 'max' or None, got {highlight!r}")
    if highlight_by not in ("row", "column"):
        raise ValueError(f"highlight_by must be 'row' or 'column', got {highlight_by!r}")
    index_names = [index] if isinstance(index, str) else list(index)
    keys, col_keys, cells = pivot_table(rows, index_names, columns, value, aggregate)
    lines = table_header(*index_names, *col_keys)
    pick = None if highlight is None else {"min": min, "max": max}.get(highlight)

    def best_of(values: Iterable[float]) -> float | None:
        finite = [v for v in values if not math.isnan(v)]
        return pick(finite) if pick is not None and finite else None

    column_best = {
        col: best_of(cells[key][col] for key in keys if col in cells[key]) for col in col_keys
    }
    for key in keys:
        values = cells[key]
        row_best = best_of(values.values())
        out = []
        for col in col_keys:
            if col not in values:
                out.append("")
                continue
            best = row_best if highlight_by == "row" else column_best[col]
            text = fmt.format(values[col])
            out.append(f"**{text}**" if best is not None and values[col] == best else text)
        lines.append(table_row(*key, *out))
    return "\n".join(lines)


def panel_figure(
    n: int,
    *,
    ncols: int | None = None,
    panel_size: tuple[float, float] = (4.4, 3.6),
    min_width: float = 0.0,
) -> tuple[Any, list[Any]]:
    """A figure of ``n`` panels, at most ``ncols`` a row (default: all in one row).

    Returns the matplotlib Figure (Agg backend; nothing is shown) and its first ``n``
    axes; the unused axes of the last row are hidden. ``panel_size`` is the (width,
    height) of one panel in inches; the figure is at least ``min_width`` wide.
    """
    from matplotlib.figure import Figure

    ncols = n if ncols is None else min(n, ncols)
    nrows = math.ceil(n / ncols)
    width, height = panel_size
    fig = Figure(figsize=(max(width * ncols, min_width), height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


def style_panel(
    ax: Any, *, title: str | None = None, xlabel: str = "", ylabel: str = "", logy: bool = False
) -> None:
    """The panels' common look: a title (when given), axis labels, a light grid."""
    if title is not None:
        ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)


def finish_figure(
    fig: Any, axes: Sequence[Any], title: str = "", legend_size: int = 7, *, every: bool = False
) -> Any:
    """One legend, in the first panel (in every panel if ``every``), and the figure's
    title; returns ``fig``."""
    for ax in axes if every else axes[:1]:
        ax.legend(fontsize=legend_size)
    if title:
        fig.suptitle(title)
    return fig


def strip_plot(ax: Any, groups: Sequence[Sequence[float]]) -> None:
    """Every value of group ``i`` as a point at x = ``i``, spread sideways to be seen."""
    import numpy as np

    for i, values in enumerate(groups):
        jitter = np.linspace(-0.15, 0.15, len(values)) if len(values) > 1 else np.zeros(1)
        ax.scatter(i + jitter, values, s=10, alpha=0.7)


def line_plot(
    rows: Sequence[Row],
    x: str,
    y: str,
    hue: str,
    facet: str | None = None,
    *,
    title: str = "",
    xlabel: str | None = None,
    ylabel: str | None = None,
    logy: bool = False,
):
    """One panel per ``facet`` value, one line per ``hue`` value of mean ``y`` against ``x``.

    Parameters
    ----------
    rows : sequence of dict
        Tidy rows with the keys ``x``, ``y``, ``hue`` and ``facet``.
    x : str
        The key plotted on the horizontal axis; the points of a line are sorted by it.
    y : str
        The key plotted on the vertical axis, averaged over the rows of each
        (``hue``, ``x``) pair.
    hue : str
        The key whose values make the lines of a panel (and the legend).
    facet : str or None, default=None
        The key whose values make the panels, titled by that value; ``None`` draws
        one panel of all rows.
    title : str, default=""
        The figure's title; empty for none.
    xlabel : str or None, default=None
        The horizontal axis label; ``None`` or empty uses ``x``.
    ylabel : str or None, default=None
        The vertical axis label; ``None`` or empty uses ``y``.
    logy : bool, default=False
        Whether the vertical axis is logarithmic.

    Returns
    -------
    matplotlib.figure.Figure
        At most three panels a row, legend in the first (Agg backend; nothing is shown).
    """
    facets = [None] if facet is None else list(dict.fromkeys(r[facet] for r in rows))
    fig, axes = panel_figure(len(facets), ncols=3, panel_size=(4.2, 3.4))
    for ax, value in zip(axes, facets, strict=True):
        subset = [r for r in rows if facet is None or r[facet] == value]
        keys, _, cells = pivot_table(subset, [hue, x], x, y)
        for name in dict.fromkeys(k[0] for k in keys):
            pts = sorted((k[1], cells[k][k[1]]) for k in keys if k[0] == name)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=str(name))
        style_panel(
            ax,
            title=None if facet is None else str(value),
            xlabel=xlabel or x,
            ylabel=ylabel or y,
            logy=logy,
        )
    return finish_figure(fig, axes, title, legend_size=8)
