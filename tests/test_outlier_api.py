"""The outlier-detector API (predict, decision_function, fit_predict) and automatic rank
on every estimator; the diagnostics on hbk (issue 11)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

import robustpca
from robustpca.diagnostics import outlier_diagnostics, plot_outlier_map
from robustpca.estimators import BaseSubspaceEstimator
from robustpca.estimators._two_d_base import BaseTwoDEstimator
from robustpca.rank_selection import select_n_components, spherical_spectrum

from .conftest import make_estimator, quiet_fit

NAMES = robustpca.ESTIMATOR_NAMES
#: the estimators that take "auto" and shares by the base class's rule on the spherical
#: spectrum (and PCA, on its own eigenvalues): not those with their own rule (rrcov's,
#: tested against R) and not the 2-D estimators (image components)
AUTO_RANK = [
    name
    for name in NAMES
    if name == "PCA"
    or (
        getattr(robustpca, name)._supports_auto_rank
        and getattr(robustpca, name)._select_n_components
        is BaseSubspaceEstimator._select_n_components
        and not issubclass(getattr(robustpca, name), BaseTwoDEstimator)
    )
]
#: the estimators that are not classical PCA (KernelL21PCA's subspace lives in its kernel
#: embedding and is not compared with the others here)
ROBUST = [n for n in NAMES if n not in ("PCA", "TwoDPCA", "GLRAM", "KernelL21PCA")]


def planted(seed=0, n=120, d=6, k=2):
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, k)))[0]
    X = 5 + rng.normal(size=(n, k)) * [4.0, 2.0][:k] @ basis.T + 0.2 * rng.normal(size=(n, d))
    X[:8] += 6 * rng.normal(size=(8, d))  # orthogonal outliers
    return X


@pytest.mark.parametrize("name", NAMES)
def test_predict_agrees_with_the_diagnostics(name):
    X = planted()
    model = quiet_fit(make_estimator(name, n_components=2), X)
    labels = model.predict(X)
    assert labels.dtype.kind == "i" and set(np.unique(labels)) <= {-1, 1}
    diag = outlier_diagnostics(model, X)
    np.testing.assert_array_equal(labels == -1, diag.outliers)
    decision = model.decision_function(X)
    assert decision.shape == (X.shape[0],) and np.all(decision <= 1.0)
    np.testing.assert_array_equal(decision < 0, labels == -1)
    # new data: the training cutoffs (stored at fit), not cutoffs re-estimated on it
    new = X[:30] + 0.5
    np.testing.assert_array_equal(
        model.predict(new) == -1, outlier_diagnostics(model, new, reference=X).outliers
    )
    est = make_estimator(name, n_components=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        np.testing.assert_array_equal(est.fit_predict(X), labels)


def test_decision_is_zero_at_the_cutoff_and_in_cutoff_units():
    X = planted(1)
    model = robustpca.PCA(n_components=2).fit(X)
    d = outlier_diagnostics(model, X)
    expected = 1 - np.maximum(
        d.score_distances / d.score_cutoff, d.orthogonal_distances / d.orthogonal_cutoff
    )
    np.testing.assert_allclose(model.decision_function(X), expected)


def test_rpca_om_scores_are_centred_before_scaling():
    """The bug of issue 11: RPCA-OM's mean is only identified orthogonally to U, so
    shifting it along U must not change a single flag (scores were divided by their MAD
    without centring: every sample looked like a leverage point)."""
    X = planted(2)
    model = robustpca.OptimalMeanPCA(n_components=2).fit(X)
    before = model.predict(X)
    model.mean_ = model.mean_ + 50.0 * model.components_[0]
    model._set_outlier_reference(X)
    np.testing.assert_array_equal(model.predict(X), before)
    assert (before == -1).mean() < 0.2


def test_dask_fit_has_the_training_diagnostics_of_the_numpy_fit():
    da = pytest.importorskip("dask.array")
    X = planted(3)
    model = robustpca.PCA(n_components=2).fit(X)
    expected = model.predict(X)
    model.fit(da.from_array(X, chunks=(40, 6)))
    assert model._outlier_reference is not None
    np.testing.assert_array_equal(model.predict(X), expected)
    assert outlier_diagnostics(model, X, reference=X).outliers.shape == (X.shape[0],)


def test_outlier_map_labels_rows_like_rrcov(tmp_path):
    X = planted(4)
    frame = pd.DataFrame(X, index=[f"s{i}" for i in range(len(X))])
    model = robustpca.PCA(n_components=2).fit(frame)
    diag = outlier_diagnostics(model, frame)
    assert list(diag.labels[:2]) == ["s0", "s1"]
    ax = plot_outlier_map(diag)
    texts = {t.get_text() for t in ax.texts}
    assert texts == {f"s{i}" for i in np.flatnonzero(diag.outliers)} and texts
    plain = outlier_diagnostics(model, X)
    assert plain.labels[0] == 1  # 1-based row numbers, as rrcov
    assert not plot_outlier_map(plain, labels=False).texts


@pytest.mark.parametrize("name", AUTO_RANK)
def test_auto_and_share_choose_the_planted_rank(name):
    rng = np.random.default_rng(5)
    basis = np.linalg.qr(rng.normal(size=(8, 3)))[0]
    X = rng.normal(size=(150, 3)) * [5.0, 4.0, 3.0] @ basis.T + 0.05 * rng.normal(size=(150, 8))
    model = quiet_fit(make_estimator(name, n_components=0.99), X)
    assert model.n_components_ == 3 and model.components_.shape == (3, 8)
    auto = quiet_fit(make_estimator(name, n_components="auto"), X)
    if name == "PCA":
        eigenvalues = np.linalg.svd(X - X.mean(axis=0), compute_uv=False) ** 2
        expected = select_n_components(eigenvalues, "auto", kmax=8)
    else:
        eigenvalues, rank = spherical_spectrum(X)
        expected = select_n_components(eigenvalues, "auto", rank=rank)
    assert auto.n_components_ == expected and 2 <= expected <= 3


@pytest.mark.parametrize(
    "name",
    [
        "PrincipalComponentPursuit",
        "OutlierPursuit",
        "ConvexOptimalMeanPCA",
        "RobustTransferPCA",
        "RankConstrainedRobustPCA",
    ],
)
def test_auto_rank_is_refused_where_the_rank_is_the_methods(name):
    with pytest.raises(ValueError, match="variance share or 'auto' is not supported"):
        getattr(robustpca, name)(n_components="auto").fit(planted())
    with pytest.raises(ValueError, match="n_components"):
        robustpca.PCA(n_components=1.5).fit(planted())
    with pytest.raises(ValueError, match="n_components"):
        robustpca.PCA(n_components="all").fit(planted())


@pytest.mark.realdata
@pytest.mark.parametrize("name", ROBUST)
def test_hbk_is_not_flagged_wholesale(shared_data, name):
    """Issue 11: all 75 hbk samples were flagged. hbk's documented outliers are 1-14
    (1-10 bad leverage points): a robust fit flags at most a third of the data and
    finds the ten bad leverage points."""
    X = np.loadtxt(shared_data / "rrcov" / "hbk.csv", delimiter=",", skiprows=1)
    for k in (1, 2):
        model = quiet_fit(make_estimator(name, n_components=k), X)
        flagged = model.predict(X) == -1
        assert flagged.sum() <= len(X) // 3, (k, np.flatnonzero(flagged) + 1)
        assert flagged[:10].all(), (k, np.flatnonzero(flagged) + 1)
