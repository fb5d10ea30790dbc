"""PCA-GM (Oh & Kwak 2016): the argument checks of Algorithm 1's public function and the
centre returned by Algorithm 2.

Mutation audit: the checks of ``generalized_sample_mean`` on a non-finite ``initial``
and a negative ``tol``, and the copy of the fixed centre in the result of
``solve_generalized_mean_pca``, were removed without any test failing.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.solvers.generalized_mean import (
    generalized_sample_mean,
    solve_generalized_mean_pca,
)


def data(seed):
    """30 samples near a 2-D affine subspace of R^6."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 2)) @ rng.normal(size=(2, 6)) + 3.0
    return X + 0.1 * rng.normal(size=X.shape)


def test_generalized_sample_mean_rejects_non_finite_initial_and_negative_tol():
    """``initial`` must be a finite point and ``tol`` non-negative. A NaN start makes every
    weight (7) NaN; the error must name the argument the user gave (``initial``), not
    the loop's internal ``initial_weights``."""
    X = data(2)
    start = X.mean(axis=0)
    start[1] = np.nan
    with pytest.raises(ValueError, match="initial must be a finite"):
        generalized_sample_mean(X, 0.5, initial=start)
    with pytest.raises(ValueError, match="initial must be a finite"):
        generalized_sample_mean(X, 0.5, initial=np.full(X.shape[1], np.inf))
    with pytest.raises(ValueError, match="tol"):
        generalized_sample_mean(X, 0.5, tol=-1.0)


def test_returned_mean_is_a_copy_of_the_centre():
    """``SolverResult.mean`` of Algorithm 2 is a copy of the fixed centre it was given:
    changing the result must not change the caller's array (nor the converse)."""
    X = data(3)
    mean = X.mean(axis=0)
    result = solve_generalized_mean_pca(
        X, 2, 0.3, mean=mean, delta=1e-6, rng=np.random.default_rng(0)
    )
    np.testing.assert_array_equal(result.mean, mean)
    assert not np.shares_memory(result.mean, mean)
