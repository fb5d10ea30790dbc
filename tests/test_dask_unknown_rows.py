"""The lazy methods of a fitted model on a dask array whose row chunks have unknown
sizes, as ``X[mask]`` of a boolean dask mask leaves them: they map blocks of rows, so
they need no ``compute_chunk_sizes()``, and give the NumPy methods' values. A fit, which
counts rows, still asks for it."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import robustpca as rp  # noqa: E402
from robustpca.diagnostics import outlier_diagnostics  # noqa: E402


def selected(X, chunks):
    """``X`` as a dask array and its rows whose first column is below its median, with
    unknown row chunks, and the same rows in memory."""
    D = da.from_array(X, chunks=chunks)
    keep = X[:, 0] < np.median(X[:, 0])
    picked = D[D[:, 0] < np.median(X[:, 0])]
    assert any(np.isnan(c) for c in picked.chunks[0])
    return picked, X[keep]


@pytest.fixture(scope="module")
def table(adbench):
    """ADBench's cardio (1,831 x 21), median/MAD-scaled as the detector benchmark does."""
    with np.load(adbench / "6_cardio.npz") as data:
        X = np.asarray(data["X"], dtype=float)
    mad = np.median(np.abs(X - np.median(X, axis=0)), axis=0)
    return (X - np.median(X, axis=0)) / np.where(mad > 0, mad, 1.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda: rp.PCA(n_components=4),
        lambda: rp.ROBPCA(n_components=4, random_state=0),
        lambda: rp.ROBPCA(n_components=4, skew=True, random_state=0),
        lambda: rp.OptimalMeanPCA(n_components=4),
    ],
    ids=["pca", "robpca", "robpca-skew", "om"],
)
@pytest.mark.parametrize("chunks", [(300, 21), (300, 7)], ids=["rows", "rows-and-columns"])
def test_lazy_methods_take_unknown_row_chunks(table, make, chunks):
    model = make().fit(table)
    picked, rows = selected(table, chunks)
    with dask.config.set(scheduler="synchronous"):
        for method in ["transform", "reconstruct", "reconstruction_error", "score_samples"]:
            lazy = getattr(model, method)(picked)
            np.testing.assert_allclose(
                lazy.compute(), getattr(model, method)(rows), rtol=1e-9, atol=1e-9, err_msg=method
            )
        assert np.array_equal(model.predict(picked).compute(), model.predict(rows))
        scores = model.transform(picked)
        np.testing.assert_allclose(
            model.inverse_transform(scores).compute(),
            model.inverse_transform(model.transform(rows)),
            rtol=1e-9,
            atol=1e-9,
        )
        diag = outlier_diagnostics(model, picked)
        (flags,) = dask.compute(diag.outliers)
        assert np.array_equal(np.asarray(flags), outlier_diagnostics(model, rows).outliers)
        assert model.score(picked) == pytest.approx(model.score(rows), rel=1e-9)


@pytest.mark.parametrize("chunks", [(300, 21), (300, 7)], ids=["rows", "rows-and-columns"])
def test_row_wise_models_take_unknown_row_chunks(table, chunks):
    """The models that are not one linear map (kernel PCA-L21: by blocks of whole rows)
    and an online model's ``decompose``."""
    picked, rows = selected(table, chunks)
    kernel = rp.KernelL21PCA(n_components=3, random_state=0).fit(table[:400])
    online = rp.OnlineRobustPCA(n_components=3, random_state=0).fit(table)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_allclose(
            kernel.transform(picked).compute(), kernel.transform(rows), rtol=1e-9, atol=1e-9
        )
        low, sparse = online.decompose(picked)
        expected = online.decompose(rows)
        np.testing.assert_allclose(low.compute(), expected[0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(sparse.compute(), expected[1], rtol=1e-9, atol=1e-9)


def test_a_fit_still_asks_for_the_chunk_sizes(table):
    picked, _ = selected(table, (300, 21))
    with pytest.raises(ValueError, match=r"unknown chunk sizes.*compute_chunk_sizes"):
        rp.PCA(n_components=2).fit(picked)
