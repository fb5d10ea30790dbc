"""The chunked route's check of each row's fields (``_spill._check_fields``, by blocks of
bytes) refuses what the whole-file reader refuses, with the same message and line: a
short last row without a final newline, a short row after blank lines (lines are counted
among the non-empty ones), and a line of spaces in a one-column table, with a header or
without one. (pandas alone would pad a short row with missing cells and skip a line of
spaces.)"""

from __future__ import annotations

import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")

TABLES = {
    "short last row, no final newline": "a,b,c\n1,2,3\n4,5,6\n7,8",
    "short row after blank lines": "a,b,c\n1,2,3\n\n\n4,5,6\n\n7,8\n9,10,11\n",
    "spaces in a one-column table": "x\n1.5\n2.5\n   \n3.5\n4.5\n",
    "spaces in a one-column table without header": "1.5\n2.5\n3.5\n   \n4.5\n5.5\n",
}


@pytest.mark.parametrize("name", list(TABLES))
def test_a_malformed_row_is_refused_as_by_the_whole_file_reader(tmp_path, capsys, name):
    src = tmp_path / "t.csv"
    src.write_text(TABLES[name])
    errors = []
    for route in ((), ("--chunked",)):
        argv = ["fit", src, "--out", tmp_path / "o", "--method", "pca", "-k", "1"]
        assert cli.main([*argv, *route]) == 1
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1]
    assert "line" in errors[0] or "have no value at all" in errors[0]
    assert not (tmp_path / "o").exists()
