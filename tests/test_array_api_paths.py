"""Array-API inputs on the paths beside ``fit``: the online estimators' stream, ROBPCA's
skew rule, ``fit(X, mask=...)``, float32 rows with gaps and boolean data."""

from __future__ import annotations

import contextlib
import warnings

import array_api_compat
import numpy as np
import pytest
from sklearn import config_context

import robustpca
from robustpca import GRASTA, PCA, ROBPCA, OnlineRobustPCA
from robustpca._array_api import fitted_arrays

from .conftest import make_estimator

xps = pytest.importorskip("array_api_strict")
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
MISSING = [
    name
    for name in robustpca.ESTIMATOR_NAMES
    if getattr(getattr(robustpca, name), "_supports_missing", False)
]
MASKED = ["PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA", "AccAltProj"]


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def host(a):
    return np.asarray(a._array) if hasattr(a, "_array") else np.asarray(a)


def in_namespace(a, X) -> bool:
    return array_api_compat.array_namespace(a) is array_api_compat.array_namespace(X) and (
        array_api_compat.device(a) == array_api_compat.device(X)
    )


@contextlib.contextmanager
def numpy_and_strict_fits(name, X):
    """The NumPy fit of ``X`` and, with dispatch on (kept on inside the block), the
    array-api-strict one and ``X`` there; warnings off."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = make_estimator(name, n_components=2).fit(X)
        with config_context(array_api_dispatch=True):
            Xs = xps.asarray(X)
            yield reference, make_estimator(name, n_components=2).fit(Xs), Xs


def data(seed=0, n=40, d=8, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3 + 1.0
    X += 0.1 * rng.normal(size=(n, d))
    X[:3] += 5 * rng.normal(size=(3, d))
    return X.astype(dtype)


@pytest.mark.parametrize("make", [OnlineRobustPCA, GRASTA])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_online_stream_in_the_batch_namespace(make, dtype):
    X = data(dtype=dtype)
    batches = (X[:20], X[20:])
    reference = make(n_components=2, random_state=0)
    expected = [reference.partial_fit_decompose(b) for b in batches]
    with config_context(array_api_dispatch=True):
        est = make(n_components=2, random_state=0)
        for batch, parts in zip(batches, expected, strict=True):
            got = est.partial_fit_decompose(xps.asarray(batch))
            for a, b in zip(got, parts, strict=True):
                assert in_namespace(a, xps.asarray(batch)) and a.dtype == xps.asarray(batch).dtype
                np.testing.assert_allclose(host(a), b, rtol=1e-6, atol=1e-6)
        for key, value in fitted_arrays(est).items():
            assert in_namespace(value, xps.asarray(X)), key
            np.testing.assert_allclose(host(value), getattr(reference, key), atol=1e-6)
        Xs = xps.asarray(X)
        low, sparse = est.decompose(Xs)
        np.testing.assert_allclose(host(low), reference.decompose(X)[0], atol=1e-5)
        assert in_namespace(sparse, Xs)
        np.testing.assert_array_equal(host(est.predict(Xs)), reference.predict(X))
        # a fit in the namespace continues as a stream there
        fitted = make(n_components=2, random_state=0).fit(Xs)
        fitted.partial_fit(Xs)
        assert in_namespace(fitted.components_, Xs)


@pytest.mark.parametrize("contamination", ["auto", 0.1])
def test_robpca_skew_outlier_api(shared_data, contamination):
    X = np.loadtxt(shared_data / "rrcov" / "hbk.csv", delimiter=",", skiprows=1)[:, :3]
    reference = ROBPCA(n_components=2, skew=True, contamination=contamination, random_state=0).fit(
        X
    )
    with config_context(array_api_dispatch=True):
        Xs = xps.asarray(X)
        est = ROBPCA(n_components=2, skew=True, contamination=contamination, random_state=0).fit(Xs)
        for method in ("score_samples", "decision_function", "predict"):
            out = getattr(est, method)(Xs)
            assert in_namespace(out, Xs), method
            np.testing.assert_allclose(host(out), getattr(reference, method)(X), rtol=1e-9)
        gaps = X.copy()
        gaps[5, 0] = np.nan
        np.testing.assert_allclose(
            host(est.score_samples(xps.asarray(gaps))), reference.score_samples(gaps), rtol=1e-9
        )


@pytest.mark.parametrize("name", MASKED)
@pytest.mark.parametrize("mask_namespace", ["numpy", "array_api_strict"])
def test_masked_fit_keeps_the_namespace(name, mask_namespace):
    X = data(1, n=30)
    mask = np.random.default_rng(2).random(X.shape) > 0.1
    reference = make_estimator(name, n_components=2).fit(X, mask=mask)
    with config_context(array_api_dispatch=True):
        Xs = xps.asarray(X)
        given = xps.asarray(mask) if mask_namespace == "array_api_strict" else mask
        est = make_estimator(name, n_components=2).fit(Xs, mask=given)
        for key, value in fitted_arrays(est).items():
            assert in_namespace(value, Xs), key
            np.testing.assert_allclose(host(value), getattr(reference, key), atol=1e-8)
        np.testing.assert_allclose(host(est.transform(Xs)), reference.transform(X), atol=1e-8)
        np.testing.assert_array_equal(host(est.predict(Xs)), reference.predict(X))
    np.testing.assert_array_equal(host(Xs), X)  # not modified


def test_masked_fit_on_a_device_without_float64():
    from .test_array_api_devices import float32_only_device

    X = data(1, n=30).astype(np.float32)
    mask = np.ones(X.shape, dtype=bool)
    mask[0, 0] = False
    device = float32_only_device()
    with config_context(array_api_dispatch=True):
        Xs = xps.asarray(X, device=device)
        est = make_estimator("PrincipalComponentPursuit").fit(Xs, mask=mask)
        assert array_api_compat.device(est.components_) == device


@pytest.mark.parametrize("name", MISSING)
def test_float32_rows_with_gaps_stay_float32(name):
    X = data(3, n=40).astype(np.float32)
    gaps = X.copy()
    gaps[5, 2] = np.nan
    with numpy_and_strict_fits(name, X) as (reference, est, _):
        G = xps.asarray(gaps)
        for method in ("transform", "reconstruct", "reconstruction_error"):
            if not hasattr(est, method):
                continue
            out = getattr(est, method)(G)
            assert out.dtype == xps.float32, method
            np.testing.assert_allclose(
                host(out), getattr(reference, method)(gaps), rtol=2e-4, atol=2e-4
            )


@pytest.mark.parametrize("name", MISSING)
def test_boolean_data_through_the_outlier_api(name):
    X = np.random.default_rng(4).normal(size=(30, 6)) > 0
    with numpy_and_strict_fits(name, X) as (reference, est, Xs):
        for method in ("score_samples", "decision_function", "predict"):
            out = getattr(est, method)(Xs)
            np.testing.assert_allclose(
                host(out), getattr(reference, method)(X), rtol=1e-7, atol=1e-9
            )
        assert host(make_estimator(name, n_components=2).fit_predict(Xs)).shape == (30,)


def test_pca_in_namespace_warns_about_unresolved_scales():
    rng = np.random.default_rng(5)
    X = np.column_stack(
        [rng.normal(size=50) * 1e9, rng.normal(size=50) * 1e-9, rng.normal(size=50)]
    )
    with pytest.warns(UserWarning, match="variances span"):
        PCA(n_components=3).fit(X)
    with config_context(array_api_dispatch=True), pytest.warns(UserWarning, match="variances span"):
        PCA(n_components=3).fit(xps.asarray(X))
