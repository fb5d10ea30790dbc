"""A fixed bug: ``experiments.guo2013.face_images`` promises "matrices with pixels in
[0, 1]" for any data set specification, but rescales only by 255 ("when the data exceed
1 (8-bit data sets)"). scikit-learn's digits, a registered data set (``"digits"``, no
download), store pixels 0..16: they come back in [0, 16/255] = [0, 0.063], so the
protocol's corruption (pixels set to 1.0, "white") is 16 times the brightest pixel and
the RMSE is on another scale. ``experiments/zhangtong2019/_common.py`` already maps
maxima <= 16 to 16 for the same data set.

It had returned them with a maximum of 0.0627; digits are now divided by 16.
"""

import numpy as np

from robustpca.datasets import load_digits_images
from robustpca.experiments.guo2013 import face_images


def test_face_images_puts_digits_in_the_unit_interval():
    images, labels = face_images("digits", None)
    raw = load_digits_images()
    assert images.shape == raw.images.shape and np.array_equal(labels, raw.target)
    assert images.min() == 0.0 and images.max() == 1.0  # white is 1, as for Yale
    np.testing.assert_allclose(images, raw.images / raw.images.max())
