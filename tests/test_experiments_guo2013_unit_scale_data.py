"""The pixel scales of the Guo (2013) harness.

* ``face_images`` keeps data already in [0, 1]. The existing test covers Yale (8-bit,
  divided by 255). COIL-20 is stored in [0, 1] with a brightest pixel of exactly 1.0:
  it must come back unchanged ("data already in [0, 1] are kept"), not divided by 255
  by a test on ``max >= 1``.
* ``denoising_task(pixel_max=...)`` scales the images to [0, pixel_max] for any
  pixel_max, not only the harness's 1 and 255: the scale-equivariant PCA baselines
  then score the same RMSE (reported on the [0, 1] scale) at every scale.
"""

import numpy as np
import pytest

from robustpca.experiments import load_dataset
from robustpca.experiments.guo2013 import face_images

from .test_experiments_guo2013 import run


@pytest.mark.realdata
def test_unit_interval_data_are_kept(shared_data):
    data = load_dataset("coil20", str(shared_data))
    assert data.data.max() == 1.0  # the boundary case
    images, labels = face_images("coil20", str(shared_data))
    np.testing.assert_array_equal(images, data.images)
    np.testing.assert_array_equal(labels, data.target)


@pytest.mark.realdata
def test_any_pixel_scale_gives_the_same_pca_scores(shared_data):
    def rows(pixel_max):
        return run(shared_data, methods=["PCA", "S-PCA"], pixel_max=pixel_max)

    for a, b in zip(rows(1.0), rows(10.0), strict=True):
        assert b["pixel_max"] == 10.0 and a["noise_seed"] == b["noise_seed"]
        assert b["rmse"] == pytest.approx(a["rmse"], rel=1e-9)
