"""How the harness renders tidy rows (``robustpca.experiments._report``).

The markdown tables, CSV text and figures are what a reader of a reproduction sees; each
test pins a documented rule of their layout that the existing tests leave open: CSV
floats that read back exactly, columns in first-seen order, NaN cells skipped by the
highlighting wherever they stand, a rule line as wide as the header, and figures with
one titled panel per facet whose lines are sorted by ``x`` and drawn from that facet's
rows only.
"""

from __future__ import annotations

import csv
import io
import math

import matplotlib
import pytest

from robustpca import experiments
from robustpca.experiments._report import finish_figure, panel_figure, table_header

matplotlib.use("Agg")


def test_csv_floats_read_back_exactly_and_columns_are_the_union():
    """rows_to_csv: "Floats are written with repr, so they read back exactly"; a row may
    lack some columns, and a column first seen in a later row is still written."""
    rows = [{"a": 0.1 + 0.2, "b": 1 / 3}, {"a": 2.0, "c": "x"}]
    back = list(csv.DictReader(io.StringIO(experiments.rows_to_csv(rows))))
    assert list(back[0]) == ["a", "b", "c"]
    assert float(back[0]["a"]) == 0.1 + 0.2 and float(back[0]["b"]) == 1 / 3
    assert back[1] == {"a": "2.0", "b": "", "c": "x"}


def test_columns_keep_first_seen_order():
    """pivot_table: column keys "in first-seen order" (e.g. a grid run as 30, 10, 20)."""
    rows = [{"m": "a", "k": k, "v": float(k)} for k in (30, 10, 20)]
    _, columns, _ = experiments.pivot_table(rows, "m", "k", "v")
    assert columns == [30, 10, 20]
    header = experiments.markdown_table(rows, "m", "k", "v").splitlines()[0]
    assert header == "| m | 30 | 10 | 20 |"


@pytest.mark.parametrize("highlight, best", [("max", "**2**"), ("min", "**1**")])
def test_highlight_skips_nan_wherever_it_stands(highlight, best):
    """markdown_table: "nan cells are skipped", also when a NaN comes first in the row
    (``max([nan, 1.0])`` is nan, which would leave the row without a bold cell)."""
    rows = [
        {"m": "a", "k": 1, "v": math.nan},
        {"m": "a", "k": 2, "v": 1.0},
        {"m": "a", "k": 3, "v": 2.0},
    ]
    line = experiments.markdown_table(rows, "m", "k", "v", highlight=highlight).splitlines()[2]
    assert best in line and line.count("**") == 2


def test_rule_line_has_one_cell_per_header_cell():
    """A markdown table renders only when its rule line has as many cells as the header."""
    assert table_header("a", "b", "c") == ["| a | b | c |", "|---|---|---|"]
    rows = [{"m": "a", "k": k, "v": 1.0} for k in (1, 2)]
    header, rule = experiments.markdown_table(rows, ["m"], "k", "v").splitlines()[:2]
    assert header.count("|") == rule.count("|")


def test_panel_figure_wraps_rows_and_hides_only_the_spare_axes():
    """At most ``ncols`` panels a row, the rows needed for ``n`` panels, the spare axes of
    the last row hidden; fewer panels than ``ncols`` make no empty columns."""
    fig, axes = panel_figure(5, ncols=3)
    assert len(axes) == 5 and len(fig.axes) == 6
    assert [ax.get_visible() for ax in fig.axes] == [True] * 5 + [False]
    fig, axes = panel_figure(2, ncols=3)
    assert len(fig.axes) == 2


def test_finish_figure_legends():
    """One legend in the first panel, or one in every panel with ``every``."""
    for every, expected in ((False, [True, False]), (True, [True, True])):
        fig, axes = panel_figure(2)
        for ax in axes:
            ax.plot([0, 1], [0, 1], label="line")
        finish_figure(fig, axes, "title", every=every)
        assert [ax.get_legend() is not None for ax in axes] == expected


def test_line_plot_panels_lines_and_labels():
    """line_plot: one panel per facet, titled by its value; one line per hue of the mean
    ``y`` over that facet's rows, its points sorted by ``x``; the axis labels given."""
    rows = [
        {"ds": ds, "method": "A", "k": k, "e": base + k + seed}
        for ds, base in (("one", 0.0), ("two", 100.0), ("three", 200.0), ("four", 300.0))
        for k in (30, 10, 20)
        for seed in (0, 1)
    ]
    fig = experiments.line_plot(rows, "k", "e", "method", "ds", xlabel="m", ylabel="error")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["one", "two", "three", "four"]
    assert len(fig.axes) == 6  # three panels a row
    for ax, base in zip(visible, (0.0, 100.0, 200.0, 300.0), strict=True):
        (line,) = ax.get_lines()
        assert list(line.get_xdata()) == [10, 20, 30]
        assert list(line.get_ydata()) == [base + 10.5, base + 20.5, base + 30.5]
        assert ax.get_xlabel() == "m" and ax.get_ylabel() == "error"
        assert ax.get_yscale() == "linear"
    logged = experiments.line_plot(rows, "k", "e", "method", "ds", logy=True)
    assert logged.axes[0].get_yscale() == "log"
