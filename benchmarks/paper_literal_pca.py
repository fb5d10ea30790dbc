r"""Classical PCA as textbooks print it: the ``d x d`` covariance and its eigendecomposition.

The *reference* for ``robustpca.PCA`` in ``run_all.py`` (Nie, Yuan & Huang 2014, problem
3: the columns of ``U`` are the top-k eigenvectors of :math:`XX^\top` for centred
``X``; Jolliffe 2002). The covariance is formed explicitly and fully eigendecomposed
(``numpy.linalg.eigh``), ``O(n d^2 + d^3)`` time and ``8 d^2`` bytes, whatever ``n``.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["pca_paper_literal"]


def pca_paper_literal(X, k):
    """Top-``k`` principal axes from the full eigendecomposition of the covariance.

    Returns
    -------
    dict
        ``basis`` (d x k), ``mean``, ``eigenvalues`` (top k, of the covariance with the
        ``n - 1`` denominator) and ``iter_seconds`` (one entry: the whole computation).
    """
    tic = time.perf_counter()
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    Xc = X - mean
    C = Xc.T @ Xc / (X.shape[0] - 1)  # d x d
    vals, vecs = np.linalg.eigh(C)
    out = {"basis": vecs[:, ::-1][:, :k], "mean": mean, "eigenvalues": vals[::-1][:k]}
    out["iter_seconds"] = [time.perf_counter() - tic]
    return out
