"""New rows with missing entries after a fit: rows with fewer observed coordinates than
components on Dask, float32 models, pandas' ``pd.NA``, ROBPCA's skew rule and the
output dtype."""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest

from robustpca import (
    PCA,
    ROBPCA,
    GoDec,
    OptimalMeanPCA,
    PrincipalComponentPursuit,
    SphericalPCA,
)
from robustpca.diagnostics import outlier_diagnostics

from .conftest import load_table


def _planted(seed=0, n=200, d=7):
    """Rank-2 rows about an offset of 3, a tenth of the training cells missing, and four
    new rows: row 0 seen on one coordinate (fewer than k = 2), rows 1-3 on all but one."""
    rng = np.random.default_rng(seed)
    W = np.linalg.qr(rng.normal(size=(d, 2)))[0]
    X = 3 + rng.normal(size=(n, 2)) * [3.0, 2.0] @ W.T + 0.2 * rng.normal(size=(n, d))
    train = X.copy()
    train[rng.random(X.shape) < 0.1] = np.nan
    new = X[:4].copy()
    new[0, 1:] = np.nan
    new[1:, 3] = np.nan
    return train, new


MAKERS = {
    "PCA": lambda: PCA(2),
    "OptimalMeanPCA": lambda: OptimalMeanPCA(2, random_state=0),
    "GoDec": lambda: GoDec(2, random_state=0),
    "PrincipalComponentPursuit": lambda: PrincipalComponentPursuit(2),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_dask_rows_with_few_coordinates_are_placed_as_in_memory(name):
    """A row seen on fewer coordinates than components has a whole set of scores; the
    one nearest the training scores' centre, as in memory (the Dask blocks took the
    minimum-norm one: GoDec's row 0 at score distance 9.1 against 0.6, flagged)."""
    train, new = _planted()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MAKERS[name]().fit(train)
    D = da.from_array(new, chunks=(2, -1))
    for method in ("transform", "reconstruct", "reconstruction_error", "mahalanobis"):
        got = getattr(model, method)(D)
        got = np.asarray(got.compute() if hasattr(got, "compute") else got)
        np.testing.assert_allclose(
            got, getattr(model, method)(new), rtol=1e-10, atol=1e-10, err_msg=method
        )
    assert model.score(D) == pytest.approx(model.score(new), rel=1e-12)
    memory, chunked = outlier_diagnostics(model, new), outlier_diagnostics(model, D)
    np.testing.assert_allclose(np.asarray(chunked.score_distances), memory.score_distances)
    np.testing.assert_array_equal(np.asarray(chunked.outliers), memory.outliers)


@pytest.mark.parametrize(
    "make",
    [
        lambda: PCA(2),
        lambda: OptimalMeanPCA(2, random_state=0),
        lambda: SphericalPCA(2),
        lambda: ROBPCA(2, random_state=0),
    ],
)
def test_float32_model_scores_a_row_alone_as_in_a_batch(make):
    """float32 components are orthonormal to 3e-8 only: the normal matrix of a row seen
    on one coordinate, formed as I - U_M U_M^T when the batch's other rows were mostly
    seen, kept that rounding as an eigenvalue (scores 10-96 off, a tenth of the flags
    changed)."""
    train, _ = _planted(1)
    model = make().fit(train.astype(np.float32))
    X = _planted(1)[0][:60].astype(np.float32)
    X = np.where(np.isnan(X), np.float32(3.0), X)
    for j in range(X.shape[1]):
        lone = np.full_like(X, np.nan)
        lone[:, j] = X[:, j]  # each row seen on coordinate j only
        batch = np.vstack([lone, X[:, :]])
        batch[60:, (j + 1) % X.shape[1]] = np.nan  # the rest: one gap each
        alone = np.vstack([model.transform(lone[i : i + 1]) for i in range(60)])
        np.testing.assert_allclose(model.transform(batch)[:60], alone, rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(
            model.predict(batch)[:60], np.concatenate([model.predict(r[None]) for r in lone])
        )


def test_pandas_missing_values_through_the_outlier_api(shared_data):
    pd = pytest.importorskip("pandas")
    X = load_table(shared_data, "hbk")
    gaps = X.copy()
    gaps[[3, 20, 50], [0, 1, 2]] = np.nan
    frame = pd.DataFrame(gaps, columns=list("abc")).astype("Float64")  # pd.NA cells
    assert frame.isna().to_numpy().sum() == 3
    model = OptimalMeanPCA(2, random_state=0).fit(pd.DataFrame(X, columns=list("abc")))
    expected = pd.DataFrame(gaps, columns=list("abc"))
    for method in ("score_samples", "decision_function", "predict", "transform"):
        np.testing.assert_allclose(
            np.asarray(getattr(model, method)(frame), dtype=float),
            np.asarray(getattr(model, method)(expected), dtype=float),
            err_msg=method,
        )
    flagged = outlier_diagnostics(model, frame).outliers
    np.testing.assert_array_equal(flagged, outlier_diagnostics(model, expected).outliers)


def test_robpca_skew_distances_at_the_reconstruction_of_the_gaps():
    """A row seen on fewer coordinates than components: its adjusted outlyingness is
    that of the row completed as ``reconstruct`` completes it (it took the minimum-norm
    completion, 143% off)."""
    train, new = _planted(2)
    model = ROBPCA(2, skew=True, random_state=0).fit(train)
    missing = np.isnan(new)
    filled = np.where(missing, model.reconstruct(new), new)
    np.testing.assert_allclose(
        model._skew_score_distances(new), model._skew_score_distances(filled), rtol=1e-10
    )


def test_float32_rows_on_a_float64_model_keep_one_dtype():
    """Complete rows and rows with gaps give float64 alike (a gap gave float32)."""
    train, new = _planted(3)
    model = PCA(2).fit(train)
    rows = new[1:].astype(np.float32)
    complete = np.nan_to_num(rows, nan=3.0)
    for method in ("transform", "reconstruct", "reconstruction_error", "score_samples"):
        a, b = getattr(model, method)(complete), getattr(model, method)(rows)
        assert a.dtype == b.dtype == np.float64, method


@pytest.mark.parametrize(
    "method", ["predict", "score_samples", "transform", "reconstruction_error"]
)
def test_dask_names_an_empty_row_by_its_row_in_the_array(method):
    train, _ = _planted(4)
    model = PCA(2).fit(train)
    X = np.nan_to_num(train[:30], nan=3.0)
    X[12] = np.nan
    with pytest.raises(ValueError, match=r"row\(s\) 12 \(0-based\)"):
        getattr(model, method)(X)
    with pytest.raises(ValueError, match=r"row\(s\) 12 \(0-based\)"):
        out = getattr(model, method)(da.from_array(X, chunks=(10, -1)))
        out.compute()
