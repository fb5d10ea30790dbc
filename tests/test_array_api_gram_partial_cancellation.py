"""The Gram route's residuals when only some rows lie on the fitted subspace.

:class:`robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem` forms the residuals of the
Gram route as a difference of squares, ``||x_i - b||^2 - ||U^T (x_i - b)||^2``, which
leaves about ``sqrt(eps) ||x_i - b||`` of a residual that is exactly zero. Like the NumPy
problem, it forms them explicitly as soon as *any* row's difference falls below
``SUSPICIOUS_RTOL`` of its squared norm. The existing test puts every row on the subspace;
the case the reweighting loops meet is a mixture: inliers exactly on a low-rank subspace
(whose residuals decide their weights) beside outliers that the loss has down-weighted to
zero.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import config_context

from robustpca._array_api import get_namespace_and_device
from robustpca.array_api_linalg import ArrayAPIWeightedPCAProblem
from robustpca.linalg import WeightedPCAProblem

xps = pytest.importorskip("array_api_strict")


@pytest.fixture(autouse=True)
def scipy_array_api(monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")


def test_inliers_on_the_subspace_get_zero_residuals_beside_outliers():
    """24 inliers on an affine plane (rank 2) in 300 features, 6 outliers of weight 0,
    k = 2: the inliers' residuals are zero to rounding (not sqrt(eps) of their norms), the
    outliers' equal the NumPy problem's."""
    rng = np.random.default_rng(4)
    d, k = 300, 2
    inliers = rng.normal(size=(24, k)) @ rng.normal(size=(k, d)) * 3.0 + 1.0
    outliers = 5.0 * rng.normal(size=(6, d))
    X = np.vstack([inliers, outliers])
    w = np.r_[np.ones(24), np.zeros(6)]
    X_xp = xps.asarray(X)
    with config_context(array_api_dispatch=True):
        xp, _, device = get_namespace_and_device(X_xp)
        sub = ArrayAPIWeightedPCAProblem(
            X_xp, k, np.random.default_rng(0), xp, device, route="gram"
        ).solve(w)
    ref = WeightedPCAProblem(X, k, np.random.default_rng(0), route="gram").solve(w)
    norms = np.linalg.norm(X - ref.mean(), axis=1)
    r = sub.residuals()
    assert np.all(r[:24] <= 1e-11 * norms[:24])
    np.testing.assert_allclose(r[24:], ref.residuals()[24:], rtol=1e-10)
    np.testing.assert_allclose(r[:24], 0.0, atol=1e-11 * norms.max())
