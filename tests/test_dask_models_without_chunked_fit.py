"""The estimators with no chunked fit refuse a dask array, and their row-wise methods
stay lazy on one, as ``docs/dask.md`` says of every estimator.

The 2-D estimators and ``RobustTransferPCA`` override ``fit``, skipping the Dask check
of the base class: they computed the whole array in memory behind the caller's back.
The transforms of the kernel and 2-D models (not one linear map) computed a dask input
at once and returned NumPy.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bench_outliers as bench
import robustpca

da = pytest.importorskip("dask.array")

TWO_D = {
    "TwoDPCA": {"n_components": 3},
    "GLRAM": {"n_components": (3, 3)},
    "Robust2DPCA": {"n_components": (3, 3)},
    "CappedRobust2DPCA": {"n_components": (3, 3)},
    "L21TwoDPCA": {"n_components": (3, 3)},
}
ROW_METHODS = ["transform", "reconstruct", "reconstruction_error", "embed", "score_samples"]


class _Counted:
    """A dask array whose blocks count their computations."""

    def __init__(self, X, chunks):
        self.computed = 0

        def block(x):
            self.computed += 1
            return x

        meta = np.empty((0, 0), dtype=X.dtype)  # no call of block to infer it
        self.array = da.from_array(X, chunks=chunks).map_blocks(block, meta=meta)


@pytest.fixture(scope="module")
def faces(orl):
    return orl.data[:60]


@pytest.mark.parametrize("name", [*TWO_D, "RobustTransferPCA"])
def test_fit_refuses_a_dask_array_without_computing_it(name, faces):
    params = TWO_D.get(name, {"n_components": 3})
    if name in TWO_D:
        params = {**params, "image_shape": (32, 32)}
    counted = _Counted(faces, chunks=(20, -1))
    with pytest.raises(TypeError, match=r"X is a dask array, which .* does not fit chunk"):
        getattr(robustpca, name)(**params).fit(counted.array)
    assert counted.computed == 0


def test_transfer_refuses_a_dask_source(faces):
    counted = _Counted(faces[:20], chunks=(10, -1))
    with pytest.raises(TypeError, match="source is a dask array"):
        robustpca.RobustTransferPCA(n_components=3).fit(faces[20:], source=counted.array)
    assert counted.computed == 0


def _assert_lazy_and_equal(model, X, chunks):
    for method in [m for m in ROW_METHODS if hasattr(model, m)]:
        counted = _Counted(X, chunks)
        lazy = getattr(model, method)(counted.array)
        assert isinstance(lazy, da.Array), method
        assert counted.computed == 0, method
        np.testing.assert_allclose(lazy.compute(), getattr(model, method)(X), atol=1e-12)


@pytest.mark.parametrize("name", list(TWO_D))
def test_two_d_row_methods_are_lazy_on_the_faces(name, faces):
    model = getattr(robustpca, name)(image_shape=(32, 32), random_state=0, **TWO_D[name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(faces)
    _assert_lazy_and_equal(model, faces, chunks=(25, 300))
    coordinates = model.transform(faces)
    lazy = model.inverse_transform(da.from_array(coordinates, chunks=(25, -1)))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), model.inverse_transform(coordinates), atol=1e-12)


def test_kernel_row_methods_are_lazy_on_a_real_table(adbench):
    X = bench.scale_columns(bench.load_table("14_glass", adbench)[0])
    model = robustpca.KernelL21PCA(n_components=3, random_state=0).fit(X)
    _assert_lazy_and_equal(model, X, chunks=(50, 4))
