"""Scale equivariance at the ends of the float range: ``fit(c X)`` is ``fit(X)`` scaled.

Robust PCA is used on data in any unit (volts or microvolts, counts or billions). Every
estimator whose model has no constant in data units gives, on ``c X``, the components,
flags and (scaled) scores it gives on ``X``. The factors are powers of two, so the
scaling itself is exact and any difference is the estimator's: an absolute constant
(a floor, a tolerance) or an overflow. GoDec's power steps, which cube the data's scale,
overflowed from about 1e103 (an ``AssertionError``) and underflowed from about 1e-103
(a subspace 0.9 off in sine) before its solver worked on the data divided by a power of
two.

Not scale-equivariant by design, and so not tested here:

* :class:`~robustpca.KernelL21PCA`: the kernel's ``gamma`` (default ``1 / n_features``,
  as scikit-learn's ``KernelPCA``) is in inverse squared data units;
* :class:`~robustpca.RankConstrainedRobustPCA`: ``beta / alpha`` is its Huber threshold
  in data units (documented);
* :class:`~robustpca.SphericalPCA`: rrcov's spatial median stops on steps below
  ``delta * sqrt(p)``, an absolute tolerance kept to equal rrcov's ``PcaLocantore``
  (``tests/test_spherical_covariance.py``).

The image estimators and R-T-PCA are left to their own modules.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robustpca

from .conftest import load_table, random_gaps

#: every estimator on tables whose model has no constant in data units
NOT_EQUIVARIANT = {"KernelL21PCA", "RankConstrainedRobustPCA", "SphericalPCA"}
IMAGES = {"TwoDPCA", "GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"}
NAMES = [
    name
    for name in robustpca.ESTIMATOR_NAMES
    if name not in NOT_EQUIVARIANT | IMAGES | {"RobustTransferPCA"}
]
#: convex programs: their penalty sets the rank
PENALISED = {"PrincipalComponentPursuit", "OutlierPursuit", "ConvexOptimalMeanPCA"}
EXPONENTS = [-400, -60, 60, 400]
CASES = [(name, False) for name in NAMES] + [
    (name, True) for name in NAMES if getattr(robustpca, name)._supports_missing
]


def _model(name: str):
    cls = getattr(robustpca, name)
    params = cls().get_params()
    kwargs = {}
    if "random_state" in params:
        kwargs["random_state"] = 0
    if "n_components" in params and name not in PENALISED:
        kwargs["n_components"] = 2
    return cls(**kwargs)


def _fit(name: str, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence on the scaled data is compared below
        return _model(name).fit(X)


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("name", "gaps"), CASES, ids=[f"{n}-{'gaps' if g else 'complete'}" for n, g in CASES]
)
def test_fit_of_scaled_data_is_the_scaled_fit(shared_data, name, gaps):
    """bushfire (38 x 5, outliers in rows 7-11 and 32-38), complete and with a tenth of
    its cells missing: at ``c = 2**e``, ``e`` in -400, -60, 60, 400, the components
    agree to 1e-10, the scores of ``c X`` are ``c`` times those of ``X`` to 1e-10
    relative, and the flags are the same."""
    X = load_table(shared_data, "bushfire")
    if gaps:
        X = random_gaps(X, 0)[0]
    reference = _fit(name, X)
    scores, flags = reference.transform(X), reference.predict(X)
    assert np.isfinite(scores).all()
    for exponent in EXPONENTS:
        c = np.ldexp(1.0, exponent)
        model = _fit(name, X * c)
        np.testing.assert_allclose(model.components_, reference.components_, rtol=0, atol=1e-10)
        scaled = np.asarray(model.transform(X * c)) / c
        np.testing.assert_allclose(scaled, scores, rtol=0, atol=1e-10 * np.abs(scores).max())
        np.testing.assert_array_equal(model.predict(X * c), flags)
