"""Gap in solvers/likelihood.py (SubspaceGaussian.floor), from mutation testing.

Without a background variance (``background_variance=0``) the floor uses the model's
own ``tau = tr(C) / d`` with ``tr(C) = sum(lambda) + (d - k) sigma^2``; dropping the
orthogonal part of the trace went unnoticed.
"""

import numpy as np
import pytest
from scipy import stats

from robustpca.solvers.likelihood import subspace_gaussian


@pytest.mark.parametrize("q", [0.5, 0.975])
def test_floor_without_background_uses_the_model_trace(q):
    d = 6
    model = subspace_gaussian(np.zeros(2), np.array([2.0, 1.0]), 0.5, d)
    tau = (4.0 + 1.0 + (d - 2) * 0.5) / d
    log_det = np.log(4.0) + np.log(1.0) + (d - 2) * np.log(0.5)
    expected = -0.5 * (d * np.log(2 * np.pi) + max(d * np.log(tau), log_det) + stats.chi2.ppf(q, d))
    assert model.floor(q) == pytest.approx(expected, rel=1e-12)


def test_floor_of_an_isotropic_model_is_its_own_contour():
    # lambda_j = sigma^2 = s: the model is N(b, s I), tau = s, and the floor is the
    # log-density on its chi2_d(q) contour
    d, s, q = 5, 2.0, 0.9
    model = subspace_gaussian(np.zeros(2), np.sqrt([s, s]), s, d)
    m2 = stats.chi2.ppf(q, d)
    expected = -0.5 * (d * np.log(2 * np.pi) + d * np.log(s) + m2)
    assert model.floor(q) == pytest.approx(expected, rel=1e-12)
