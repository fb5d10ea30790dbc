"""``robustpca fit`` on images, from the mutation audit: what gallery.png shows.

The gallery shows "the samples farthest from the subspace" (its title), farthest first,
each as input, reconstruction and ``|residual|``; components.png shows the components.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from robustpca import cli

pytest.importorskip("matplotlib")


def test_gallery_shows_the_farthest_samples_first_with_absolute_residuals(tmp_path, monkeypatch):
    import robustpca.plotting

    panels = []
    real = robustpca.plotting.plot_gallery

    def capture(images, *args, **kwargs):
        panels.append({k: np.asarray(v) for k, v in images.items()})
        return real(images, *args, **kwargs)

    monkeypatch.setattr(robustpca.plotting, "plot_gallery", capture)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 16)) + 0.3 * rng.normal(size=(40, 16))
    np.save(tmp_path / "images.npy", X.reshape(40, 4, 4))
    out = tmp_path / "out"
    assert (
        cli.main(["fit", tmp_path / "images.npy", "--method", "pca", "-k", "2", "--out", out]) == 0
    )
    shown = panels[0]
    assert set(shown) == {"input", "reconstructed", "|residual|"}
    np.testing.assert_allclose(shown["|residual|"], np.abs(shown["input"] - shown["reconstructed"]))
    with open(out / "distances.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    distance = np.array([float(r["orthogonal_distance"]) for r in rows])
    farthest = np.argsort(-distance)[: len(shown["input"])]
    np.testing.assert_allclose(shown["input"], X[farthest])
    # components.png: every component of the fit (two here), as images
    assert set(panels[1]) == {"components"} and panels[1]["components"].shape == (2, 16)
