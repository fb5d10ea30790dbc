"""Kernel PCA-L21: ``tol`` reaches Algorithm 2, and ``eigen_solver`` picks the route it
documents.

Mutation audit of ``estimators/_kernel_l21.py``: passing the default ``tol`` to the
solver whatever the parameter, running LAPACK for ``eigen_solver='arpack'``, and taking
ARPACK at exactly 1,000 samples all left the suite passing.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from robustpca import KernelL21PCA


def test_tol_is_the_stopping_rule_of_algorithm_2():
    """``tol``: "stop when the relative increase of objective (8) is at most ``tol``".
    A loose tolerance stops at the first iteration whose relative increase is within it
    (every earlier one exceeds it), and sooner than a tight one."""
    X = np.random.default_rng(3).standard_t(2, size=(60, 4))
    fits = {
        tol: KernelL21PCA(2, kernel="rbf", gamma=0.3, tol=tol, max_iter=500).fit(X)
        for tol in (1e-2, 1e-10)
    }
    for tol, model in fits.items():
        assert model.converged_
        h = model.objective_history_
        changes = [abs(b - a) / abs(a) for a, b in pairwise(h)]
        assert changes[-1] <= tol
        assert all(c > tol for c in changes[:-1])
    assert fits[1e-2].n_iter_ < fits[1e-10].n_iter_


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter
def test_eigen_solver_arpack_runs_arpack(eigsh_calls):
    """``eigen_solver='arpack'`` finds the ``n_embedding`` pairs by ARPACK (one call for
    ``k = n_embedding``), whatever the number of samples, and agrees with LAPACK."""
    X = np.random.default_rng(0).normal(size=(80, 5))
    arpack = KernelL21PCA(2, n_embedding=6, eigen_solver="arpack", max_iter=5).fit(X)
    assert eigsh_calls == [6]
    dense = KernelL21PCA(2, n_embedding=6, eigen_solver="dense", max_iter=5).fit(X)
    assert eigsh_calls == [6]
    np.testing.assert_allclose(arpack.eigenvalues_, dense.eigenvalues_, rtol=1e-10)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter
def test_auto_takes_arpack_only_above_1000_samples(eigsh_calls):
    """``'auto'`` takes ARPACK "with more than 1,000 samples" (for at most n / 40
    pairs): 25 pairs of exactly 1,000 samples are LAPACK's, of 1,001 ARPACK's."""
    X = np.random.default_rng(1).normal(size=(1001, 3))
    KernelL21PCA(2, n_embedding=25, max_iter=2).fit(X[:1000])
    assert eigsh_calls == []
    KernelL21PCA(2, n_embedding=25, max_iter=2).fit(X)
    assert eigsh_calls == [25]
