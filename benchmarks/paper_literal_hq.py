r"""HQ-PCA of He, Hu, Zheng & Kong (IEEE TIP 2011), written literally as Oh & Kwak cite it.

The *reference* for ``run_all.py``. Oh & Kwak (2016, eq. 2-3) cite HQ-PCA as the
maximum-correntropy problem :math:`\max_{W, m} \sum_i g(r_i)` with the Gaussian kernel
:math:`g(r) = e^{-r^2/2\sigma^2}` of the reconstruction error
:math:`r_i = \lVert (I - WW^\top)(x_i - m)\rVert` (the kernel on the error norm, as in
He et al.; see ``robustpca.estimators._hq``), "solved in the half-quadratic optimization
framework". The half-quadratic iteration of He et al., from the PCA start (all
auxiliary variables equal):

1. ``m = sum_i p_i x_i / sum_i p_i``;
2. ``W`` = the top-k eigenvectors of the weighted covariance
   ``sum_i p_i (x_i - m)(x_i - m)^T`` (``d x d``, formed explicitly, full
   eigendecomposition);
3. ``r_i`` as above, the kernel width ``sigma^2 = sum_i r_i^2 / (2n)`` (He et al.'s
   rule), and the auxiliary variables ``p_i = g(r_i)``.

``objective`` holds :math:`\sum_i \sigma^2 (1 - g(r_i))` (the Welsch form of
``robustpca.losses.WelschLoss``) after every iteration, the PCA start being iteration 1,
as in ``robustpca.HQPCA``.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["hq_pca_paper_literal"]


def hq_pca_paper_literal(X, k, n_iter):
    """Run ``n_iter`` half-quadratic iterations of HQ-PCA (the first one is PCA).

    Returns
    -------
    dict
        ``basis`` (d x k), ``mean``, ``weights`` (the last ``p``), ``objective`` and
        ``iter_seconds``.
    """
    X = np.asarray(X, dtype=float)
    Xp = X.T  # d x n
    n = Xp.shape[1]
    p = np.ones(n)  # the PCA start
    history, seconds = [], []
    W = m = None
    for _ in range(n_iter):
        tic = time.perf_counter()
        m = (Xp @ p) / p.sum()  # step 1
        Xc = Xp - m[:, None]
        C = (Xc * p) @ Xc.T  # step 2: weighted covariance, d x d
        _, vecs = np.linalg.eigh(C)
        W = vecs[:, ::-1][:, :k]
        R = Xc - W @ (W.T @ Xc)  # step 3
        r2 = np.sum(R * R, axis=0)
        sigma2 = r2.sum() / (2.0 * n)
        g = np.exp(-r2 / (2.0 * sigma2))
        history.append(float((sigma2 * (1.0 - g)).sum()))
        p = g
        seconds.append(time.perf_counter() - tic)
    return {"basis": W, "mean": m, "weights": p, "objective": history, "iter_seconds": seconds}
