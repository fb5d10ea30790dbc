"""PCP's ``lam`` far outside its useful range on a dask array: the solution is fixed
there (``S = 0`` for ``lam >= 1``, ``L = 0`` for ``lam <= 1/sqrt(n d)``:
``solvers.penalty_range``), and the Dask fit must reach it as the in-memory fit does
(the penalty clipped for the solver), not overflow or stall on a penalty of 1e200 or
1e-300."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustpca import PrincipalComponentPursuit

da = pytest.importorskip("dask.array")


@pytest.mark.parametrize("lam", [1e200, 1e-300])
def test_extreme_lam_gives_the_fixed_solution_as_in_memory(lam):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3)) @ rng.normal(size=(3, 8)) + rng.normal(size=(120, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        theirs = PrincipalComponentPursuit(lam=lam, random_state=0).fit(X)
        ours = PrincipalComponentPursuit(lam=lam, random_state=0).fit(da.from_array(X, chunks=40))
    assert ours.rank_ == theirs.rank_ == (X.shape[1] if lam > 1 else 0)
    np.testing.assert_allclose(ours.low_rank_.compute(), theirs.low_rank_, atol=1e-6)
    np.testing.assert_allclose(ours.sparse_.compute(), theirs.sparse_, atol=1e-6)
    assert ours.n_iter_ == theirs.n_iter_
