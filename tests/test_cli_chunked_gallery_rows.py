"""gallery.png of rows that are images (``--image-shape``) in the chunked route: the
samples shown are those of the in-memory run (the farthest from the subspace, farthest
first), and a sample with missing cells is shown with its gaps filled by the fit, never
with NaN."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")


def image_rows(path, gaps=False, n=60, side=4, seed=0):
    """Rows that are 4x4 images near a rank-2 subspace; six far off it (at growing
    distances, so that their order is clear); optionally a few empty cells."""
    rng = np.random.default_rng(seed)
    X = 100.0 + 20.0 * rng.normal(size=(n, 2)) @ rng.normal(size=(2, side * side))
    X += 0.1 * rng.normal(size=X.shape)
    X[:6] += 15.0 * np.arange(1, 7)[:, None] * rng.normal(size=(6, side * side))
    cells = [[repr(v) for v in row] for row in X.tolist()]
    if gaps:
        for i, j in ((0, 3), (2, 7), (5, 0), (20, 9)):
            cells[i][j] = ""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([f"p{j}" for j in range(side * side)])
        writer.writerows(cells)
    return path, X


def shown_rows(monkeypatch, src, out, route):
    from robustpca.cli import _chunked, _fit

    shown = {}

    def capture(folder, model, X_shown, recon_shown, image_shape):
        shown["X"] = np.asarray(X_shown)

    module = _chunked if route else _fit
    monkeypatch.setattr(module, "gallery", capture)
    monkeypatch.setattr(module, "outlier_map", lambda *args: None)  # not drawn: faster
    argv = ["fit", src, "--out", out, "--method", "pca", "-k", "2", "--image-shape", "4x4"]
    assert cli.main([*argv, *route]) == 0
    return shown["X"]


def test_the_gallery_shows_the_in_memory_runs_samples_in_its_order(tmp_path, monkeypatch):
    src, _ = image_rows(tmp_path / "t.csv")
    memory = shown_rows(monkeypatch, src, tmp_path / "m", ())
    chunked = shown_rows(monkeypatch, src, tmp_path / "c", ("--chunked", "--chunk-rows", "16"))
    np.testing.assert_allclose(chunked, memory, rtol=1e-12)


def test_a_sample_with_gaps_is_shown_with_them_filled(tmp_path, monkeypatch):
    src, X = image_rows(tmp_path / "g.csv", gaps=True)
    chunked = shown_rows(monkeypatch, src, tmp_path / "c", ("--chunked", "--chunk-rows", "16"))
    assert np.isfinite(chunked).all()
    # each row shown is one of the input's rows where it has values
    for row in chunked:
        match = np.isclose(X, row, rtol=1e-12).sum(axis=1)
        assert match.max() >= X.shape[1] - 1
