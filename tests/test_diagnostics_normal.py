"""``OutlierDiagnostics.normal_outlyingness``: the two distances as normal scores (the
Wilson-Hilferty cube root of their squares), equal to the normal quantile at each
cutoff, so it flags exactly what ``outliers`` flags, under every rule."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from robustpca import HQPCA, PCA, ROBPCA, OptimalMeanPCA
from robustpca.diagnostics import OutlierDiagnostics, outlier_diagnostics

ESTIMATORS = {
    "robust": lambda k: ROBPCA(n_components=k, random_state=0),
    "skew": lambda k: ROBPCA(n_components=k, skew=True, random_state=0),
    "classical": lambda k: PCA(k),
    "scores": lambda k: OptimalMeanPCA(k),
    "scores (HQPCA)": lambda k: HQPCA(k),
}


def _data(seed: int, n: int = 300, d: int = 8, k: int = 2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)) * [4.0, 2.0, 1.5][:k] @ rng.normal(size=(k, d))
    X += 0.3 * rng.normal(size=(n, d))
    X[: n // 20] += 3.0 * rng.normal(size=(n // 20, d))  # off the subspace
    X[n // 20 : n // 10] *= 4.0  # far along it
    return X


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), k=st.integers(1, 3), rule=st.sampled_from(sorted(ESTIMATORS)))
def test_flags_exactly_what_the_cutoffs_flag(seed, k, rule):
    X = _data(seed, k=k)
    before = X.copy()
    model = ESTIMATORS[rule](k).fit(X)
    for quantile in (0.975, 0.9):
        diag = outlier_diagnostics(model, X, quantile=quantile)
        z = diag.normal_outlyingness
        assert np.array_equal(X, before)
        assert z.shape == (X.shape[0],) and np.all(np.isfinite(z))
        assert np.array_equal(z > stats.norm.ppf(quantile), diag.outliers)


def test_it_increases_with_each_distance():
    X = _data(0)
    diag = outlier_diagnostics(ROBPCA(n_components=2, random_state=0).fit(X), X)
    z = diag.normal_outlyingness
    only_od = diag.score_distances < np.median(diag.score_distances)
    # where the OD term is the larger, a larger OD is a larger outlyingness
    top = only_od & (diag.orthogonal_distances > np.quantile(diag.orthogonal_distances, 0.9))
    order = np.argsort(diag.orthogonal_distances[top])
    assert np.all(np.diff(z[top][order]) >= 0)


@pytest.mark.parametrize("k", [1, 2, 5, 10])
def test_the_score_distance_is_its_chi2_quantile_as_a_normal_score(k):
    """Wilson-Hilferty (1931): the cube root of chi2_k / k is nearly normal, mean
    1 - 2 / (9k), variance 2 / (9k): a score distance at the p-quantile of chi2_k has a
    normal score within 0.08 of the normal p-quantile for p from 0.25 to 0.999 (the
    approximation's error, largest at k = 1), and exactly at the cutoff's quantile."""
    p = np.array([0.25, 0.5, 0.75, 0.9, 0.975, 0.99, 0.999])
    sd = np.sqrt(stats.chi2.ppf(p, k))
    diag = OutlierDiagnostics(
        score_distances=sd,
        orthogonal_distances=np.zeros_like(sd),
        score_cutoff=float(np.sqrt(stats.chi2.ppf(0.975, k))),
        orthogonal_cutoff=0.0,
        score_scales=np.ones(k),
        quantile=0.975,
        score_center=np.zeros(k),
        rule="robust",
    )
    z = diag.normal_outlyingness
    np.testing.assert_allclose(z, stats.norm.ppf(p), atol=0.08)
    assert z[4] == pytest.approx(stats.norm.ppf(0.975), abs=1e-12)
    far = replace(diag, score_distances=np.array([1e200]), orthogonal_distances=np.zeros(1))
    assert np.isfinite(far.normal_outlyingness).all()  # no overflow


def test_the_orthogonal_distance_is_rrcovs_model_as_a_normal_score():
    """With location m and scale s of OD^(2/3), an OD with OD^(2/3) = m + z s scores z."""
    z = np.array([-1.0, 0.0, 1.0, 1.96, 3.0])
    m, s = 2.0, 0.5
    od = (m + z * s) ** 1.5
    q = 0.975
    diag = OutlierDiagnostics(
        score_distances=np.zeros_like(od),
        orthogonal_distances=od,
        score_cutoff=float(np.sqrt(stats.chi2.ppf(q, 2))),
        orthogonal_cutoff=float((m + s * stats.norm.ppf(q)) ** 1.5),
        score_scales=np.ones(2),
        quantile=q,
        score_center=np.zeros(2),
        rule="robust",
        od_model=(m, s),
    )
    np.testing.assert_allclose(diag.normal_outlyingness[1:], z[1:], atol=1e-12)
    # the SD term (0 here scores about -2.4 for chi2_2) wins only below it
    assert diag.normal_outlyingness[0] == pytest.approx(max(z[0], diag.normal_outlyingness[0]))


def test_lazy_on_a_dask_fit():
    da = pytest.importorskip("dask.array")
    X = _data(1, n=2000)
    dX = da.from_array(X, chunks=(500, X.shape[1]))
    model = ROBPCA(n_components=2, random_state=0).fit(dX)
    lazy = outlier_diagnostics(model, dX).normal_outlyingness
    assert hasattr(lazy, "compute")
    np.testing.assert_allclose(
        lazy.compute(), outlier_diagnostics(model, X).normal_outlyingness, rtol=1e-12
    )


@pytest.mark.realdata
def test_ranks_cardio_outliers_as_measured(adbench):
    """ADBench's 6_cardio, columns by median and MAD: the recommended detector
    (``docs/outlier-detection.md``) ranks its outliers with ROC AUC above 0.93 (0.946
    when written); its flags are the diagnostics'."""
    from sklearn.metrics import roc_auc_score

    with np.load(adbench / "6_cardio.npz") as data:
        X, y = data["X"].astype(np.float64), data["y"].astype(int)
    centre = np.median(X, axis=0)
    dev = np.abs(X - centre)
    scale = 1.4826 * np.median(dev, axis=0)  # zero MAD: the mean absolute deviation
    scale = np.where(scale > 0, scale, 1.2533 * dev.mean(axis=0))
    Xs = (X - centre) / np.where(scale > 0, scale, 1.0)
    model = ROBPCA(n_components=0.95, random_state=0).fit(Xs)
    diag = outlier_diagnostics(model, Xs)
    assert roc_auc_score(y, diag.normal_outlyingness) > 0.93
    assert np.array_equal(diag.normal_outlyingness > stats.norm.ppf(0.975), diag.outliers)
