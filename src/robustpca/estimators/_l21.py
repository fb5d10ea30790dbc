"""PCA-L21: non-greedy L21-norm maximisation PCA (Nie & Huang)."""

from __future__ import annotations

import numpy as np

from .._array_api import host_method
from ..solvers.l21_pca import solve_l21_pca, solve_l21_pca_missing
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes

__all__ = ["L21PCA"]


class L21PCA(BaseSubspaceEstimator):
    r"""PCA by non-greedy L21-norm maximisation (PCA-L21).

    Solves problem (8) of Nie & Huang,

    .. math:: \max_{W^\top W = I} \sum_{i=1}^n \lVert W^\top (x_i - \bar x) \rVert_2 ,

    the robust counterpart of PCA's :math:`\max \sum_i \lVert W^\top x_i\rVert_2^2`,
    with all directions optimised at once (Algorithm 2): each iteration sets
    :math:`\alpha_i = W^\top x_i / \lVert W^\top x_i \rVert_2` and
    :math:`W = UV^\top` from the SVD of :math:`M = \sum_i x_i \alpha_i^\top`. The
    objective never decreases (Theorem 1) and the limit is a KKT point (Theorem 2). By
    Lemma 1 (eq. 12), :math:`\lVert X\rVert_{2,1} \le \lVert X - XWW^\top\rVert_{2,1}
    + \lVert XW\rVert_{2,1} \le \sqrt2 \lVert X\rVert_{2,1}`, which ties maximising
    (8) to minimising the l2,1 reconstruction error.

    The paper assumes centred data; we centre by the arithmetic mean (``mean_``). The
    objective is invariant to rotations of ``W`` within its span, so the fitted basis is
    rotated to the principal axes of the projected data (components sorted by projected
    variance, like PCA); this does not change the subspace or the objective.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of directions ``m``; ``None`` keeps ``min(n_samples, n_features)``.
    init : {'pca', 'random'}, default='pca'
        Starting ``W``: the PCA subspace (so the result is never worse than PCA in
        objective 8) or a random orthonormal matrix drawn from ``random_state``.
    max_iter : int, default=500
        Iterations are cheap but convergence is linear and can be slow on image data,
        so the cap is generous.
    tol : float, default=1e-6
        Stop when the relative increase of objective (8) is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)``; returning ``True`` stops the fit.
    random_state : int, Generator or None, default=None
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        ``W^T``, orthonormal rows.
    mean_ : ndarray of shape (n_features,)
        Arithmetic mean of the training data.
    objective_history_ : ndarray
        Objective (8) after each iteration (non-decreasing).
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    When ``n_samples < n_features`` the iterations run on the ``n x n`` Gram matrix,
    ``O(n^2 m)`` each (see :mod:`robustpca.solvers.l21_pca`).

    **Missing entries** (NaN in ``X``): EM. Each iteration is one step of Algorithm 2 on
    the data completed by the current reconstruction (each row's least-squares fit on
    its observed coordinates), centred by its arithmetic mean; the start is the PCA
    subspace of the median-completed data (``init`` is ignored then)
    (:func:`~robustpca.solvers.l21_pca.solve_l21_pca_missing`). Objective (8) is a
    maximisation of projected norms, into which the completed entries enter, so no
    monotone objective on the observed entries is claimed; the stop is the relative
    change of (8) on the completion.

    References
    ----------
    F. Nie and H. Huang, "Non-Greedy L21-Norm Maximization for Principal Component
    Analysis", arXiv:1603.08293, problem (8), Algorithms 1-2, Theorems 1-2, eq. (12).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import L21PCA
    >>> X = np.random.default_rng(0).normal(size=(100, 8))
    >>> model = L21PCA(n_components=3, random_state=0).fit(X)
    >>> bool(np.all(np.diff(model.objective_history_) >= -1e-9))
    True
    """

    __doc__ = with_detector_attributes(__doc__)

    _supports_missing = True
    _dask_fit = "l21"  # robustpca._dask.fit.FITS

    def __init__(
        self,
        n_components=None,
        *,
        init="pca",
        max_iter=500,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        """Algorithm 2 by EM on the observed entries (:func:`~robustpca.solvers.
        l21_pca.solve_l21_pca_missing`); starts from the PCA subspace."""
        if not (isinstance(self.init, str) and self.init in ("pca", "random")):
            raise ValueError(f"init={self.init!r} must be 'pca' or 'random'.")
        return solve_l21_pca_missing(
            X,
            missing,
            self.n_components_,
            rng=rng,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=self.callback,
        )

    def _fit_solver(self, X, rng, sample_weight=None):
        if not (isinstance(self.init, str) and self.init in ("pca", "random")):
            raise ValueError(f"init={self.init!r} must be 'pca' or 'random'.")
        return solve_l21_pca(
            X,
            self.n_components_,
            rng=rng,
            init=self.init,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=self.callback,
        )

    @host_method()
    def l21_objective(self, X) -> float:
        """Objective (8) on ``X``: ``sum_i ||W^T (x_i - mean_)||_2``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (no NaN).

        Returns
        -------
        float
        """
        X = self._check_X(X)
        return float(np.linalg.norm((X - self.mean_) @ self.components_.T, axis=1).sum())
