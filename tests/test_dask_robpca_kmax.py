"""ROBPCA with ``n_components`` above ``kmax`` on a dask array: ``kmax`` (the largest
rank the first stage considers) is raised to ``n_components``, as in memory, so the
Dask fit gives the in-memory subspace (up to the signs of the axes)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import ROBPCA

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize(("k", "kmax"), [(4, 2), (5, 3)])
def test_n_components_above_kmax_gives_the_in_memory_fit(k, kmax):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 8)) * np.linspace(3.0, 0.5, 8)
    theirs = ROBPCA(n_components=k, kmax=kmax, random_state=0).fit(X)
    ours = ROBPCA(n_components=k, kmax=kmax, random_state=0).fit(da.from_array(X, chunks=50))
    assert ours.n_components_ == theirs.n_components_ == k
    np.testing.assert_allclose(np.abs(ours.components_), np.abs(theirs.components_), atol=1e-9)
    np.testing.assert_allclose(ours.explained_variance_, theirs.explained_variance_, rtol=1e-9)
