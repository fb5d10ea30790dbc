"""The chunks of the chunked route's fit: ``--chunk-rows`` rows each (the last one
shorter), as summary.json's ``chunked`` entry says, and by default about 32 MB of
float64 values each (docs/dask.md: "default about 32 MB each")."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")

from robustpca.cli import _chunked


def table(path, n=200, d=5):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) + 0.05 * rng.normal(size=(n, d))
    path.write_text(
        ",".join(f"f{j}" for j in range(d))
        + "\n"
        + "\n".join(",".join(repr(v) for v in row) for row in X.tolist())
        + "\n"
    )
    return path


@pytest.fixture
def fitted_chunks(monkeypatch):
    """The row chunks of the dask array each chunked fit is given."""
    seen = []
    original = _chunked.fit_model

    def spy(model, X):
        seen.append(tuple(X.chunks[0]))
        return original(model, X)

    monkeypatch.setattr(_chunked, "fit_model", spy)
    return seen


def test_the_fit_reads_chunks_of_chunk_rows_rows(tmp_path, fitted_chunks):
    src = table(tmp_path / "t.csv")
    out = tmp_path / "o"
    argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "2"]
    assert cli.main([*argv, "--chunked", "--chunk-rows", "45"]) == 0
    assert fitted_chunks == [(45, 45, 45, 45, 20)]
    entry = json.loads((out / "summary.json").read_text())["chunked"]
    assert entry["rows_per_chunk"] == 45 and entry["n_chunks"] == 5


def test_the_default_chunk_holds_about_32_mb(tmp_path, fitted_chunks):
    src = table(tmp_path / "t.csv", d=5)
    out = tmp_path / "o"
    argv = ["fit", src, "--out", out, "--no-figures", "--method", "pca", "-k", "2"]
    assert cli.main([*argv, "--chunked"]) == 0
    entry = json.loads((out / "summary.json").read_text())["chunked"]
    size = entry["rows_per_chunk"] * 5 * 8  # bytes of float64 in a full chunk
    assert 0.99 * 2**25 < size <= 2**25
    assert entry["n_chunks"] == 1 and fitted_chunks == [(200,)]
