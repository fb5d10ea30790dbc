"""GoDec's ``power`` on a dask array: ``power=0`` (no power iteration: one product
with ``X`` and ``X^T`` before the QR, the documented lower bound of ``power``) and
``power=2`` give the in-memory fit, so the Dask fit takes the same range of ``power``
and passes it on."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import GoDec

from .test_dask_godec import assert_same_fit, both_fits, planted

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("power", [0, 2])
def test_power_gives_the_in_memory_fit(power):
    """The same low-rank and sparse parts for each ``power``, and ``power=0`` and
    ``power=2`` differ from each other (the parameter reaches the solver)."""
    L, S, N = planted(3, n=400, d=12, share=0.05, noise=0.05)
    X = L + S + N
    a, b = both_fits(GoDec(3, card=240, max_iter=3, power=power, random_state=0), X, 100)
    assert_same_fit(a, b)
    other = 2 if power == 0 else 0
    c, _ = both_fits(GoDec(3, card=240, max_iter=3, power=other, random_state=0), X, 100)
    assert not np.allclose(a.components_, c.components_, atol=1e-10)
