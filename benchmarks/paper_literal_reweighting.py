"""Paper-literal versions of the reweighting methods of issue 4, for the benchmarks only.

Each follows its algorithm box as printed, in the papers' ``d x n`` orientation, with
the matrices the boxes name formed explicitly and a full eigendecomposition of the
``d x d`` (or ``h x h`` / ``w x w``) matrix every iteration. They are the baselines of
``bench_reweighting.py``: not fast, not validated, not part of the package.
"""

from __future__ import annotations

import numpy as np


def _top(M: np.ndarray, k: int) -> np.ndarray:
    _, vecs = np.linalg.eigh(0.5 * (M + M.T))
    return vecs[:, ::-1][:, :k]


def rwl_an_literal(X: np.ndarray, k: int, n_neighbors: int, n_iter: int) -> np.ndarray:
    """Zhang & Tong (2019), Algorithm 2 with Algorithm 1, as printed (X is n x d here)."""
    Xp = X.T  # d x n, the paper's orientation
    n = Xp.shape[1]
    p = np.full(n, 1.0 / n)
    W = None
    for _ in range(n_iter):
        P = np.diag(p)  # the n x n diagonal matrix of the box
        M = Xp @ (P - np.outer(p, p)) @ Xp.T  # d x d
        W = _top(M, k)
        m = Xp @ p
        R = (Xp - m[:, None]) - W @ (W.T @ (Xp - m[:, None]))
        g = np.sum(R * R, axis=0)
        order = np.sort(g)
        gk1, top = order[n_neighbors] if n_neighbors < n else order[-1], order[:n_neighbors]
        denom = n_neighbors * gk1 - top.sum()
        p = np.maximum(gk1 - g, 0) / denom if denom > 0 else np.where(g <= top[-1], 1.0, 0.0)
        p /= p.sum()
    return W


def pca_gm_literal(X: np.ndarray, k: int, p: float, delta: float, n_iter: int) -> np.ndarray:
    """Oh & Kwak, Algorithm 2 (eq. 11-13) as printed: beta, then the d x d scatter's top k."""
    Xc = (X - X.mean(axis=0)).T  # d x n
    d = Xc.shape[0]
    W = _top(Xc @ Xc.T, k)
    for _ in range(n_iter):
        e = np.sum(Xc * Xc, axis=0) - np.sum((W.T @ Xc) ** 2, axis=0)
        beta = (np.maximum(e, 0) + delta) ** (p - 1)
        # S-hat-beta of eq. 13: delta / n with n the data's dimension (d here)
        S = (Xc * beta) @ Xc.T + (delta / d) * beta.sum() * np.eye(d)
        W = _top(S, k)
    return W


def r2dpca_literal(images: np.ndarray, k: int, n_iter: int, epsilon: float) -> tuple:
    """R2DPCA (Zhang, Nie & Li 2017; problem 5 of Zhang & Tong) with loops over images."""
    n, h, w = images.shape
    L, R = np.eye(h)[:, :k], np.eye(w)[:, :k]
    d = np.ones(n)
    for _ in range(n_iter):
        M = sum(d[i] * images[i] for i in range(n)) / d.sum()
        SL = np.zeros((h, h))
        for i in range(n):
            B = (images[i] - M) @ R
            SL += d[i] * B @ B.T
        L = _top(SL, k)
        SR = np.zeros((w, w))
        for i in range(n):
            B = L.T @ (images[i] - M)
            SR += d[i] * B.T @ B
        R = _top(SR, k)
        for i in range(n):
            E = (images[i] - M) - L @ (L.T @ (images[i] - M) @ R) @ R.T
            d[i] = 1.0 / (2.0 * np.sqrt(np.sum(E * E) + epsilon))
    return L, R
