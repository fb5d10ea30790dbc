"""Pins of ``robustpca fit``'s text-table reader (``robustpca.cli._io.read_input``) that
no test held:

- a ``.txt`` table aligned with runs of spaces is recognised from its first 64 KB; the
  last line of that sample, cut short by its length, must not decide (a table of a few
  thousand rows would otherwise not be read at all);
- the error for a cell that is not a number suggests ``--index-col``/``--drop`` with the
  column's name, but with its 1-based number when the name holds a comma (``--drop``
  splits its value at commas, so the name would not reach the reader whole);
- without a header a column is given by its 1-based number only: the default names
  ``x0, x1, ...`` are not names from a header (``--index-col``'s help).
"""

import numpy as np
import pytest

from robustpca.cli._io import InputError, read_input


def test_an_aligned_txt_whose_64kb_sample_ends_mid_line_is_read(tmp_path):
    """Lines of 41 characters: the 64 KB sample ends 18 characters into a line (two
    fields of four), and the table is still split at runs of spaces."""
    n = 2000
    rows = np.column_stack([np.arange(n), 2.0 * np.arange(n), np.arange(n) % 7, np.ones(n)])
    text = "".join("".join(f"{v:10.4f}" for v in row) + "\n" for row in rows)
    assert len(text) > 65536 and 65536 % 41 == 18
    path = tmp_path / "aligned.txt"
    path.write_text(text)
    data = read_input(path)
    assert data.X.shape == (n, 4)
    np.testing.assert_array_equal(data.X, rows)


def test_the_hint_for_a_column_whose_name_holds_a_comma_gives_its_number(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('"city, state",y\nfoo,1\nbar,2\nbaz,3\n')
    with pytest.raises(InputError) as error:
        read_input(path)
    message = str(error.value)
    assert "'city, state' holds 'foo'" in message
    assert "--index-col 2" not in message and "--drop city" not in message
    assert message.endswith("pass --index-col 1, or leave it out of the fit with --drop 1")
    # and the suggested option works
    assert read_input(path, index_col="1").sample_names == ["foo", "bar", "baz"]


def test_without_a_header_the_default_names_are_not_column_names(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("1,2,3\n4,5,6\n7,8,10\n")
    assert read_input(path, drop=("2",)).feature_names == ["x0", "x2"]
    with pytest.raises(InputError, match="--drop 'x1' is not a column"):
        read_input(path, drop=("x1",))
    with pytest.raises(InputError, match="--index-col 'x0' is not a column") as error:
        read_input(path, index_col="x0")
    # the message names what works (numbers), not the default names that do not
    assert "no header" in str(error.value) and "x1" not in str(error.value)
