"""Local loaders, from the mutation audit: ORL's original faces and ``ImageDataset``.

``load_orl(resolution="112x92")`` documents (112, 92) images; a folder of PGMs of another
size (a resized copy, another data set in its place) must be refused naming the file,
not returned with a wrong ``image_shape``. ``ImageDataset.n_samples`` is the number of
images, one per row.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import ImageDataset, load_orl


def _write_pgm(path, image):
    h, w = image.shape
    path.write_bytes(b"P5\n%d %d\n255\n" % (w, h) + image.astype(np.uint8).tobytes())


def test_orl_faces_of_another_size_are_refused(tmp_path):
    """400 PGMs of 92x112 (the faces transposed): a ValueError naming the first file
    and the expected shape."""
    root = tmp_path / "raw" / "orl" / "orl_faces"
    image = np.zeros((92, 112), dtype=np.uint8)
    for subject in range(1, 41):
        (root / f"s{subject}").mkdir(parents=True)
        for index in range(1, 11):
            _write_pgm(root / f"s{subject}" / f"{index}.pgm", image)
    with pytest.raises(ValueError, match=r"s1/1\.pgm has shape \(92, 112\), expected \(112, 92\)"):
        load_orl(tmp_path, resolution="112x92")


def test_n_samples_counts_the_rows():
    """Three 2x5 images: ``n_samples`` is 3, as ``len(target)`` and ``len(images)``."""
    d = ImageDataset(data=np.zeros((3, 10)), target=np.arange(3), image_shape=(2, 5))
    assert d.n_samples == 3 == len(d.target) == len(d.images)
