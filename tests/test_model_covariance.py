"""``get_covariance``, ``get_precision`` and ``noise_variance_``: the Gaussian model of
``score``, as scikit-learn's ``PCA`` exposes its own (a user of ``PCA.get_covariance``
found none here)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.exceptions import NotFittedError

import bench_outliers as bench
import robustpca

from .conftest import make_estimator

WITH_DENSITY = [n for n in robustpca.ESTIMATOR_NAMES if n != "KernelL21PCA"]
IMAGES = {"TwoDPCA", "GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"}


@pytest.fixture(scope="module")
def cardio(adbench):
    return bench.load_table("6_cardio", adbench)[0]


@pytest.mark.parametrize("k", [3, 10])
def test_pca_is_scikit_learns_model_on_a_real_table(cardio, k):
    ours, theirs = robustpca.PCA(k).fit(cardio), SklearnPCA(k).fit(cardio)
    assert ours.noise_variance_ == pytest.approx(theirs.noise_variance_, rel=1e-12)
    C, P = theirs.get_covariance(), theirs.get_precision()
    np.testing.assert_allclose(ours.get_covariance(), C, atol=1e-12 * np.abs(C).max())
    np.testing.assert_allclose(ours.get_precision(), P, atol=1e-10 * np.abs(P).max())
    logpdf = multivariate_normal(ours.mean_, ours.get_covariance()).logpdf(cardio)
    assert ours.score(cardio) == pytest.approx(logpdf.mean(), rel=1e-10)


@pytest.mark.realdata
def test_pca_on_wide_data_takes_tipping_and_bishops_noise_variance(shared_data):
    """octane (39 x 226): the discarded variance over ``d - k`` (the documented
    departure), where scikit-learn's divides by ``min(n, d) - k``; the components and
    their variances are scikit-learn's."""
    from .conftest import load_table

    X, k = load_table(shared_data, "octane"), 5
    ours, theirs = robustpca.PCA(k).fit(X), SklearnPCA(k).fit(X)
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_, rtol=1e-10)
    n, d = X.shape
    ratio = (min(n, d) - k) / (d - k)
    assert ours.noise_variance_ == pytest.approx(theirs.noise_variance_ * ratio, rel=1e-10)


def _fitted(name, X):
    params = {"n_components": (2, 2) if name in IMAGES - {"TwoDPCA"} else 2}
    if name in IMAGES:
        params["image_shape"] = (2, 3)
    if name == "RobustTransferPCA":
        params = {"n_shared": 2, "n_source": 1, "n_target": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_estimator(name, **params).fit(X)


@pytest.mark.parametrize("name", WITH_DENSITY)
def test_the_precision_inverts_the_covariance_and_gives_mahalanobis(name):
    X = np.random.default_rng(0).standard_normal((60, 6)) * [4, 3, 2, 1, 1, 0.5]
    X[:4] += 20
    model = _fitted(name, X)
    C, P = model.get_covariance(), model.get_precision()
    assert C.shape == P.shape == (6, 6)
    np.testing.assert_allclose(C, C.T, atol=1e-12 * np.abs(C).max())
    assert np.linalg.eigvalsh(C).min() > 0
    np.testing.assert_allclose(P @ C, np.eye(6), atol=1e-8)
    centre = model.mean_ + model._likelihood_model().center @ model.components_
    D = X - centre
    m2 = np.einsum("ij,jk,ik->i", D, P, D)
    np.testing.assert_allclose(m2, model.mahalanobis(X), rtol=1e-8)
    assert model.noise_variance_ >= 0


def test_a_full_rank_fit_has_no_noise_variance(cardio):
    model = robustpca.PCA().fit(cardio)
    assert model.noise_variance_ == 0.0
    assert np.all(np.isfinite(model.get_precision()))


def test_kernel_model_has_no_density_and_an_unfitted_model_says_so():
    X = np.random.default_rng(1).standard_normal((30, 4))
    kernel = robustpca.KernelL21PCA(n_components=2).fit(X)
    assert not hasattr(kernel, "get_covariance")
    assert not hasattr(kernel, "noise_variance_")
    with pytest.raises(NotFittedError):
        robustpca.ROBPCA().get_covariance()


def test_a_dask_fit_stores_the_same_model(cardio):
    da = pytest.importorskip("dask.array")
    memory = robustpca.PCA(5).fit(cardio)
    lazy = robustpca.PCA(5).fit(da.from_array(cardio, chunks=(500, -1)))
    assert lazy.noise_variance_ == pytest.approx(memory.noise_variance_, rel=1e-10)
    np.testing.assert_allclose(lazy.get_covariance(), memory.get_covariance(), rtol=1e-10)
