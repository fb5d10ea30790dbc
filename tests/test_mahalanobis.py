"""``mahalanobis(X)``: the rows' squared Mahalanobis distances under the Gaussian model of
a fit (the model of ``score``), the outlyingness of the earlier recommended detector
(``docs/design-notes/outlier-recommendation.md``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.metrics import roc_auc_score

from robustpca import HQPCA, PCA, ROBPCA, KernelL21PCA, OptimalMeanPCA, PrincipalComponentPursuit
from robustpca.diagnostics import outlier_diagnostics


def planted(n=400, d=8, k=2, share=0.1, seed=0):
    """Rank-``k`` rows with small noise, the first ``share`` of them gross outliers."""
    rng = np.random.default_rng(seed)
    W = np.linalg.qr(rng.normal(size=(d, k)))[0]
    X = (rng.normal(size=(n, k)) * [4.0, 2.0][:k]) @ W.T + 0.1 * rng.normal(size=(n, d))
    m = int(share * n)
    X[:m] += 8.0 * rng.normal(size=(m, d))
    return X, m


@settings(max_examples=20, deadline=None)
@given(n=st.integers(30, 200), k=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_pca_is_sklearn_pca_log_likelihood(n, k, seed):
    """For classical PCA, ``log p = -(d log 2 pi + log det C + m^2) / 2`` of scikit-learn's
    probabilistic PCA (``score_samples``, ``get_covariance``)."""
    rng = np.random.default_rng(seed)
    d = 6
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
    ours = PCA(k).fit(X).mahalanobis(X)
    theirs = SklearnPCA(k).fit(X)
    log_det = np.linalg.slogdet(theirs.get_covariance())[1]
    m2 = -2.0 * theirs.score_samples(X) - d * np.log(2.0 * np.pi) - log_det
    np.testing.assert_allclose(ours, m2, rtol=1e-8, atol=1e-8 * max(1.0, np.abs(m2).max()))


def test_robust_fits_weigh_the_two_distances_by_one_model():
    """ROBPCA: ``m^2 = SD^2 + OD^2 / sigma^2``, the diagnostics' score distance (the
    robust eigenvalues) and ``sigma^2`` the median training ``OD^2`` over the median of
    chi-square with ``d - k`` degrees; ``score`` is the floored mean of the rows'
    log-likelihoods made from them."""
    X, _ = planted()
    model = ROBPCA(n_components=2, random_state=0).fit(X)
    diag = outlier_diagnostics(model, X)
    sigma2 = np.median(diag.orthogonal_distances**2) / stats.chi2.ppf(0.5, X.shape[1] - 2)
    expected = diag.score_distances**2 + diag.orthogonal_distances**2 / sigma2
    m2 = model.mahalanobis(X)
    np.testing.assert_allclose(m2, expected, rtol=1e-10)
    gaussian = model._likelihood_model()
    log_p = -0.5 * (X.shape[1] * np.log(2.0 * np.pi) + gaussian.log_det() + m2)
    score = np.mean(np.maximum(log_p, gaussian.floor(0.975)))
    assert model.score(X) == pytest.approx(score, rel=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda: ROBPCA(n_components=2, random_state=0),
        lambda: OptimalMeanPCA(n_components=2, random_state=0),
        lambda: HQPCA(n_components=2, random_state=0),
        lambda: PrincipalComponentPursuit(random_state=0),
    ],
    ids=["robpca", "om", "hq", "pcp"],
)
def test_planted_outliers_are_the_most_distant(make):
    """The planted gross rows are the rows of largest ``m^2``, for the rrcov rule and
    for the estimators whose score scales are the training scores' median and MAD."""
    X, m = planted()
    m2 = make().fit(X).mahalanobis(X)
    assert set(np.argsort(m2)[-m:]) == set(range(m))
    assert np.all(np.isfinite(m2)) and np.all(m2 >= 0)


def test_dask_input_gives_a_lazy_equal_result():
    da = pytest.importorskip("dask.array")
    X, _ = planted()
    model = ROBPCA(n_components=2, random_state=0).fit(X)
    lazy = model.mahalanobis(da.from_array(X, chunks=(100, 4)))
    assert hasattr(lazy, "dask") and lazy.chunks == ((100,) * 4,)
    np.testing.assert_allclose(lazy.compute(), model.mahalanobis(X), rtol=1e-12)


def test_degenerate_data_and_bad_input():
    """Constant data give finite distances; unfitted and wrong-width input raise; a
    kernel model has no density, hence no ``mahalanobis``; the input is not modified."""
    X = np.ones((50, 4))
    assert np.all(np.isfinite(ROBPCA(n_components=1, random_state=0).fit(X).mahalanobis(X)))
    with pytest.raises(Exception, match="not fitted"):
        ROBPCA().mahalanobis(X)
    Y, _ = planted()
    before = Y.copy()
    model = ROBPCA(n_components=2, random_state=0).fit(Y)
    model.mahalanobis(Y)
    np.testing.assert_array_equal(Y, before)
    with pytest.raises(ValueError, match="features"):
        model.mahalanobis(Y[:, :3])
    assert not hasattr(KernelL21PCA(n_components=2).fit(Y), "mahalanobis")


@pytest.mark.realdata
def test_the_likelihood_detector_on_real_tables(adbench):
    """On ADBench tables (median/MAD scaling, the benchmark's protocol) the likelihood
    detector (the earlier recommendation), ROBPCA with two components ranking rows by
    ``m^2``, weighs the
    diagnostics' distances as the model says and ranks the labelled outliers above
    chance."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_outliers as bench

    for name in ["14_glass", "15_Hepatitis", "21_Lymphography"]:
        X, y = bench.load_table(name, adbench)
        X = bench.scale_columns(X)
        model = ROBPCA(n_components=2, random_state=0).fit(X)
        diag = outlier_diagnostics(model, X)
        od2 = diag.orthogonal_distances**2
        sigma2 = np.median(od2) / stats.chi2.ppf(0.5, X.shape[1] - 2)
        m2 = model.mahalanobis(X)
        np.testing.assert_allclose(m2, diag.score_distances**2 + od2 / sigma2, rtol=1e-10)
        np.testing.assert_array_equal(m2, -bench.likelihood_factory()().fit(X).decision_function(X))
        assert roc_auc_score(y, m2) > 0.6
