r"""PCA-L1 of Kwak (2008) exactly as its greedy algorithm is printed (cited by Nie & Huang).

The *reference* for ``run_all.py``. Kwak, "Principal component analysis based on L1-norm
maximization", IEEE TPAMI 30(9), 2008, sec. 3, for one direction:

1. Initialization: pick any ``w(0)``, set ``w(0) <- w(0) / ||w(0)||``, ``t = 0``
   (Kwak suggests the sample of largest norm, which is used here, as in ``robustpca``).
2. Polarity check: ``p_i(t) = -1`` if ``w(t)^T x_i < 0``, else ``+1``.
3. Flipping and maximization: ``t <- t + 1``, ``w(t) = sum_i p_i(t-1) x_i``,
   ``w(t) <- w(t) / ||w(t)||``.
4. Convergence check: (a) if ``w(t) != w(t-1)``, go to step 2; (b) else if some
   ``w(t)^T x_i = 0``, set ``w(t) <- (w(t) + dw) / ||w(t) + dw||`` with a small random
   ``dw`` and go to step 2; (c) otherwise stop.

and greedily for ``m`` directions with the deflation
``x_i^j = x_i^{j-1} - w_{j-1} (w_{j-1}^T x_i^{j-1})`` (Nie & Huang, sec. II, eq. 6-7).
The tests are the printed ones: exact equality of consecutive ``w`` and exact zeros of
``w^T x_i`` (so a direction takes one more iteration than ``robustpca.L1PCA``, which
stops as soon as the polarities repeat). One departure: a sample that is zero (at the
mean, or deflated to zero) is left out of step 4(b)'s test, since ``w^T x_i = 0`` for
every ``w`` there, which no perturbation changes (the box would loop forever; such a
sample adds nothing to the L1 dispersion). Each iteration costs one ``X w`` and one
``X^T p``: the published algorithm is already linear in ``n`` and ``d``.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["l1_pca_paper_literal"]


def l1_pca_paper_literal(X, m, max_iter, rng, perturbation=1e-6):
    """Kwak's PCA-L1 for ``m`` directions, at most ``max_iter`` iterations each.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data; centred here by the arithmetic mean.
    m : int
        Number of directions.
    max_iter : int
        Cap on the iterations of one direction (the box has none).
    rng : numpy.random.Generator
        Draws the perturbation ``dw`` of step 4(b).
    perturbation : float
        Length of ``dw``.

    Returns
    -------
    dict
        ``basis`` (d x m), ``mean``, ``objective`` (``sum_i |w^T x_i|`` of the current
        direction on the deflated data, per iteration), ``iter_seconds`` and
        ``n_iter_per_component``.
    """
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    R = (X - mean).T  # d x n, the deflated data
    d = R.shape[0]
    W = np.zeros((d, m))
    history, seconds, per_component = [], [], []
    for j in range(m):
        norms = np.sqrt(np.sum(R * R, axis=0))
        w = R[:, int(np.argmax(norms))] / norms.max()  # step 1
        p = np.where(w @ R < 0, -1.0, 1.0)  # step 2
        nonzero = norms > 0  # 4(b) cannot move w^T x_i off 0 for a zero sample
        iters = 0
        while iters < max_iter:
            tic = time.perf_counter()
            iters += 1
            w_new = R @ p  # step 3
            w_new = w_new / np.linalg.norm(w_new)
            z = w_new @ R
            history.append(float(np.abs(z).sum()))
            converged = np.array_equal(w_new, w)  # step 4(a)
            w = w_new
            if converged:
                if np.any(z[nonzero] == 0):  # step 4(b)
                    dw = rng.standard_normal(d)
                    w = w + perturbation * dw / np.linalg.norm(dw)
                    w = w / np.linalg.norm(w)
                    z = w @ R
                else:  # step 4(c)
                    seconds.append(time.perf_counter() - tic)
                    break
            p = np.where(z < 0, -1.0, 1.0)  # step 2
            seconds.append(time.perf_counter() - tic)
        per_component.append(iters)
        W[:, j] = w
        R = R - np.outer(w, w @ R)  # deflation
    return {
        "basis": W,
        "mean": mean,
        "objective": history,
        "iter_seconds": seconds,
        "n_iter_per_component": per_component,
    }
