"""gallery.png of ``robustpca fit --scale``: its three panels are in one unit.

The gallery shows each sample farthest from the subspace as "input", "reconstructed"
and "|residual|". With ``--scale standard`` (or ``robust``) both routes pass the
*scaled* input but the reconstruction *back in the input's units* (``recon * scale +
center``), so the "input" panel is not the input and the residual panel mixes units:
on data the model reconstructs exactly it showed residuals of the size of the data.
Both routes now show the input (its gaps filled by the fit) in its own units (found by
the mutation audit of the CLI).
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from robustpca import cli


def exact_rank_two_images(n=30, side=4, seed=0):
    """Rows that are 4x4 images on a rank-2 affine subspace, far from zero."""
    rng = np.random.default_rng(seed)
    return 100.0 + 20.0 * rng.normal(size=(n, 2)) @ rng.normal(size=(2, side * side))


def write_table(path, X):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([f"p{j}" for j in range(X.shape[1])])
        writer.writerows([repr(v) for v in row] for row in X.tolist())
    return path


@pytest.mark.parametrize("route", ["in-memory", "chunked"])
def test_gallery_panels_share_the_input_units_under_scaling(tmp_path, monkeypatch, route):
    """A classical PCA of rank 2 reconstructs rank-2 data exactly, with or without
    ``--scale``; the gallery's "input" panel must then be the input rows themselves and
    its residual panel (input minus reconstruction) zero."""
    if route == "chunked":
        pytest.importorskip("dask.dataframe")
        from robustpca.cli import _chunked as module
    else:
        from robustpca.cli import _fit as module
    shown = {}

    def capture(folder, model, X_shown, recon_shown, image_shape):
        shown.update(inputs=np.asarray(X_shown), recon=np.asarray(recon_shown))

    monkeypatch.setattr(module, "gallery", capture)
    X = exact_rank_two_images()
    src = write_table(tmp_path / "faces.csv", X)
    argv = ["fit", src, "--method", "pca", "-k", "2", "--scale", "standard"]
    argv += ["--image-shape", "4x4", "--out", tmp_path / "out"]
    if route == "chunked":
        argv += ["--chunked", "--chunk-rows", "10"]
    assert cli.main(argv) == 0
    inputs, recon = shown["inputs"], shown["recon"]
    # every panel row is one of the input rows, in the input's units
    matches = np.abs(inputs[:, None, :] - X[None, :, :]).max(axis=2).min(axis=1)
    np.testing.assert_allclose(matches, 0.0, atol=1e-8)
    np.testing.assert_allclose(inputs - recon, 0.0, atol=1e-6)
