"""The Gaussian model behind ``score`` (robustpca.solvers.likelihood), mutation audit.

The floor's ``max(d log tau, log det C)`` where the background is the narrower, the
variance floor of :func:`subspace_gaussian`, and the per-row log-likelihood against
SciPy's multivariate normal density of the same covariance (an independent reference
for the formula that ``test_score.py`` writes out by hand).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from robustpca import ROBPCA, OptimalMeanPCA
from robustpca.solvers.likelihood import subspace_gaussian


def test_floor_is_at_most_the_models_own_contour():
    """A background narrower than the model (tau below det(C)^(1/d)): the floor is the
    log-density on the model's own quantile contour, not on the background's, so no
    row inside that contour is floored."""
    d, q = 6, 0.975
    model = subspace_gaussian(np.zeros(2), np.array([3.0, 2.0]), 1.5, d, background=1e-3)
    log_det = np.log(9.0) + np.log(4.0) + (d - 2) * np.log(1.5)
    assert d * np.log(1e-3) < log_det
    expected = -0.5 * (d * np.log(2 * np.pi) + log_det + stats.chi2.ppf(q, d))
    assert model.floor(q) == pytest.approx(expected, rel=1e-12)


def test_subspace_gaussian_floors_every_variance():
    """Every variance (the scores' and the noise's) is at least ``floor``, so that a
    component or an orthogonal part without spread gives a finite, bounded model."""
    model = subspace_gaussian(np.zeros(3), np.array([2.0, 1e-9, 0.0]), 1e-30, 5, floor=1e-6)
    np.testing.assert_array_equal(model.variances, [4.0, 1e-6, 1e-6])
    assert model.noise_variance == 1e-6
    assert subspace_gaussian(np.zeros(1), np.ones(1), 0.0, 3, floor=0.25).noise_variance == 0.25


@pytest.mark.parametrize("make", [ROBPCA, OptimalMeanPCA])
def test_row_log_likelihood_is_the_multivariate_normal_density(make):
    """log p(x) of the fit's model equals SciPy's multivariate normal log-density with
    mean ``b + U^T c`` and covariance ``U^T diag(lambda) U + sigma^2 (I - U^T U)``."""
    rng = np.random.default_rng(0)
    W = np.linalg.qr(rng.normal(size=(8, 2)))[0]
    X = rng.normal(size=(150, 2)) * [3.0, 1.5] @ W.T + 0.2 * rng.normal(size=(150, 8)) + 1.0
    Y = X[:20] + 0.3 * rng.normal(size=(20, 8))
    model = make(2, random_state=0).fit(X)
    gauss = model._likelihood_model()
    U, b = model.components_, model.mean_
    P = U.T @ U
    C = U.T @ np.diag(gauss.variances) @ U + gauss.noise_variance * (np.eye(8) - P)
    expected = stats.multivariate_normal(b + U.T @ gauss.center, C).logpdf(Y)
    t, od = model.transform(Y), model.reconstruction_error(Y)
    np.testing.assert_allclose(gauss.log_likelihood(t, od), expected, rtol=1e-9)


@pytest.mark.parametrize("make", [ROBPCA, OptimalMeanPCA])
def test_variances_without_spread_sit_at_the_rounding_level_per_coordinate(make):
    """Exactly rank-2 data fitted with k = 3: the third score variance and the noise
    variance have no spread but rounding, and take the model's least variance, the
    squared OD floor (sqrt(eps) times the median norm) spread over the d coordinates."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2)) @ rng.normal(size=(2, 6)) + 3.0
    model = make(3, random_state=0).fit(X)
    gauss = model._likelihood_model()
    least = model._outlier_reference.od_floor**2 / 6
    np.testing.assert_allclose([gauss.variances[2], gauss.noise_variance], least, rtol=1e-12)
    assert np.all(gauss.variances[:2] > 1e6 * least)
