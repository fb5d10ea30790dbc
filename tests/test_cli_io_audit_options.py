"""``robustpca fit`` reading, from the mutation audit: column options and arrays.

``read_input`` documents an InputError when ``--index-col`` or ``--drop`` is given for a
``.npy`` array or an image folder (they have no named columns): silently ignoring them
would fit columns the user meant to leave out. Column numbers are 1-based; a ``.npy``
of booleans holds numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.cli._io import InputError, read_input


@pytest.mark.parametrize("option", [{"index_col": "1"}, {"drop": ("2",)}])
def test_table_options_on_an_array_are_refused(tmp_path, option):
    path = tmp_path / "x.npy"
    np.save(path, np.arange(12.0).reshape(4, 3))
    with pytest.raises(InputError, match="apply to CSV/TSV/Parquet tables only"):
        read_input(path, **option)


@pytest.mark.parametrize("option", [{"index_col": "0"}, {"drop": ("0",)}])
def test_column_numbers_start_at_one(tmp_path, option):
    """Columns are numbered from 1 (documented): ``0`` is not a column (it must not
    wrap around to the last one, nor be silently ignored)."""
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,2,3\n4,5,6\n7,8,10\n")
    with pytest.raises(InputError, match="is not a column"):
        read_input(path, **option)


def test_a_boolean_array_is_read_as_zeros_and_ones(tmp_path):
    """A ``.npy`` of booleans (binary data) holds numbers: read as 0.0 and 1.0."""
    path = tmp_path / "b.npy"
    flags = np.array([[True, False, True], [False, False, True], [True, True, False]])
    np.save(path, flags)
    np.testing.assert_array_equal(read_input(path).X, flags.astype(float))


@pytest.mark.parametrize(
    "text",
    [
        "1.5   2.5\n3.5   4.5\n5.5   6.5\n",  # equal runs: the sniffer names ' '
        "  1.50000   2.50000\n  3.50000   4.50000\n  5.50000   6.50000\n",  # np.savetxt
    ],
)
def test_a_txt_table_aligned_with_runs_of_spaces_reads_back(tmp_path, text):
    """A ``.txt`` whose fields are separated by runs of spaces (an aligned table) is split
    at each run (documented), whether or not csv's sniffer guesses a single space: the
    numbers come back, with no empty cells between them."""
    path = tmp_path / "aligned.txt"
    path.write_text(text)
    np.testing.assert_array_equal(read_input(path).X, [[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]])


def test_a_table_longer_than_one_read_batch_is_read_whole(tmp_path, monkeypatch):
    """The whole-file reader converts rows by batches of ``READ_BATCH``: every batch is
    kept, and a bad cell in a later batch is reported at its own line."""
    from robustpca.cli import _io

    monkeypatch.setattr(_io, "READ_BATCH", 3)
    rows = [f"{k},{2 * k}" for k in range(10)]
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + "\n".join(rows) + "\n")
    np.testing.assert_array_equal(read_input(path).X[:, 0], np.arange(10.0))
    rows[7] = "7,oops"  # data row 8, line 9 of the file (after the header)
    path.write_text("a,b\n" + "\n".join(rows) + "\n")
    with pytest.raises(InputError, match=r"line 9: column 'b' holds 'oops'"):
        read_input(path)
