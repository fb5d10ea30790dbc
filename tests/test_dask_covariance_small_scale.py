"""CovariancePCA (MCD) on a dask array with a feature of a tiny but real scale
(1e-7 of the others): the affine hull of the rows is found with the in-memory
rounding tolerance (machine epsilon, not a loose relative cut), so that feature keeps
its direction and the Dask fit gives the in-memory covariance and eigenvalues."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import CovariancePCA

da = pytest.importorskip("dask.array")


def test_a_tiny_scale_feature_keeps_its_direction_as_in_memory():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4)) * np.array([3.0, 2.0, 1.0, 3e-7])
    theirs = CovariancePCA(4, random_state=0).fit(X)
    ours = CovariancePCA(4, random_state=0).fit(da.from_array(X, chunks=50))
    assert theirs.explained_variance_[-1] > 0
    np.testing.assert_allclose(ours.covariance_, theirs.covariance_, rtol=1e-8, atol=1e-22)
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_, rtol=1e-6)
