"""Limits of the Dask tall route with missing entries (issue 12, docs/dask.md): a
weight rule that needs every residual per iteration (OptimalMeanPCA with
``epsilon=0``) is refused with advice rather than fitted with a wrong rule, and a
float32 model's lazy transforms of rows with gaps keep float32, as the NumPy ones."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA, OptimalMeanPCA

da = pytest.importorskip("dask.array")


def _gapped(dtype=np.float64):
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(120, 5)) * [3.0, 2.0, 1.0, 0.5, 0.2]).astype(dtype)
    X[rng.random(X.shape) < 0.08] = np.nan
    return X


def test_a_global_weight_rule_with_gaps_is_refused_with_advice():
    X = _gapped()
    with pytest.raises(NotImplementedError, match=r"local weight rule only.*epsilon > 0"):
        OptimalMeanPCA(2, epsilon=0.0).fit(da.from_array(X, chunks=40))


@pytest.mark.parametrize("method", ["transform", "reconstruct", "reconstruction_error"])
def test_float32_lazy_transforms_of_gapped_rows_keep_float32(method):
    X = _gapped(np.float32)
    model = PCA(2).fit(X)
    assert model.components_.dtype == np.float32
    lazy = getattr(model, method)(da.from_array(X, chunks=40))
    want = getattr(model, method)(X)
    assert lazy.dtype == want.dtype == np.float32
    out = lazy.compute()
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_lazy_weights_and_residuals_with_gaps_keep_the_papers_relation():
    """RPCA-OM's weights are :math:`d_{ii} = 1 / (2 \\sqrt{r_i^2 + \\epsilon})` of its
    residuals (problem 16): the lazy ``weights_`` and ``residuals_`` of a fit with gaps
    are each their own quantity and keep that relation."""
    X = _gapped()
    model = OptimalMeanPCA(2).fit(da.from_array(X, chunks=40))
    residuals, weights = model.residuals_.compute(), model.weights_.compute()
    np.testing.assert_allclose(weights, 0.5 / np.sqrt(residuals**2 + model.epsilon_), rtol=1e-8)


def test_an_infinity_beside_a_gap_is_refused_by_the_lazy_transforms():
    X = _gapped()
    model = PCA(2).fit(X)
    Q = X.copy()
    Q[5, 0], Q[5, 1] = np.nan, np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.transform(Q)
    with pytest.raises(ValueError, match="infinity"):
        model.transform(da.from_array(Q, chunks=40)).compute()
