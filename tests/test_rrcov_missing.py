"""Missing entries in ROBPCA, SphericalPCA and CovariancePCA: iterated robust imputation
(Serneels & Verdonck 2008; issue 12). ProjectionPursuitPCA refuses NaN (its docstring)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import subspace_angles

from robustpca import ROBPCA, CovariancePCA, ProjectionPursuitPCA, SphericalPCA
from robustpca.solvers import StopReason

from .conftest import leverage_cluster, load_table

ESTIMATORS = [ROBPCA, SphericalPCA, CovariancePCA]


def with_gaps(X, share=0.1, seed=0):
    Xm = X.copy()
    Xm[np.random.default_rng(seed).random(X.shape) < share] = np.nan
    return Xm


@pytest.mark.parametrize(
    ("Estimator", "bound"),
    [(ROBPCA, 0.05), (SphericalPCA, 0.2), (CovariancePCA, 0.05)],
)
def test_planted_subspace_with_gaps_and_leverage_points(Estimator, bound):
    """10% of the entries missing and 10% of the rows a leverage cluster: the subspace is
    recovered as well as without gaps (the bounds of the complete-data tests), the
    cluster flagged, and the imputation settles."""
    X, U, m = leverage_cluster(frac=0.1)
    Xm = with_gaps(X)
    model = Estimator(n_components=2, random_state=0).fit(Xm)
    assert model.converged_ and model.n_missing_ == int(np.isnan(Xm).sum())
    assert np.sin(subspace_angles(model.components_.T, U)).max() < bound
    assert np.all(model.predict(Xm)[:m] == -1)
    assert np.mean(model.predict(Xm)[m:] == 1) > 0.9
    filled = model.reconstruct(Xm)
    assert np.isfinite(filled).all()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_skew_adjusted_robpca_with_gaps(seed):
    """``skew=True`` with gaps: the fit imputed, then its outlier reference (the adjusted
    outlyingness of the training rows) failed on their NaN with scikit-learn's "ROBPCA does
    not accept missing values"; the gaps are filled on the fitted subspace as for the
    other scores."""
    X, U, m = leverage_cluster(frac=0.1)
    Xm = with_gaps(X, seed=seed)
    model = ROBPCA(n_components=2, skew=True, random_state=0).fit(Xm)
    assert model.converged_
    assert np.sin(subspace_angles(model.components_.T, U)).max() < 0.05
    labels = model.predict(Xm)
    assert np.all(labels[:m] == -1) and np.mean(labels[m:] == 1) > 0.95
    assert np.isfinite(model.decision_function(Xm)).all()


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_complete_data_take_the_unchanged_route(Estimator):
    X, _, _ = leverage_cluster(n=80, frac=0.1)
    a = Estimator(n_components=2, random_state=0).fit(X)
    assert a.n_missing_ == 0 and a.stop_reason_ == StopReason.CLOSED_FORM


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("table", "expected"), [("hbk", list(range(1, 15))), ("wood", [4, 6, 8, 19])]
)
def test_robpca_with_gaps_still_flags_the_documented_outliers(shared_data, table, expected):
    """10% of the cells of hbk and wood removed: ROBPCA at k = 2 flags exactly the
    documented outliers, as it does (and PcaHubert does) on the complete tables."""
    X = load_table(shared_data, table)
    Xm = with_gaps(X)
    X_copy = Xm.copy()
    model = ROBPCA(n_components=2, random_state=0).fit(Xm)
    np.testing.assert_array_equal(np.isnan(Xm), np.isnan(X_copy))  # input untouched
    flagged = np.flatnonzero(model.predict(Xm) == -1) + 1
    assert flagged.tolist() == expected


def test_new_rows_with_gaps_are_scored_on_their_observed_coordinates():
    X, _, _ = leverage_cluster(frac=0.1)
    model = ROBPCA(n_components=2, random_state=0).fit(X)
    new = X[:30].copy()
    new[::3, 4] = np.nan
    scores = model.decision_function(new)
    assert np.isfinite(scores).all() and np.all(scores[:20] < 0)


def test_an_empty_row_is_named():
    X, _, _ = leverage_cluster(n=60, frac=0.1)
    X[7] = np.nan
    with pytest.raises(ValueError, match="row"):
        ROBPCA(n_components=2).fit(X)


def test_projection_pursuit_refuses_missing_entries():
    X, _, _ = leverage_cluster(n=60, frac=0.1)
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ProjectionPursuitPCA(n_components=2).fit(X)
