r"""2DPCA, GLRAM and R2DPCA as cited by Zhang & Tong (NeurIPS 2019), written literally.

The *references* for the 2-D estimators in ``run_all.py``. Every image scatter is a sum
over the images, accumulated in a Python loop image by image, and every update takes a
full eigendecomposition (``numpy.linalg.eigh``) of the ``h x h`` or ``w x w`` matrix:

* **2DPCA** (Yang et al. 2004, eq. 3-6): ``G = (1/n) sum_i (A_i - A_bar)^T (A_i - A_bar)``,
  ``V`` = its top-k eigenvectors.
* **GLRAM** (Ye 2004/2005, Algorithm GLRAM): ``M_L = sum_i A_i R R^T A_i^T``,
  ``L`` = top-k1 eigenvectors; ``M_R = sum_i A_i^T L L^T A_i``, ``R`` = top-k2
  eigenvectors; repeated. Ye starts from ``L_0 = (I_k1, 0)^T`` (so ``R`` is computed
  first) on uncentred images;
  ``robustpca.GLRAM`` centres by the mean image and starts from the 2DPCA axes by
  default, so both are options here.
* **R2DPCA** (Zhang, Nie & Li 2017; problem 5 of Zhang & Tong):
  :math:`\min \sum_i \lVert A_i - M - LL^\top (A_i - M) RR^\top\rVert_F` by
  re-weighting: ``d_i = 1 / (2 sqrt(r_i^2 + eps))``, ``M`` = the ``d``-weighted mean
  image, then the weighted GLRAM updates of ``L`` and ``R``; the PCA start has every
  ``d_i = 1`` and (2D)^2PCA bases.

The objectives are recorded as ``robustpca`` records them (after each sweep).
"""

from __future__ import annotations

import time

import numpy as np

__all__ = [
    "glram_paper_literal",
    "r2dpca_paper_literal",
    "two_d_pca_paper_literal",
    "two_d_squared_pca_bases",
]


def _top(S, k):
    _, vecs = np.linalg.eigh(S)  # full eigendecomposition
    return vecs[:, ::-1][:, :k]


def two_d_pca_paper_literal(images, k):
    """2DPCA: top-``k`` eigenvectors of the image covariance ``G`` (w x w)."""
    tic = time.perf_counter()
    images = np.asarray(images, dtype=float)
    n, _, w = images.shape
    mean = sum(images[i] for i in range(n)) / n
    G = np.zeros((w, w))
    for i in range(n):
        E = images[i] - mean
        G += E.T @ E
    G /= n
    V = _top(G, k)
    return {"right": V, "mean": mean, "iter_seconds": [time.perf_counter() - tic]}


def two_d_squared_pca_bases(images, k1, k2):
    """(2D)^2PCA bases of the centred images: top eigenvectors of both image scatters."""
    n, h, w = images.shape
    mean = sum(images[i] for i in range(n)) / n
    SL, SR = np.zeros((h, h)), np.zeros((w, w))
    for i in range(n):
        E = images[i] - mean
        SL += E @ E.T
        SR += E.T @ E
    return _top(SL, k1), _top(SR, k2)


def glram_paper_literal(images, k1, k2, n_iter, *, center=True, init="2dpca"):
    """GLRAM for ``n_iter`` sweeps (``L`` then ``R``), no convergence test.

    Returns
    -------
    dict
        ``left`` (h x k1), ``right`` (w x k2), ``mean`` (zeros when ``center=False``),
        ``objective`` (``sum_i ||L^T (A_i - M) R||_F^2`` after each sweep) and
        ``iter_seconds``.
    """
    images = np.asarray(images, dtype=float)
    n, h, w = images.shape
    mean = sum(images[i] for i in range(n)) / n if center else np.zeros((h, w))
    A = [images[i] - mean for i in range(n)]
    if init == "2dpca":
        R = _top(sum(Ai.T @ Ai for Ai in A), k2)
    else:  # Ye's L_0 = (I_k1, 0)^T, from which his Algorithm GLRAM updates R first
        L0 = np.eye(h)[:, :k1]
        MR = np.zeros((w, w))
        for Ai in A:
            B = L0.T @ Ai
            MR += B.T @ B
        R = _top(MR, k2)
    L = None
    history, seconds = [], []
    for _ in range(n_iter):
        tic = time.perf_counter()
        ML = np.zeros((h, h))
        for Ai in A:
            B = Ai @ R
            ML += B @ B.T
        L = _top(ML, k1)
        MR = np.zeros((w, w))
        for Ai in A:
            B = L.T @ Ai
            MR += B.T @ B
        R = _top(MR, k2)
        history.append(float(sum(np.sum((L.T @ Ai @ R) ** 2) for Ai in A)))
        seconds.append(time.perf_counter() - tic)
    return {"left": L, "right": R, "mean": mean, "objective": history, "iter_seconds": seconds}


def r2dpca_paper_literal(images, k1, k2, n_iter, epsilon, *, init=None):
    """R2DPCA (problem 5 of Zhang & Tong) by re-weighting, for ``n_iter`` iterations.

    Parameters
    ----------
    images : ndarray of shape (n, h, w)
    k1, k2 : int
    n_iter : int
    epsilon : float
        Smoothing: ``||E||_F`` is replaced by ``sqrt(||E||_F^2 + epsilon)``.
    init : (ndarray, ndarray), optional
        Starting ``(L, R)``; the (2D)^2PCA bases by default (only ``R`` is used: the
        first update computes ``L`` from it).

    Returns
    -------
    dict
        ``left``, ``right``, ``mean``, ``weights`` (the last ``d``), ``objective``
        (``sum_i sqrt(r_i^2 + eps)`` after each iteration) and ``iter_seconds``.
    """
    images = np.asarray(images, dtype=float)
    n, h, w = images.shape
    L, R = init if init is not None else two_d_squared_pca_bases(images, k1, k2)
    d = np.ones(n)
    history, seconds = [], []
    M = None
    for _ in range(n_iter):
        tic = time.perf_counter()
        M = sum(d[i] * images[i] for i in range(n)) / d.sum()
        SL = np.zeros((h, h))
        for i in range(n):
            B = (images[i] - M) @ R
            SL += d[i] * (B @ B.T)
        L = _top(SL, k1)
        SR = np.zeros((w, w))
        for i in range(n):
            B = L.T @ (images[i] - M)
            SR += d[i] * (B.T @ B)
        R = _top(SR, k2)
        r = np.empty(n)
        for i in range(n):
            E = (images[i] - M) - L @ (L.T @ (images[i] - M) @ R) @ R.T
            r[i] = np.sqrt(np.sum(E * E))
        norms = np.sqrt(r * r + epsilon)
        history.append(float(norms.sum()))
        d = 1.0 / (2.0 * norms)
        seconds.append(time.perf_counter() - tic)
    return {
        "left": L,
        "right": R,
        "mean": M,
        "weights": d,
        "objective": history,
        "iter_seconds": seconds,
    }
