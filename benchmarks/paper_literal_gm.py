r"""PCA-GM of Oh & Kwak (Pattern Recognition 2016) exactly as Algorithms 1 and 2 print it.

The *reference* for ``run_all.py`` (``paper_literal_reweighting.pca_gm_literal`` is an
earlier version about the arithmetic mean). With ``x_i`` the samples (rows here),

* **Algorithm 1** (generalized sample mean): ``m(0) = m_S`` (the arithmetic mean);
  repeat ``alpha_i = (||x_i - m(t)||^2 + delta)^(p-1)`` (eq. 7 with the perturbation of
  eq. 13) and ``m(t+1) = sum_i alpha_i x_i / sum_i alpha_i`` (eq. 8);
* **Algorithm 2** (PCA-GM): ``W(0) = W_PCA``, the top-m eigenvectors of the scatter of
  ``x~_i = x_i - m_G``; repeat ``beta_i = (e_i(W(t)) + delta)^(p-1)`` (eq. 11, 13) and
  ``W(t+1)`` = the top-m eigenvectors of the corrected scatter
  ``S^_beta = sum_i beta_i (x~_i x~_i^T + (delta / n) I)`` of eq. (13) (``d x d``,
  formed explicitly, full eigendecomposition).

``objective`` holds :math:`\sum_i (e_i(W) + \delta)^p` (problem 10 with eq. 13) after
every eigendecomposition, ``W_PCA`` included, which is how ``robustpca`` counts: a fit
with ``max_iter=N`` computes ``W_PCA`` and ``N - 1`` updates, and its generalized mean
after ``N`` mean iterations equals ``m(N-1)`` here (its first mean iteration returns
``m_S``).
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["generalized_mean_paper_literal", "pca_gm_paper_literal"]


def generalized_mean_paper_literal(X, p, delta, n_iter):
    """Algorithm 1: ``n_iter`` updates of the generalized sample mean from ``m_S``."""
    X = np.asarray(X, dtype=float)
    m = X.mean(axis=0)  # line 3: m(0) = m_S
    for _ in range(n_iter):
        alpha = (np.sum((X - m) ** 2, axis=1) + delta) ** (p - 1.0)  # eq. (7), (13)
        m = (alpha @ X) / alpha.sum()  # eq. (8)
    return m


def _top(S, k):
    _, vecs = np.linalg.eigh(S)  # full eigendecomposition
    return vecs[:, ::-1][:, :k]


def _errors(Xt, W):
    """``e_i(W) = x~_i^T x~_i - x~_i^T W W^T x~_i`` for the columns of ``Xt`` (d x n)."""
    proj = W.T @ Xt
    return np.sum(Xt * Xt, axis=0) - np.sum(proj * proj, axis=0)


def pca_gm_paper_literal(X, m, p, delta, n_iter, mean_iter):
    """Algorithms 1 and 2 of Oh & Kwak.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    m : int
        Number of projection directions.
    p : float
        Power of the generalized mean, in (0, 1].
    delta : float
        Perturbation of eq. (13), squared data units.
    n_iter : int
        Eigendecompositions in Algorithm 2, ``W_PCA`` included (``n_iter - 1`` updates).
    mean_iter : int
        Updates of the mean in Algorithm 1.

    Returns
    -------
    dict
        ``basis`` (d x m), ``mean`` (``m_G``), ``objective``, ``iter_seconds`` (each
        eigen-update of Algorithm 2, ``W_PCA`` included) and ``setup_seconds``
        (Algorithm 1).
    """
    X = np.asarray(X, dtype=float)
    tic = time.perf_counter()
    mG = generalized_mean_paper_literal(X, p, delta, mean_iter)
    setup = time.perf_counter() - tic
    Xt = (X - mG).T  # d x n, x~_i = x_i - m_G
    d = Xt.shape[0]
    history, seconds = [], []
    W = None
    for t in range(n_iter):
        tic = time.perf_counter()
        if t == 0:
            W = _top(Xt @ Xt.T, m)  # line 3: W(0) = W_PCA
        else:
            beta = (np.maximum(_errors(Xt, W), 0.0) + delta) ** (p - 1.0)  # eq. (11), (13)
            S_hat = (Xt * beta) @ Xt.T + (delta / d) * beta.sum() * np.eye(d)  # eq. (13)
            W = _top(S_hat, m)
        e = np.maximum(_errors(Xt, W), 0.0)
        history.append(float(((e + delta) ** p).sum()))
        seconds.append(time.perf_counter() - tic)
    return {
        "basis": W,
        "mean": mG,
        "objective": history,
        "iter_seconds": seconds,
        "setup_seconds": setup,
    }
