"""Pins of ``robustpca fit FOLDER`` (``robustpca.cli._io.read_input`` on a folder of
images) that no test held:

- images in subfolders are named by their path relative to the folder, so that
  ``a/1.png`` and ``b/1.png`` stay two samples with two names in scores.csv and
  distances.csv (a folder per class or per camera is a common layout);
- colour images are read as grey levels (``read_input``: "Images are read as grey levels
  of 0..255"), one value a pixel, with ``image_shape`` (height, width): a colour folder
  is fitted as the same pictures in grey, not as rows three times longer.
"""

from pathlib import Path

import numpy as np
import pytest

from robustpca.cli._io import read_input

Image = pytest.importorskip("PIL.Image")


def colour_image(seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(3, 4, 3), dtype=np.uint8)


def test_images_in_subfolders_are_named_by_their_relative_path(tmp_path):
    for sub, seed in (("a", 0), ("b", 1)):
        (tmp_path / sub).mkdir()
        Image.fromarray(colour_image(seed)[..., 0]).save(tmp_path / sub / "1.png")
    data = read_input(tmp_path)
    assert data.sample_names == [str(Path("a", "1.png")), str(Path("b", "1.png"))]
    assert len(set(data.sample_names)) == 2


def test_colour_images_are_read_as_grey_levels(tmp_path):
    images = [colour_image(seed) for seed in range(3)]
    for i, rgb in enumerate(images):
        Image.fromarray(rgb).save(tmp_path / f"im{i}.png")
    data = read_input(tmp_path)
    assert data.image_shape == (3, 4)
    assert data.X.shape == (3, 12) and data.feature_names[-1] == "pixel11"
    grey = [np.asarray(Image.fromarray(rgb).convert("L"), dtype=np.float64) for rgb in images]
    np.testing.assert_array_equal(data.X, np.stack([g.ravel() for g in grey]))
