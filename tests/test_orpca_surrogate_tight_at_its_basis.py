"""The surrogate of OR-PCA touches the loss at the basis it was built from.

Feng, Xu & Yan (2013), Theorem 1 rests on ``g_t`` being an upper bound of ``f_t`` that
is *tight* at the basis each sample was projected with: for a first batch (statistics
zero), the surrogate at the projection's basis ``L_{t-1}`` is exactly the batch's loss
there, ``g(L_{t-1}) = (sum_i l(z_i, L_{t-1}) + lambda1 ||L_{t-1}||^2 / 2) / b``. On the
observed route the loss of a row seen on ``O_i`` has the ridge ``lambda1 sqrt(|O_i|/p)``
(:func:`~robustpca.solvers.orpca_observed.observed_ridges`); the update returns that
loss, and the surrogate's constant must carry the same ridge (the existing bound test
only checks ``g >= f``, which a larger constant also passes).
"""

import numpy as np
import pytest

from robustpca.solvers.orpca import ORPCAState, orpca_update
from robustpca.solvers.orpca_observed import orpca_update_observed

from .test_orpca_missing import _observed_loss as _row_loss

EXACT = {"max_iter": 20000, "tol": 1e-13}


def _fresh(L, lambda1=0.8, lambda2=0.3):
    r = L.shape[1]
    return ORPCAState(
        basis=L.copy(),
        A=np.zeros((r, r)),
        B=np.zeros_like(L),
        c=0.0,
        weight=0.0,
        lambda1=lambda1,
        lambda2=lambda2,
    )


@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("share", [0.0, 0.4])
def test_first_batch_surrogate_equals_the_loss_at_its_basis(rank, share):
    rng = np.random.default_rng(rank)
    p, b = 14, 30
    L = rng.normal(size=(p, rank))
    Z = rng.normal(size=(b, rank)) * 2 @ L.T + rng.normal(size=(b, p))
    Z[rng.random(Z.shape) < 0.1] += 6.0
    seen = rng.random(Z.shape) >= share
    if share:
        state, _, loss = orpca_update_observed(
            _fresh(L), np.where(seen, Z, np.nan), seen, forgetting=1.0, **EXACT
        )
    else:
        state, _, loss = orpca_update(_fresh(L), Z, forgetting=1.0, **EXACT)
    direct = sum(_row_loss(Z[i], seen[i], L, 0.8, 0.3) for i in range(b))
    assert loss == pytest.approx(direct, rel=1e-8)
    expected = (direct + 0.5 * 0.8 * np.sum(L * L)) / b
    assert state.surrogate(L) == pytest.approx(expected, rel=1e-8)
    assert state.surrogate() <= state.surrogate(L)  # the update minimises it
