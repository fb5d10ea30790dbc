"""The refinement of OR-PCA's start is one alternation of problem (3) on the batch.

``orpca_initialize`` documents: the balanced start is "refined by ``n_iter``
alternations of problem (3) on the batch (project; ``L <- B (A + lambda1 I)^{-1}`` with
the batch's statistics)". With given penalties, one alternation from the start of
``n_iter=0`` is a projection of the batch followed by the surrogate's minimiser, with
``A = R'R`` and ``B = (Z - E)'R``.
"""

import numpy as np
import pytest

from robustpca.solvers.orpca import orpca_project
from robustpca.solvers.orpca_start import initial_directions, orpca_initialize


@pytest.mark.parametrize("rank", [1, 2])
def test_one_refinement_is_one_alternation_on_the_batch(rank):
    rng = np.random.default_rng(rank)
    Z = rng.normal(size=(60, rank)) * [8.0, 3.0][:rank] @ rng.normal(size=(rank, 25)) + 10.0
    Z += rng.normal(size=Z.shape)
    Z[rng.random(Z.shape) < 0.05] += 20.0
    kw = {"lambda1": 3.0, "lambda2": 1.5}
    start, _ = orpca_initialize(Z, rank, rng=np.random.default_rng(0), n_iter=0, **kw)
    refined, _ = orpca_initialize(Z, rank, rng=np.random.default_rng(0), n_iter=1, **kw)
    step = orpca_project(Z, start.basis, 3.0, 1.5)
    R = step.coefficients
    A = R.T @ R
    B = (Z - step.sparse).T @ R
    expected = np.linalg.solve(A + 3.0 * np.eye(rank), B.T).T
    np.testing.assert_allclose(refined.basis, expected, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("rank", [1, 2])
def test_without_refinement_the_start_is_the_balanced_factorisation(rank):
    """``n_iter=0``: the start directions ``U`` scaled to a balanced factorisation of the
    batch, ``Z U = P Sigma Q'`` and ``L = U Q Sigma^{1/2}`` (so ``L'L = Sigma``)."""
    rng = np.random.default_rng(rank)
    Z = rng.normal(size=(60, rank)) * [8.0, 3.0][:rank] @ rng.normal(size=(rank, 25)) + 10.0
    Z += rng.normal(size=Z.shape)
    state, _ = orpca_initialize(
        Z, rank, rng=np.random.default_rng(0), n_iter=0, lambda1=3.0, lambda2=1.5
    )
    U = initial_directions(Z, rank, np.random.default_rng(0))
    sigma = np.linalg.svd(Z @ U, compute_uv=False)
    L = state.basis
    np.testing.assert_allclose(L.T @ L, np.diag(sigma), rtol=1e-10, atol=1e-8 * sigma[0])
    np.testing.assert_allclose(U @ (U.T @ L), L, atol=1e-10 * np.abs(L).max())  # span of U
