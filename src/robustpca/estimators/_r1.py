"""R1-PCA: rotational invariant robust PCA (Ding, Zhou, He & Zha, ICML 2006)."""

from __future__ import annotations

import numbers

from .._validation import check_nonnegative_float
from ..losses import CauchyLoss, HuberLoss
from ..solvers.r1_pca import solve_r1_pca, solve_r1_pca_missing
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes

__all__ = ["R1PCA"]

_LOSSES = {"huber": HuberLoss, "cauchy": CauchyLoss}


class R1PCA(BaseSubspaceEstimator):
    r"""R1-PCA: robust PCA with a rotation-invariant, Huber-type loss (Ding et al. 2006).

    On the data centred by their arithmetic mean, solves

    .. math::
        \min_{U^\top U = I} \sum_{i=1}^n \rho(r_i), \qquad
        r_i = \lVert (I - UU^\top)(x_i - \bar x) \rVert_2 ,

    where :math:`\rho` is Huber's loss, :math:`\rho(r) = r^2/2` for :math:`r \le c` and
    :math:`c r - c^2/2` beyond, with the cutoff :math:`c` the median residual at each
    iteration (Ding et al.). The loss depends on ``r_i`` only through the
    residual norm, so the solution is rotation invariant, unlike L1-norm PCA.

    The algorithm is Ding's iteratively re-weighted subspace iteration: starting from
    the PCA subspace, each iteration computes the residuals, the weights
    :math:`w_i = \rho'(r_i) / (2 r_i)` (``1/2`` inside the cutoff, :math:`c/(2r_i)`
    beyond) and takes *one* step of subspace iteration,
    :math:`U \leftarrow \operatorname{orth}(C_w U)` with
    :math:`C_w = \sum_i w_i (x_i - \bar x)(x_i - \bar x)^\top` (QR, signs fixed so that
    R has a positive diagonal). It stops when the relative change of the objective is
    at most ``tol``. Because the cutoff follows the median residual, the objective is
    not guaranteed to decrease at every iteration.

    Parameters
    ----------
    n_components : int or None, default=None
        Subspace dimension ``k``; ``None`` keeps ``min(n_samples, n_features)``.
    loss : {'huber', 'cauchy'}, default='huber'
        ``'huber'`` is R1-PCA as published; ``'cauchy'`` uses
        :math:`\rho(r) = (c^2/2)\log(1 + (r/c)^2)`, which also down-weights the
        largest residuals, more strongly.
    threshold : float or None, default=None
        The cutoff (Huber) or scale (Cauchy) :math:`c`, in data units. ``None`` uses
        the median residual norm at each iteration, as Ding et al. do.
    max_iter : int, default=300
        Maximum number of re-weighting iterations.
    tol : float, default=1e-6
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration, with ``state`` an
        :class:`~robustpca.solvers.IterationState` (``objective``, the ``weights`` of
        that iteration's step, and lazily ``components`` and ``mean``). Returning
        ``True`` stops the fit.
    random_state : int, Generator or None, default=None
        Only used to complete the basis when the data have fewer than
        ``n_components`` directions of variance; the algorithm is deterministic.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Orthonormal basis :math:`U^\top` of the subspace.
    mean_ : ndarray of shape (n_features,)
        The arithmetic mean of the training data: R1-PCA centres by the mean and does
        not estimate the centre robustly (Nie et al. 2014, sec. 1).
    weights_ : ndarray of shape (n_samples,)
        IRLS weights :math:`w_i` at the solution (small for outlying samples).
    residuals_ : ndarray of shape (n_samples,)
        Training residual norms :math:`r_i`.
    threshold_ : float
        The cutoff :math:`c` at the solution (the final median residual by default).
    objective_history_ : ndarray
        :math:`\sum_i \rho(r_i)` after each iteration, each with that iteration's
        cutoff.
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    For ``n_samples < n_features`` (e.g. images) the iteration works with the
    ``n x n`` Gram matrix computed once and never forms a ``d x d`` matrix; for tall
    data :math:`C_w U` is applied as :math:`X^\top (w \odot XU)`. Both routes give the
    same iterates (see :mod:`robustpca.solvers.r1_pca`).

    **Missing entries** (NaN in ``X``): the Huber/Cauchy weights come from the residuals
    on each sample's observed coordinates; each iteration re-centres the data completed
    by the current reconstruction by its arithmetic mean and takes Ding's
    subspace-iteration step on it (:func:`~robustpca.solvers.r1_pca.
    solve_r1_pca_missing`, the scatter route only). EM keeps the paper's cheap step; the
    objective with the median cutoff is not monotone, with or without gaps.

    References
    ----------
    C. Ding, D. Zhou, X. He and H. Zha, "R1-PCA: rotational invariant L1-norm principal
    component analysis for robust subspace factorization", ICML 2006: the Huber
    M-estimator with the median cutoff and its re-weighted subspace iteration.

    F. Nie, J. Yuan and H. Huang, "Optimal Mean Robust Principal Component Analysis",
    ICML 2014, sec. 1.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.linalg import subspace_angles
    >>> from robustpca import PCA, R1PCA
    >>> rng = np.random.default_rng(2)
    >>> basis = np.linalg.qr(rng.normal(size=(10, 2)))[0]
    >>> X = rng.normal(size=(200, 2)) * 4 @ basis.T + 0.1 * rng.normal(size=(200, 10))
    >>> X[:30] = 20 * rng.normal(size=(30, 10))              # 15% gross outliers
    >>> def largest_angle(model):
    ...     return np.degrees(subspace_angles(model.components_.T, basis)).max()
    >>> model = R1PCA(n_components=2).fit(X)
    >>> print(f"R1-PCA {largest_angle(model):.0f} deg, PCA {largest_angle(PCA(2).fit(X)):.0f} deg")
    R1-PCA 3 deg, PCA 87 deg
    >>> bool(model.weights_[:30].max() < model.weights_[30:].min())   # outliers down-weighted
    True
    """

    __doc__ = with_detector_attributes(__doc__)

    _supports_missing = True
    _dask_fit = "r1"  # robustpca._dask.fit.FITS

    def __init__(
        self,
        n_components=None,
        *,
        loss="huber",
        threshold=None,
        max_iter=300,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.loss = loss
        self.threshold = threshold
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _make_loss(self):
        if not isinstance(self.loss, str) or self.loss not in _LOSSES:
            raise ValueError(f"loss must be 'huber' or 'cauchy', got loss={self.loss!r}.")
        threshold = self.threshold
        if threshold is not None:
            if not isinstance(threshold, numbers.Real):
                raise TypeError(
                    f"threshold must be a real number or None, got {type(threshold).__name__} "
                    f"({threshold!r})."
                )
            threshold = check_nonnegative_float(threshold, "threshold", strict=True)
        return _LOSSES[self.loss](threshold=threshold)

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        """Ding's loop on the observed entries (:func:`~robustpca.solvers.r1_pca.
        solve_r1_pca_missing`)."""
        return self._solve(solve_r1_pca_missing, X, missing, rng=rng)

    def _fit_solver(self, X, rng, sample_weight=None):
        return self._solve(solve_r1_pca, X, rng=rng)

    def _solve(self, solver, *data, rng):
        """``solver`` (complete or observed-entries Ding loop) on ``data`` with this
        estimator's rank, loss and stopping rule."""
        return solver(
            *data,
            self.n_components_,
            self._make_loss(),
            rng=rng,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=self.callback,
        )
