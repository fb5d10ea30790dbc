r"""PCA-L21 exactly as printed in Algorithm 2 of Nie & Huang (non-greedy L21-norm PCA).

The *reference* for ``run_all.py``: the algorithm box in the paper's orientation
(``X`` is ``d x n``, one centred sample per column), with no algebraic shortcut::

    Input: X, m, where X is centralized
    Initialize W^1 in R^{d x m} such that W^T W = I, t = 1
    while not converged do
        1. For each i, calculate alpha_i^t according to Eq. (23),
           M = sum_i x_i (alpha_i^t)^T
        2. Calculate the SVD of M as M = U Lambda V^T, let W^{t+1} = U V^T
        t = t + 1

with :math:`\alpha_i = W^\top x_i / \lVert W^\top x_i\rVert_2` if
:math:`\lVert W^\top x_i\rVert_2 \ne 0` and :math:`\alpha_i = 0` otherwise (eq. 23).
The objective :math:`\sum_i \lVert W^\top x_i\rVert_2` (problem 8) is recorded after
each update of ``W``, which is when ``robustpca`` records ``objective_history_``.

The box has no ``d x d`` matrix: ``M`` is ``d x m`` and its SVD is thin, so an
iteration costs ``O(n d m)``, the cost the paper states. Nothing here is meant to be
fast (the ``alpha_i`` are formed as an explicit ``m x n`` matrix and ``M`` as
``X alpha^T``); ``robustpca.L21PCA`` adds the ``n x n`` Gram route for wide data.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["l21_pca_paper_literal"]


def l21_pca_paper_literal(X, m, n_iter, W0):
    """Run Algorithm 2 of Nie & Huang for exactly ``n_iter`` iterations.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data in this package's orientation; centred here ("X is centralized") and
        transposed to the paper's ``d x n``.
    m : int
        Number of projection directions.
    n_iter : int
        Iterations of the ``while`` loop (no convergence test).
    W0 : ndarray of shape (n_features, m)
        ``W^1``, orthonormal columns (the box allows any).

    Returns
    -------
    dict
        ``basis`` (d x m, orthonormal columns), ``mean`` (the arithmetic mean used to
        centre), ``objective`` (problem 8 after each iteration) and ``iter_seconds``
        (wall time of each iteration).
    """
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    Xp = (X - mean).T  # d x n, "X is centralized"
    W = np.array(W0, dtype=float, copy=True)
    history, seconds = [], []
    for _ in range(n_iter):
        tic = time.perf_counter()
        # step 1: alpha_i = W^T x_i / ||W^T x_i|| (eq. 23), zero where W^T x_i = 0
        P = W.T @ Xp  # m x n, column i is W^T x_i
        norms = np.sqrt(np.sum(P * P, axis=0))
        alpha = np.zeros_like(P)
        nonzero = norms != 0
        alpha[:, nonzero] = P[:, nonzero] / norms[nonzero]
        M = Xp @ alpha.T  # sum_i x_i alpha_i^T, d x m
        # step 2: W = U V^T from the SVD of M (eq. 26)
        U, _lam, Vt = np.linalg.svd(M, full_matrices=False)
        W = U @ Vt
        history.append(float(np.sqrt(np.sum((W.T @ Xp) ** 2, axis=0)).sum()))
        seconds.append(time.perf_counter() - tic)
    return {"basis": W, "mean": mean, "objective": history, "iter_seconds": seconds}
