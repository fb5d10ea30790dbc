"""The Dask fit validates like the NumPy fit (audit A3, A4).

* Data whose squares underflow: the in-memory fit refuses it
  (:func:`robustpca._validation.check_magnitude`); the Dask fit returned an arbitrary
  subspace (PCA, L21PCA, ROBPCA, the low-rank plus sparse and online fits) or died in
  the eigensolver (OptimalMeanPCA). It now raises the same ``ValueError`` from its first
  pass, on both routes (the online fits after their stream's first pass).
* ``PCA(sample_weight=...)``: ``n_components`` is bounded by the rows the weights make
  (:func:`robustpca._validation.weighted_rows`), not by ``n_samples``, for NumPy and dask
  weights alike.
"""

from __future__ import annotations

import numpy as np
import pytest

import robustpca as rp
from tests.conftest import load_table

da = pytest.importorskip("dask.array")

UNDERFLOW_ESTIMATORS = [rp.PCA, rp.L21PCA, rp.ROBPCA, rp.OptimalMeanPCA]


def _message(fit) -> str:
    with pytest.raises(ValueError) as excinfo:
        fit()
    return str(excinfo.value)


@pytest.mark.parametrize("Estimator", UNDERFLOW_ESTIMATORS, ids=lambda e: e.__name__)
@pytest.mark.parametrize(
    ("table", "chunks"), [("hbk", (20, 3)), ("octane", (39, 50))], ids=["tall", "wide"]
)
def test_underflow_raises_numpy_error(shared_data, Estimator, table, chunks):
    # an rrcov table scaled so that its squares underflow float64
    X = load_table(shared_data, table) * 1e-160
    expected = _message(lambda: Estimator(n_components=2).fit(X))
    assert "underflow" in expected
    got = _message(lambda: Estimator(n_components=2).fit(da.from_array(X, chunks=chunks)))
    assert got == expected


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("PrincipalComponentPursuit", {}),
        ("OutlierPursuit", {}),
        ("ConvexOptimalMeanPCA", {}),
        ("AccAltProj", {"n_components": 1}),
        ("GoDec", {"n_components": 1}),
        ("OnlineRobustPCA", {"n_components": 1}),
        ("GRASTA", {"n_components": 1}),
    ],
)
def test_underflow_raises_numpy_error_for_chunk_state_and_online_fits(shared_data, name, params):
    """The fits whose first pass keeps a state per chunk (the low-rank plus sparse ones)
    and the online fits, which read the rows once as a stream, refuse such data too: the
    stream after its pass, when the largest entry of all of X is known."""
    X = load_table(shared_data, "hbk") * 1e-160
    Estimator = getattr(rp, name)
    expected = _message(lambda: Estimator(**params).fit(X))
    assert "underflow" in expected
    got = _message(lambda: Estimator(**params).fit(da.from_array(X, chunks=(20, 4))))
    assert got == expected


def test_underflow_float32_uses_input_dtype(shared_data):
    # float32 input is judged by float32's bound, as in memory (hbk * 1e-25 is fine in
    # float64 but its squares underflow float32)
    X = (load_table(shared_data, "hbk") * 1e-25).astype(np.float32)
    expected = _message(lambda: rp.PCA(n_components=2).fit(X))
    assert "float32" in expected
    got = _message(lambda: rp.PCA(n_components=2).fit(da.from_array(X, chunks=(25, 3))))
    assert got == expected
    rp.PCA(n_components=2).fit(da.from_array(X.astype(np.float64), chunks=(25, 3)))


def test_underflow_check_ignores_nan_and_keeps_passes(shared_data):
    # a NaN is a missing entry (not a magnitude), and the check adds no pass
    X = load_table(shared_data, "hbk")
    model = rp.PCA(n_components=2).fit(da.from_array(X, chunks=(20, 3)))
    reference = rp.PCA(n_components=2).fit(X)
    np.testing.assert_allclose(model.components_, reference.components_, atol=1e-12)
    assert model.n_passes_ == 2  # the moments pass and the diagnostics pass, as before
    gaps = X * 1e-160
    gaps[3, 1] = np.nan
    expected = _message(lambda: rp.PCA(n_components=2).fit(gaps))
    got = _message(lambda: rp.PCA(n_components=2).fit(da.from_array(gaps, chunks=(20, 3))))
    assert got == expected


def _weights(n: int, positive: int, value: float) -> np.ndarray:
    w = np.zeros(n)
    w[:positive] = value
    return w


@pytest.mark.parametrize("dask_weights", [False, True], ids=["numpy-w", "dask-w"])
@pytest.mark.parametrize(
    ("table", "chunks", "positive", "value"),
    [("hbk", (20, 3), 2, 0.5), ("hbk", (20, 3), 1, 2.0), ("octane", (39, 50), 8, 0.7)],
    ids=["tall-fractional", "tall-whole", "wide"],
)
def test_weighted_rows_bound_n_components(
    shared_data, table, chunks, positive, value, dask_weights
):
    X = load_table(shared_data, table)
    w = _weights(X.shape[0], positive, value)
    Xd = da.from_array(X, chunks=chunks)
    wd = da.from_array(w, chunks=(chunks[0],)) if dask_weights else w
    reference = rp.PCA(n_components=None).fit(X, sample_weight=w)
    model = rp.PCA(n_components=None).fit(Xd, sample_weight=wd)
    assert model.n_components_ == reference.n_components_ < min(X.shape)
    assert model.components_.shape == reference.components_.shape
    # an explicit value above that bound: the same refusal
    k = min(X.shape)
    expected = _message(lambda: rp.PCA(n_components=k).fit(X, sample_weight=w))
    got = _message(lambda: rp.PCA(n_components=k).fit(Xd, sample_weight=wd))
    assert got == expected


def test_invalid_dask_weights_keep_their_message(shared_data):
    # weights the first pass refuses are refused with the NumPy message, not an
    # n_components error from the bound
    X = load_table(shared_data, "hbk")
    w = _weights(X.shape[0], 2, 1.0)
    w[5] = -1.0
    expected = _message(lambda: rp.PCA(n_components=3).fit(X, sample_weight=w))
    Xd = da.from_array(X, chunks=(20, 3))
    got = _message(lambda: rp.PCA(n_components=3).fit(Xd, sample_weight=da.from_array(w, 20)))
    assert got == expected


@pytest.mark.parametrize("alias", ["orpca", "or-pca", "OR-PCA", "OnlineRobustPCA"])
def test_cli_method_accepts_orpca_alias(alias):
    # `robustpca fit --method orpca`, the name `robustpca video` and docs/dask.md use
    from robustpca.cli._methods import resolve_method

    assert resolve_method(alias) is rp.OnlineRobustPCA
