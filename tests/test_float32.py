"""float32 input: fitted in float64 arithmetic, kept in float32 (like scikit-learn's PCA).

Every estimator accepts float32 data and returns float32 fitted arrays and transforms;
the solvers widen the data (block by block in the reweighting passes, whole arrays in the
others) so that every reduction is accumulated in float64. Other input dtypes (integers,
booleans) are fitted in float64.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import robustpca

from .conftest import make_estimator, projector

NAMES = robustpca.ESTIMATOR_NAMES
#: Short fits on purpose (max_iter caps): ConvergenceWarning is expected noise here.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def planted(seed=0, n=80, d=12, offset=3.0):
    """A rank-2 affine subspace with a clear spectral gap, small noise, 6 outlier rows."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, 2)))[0]
    X = offset + (rng.normal(size=(n, 2)) * [6.0, 3.0]) @ basis.T
    X += 0.05 * rng.normal(size=(n, d))
    X[:6] += 4.0 * rng.normal(size=(6, d))
    return X


#: Proximal-gradient methods: thousands of cheap iterations at tol=1e-8; their default
#: tol already gives agreement far below 1e-4.
SLOW = {"RobustTransferPCA", "RankConstrainedRobustPCA"}


def make(name, **extra):
    """``name`` with 2 components and tight convergence (so both fits reach the optimum)."""
    est = make_estimator(name, n_components=2)
    params = est.get_params()
    if "tol" in params and name not in SLOW:
        extra.setdefault("tol", 1e-8)
    # Only where max_iter caps a convergence loop (a ``tol`` beside it): projection
    # pursuit's max_iter counts pcaPP's grid halvings, and 2000 of them only halve the
    # grid far below rounding (10 s a fit, the same loadings).
    if "max_iter" in params and "tol" in params and name not in SLOW:
        extra.setdefault("max_iter", max(params["max_iter"], 2000))
    return est.set_params(**extra)


def fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X)


def floating_attributes(est):
    return {
        k: v
        for k, v in vars(est).items()
        if isinstance(v, np.ndarray) and np.issubdtype(v.dtype, np.floating)
    }


#: the online estimators compute in the input's float32, by design (a video's throughput);
#: GRASTA's adaptive step rule then follows another path of steps from the rounding
FLOAT32_ARITHMETIC = {"OnlineRobustPCA", "GRASTA"}


@pytest.mark.parametrize("name", [n for n in NAMES if n != "GRASTA"])
def test_float32_fit_agrees_with_float64_fit(name):
    """The projectors of the float32 and float64 fits agree to 1e-4 (measured: 4e-8 at
    most, the float32 rounding of the components), and so do the means."""
    X = planted()
    a = fit(make(name), X)
    b = fit(make(name), X.astype(np.float32))
    np.testing.assert_allclose(
        projector(b.components_.astype(np.float64)), projector(a.components_), atol=1e-4
    )
    np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in FLOAT32_ARITHMETIC])
def test_float32_is_solved_in_float64(name):
    """Data far from the origin (offset 1e4, spread 1): float32 arithmetic would lose
    the subspace (relative rounding 6e-8 of 1e4 is 6e-4, the size of the noise), but the
    float32 fit equals the float64 fit of the same float32 values to float32 rounding."""
    X32 = planted(seed=1, offset=1e4).astype(np.float32)
    capped = {"max_iter": 300} if name in SLOW else {}  # the same path, capped
    a = fit(make(name, **capped), X32.astype(np.float64))
    b = fit(make(name, **capped), X32)
    np.testing.assert_allclose(
        projector(b.components_.astype(np.float64)), projector(a.components_), atol=1e-5
    )


@pytest.mark.parametrize("name", NAMES)
def test_float32_outputs_stay_float32(name):
    X = planted().astype(np.float32)
    short = {"max_iter": 20} if "max_iter" in make(name).get_params() else {}
    est = fit(make(name, **short), X)
    for key, value in floating_attributes(est).items():
        assert value.dtype == np.float32, key
    Z = est.transform(X)
    assert Z.dtype == np.float32
    assert fit(make(name, **short), X).fit_transform(X).dtype == np.float32
    if hasattr(est, "inverse_transform"):
        assert est.inverse_transform(Z).dtype == np.float32
    assert est.score_samples(X).dtype == np.float32 or name == "KernelL21PCA"
    # float64 input to a float32 model is promoted, as NumPy does
    assert est.transform(X.astype(np.float64)).dtype == np.float64


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, bool])
def test_other_dtypes_are_fitted_in_float64(name, dtype):
    X = (planted() > 3.0) if dtype is bool else np.round(planted() * 10).astype(dtype)
    est = fit(make(name, **({"max_iter": 20} if "max_iter" in make(name).get_params() else {})), X)
    assert est.components_.dtype == np.float64
    assert est.transform(X).dtype == np.float64


DEGENERATE = {
    "zeros": np.zeros((10, 6), dtype=np.float32),
    "constant rows": np.tile(np.arange(6, dtype=np.float32), (10, 1)),
    "duplicate rows": np.repeat(np.random.default_rng(0).normal(size=(2, 6)), 5, axis=0),
    "constant feature": np.column_stack(
        [np.random.default_rng(1).normal(size=(10, 5)), np.full(10, 7.0)]
    ),
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case", list(DEGENERATE))
def test_degenerate_float32_data_give_no_nan(name, case):
    X = DEGENERATE[case].astype(np.float32)
    est = fit(make(name, **({"max_iter": 50} if "max_iter" in make(name).get_params() else {})), X)
    assert est.components_.dtype == np.float32
    np.testing.assert_allclose(
        est.components_ @ est.components_.T, np.eye(est.components_.shape[0]), atol=1e-5
    )
    for key, value in floating_attributes(est).items():
        assert np.all(np.isfinite(value)), key
    assert np.all(np.isfinite(est.transform(X)))
    assert np.all(np.isfinite(est.score_samples(X)))
