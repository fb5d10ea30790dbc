"""Text tables the chunked route's reader (``dask.dataframe.read_csv`` with the whole-file
reader's options) must read as the in-memory route does: a whitespace-aligned ``.txt``
with a label beginning with a quote (no quoting in such a table), a missing-value token after a
comma and a space, labels padded with spaces, and a UTF-8 byte-order mark before a first
row of data. Both routes give the same samples, labels and missing cells."""

from __future__ import annotations

import csv
import json

import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")

ROWS = [(f"{i}.5", f"{(2 * i) % 13}.25", f"{i % 7}") for i in range(30)]
#: A table aligned with runs of spaces, longer than the 64 KB the delimiter is sniffed
#: from, one label far down beginning with a quote (a quote in the sniffed part would make
#: the sniffer guess a comma).
_LINES = [f"r{i:<6d} {i % 97}.5   {(2 * i) % 13}.25  {i % 7}" for i in range(3000)]
_LINES[2900] = '"q2900  29.5   6.25  1'
ALIGNED = "id    a     b     c\n" + "\n".join(_LINES) + "\n"
TABLES = {
    "aligned.txt": (ALIGNED, ["--index-col", "id"]),
    "spaced_token.csv": (
        "a,b,c\n"
        + "\n".join(", ".join(r) for r in ROWS[:3])
        + "\n1.5, NA, 2\n"
        + "\n".join(", ".join(r) for r in ROWS[3:])
        + "\n",
        [],
    ),
    "padded_labels.csv": (
        "id,a,b,c\n" + "\n".join(f"  r{i}  ," + ",".join(r) for i, r in enumerate(ROWS)) + "\n",
        ["--index-col", "id"],
    ),
    "bom_no_header.csv": ("\ufeff" + "\n".join(",".join(r) for r in ROWS) + "\n", []),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_awkward_text_tables_read_as_in_memory(tmp_path, name):
    text, options = TABLES[name]
    src = tmp_path / name
    src.write_bytes(text.encode("utf-8"))
    seen = []
    for route in ((), ("--chunked",)):
        out = tmp_path / f"o{len(route)}"
        argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "1"]
        assert cli.main([*argv, *options, *route]) == 0
        summary = json.loads((out / "summary.json").read_text())
        with open(out / "distances.csv", encoding="utf-8", newline="") as handle:
            labels = [row["sample"] for row in csv.DictReader(handle)]
        seen.append((summary["n_samples"], summary["n_missing"], labels))
    assert seen[0] == seen[1]
    assert seen[1][0] == {"aligned.txt": 3000, "spaced_token.csv": 31}.get(name, 30)
    if name == "aligned.txt":
        assert seen[1][2][2900] == '"q2900'
