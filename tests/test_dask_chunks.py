"""Chunk geometries a user meets: empty chunks left by a boolean selection, and
non-finite inputs of the lazy transforms."""

import dask
import dask.array as da
import numpy as np
import pytest

import robustpca as rp

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture
def selected():
    """Rows selected by a mask, chunk sizes computed as the unknown-chunk error advises:
    the middle chunk keeps no row."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) @ rng.normal(size=(3, 6)) + 0.1 * rng.normal(size=(60, 6))
    X[20:40, 0] = -5.0
    full = da.from_array(X, chunks=(20, 6))
    dX = full[full[:, 0] > -1]
    dX.compute_chunk_sizes()
    assert 0 in dX.chunks[0]
    return X[X[:, 0] > -1], dX


@pytest.mark.parametrize(
    "name",
    [
        "PCA",
        "OptimalMeanPCA",
        "PrincipalComponentPursuit",
        "OutlierPursuit",
        "ConvexOptimalMeanPCA",
        "L21PCA",
    ],
)
def test_empty_row_chunks(selected, name):
    X, dX = selected
    with dask.config.set(scheduler="synchronous"):
        model = getattr(rp, name)(n_components=2).fit(dX)
        reference = getattr(rp, name)(n_components=2).fit(X)
        P, Q = model.components_, reference.components_
        np.testing.assert_allclose(P.T @ P, Q.T @ Q, atol=1e-8)
        np.testing.assert_allclose(model.transform(dX).compute(), reference.transform(X), atol=1e-7)


def test_empty_row_chunks_stream(selected):
    X, dX = selected
    # each block is split as one batch, whose stopping rule is the batch's (docs/dask.md):
    # a tiny tol makes the splits of the whole and of the blocks agree to rounding
    kw = {"n_components": 2, "random_state": 0, "tol": 1e-13, "max_iter": 10_000}
    with dask.config.set(scheduler="synchronous"):
        model = rp.OnlineRobustPCA(**kw).partial_fit(dX)
        blocks = rp.OnlineRobustPCA(**kw)
        for rows in np.split(np.arange(len(X)), [18]):  # the non-empty chunks
            blocks.partial_fit(X[rows])
        np.testing.assert_allclose(model.components_, blocks.components_, atol=1e-12)
        low, _ = model.decompose(dX)
        expected = model.decompose(X)
        np.testing.assert_allclose(low.compute(), expected[0], atol=1e-12)


def test_empty_column_chunks_make_no_illegal_blas_call(capfd):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 40))
    dX = da.from_array(X, chunks=((12,), (0, 20, 0, 20)))
    assert 0 in dX.chunks[1]
    with dask.config.set(scheduler="synchronous"):
        model = rp.PCA(n_components=2).fit(dX)
    reference = rp.PCA(n_components=2).fit(X)
    np.testing.assert_allclose(np.abs(model.components_), np.abs(reference.components_), atol=1e-10)
    assert "illegal" not in capfd.readouterr().out


@pytest.mark.parametrize("chunks", [(5, 2), (5, 1)])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_inverse_transform_refuses_non_finite_scores(chunks, bad):
    X = np.random.default_rng(2).normal(size=(20, 8))
    model = rp.PCA(n_components=2).fit(X)
    Z = model.transform(X)
    Z[3, 1] = bad
    with pytest.raises(ValueError, match="inverse_transform contains NaN"):
        model.inverse_transform(Z)
    with pytest.raises(ValueError, match="inverse_transform contains NaN"):
        model.inverse_transform(da.from_array(Z, chunks=chunks)).compute()


def test_column_chunks_with_gaps_say_how_to_rechunk():
    X = np.random.default_rng(3).normal(size=(8, 30))
    model = rp.PCA(n_components=2).fit(X)
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"rechunk\(\{1: -1\}\)"):
        model.transform(da.from_array(X, chunks=(8, 10))).compute()
    rows = model.transform(da.from_array(X, chunks=(8, 10)).rechunk({1: -1})).compute()
    np.testing.assert_allclose(rows, model.transform(X), atol=1e-12)


@pytest.mark.parametrize("name", ["OnlineRobustPCA", "GRASTA"])
def test_online_fit_with_gaps_on_column_chunks(name):
    """The online fits take wide data with gaps in whole rows; the training diagnostics
    that end the fit used the column route, which refuses NaN, and fit() raised."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 3)) @ rng.normal(size=(3, 30))
    X[3, 2] = np.nan
    reference = getattr(rp, name)(n_components=2, random_state=0).fit(X)
    with dask.config.set(scheduler="synchronous"):
        model = getattr(rp, name)(n_components=2, random_state=0)
        model.fit(da.from_array(X, chunks=(8, 10)))
    assert model.n_missing_ == 1
    np.testing.assert_allclose(model.components_, reference.components_, atol=1e-12)
    assert model.offset_ == pytest.approx(reference.offset_)
