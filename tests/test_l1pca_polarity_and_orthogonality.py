"""PCA-L1 (Kwak 2008): the polarity of a zero projection, orthonormality on ill-conditioned
data, and the stop reason of a fit that both hit ``max_iter`` and was stopped.

Mutation audit: ``sign(0) = -1`` instead of Kwak's ``+1``, dropping the
re-orthogonalisation of each direction against the previous ones, and ranking
``max_iter`` above a callback stop all left the suite passing.
"""

from __future__ import annotations

import numpy as np

from robustpca.solvers import StopReason
from robustpca.solvers.l1_pca import solve_l1_pca


def test_zero_projection_has_positive_polarity():
    """Kwak's polarity is ``+1`` where ``w^T x_i >= 0``. Here the start ``w = (1, 0)`` (the
    largest sample) is exactly orthogonal to the two samples ``(0, 1)``: with polarity
    +1 the first step reaches ``(2, 1)/sqrt(5)``, a fixed point whose objective
    ``20/sqrt(5)`` is the L1 maximum, with no perturbation. (With -1 the first step stays
    at ``(1, 0)``, a fixed point with zero projections that needs Kwak's perturbation.)"""
    X = np.array([[4.0, 0.0], [0.0, 1.0], [0.0, 1.0], [-2.0, -1.0], [-2.0, -1.0]])
    result = solve_l1_pca(X, 1, rng=np.random.default_rng(0))
    np.testing.assert_allclose(result.components[0], np.array([2.0, 1.0]) / np.sqrt(5.0))
    np.testing.assert_allclose(result.objective, [20.0 / np.sqrt(5.0)])
    assert result.info["n_perturbations_per_component"][0] == 0


def test_components_orthonormal_on_badly_scaled_data():
    """Features on scales from 1 to 1e8: deflation alone leaves each new direction off
    orthogonal to the previous ones by about ``eps`` times the scale ratio (1e-10
    here); the re-orthogonalisation of each direction makes them orthonormal to
    rounding."""
    scales = np.logspace(8, 0, 5)
    X = np.random.default_rng(0).standard_t(2, size=(50, 5)) * scales
    W = solve_l1_pca(X, 5, rng=np.random.default_rng(0)).components
    np.testing.assert_allclose(W @ W.T, np.eye(5), atol=1e-12)


def test_callback_stop_outranks_max_iter():
    """A fit whose first component stopped at ``max_iter`` and whose callback then stopped
    it reports the callback (the user's decision), not ``max_iter``."""
    X = np.random.default_rng(0).standard_t(2, size=(40, 5))
    result = solve_l1_pca(
        X, 3, rng=np.random.default_rng(0), max_iter=1, callback=lambda it, state: it >= 2
    )
    assert result.stop_reason == StopReason.CALLBACK
    assert not result.converged
