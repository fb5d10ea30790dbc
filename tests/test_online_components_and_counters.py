"""The published attributes of the online estimators (:mod:`._online_base`):

* ``components_`` are the principal axes of the low-rank part ``L R'R L'`` in decreasing
  order of energy (``orthonormal_rows`` with OR-PCA's ``A``), for any basis, not only
  for the nearly orthogonal columns of a balanced factorisation (the existing test);
* ``n_iter_`` counts the batches of the last ``fit`` or the calls of ``partial_fit``;
* ``objective_history_`` keeps the per-row loss of each batch (up to 10,000 of them).
"""

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA
from robustpca.estimators._online_base import orthonormal_rows


@pytest.mark.parametrize("seed", range(3))
def test_orthonormal_rows_are_the_principal_axes_of_the_low_rank_part(seed):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(15, 3)) @ np.array([[1.0, 0.8, 0.3], [0.0, 1.0, 0.9], [0.0, 0.0, 1.0]])
    R = rng.normal(size=(200, 3)) * [5.0, 2.0, 1.0]
    comps = orthonormal_rows(L, R.T @ R, rng)
    vecs = np.linalg.eigh(L @ (R.T @ R) @ L.T)[1]
    axes = vecs[:, ::-1][:, :3].T
    np.testing.assert_allclose(comps @ comps.T, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(comps * axes, axis=1)), 1.0, atol=1e-8)


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA])
def test_n_iter_and_history_count_the_batches(cls):
    rng = np.random.default_rng(0)
    X = np.outer(10 + rng.normal(size=300), rng.normal(size=8)) + 0.1 * rng.normal(size=(300, 8))
    fitted = cls(1, batch_size=10, burn_in=20, random_state=0).fit(X)
    assert fitted.n_iter_ == 30
    model = cls(1, burn_in=20, random_state=0)
    model.partial_fit(X[:20])
    for i in range(20, 45):
        model.partial_fit(X[i : i + 1])
    assert model.n_iter_ == 26
    # one loss for the burn-in's rows, then one per batch
    assert model.objective_history_.shape == (26,)
