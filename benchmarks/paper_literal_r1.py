r"""R1-PCA of Ding, Zhou, He & Zha (ICML 2006), as its algorithm is cited, written literally.

The *reference* for ``run_all.py``. Nie & Huang (sec. I, II) and Nie, Yuan & Huang
(2014, sec. 1) cite R1-PCA as minimising :math:`\sum_i \rho(\lVert x_i - UU^\top
x_i\rVert)` on centred data by "the subspace iteration algorithm in the high
dimensional original space". Ding et al.'s algorithm, with Huber's loss whose cutoff
``c`` is the median residual:

1. ``U`` = the PCA subspace: top-k eigenvectors of the covariance ``X X^T`` (``d x d``,
   formed explicitly, full eigendecomposition);
2. repeat: residuals ``r_i = sqrt(x_i^T x_i - x_i^T U U^T x_i)``, ``c = median(r)``,
   Huber weights ``w_i = 1`` if ``r_i <= c`` else ``c / r_i``; the weighted covariance
   ``C_w = sum_i w_i x_i x_i^T`` (``d x d``, formed explicitly); ``U <- C_w U``;
   ``U <- orthonormalize(U)`` (QR).

The objective recorded after each update is Ding's Huber objective
:math:`\sum_i \rho_H(r_i)` with :math:`\rho_H(r) = r^2` for :math:`r \le c` and
:math:`2cr - c^2` otherwise, ``c`` the median of the same residuals: twice the value of
``robustpca.losses.HuberLoss`` (which uses :math:`r^2/2`), the same minimiser.

The ``d x d`` matrices cost ``O(n d^2)`` per iteration and ``8 d^2`` bytes;
``robustpca.R1PCA`` applies :math:`C_w` to ``U`` through ``X`` instead (``O(n d k)``)
and takes the Gram route for wide data.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["r1_pca_paper_literal"]


def _residuals(Xp, U):
    proj = U.T @ Xp
    r2 = np.sum(Xp * Xp, axis=0) - np.sum(proj * proj, axis=0)
    return np.sqrt(np.maximum(r2, 0.0))


def _huber_objective(r, c):
    return float(np.where(r <= c, r * r, 2.0 * c * r - c * c).sum())


def r1_pca_paper_literal(X, k, n_iter):
    """Run R1-PCA (Huber, median cutoff) for exactly ``n_iter`` subspace iterations.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data; centred here by the arithmetic mean.
    k : int
        Subspace dimension.
    n_iter : int
        Number of re-weighted subspace iterations after the PCA start.

    Returns
    -------
    dict
        ``basis`` (d x k), ``mean``, ``objective`` (Ding's Huber objective after each
        iteration), ``iter_seconds`` (each iteration, the PCA start excluded) and
        ``setup_seconds`` (the PCA start).
    """
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    Xp = (X - mean).T  # d x n
    tic = time.perf_counter()
    C = Xp @ Xp.T  # covariance, d x d
    _, vecs = np.linalg.eigh(C)  # full eigendecomposition
    U = vecs[:, ::-1][:, :k]
    setup = time.perf_counter() - tic
    history, seconds = [], []
    for _ in range(n_iter):
        tic = time.perf_counter()
        r = _residuals(Xp, U)
        c = float(np.median(r))
        w = np.where(r <= c, 1.0, c / np.maximum(r, c))  # Huber weights
        Cw = (Xp * w) @ Xp.T  # sum_i w_i x_i x_i^T, d x d
        U, _ = np.linalg.qr(Cw @ U)  # one step of subspace iteration
        r = _residuals(Xp, U)
        history.append(_huber_objective(r, float(np.median(r))))
        seconds.append(time.perf_counter() - tic)
    return {
        "basis": U,
        "mean": mean,
        "objective": history,
        "iter_seconds": seconds,
        "setup_seconds": setup,
    }
