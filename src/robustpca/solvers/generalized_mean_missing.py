r"""The generalized sample mean on the observed entries: a robust location of rows with
missing entries, by majorize-minimize.

The location is :math:`\min_m \sum_i \rho(\lVert P_{O_i}(x_i - m)\rVert)`, each row's
distance measured on its observed coordinates :math:`O_i` alone: the zero-dimensional case
of the majorize-minimize (EM) completion of :mod:`robustpca.solvers.missing`. Completing
each row's gaps with the current :math:`m` majorizes the observed-entries objective, so a
reweighted step on the completion (Nie et al. 2014, Algorithm 2), a weighted mean, never
increases it. With ``loss = L2pLoss(2p, delta)`` this is the generalized sample mean of
Oh & Kwak (2016, Algorithm 1, :mod:`robustpca.solvers.generalized_mean`) on the observed
entries.

References
----------
J. Oh and N. Kwak, "Generalized mean for robust principal component analysis", Pattern
Recognition 54, 2016, Algorithm 1. F. Nie, J. Yuan, H. Huang, "Optimal mean robust
principal component analysis", ICML 2014, Algorithm 2 and Theorem 1.
"""

from __future__ import annotations

import numpy as np

from ..losses import RobustLoss
from .missing import initial_fill
from .reweighting import minimize_reweighted

__all__ = ["solve_generalized_mean_missing"]


def solve_generalized_mean_missing(
    X: np.ndarray,
    missing: np.ndarray,
    loss: RobustLoss,
    *,
    max_iter: int = 100,
    tol: float = 1e-6,
):
    r"""A reweighted location :math:`\min_m \sum_i \rho(\lVert P_{O_i}(x_i - m)\rVert)`.

    The zero-dimensional case of the module's majorize-minimize: complete each row's
    missing coordinates with those of :math:`m`, take the weighted mean, repeat. The
    generalized sample mean of Oh & Kwak (2016, Algorithm 1) on the observed entries
    for ``loss = L2pLoss(2p, delta)``; the objective never increases. Returns a
    :class:`~robustpca.solvers.ReweightingResult` whose ``solution`` is the mean.

    Parameters
    ----------
    X, missing : ndarray of shape (n_samples, n_features)
        The data (any value, NaN included, at the gaps) and the boolean mask of the gaps.
    loss : RobustLoss
        The :math:`\rho` of the objective.
    max_iter : int, default=100
    tol : float, default=1e-6
        Stop when the relative change of the objective is at most ``tol``.
    """
    filled = initial_fill(X, missing)
    state = {"X": filled}

    def solve_weighted(a: np.ndarray) -> np.ndarray:
        return a @ state["X"] / a.sum()

    def distances(m: np.ndarray) -> np.ndarray:
        completed = np.where(missing, m[None, :], state["X"])
        state["X"] = completed
        diff = completed - m
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))

    return minimize_reweighted(
        solve_weighted,
        distances,
        loss,
        np.ones(X.shape[0]),
        max_iter=max_iter,
        tol=tol,
        state_view=lambda m: (None, lambda: m),
    )
