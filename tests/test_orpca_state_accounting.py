"""The bookkeeping of OR-PCA's state over a stream of batches, on both routes.

``ORPCAState`` documents ``weight`` as the discounted count (``sum_i beta^(t-i)``, ``t``
when ``beta = 1``) and ``n_seen`` as the samples processed; the statistics ``A``, ``B``,
``c`` decay by ``beta`` per *sample* (a batch of ``b`` rows by ``beta^b``), so that the
forgetting window does not depend on how the stream is cut. The per-feature route
(:mod:`robustpca.solvers.orpca_observed`) keeps the same counts.
"""

import numpy as np
import pytest

from robustpca.solvers.orpca import ORPCAState, orpca_update
from robustpca.solvers.orpca_observed import orpca_update_observed


def _fresh(p, r, seed=0):
    rng = np.random.default_rng(seed)
    return ORPCAState(
        basis=rng.normal(size=(p, r)),
        A=np.zeros((r, r)),
        B=np.zeros((p, r)),
        c=0.0,
        weight=0.0,
        lambda1=0.5,
        lambda2=0.3,
    )


@pytest.mark.parametrize("gaps", [False, True])
def test_weight_and_count_follow_the_samples(gaps):
    rng = np.random.default_rng(1)
    p, r, beta = 12, 2, 0.9
    state = _fresh(p, r)
    sizes = [5, 3, 7]
    for b in sizes:
        Z = rng.normal(size=(b, p))
        if gaps:
            seen = rng.random(Z.shape) > 0.2
            state = orpca_update_observed(state, np.where(seen, Z, np.nan), seen, forgetting=beta)[
                0
            ]
        else:
            state = orpca_update(state, Z, forgetting=beta)[0]
    # each batch's rows count once, older ones discounted by beta per later sample
    expected = sum(b * beta ** sum(sizes[k + 1 :]) for k, b in enumerate(sizes))
    assert state.n_seen == sum(sizes)
    assert state.weight == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("gaps", [False, True])
def test_without_forgetting_the_weight_is_the_count(gaps):
    rng = np.random.default_rng(2)
    state = _fresh(8, 1)
    for b in (4, 9):
        Z = rng.normal(size=(b, 8))
        if gaps:
            seen = rng.random(Z.shape) > 0.3
            Z = np.where(seen, Z, np.nan)
            state = orpca_update_observed(state, Z, seen, forgetting=1.0)[0]
        else:
            state = orpca_update(state, Z, forgetting=1.0)[0]
    assert state.n_seen == 13 and state.weight == 13.0
