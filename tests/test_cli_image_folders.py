"""``robustpca fit FOLDER``'s image reader (found by the mutation audit of the CLI).

- A folder copied from a Mac (or a zip made there, unzipped with its ``__MACOSX/``) holds
  an AppleDouble file ``._name.png`` beside or below each image: resource data, not an
  image. :func:`robustpca.datasets.read_video` leaves hidden files out of a frame folder
  for that reason; the CLI took every file with an image's suffix and stopped on the
  first of them ("not a readable image").
- 16-bit grey images (microscopy, medical scans) were read with Pillow's
  ``convert("L")``, which clips levels at 255 instead of scaling them: they were fitted
  as nearly white pictures. They are now read in 8-bit units, ``v / 257``, unrounded.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.cli._io import read_input

Image = pytest.importorskip("PIL.Image")


#: the first bytes of an AppleDouble file (magic 0x00051607, version 2)
APPLE_DOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(16)


def test_hidden_apple_double_files_are_not_images(tmp_path):
    """Three images plus ``._im1.png`` and ``__MACOSX/._im0.png``: the three images
    are read, named by their paths, and nothing else."""
    folder = tmp_path / "faces"
    (folder / "__MACOSX").mkdir(parents=True)
    for k in range(3):
        Image.fromarray(np.full((4, 5), 40 * k, dtype=np.uint8)).save(folder / f"im{k}.png")
    (folder / "._im1.png").write_bytes(APPLE_DOUBLE)
    (folder / "__MACOSX" / "._im0.png").write_bytes(APPLE_DOUBLE)
    data = read_input(folder)
    assert data.sample_names == ["im0.png", "im1.png", "im2.png"]
    assert data.image_shape == (4, 5)
    np.testing.assert_array_equal(data.X[:, 0], [0.0, 40.0, 80.0])


def test_sixteen_bit_png_levels_stay_ordered_and_distinct(tmp_path):
    """Levels 0, 4000, 8000, ... 60000 must read as strictly increasing values (any
    monotone map to numbers, scaled or not), not as 0 followed by fifteen 255s."""
    folder = tmp_path / "scans"
    folder.mkdir()
    ramp = (np.arange(16, dtype=np.uint16) * 4000).reshape(4, 4)
    for k in range(3):
        Image.fromarray(np.roll(ramp, k, axis=1)).save(folder / f"scan{k}.png")
    data = read_input(folder)
    assert data.image_shape == (4, 4)
    first = data.X[0]  # scan0.png, the unrolled ramp, flattened row by row
    assert np.all(np.diff(first) > 0), first
    np.testing.assert_allclose(first, ramp.ravel() / 257.0)
