"""A gap in metrics/reconstruction.py found by mutation testing.

projection_reconstruction_error works in units of a power of two near its largest
input, so that no square of a residual overflows or underflows (its comment). The
scale-equivariance test of test_metric_extremes.py covers the other errors but not
this one: dropping the units (inf near 1e200, 0 near 1e-200) went unnoticed.
"""

import math

import numpy as np
import pytest

from robustpca.metrics import projection_reconstruction_error


@pytest.mark.parametrize("exponent", [-700, -400, 0, 400, 700])
@pytest.mark.parametrize("mean", ["default", "given", "zero"])
def test_projection_error_is_scale_equivariant(exponent, mean):
    """e(s X, s C, s mu) = s e(X, C, mu) for a power of two s, from 2^-700 to 2^700
    (about 1e-211 to 1e211), with the default centre, a given one and none."""
    rng = np.random.default_rng(exponent + 1000)
    W = np.linalg.qr(rng.normal(size=(6, 2)))[0].T
    X = rng.normal(size=(9, 6)) + 3.0
    C = X + 0.1 * rng.normal(size=X.shape)
    mu = {"default": None, "given": rng.normal(size=6), "zero": 0.0}[mean]
    s = math.ldexp(1.0, exponent)
    expected = projection_reconstruction_error(W, X, C, mean=mu)
    scaled_mu = None if mu is None else np.asarray(mu) * s
    got = projection_reconstruction_error(W, X * s, C * s, mean=scaled_mu)
    assert expected > 0
    assert got == pytest.approx(expected * s, rel=1e-13)
