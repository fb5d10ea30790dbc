r"""RPCA-OM exactly as printed in Algorithm 1 of Nie, Yuan & Huang (ICML 2014).

This is the *reference* implementation used by ``bench_rpca_om.py``: it is written
from the algorithm box, in the paper's orientation (``X`` is ``d x n``, one sample
per column), with no algebraic shortcut. Every iteration

0. forms the ``n x n`` matrix :math:`M = D^{1/2} - D 1 1^\top D^{1/2} / (1^\top D 1)`
   explicitly (``D`` diagonal, stored as a dense ``n x n`` matrix),
1. takes the (thin) SVD of the ``d x n`` matrix :math:`X M` and sets ``U`` to its top-k
   singular vectors in :math:`\mathbb{R}^d`,
2. sets :math:`b = X D 1 / 1^\top D 1`,
3. sets :math:`d_{ii} = 1 / (2 \sqrt{\lVert (I - UU^\top)(x_i - b)\rVert^2 + \epsilon})`
   (the smoothing of footnote 1).

The objective :math:`\sum_i \sqrt{\lVert (I-UU^\top)(x_i-b)\rVert^2 + \epsilon}` is
recorded after steps 1-2 and before step 3, which is when ``robustpca`` records
``objective_history_``: entry ``t`` is the objective of the ``t``-th ``(U, b)``.

Note on the box: step 1 says "the k *right* singular vectors of
:math:`X(D^{1/2} - \dots)`", but that matrix is ``d x n`` and ``U`` is ``d x k``, so
the vectors meant are the *left* singular vectors (equivalently the eigenvectors of
:math:`X H_d X^\top` of problem (16)). The left ones are used here.

Nothing here is meant to be fast: it is the ``O(d n^2)``-per-iteration baseline that the
Gram-matrix route of :class:`robustpca.OptimalMeanPCA` is compared against.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rpca_om_paper_literal"]


def rpca_om_paper_literal(X, k, n_iter, epsilon):
    """Run Algorithm 1 of Nie et al. (2014) for exactly ``n_iter`` iterations.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data in this package's orientation (one sample per row). It is transposed to
        the paper's ``d x n`` orientation internally.
    k : int
        Subspace dimension.
    n_iter : int
        Number of iterations (no convergence test: the loop of the box is run
        ``n_iter`` times).
    epsilon : float
        Smoothing of footnote 1: ``||z||`` is replaced by ``sqrt(z^T z + epsilon)``.

    Returns
    -------
    U : ndarray of shape (n_features, k)
        Orthonormal basis (columns) after the last iteration.
    b : ndarray of shape (n_features,)
        The optimal mean after the last iteration.
    objective_history : ndarray of shape (n_iter,)
        Objective of problem (13) after steps 1-2 of each iteration.
    """
    Xp = np.asarray(X, dtype=float).T  # paper orientation: d x n, columns are samples
    n = Xp.shape[1]
    one = np.ones((n, 1))
    D = np.eye(n)  # "Initialize D as an identity matrix"
    history = []
    U = b = None
    for _ in range(n_iter):
        # the n x n weighted centring matrix D^{1/2} - D 1 1^T D^{1/2} / (1^T D 1)
        D_half = np.sqrt(D)  # D is diagonal with non-negative entries
        denom = (one.T @ D @ one).item()
        M = D_half - (D @ one @ one.T @ D_half) / denom
        # step 1: U = top-k singular vectors (in R^d) of X M
        left, _sing, _right_t = np.linalg.svd(Xp @ M, full_matrices=False)
        U = left[:, :k]
        # step 2: b = X D 1 / 1^T D 1
        b = (Xp @ D @ one) / denom  # d x 1
        # residuals (I - U U^T)(x_i - b), all columns at once
        Xc = Xp - b @ one.T
        R = Xc - U @ (U.T @ Xc)
        norms = np.sqrt(np.sum(R * R, axis=0) + epsilon)  # footnote 1
        history.append(float(norms.sum()))
        # step 3: d_ii = 1 / (2 ||(I - U U^T)(x_i - b)||)
        D = np.diag(1.0 / (2.0 * norms))
    return U, b.ravel(), np.asarray(history)
