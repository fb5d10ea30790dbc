r"""Principal component pursuit by the inexact ALM exactly as Lin, Chen & Ma print it.

The *reference* for ``bench_convex.py``: Algorithm 5 of Z. Lin, M. Chen and Y. Ma, "The
augmented Lagrange multiplier method for exact recovery of corrupted low-rank matrices"
(arXiv:1009.5055), written from the algorithm box with the constants of the authors'
``inexact_alm_rpca.m``, and a full SVD every iteration:

.. math::
    Y_0 = D / J(D),\ J(D) = \max(\lVert D\rVert_2, \lambda^{-1}\lVert D\rVert_\infty),
    \quad E_0 = 0,\quad \mu_0 = 1.25/\lVert D\rVert_2,\quad \bar\mu = 10^7\mu_0,

    (U, S, V) = \operatorname{svd}(D - E_k + Y_k/\mu_k),\quad
    A_{k+1} = U\,\mathcal{S}_{1/\mu_k}[S]\,V^\top,

    E_{k+1} = \mathcal{S}_{\lambda/\mu_k}[D - A_{k+1} + Y_k/\mu_k],\quad
    Y_{k+1} = Y_k + \mu_k(D - A_{k+1} - E_{k+1}),\quad
    \mu_{k+1} = \min(\rho\mu_k, \bar\mu),

with :math:`\rho = 1.5` and the stopping rule
:math:`\lVert D - A - E\rVert_F / \lVert D\rVert_F < \mathrm{tol}`. The objective
:math:`\lVert A_k\rVert_* + \lambda\lVert D - A_k\rVert_1` is recorded after every
iteration, as :class:`robustpca.estimators._convex.PrincipalComponentPursuit` records it.
Nothing here is meant to be fast: ``numpy.linalg.svd`` of the whole ``m x n`` matrix every
iteration is the baseline that the partial SVD of ``robustpca`` is compared against.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pcp_ialm_paper_literal"]


def pcp_ialm_paper_literal(D, lam, *, tol=1e-7, max_iter=1000, rho=1.5):
    """Run Algorithm 5 of Lin et al. (2010) with a full SVD every iteration.

    Parameters
    ----------
    D : ndarray of shape (m, n)
        Observations (low rank + sparse).
    lam : float
        Weight of the l1 term.
    tol : float
        Stop when ``||D - A - E||_F / ||D||_F < tol``.
    max_iter : int
    rho : float
        Growth of the penalty (1.5 in the authors' code).

    Returns
    -------
    A : ndarray of shape (m, n)
        Low-rank part.
    E : ndarray of shape (m, n)
        Sparse part.
    objective_history : ndarray
        ``||A_k||_* + lam ||D - A_k||_1`` after each iteration.
    """
    D = np.asarray(D, dtype=float)
    norm_two = np.linalg.norm(D, 2)
    J = max(norm_two, np.abs(D).max() / lam)
    Y = D / J
    E = np.zeros_like(D)
    mu = 1.25 / norm_two
    mu_bar = mu * 1e7
    d_norm = np.linalg.norm(D, "fro")
    history = []
    A = np.zeros_like(D)
    for _ in range(max_iter):
        U, S, Vt = np.linalg.svd(D - E + Y / mu, full_matrices=False)
        svp = int(np.sum(S > 1 / mu))
        shrunk = S[:svp] - 1 / mu
        A = (U[:, :svp] * shrunk) @ Vt[:svp]
        T = D - A + Y / mu
        E = np.maximum(T - lam / mu, 0) + np.minimum(T + lam / mu, 0)
        Z = D - A - E
        Y = Y + mu * Z
        history.append(float(shrunk.sum() + lam * np.abs(D - A).sum()))
        mu = min(rho * mu, mu_bar)
        if np.linalg.norm(Z, "fro") / d_norm < tol:
            break
    return A, E, np.asarray(history)
