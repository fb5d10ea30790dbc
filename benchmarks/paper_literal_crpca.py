r"""CRPCA-OM and outlier pursuit by Algorithm 3 of Nie, Yuan & Huang (ICML 2014), literally.

The *reference* for ``ConvexOptimalMeanPCA`` and ``OutlierPursuit`` in ``run_all.py``.
In the paper's orientation (``X`` is ``d x n``, samples are columns), Algorithm 3 solves
problem (31), :math:`\min \lVert E\rVert_{2,1} + \gamma\lVert Z\rVert_*` s.t.
:math:`X - b1^\top - Z = E`::

    Initialize mu, E = 0, Lambda = 0
    while not converge do
      1. (b, Z) = argmin 1/2 ||X~ - b 1^T - Z||_F^2 + gamma~ ||Z||_*,
         X~ = X - E + Lambda / mu, gamma~ = gamma / mu             (problem 32)
      2. E = argmin 1/2 ||X^ - E||_F^2 + ||E||_{2,1} / mu,
         X^ = X - b 1^T - Z + Lambda / mu                           (problem 33)
      3. Lambda = Lambda + mu (X - b 1^T - Z - E)
      4. mu = min(rho mu, mu_bar)

Step 1 is Theorem 3: :math:`b = \frac1n \tilde X 1` and
:math:`Z = U(\Sigma - \tilde\gamma I)_+ V^\top` with :math:`\tilde X H = U\Sigma V^\top`,
``H = I - 11^T / n`` the ``n x n`` centring matrix (formed explicitly here) and a full
SVD of the ``d x n`` matrix. Step 2 shrinks every column:
:math:`e_i = (1 - 1/(\mu\lVert \hat x_i\rVert))_+ \hat x_i`. Without the mean
(``with_mean=False``: ``b = 0`` and no ``H``) it is outlier pursuit, problem (29) (Xu,
Caramanis & Sanghavi 2012). The box's "while not converge" is Lin et al.'s test
:math:`\lVert X - b1^\top - Z - E\rVert_F < \mathrm{tol}\lVert X\rVert_F`, the one
``robustpca`` uses. The paper's :math:`\mu_0 = 0.1`, :math:`\bar\mu = 10^8` depend on
the scale of the data; ``mu`` and ``mu_max`` are parameters so that the benchmark can
run the same iteration as ``robustpca`` (which scales them with :math:`\lVert X\rVert_2`).
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["crpca_om_paper_literal"]


def crpca_om_paper_literal(
    X, gamma, *, mu=0.1, mu_max=1e8, rho=1.5, tol=1e-7, max_iter=1000, with_mean=True
):
    """Run Algorithm 3 of Nie et al. (2014) with a full SVD every iteration.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data in this package's orientation (transposed to ``d x n`` internally).
    gamma : float
        Weight of the nuclear norm.
    mu, mu_max, rho : float
        ALM penalty, its cap and its growth (``1 < rho < 2``).
    tol : float
        Stop when ``||X - b1^T - Z - E||_F / ||X||_F < tol``.
    max_iter : int
    with_mean : bool
        ``True``: problem (30)-(31) (CRPCA-OM); ``False``: problem (29) (outlier pursuit).

    Returns
    -------
    dict
        ``low_rank`` (n x d, ``1 b^T + Z``), ``mean`` (``b``), ``basis`` (d x r, the
        feature-space singular vectors of the kept singular values), ``objective`` (objective
        30 or 29 after each iteration) and ``iter_seconds``.
    """
    Xp = np.asarray(X, dtype=float).T  # d x n
    d, n = Xp.shape
    one = np.ones((n, 1))
    H = np.eye(n) - one @ one.T / n if with_mean else np.eye(n)  # n x n centring matrix
    E = np.zeros_like(Xp)
    Lam = np.zeros_like(Xp)
    scale = np.linalg.norm(Xp)
    b = np.zeros((d, 1))
    Z = np.zeros_like(Xp)
    basis = np.zeros((d, 0))
    history, seconds = [], []
    for _ in range(max_iter):
        tic = time.perf_counter()
        Xt = Xp - E + Lam / mu  # step 1, Theorem 3
        if with_mean:
            b = Xt @ one / n
        U, s, Vt = np.linalg.svd(Xt @ H, full_matrices=False)
        shrunk = np.maximum(s - gamma / mu, 0.0)
        keep = shrunk > 0
        Z = (U[:, keep] * shrunk[keep]) @ Vt[keep]
        basis = U[:, keep]
        Xh = Xp - b @ one.T - Z + Lam / mu  # step 2
        norms = np.sqrt(np.sum(Xh * Xh, axis=0))
        factor = np.maximum(1.0 - 1.0 / (mu * np.maximum(norms, np.finfo(float).tiny)), 0.0)
        E = Xh * factor
        Res = Xp - b @ one.T - Z - E
        Lam = Lam + mu * Res  # step 3
        D = Xp - b @ one.T - Z
        history.append(float(np.sqrt(np.sum(D * D, axis=0)).sum() + gamma * shrunk.sum()))
        mu = min(rho * mu, mu_max)  # step 4
        seconds.append(time.perf_counter() - tic)
        if np.linalg.norm(Res) / scale < tol:
            break
    return {
        "low_rank": (b @ one.T + Z).T,
        "mean": b.ravel(),
        "basis": basis,
        "objective": history,
        "iter_seconds": seconds,
    }
