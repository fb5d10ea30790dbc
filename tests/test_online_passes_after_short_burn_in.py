"""The burn-in of ``fit`` ends with its first pass (the
data hold fewer rows than ``burn_in``), so that the second pass runs the online updates:
``fit`` with two passes is ``fit`` with one followed by ``partial_fit`` of the same
batches."""

import numpy as np
import pytest

from robustpca import GRASTA, OnlineRobustPCA


@pytest.mark.parametrize("cls", [OnlineRobustPCA, GRASTA])
def test_second_pass_is_online_updates_after_a_short_burn_in(cls):
    rng = np.random.default_rng(0)
    n, p = 60, 20  # fewer rows than burn_in=100
    X = np.outer(20 + rng.normal(size=n), rng.uniform(1, 2, p)) + rng.normal(size=(n, p))
    two = cls(2, batch_size=20, n_passes=2, random_state=0).fit(X)
    one = cls(2, batch_size=20, n_passes=1, random_state=0).fit(X)
    for start in range(0, n, 20):
        one.partial_fit(X[start : start + 20])
    np.testing.assert_allclose(np.abs(two.components_), np.abs(one.components_), atol=1e-8)
