"""RWL-AN PCA: robust PCA with adaptive neighbours (Zhang & Tong, NeurIPS 2019)."""

from __future__ import annotations

import math
import numbers
from typing import cast

from .._validation import check_positive_int
from ..solvers.adaptive_neighbors import solve_adaptive_neighbors_pca
from ..solvers.missing import MissingPCAProblem
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes

__all__ = ["AdaptiveNeighborsPCA"]

_INITS = ("uniform", "random")


class AdaptiveNeighborsPCA(BaseSubspaceEstimator):
    r"""Robust PCA under robust weight learning with adaptive neighbours (RWL-AN).

    Solves problem (16) of Zhang & Tong (2019),

    .. math::
        \min_{m,\; W^\top W = I,\; p \ge 0,\; p^\top 1 = 1} \sum_{i=1}^n
        p_i \lVert (I - WW^\top)(x_i - m) \rVert_2^2 + \gamma p_i^2 ,

    by Algorithm 2: the mean is :math:`m = X^\top p` (Theorem 1), :math:`W` spans the
    top eigenvectors of the :math:`p`-weighted scatter :math:`X^\top (\mathrm{diag}(p) -
    pp^\top) X` (eq. 21), and :math:`p` is given by Algorithm 1 (eq. 15) from the squared
    residuals: only the ``n_neighbors`` best-fitted samples get a positive weight,
    decreasing linearly with their error; every other sample is rejected with weight
    exactly zero. :math:`\gamma` is re-picked at each iteration (upper end of interval
    14) so that exactly ``n_neighbors`` weights are positive.

    Parameters
    ----------
    n_components : int or None, default=None
        Subspace dimension; ``None`` keeps ``min(n_samples, n_features)``.
    n_neighbors : int or None, default=None
        ``k``, the number of activated samples, in ``[1, n_samples]``; overrides
        ``neighbor_rate``. With ``n_neighbors <= n_components`` the subspace passes
        through every activated sample and the remaining directions are arbitrary.
    neighbor_rate : float in (0, 1], default=0.85
        Used when ``n_neighbors`` is None: ``k = floor(neighbor_rate * n_samples)``
        (the paper's ``[0.85 N]``, sec. 5.1). Set it at most ``1 -`` the expected
        fraction of outliers (the paper's Fig. 2 shows the error rising beyond it).
    init : {'uniform', 'random'}, default='uniform'
        Starting weights. ``'uniform'`` (``p = 1/n``, so the first subspace is PCA's,
        deterministic, the start of RPCA-OM's Algorithm 1) or ``'random'``, a uniform
        draw on the simplex from ``random_state`` (Algorithm 2, step 1, as published).
    max_iter : int, default=300
        Maximum number of iterations of Algorithm 2 (the default leaves room for the
        slow fits on unstructured data; ``docs/design-notes/estimator-options.md``).
    tol : float, default=1e-6
        Stop when the relative change of objective (16) is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration (``state.weights`` are the
        :math:`p` of that iteration's weighted step); returning ``True`` stops the fit.
    random_state : int, Generator or None, default=None
        Draws ``init='random'`` and completes a rank-deficient basis.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Orthonormal rows spanning the subspace :math:`W^\top`.
    mean_ : ndarray of shape (n_features,)
        The optimal mean :math:`m = X^\top p`.
    weights_ : ndarray of shape (n_samples,)
        :math:`p` at the solution: non-negative, sums to one, exactly ``n_neighbors_``
        positive entries.
    outliers_ : ndarray of shape (n_samples,), bool
        Boolean mask of the rejected training samples (``weights_ == 0``); a mask
        rather than indices so that ``X[~model.outliers_]`` are the activated samples.
    n_neighbors_ : int
        The ``k`` used.
    gamma_ : float
        :math:`\gamma` of the last iteration: ``inf`` when ``n_neighbors_ = n_samples``,
        or when the errors from the ``k``-th smallest on are all equal (interval (14) is
        then unbounded: every residual 0 at full rank, the default ``n_components``).
    residuals_ : ndarray of shape (n_samples,)
        Training residual norms :math:`\lVert (I-WW^\top)(x_i - m)\rVert_2`.
    objective_history_ : ndarray
        Objective (16) after each iteration (with that iteration's :math:`\gamma`;
        without the infinite constant when ``n_neighbors_ = n_samples``).
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    The paper states that Algorithm 2 decreases (16) monotonically (sec. 4). That holds
    for a fixed :math:`\gamma` (block-coordinate descent), but Algorithm 1 changes
    :math:`\gamma` with the errors at every iteration, and the recorded objective
    usually increases: with that :math:`\gamma`, (16) equals :math:`(g_{(k+1)} +
    \sum_i p_i g_i)/2`, which grows as the first rejected sample is pushed away (most
    fits on Gaussian data end above their first value).
    The iteration still settles on a fixed point in every case we tried; the fit stops
    when the relative change of (16) falls below ``tol``. The fixed-:math:`\gamma`
    variant (monotone, but then the number of activated samples drifts) is available
    from :func:`robustpca.solvers.adaptive_neighbors.solve_adaptive_neighbors_pca`.

    Ties between the ``k``-th and ``(k+1)``-th error (e.g. several samples exactly on
    the subspace) are broken by sample index so that exactly ``k`` samples stay
    activated (see :func:`~robustpca.solvers.adaptive_neighbors.adaptive_neighbor_weights`).
    For ``n_samples < n_features`` the iterations run on the ``n x n`` Gram matrix.

    **Missing entries** (NaN in ``X``): the errors :math:`g_i` of problem (22) are the
    squared residuals on each sample's observed coordinates, and the weighted-PCA step
    (18, 21) runs on the data completed by the current reconstruction
    (:class:`~robustpca.solvers.missing.MissingPCAProblem`). For a fixed
    :math:`\gamma` objective (16) on the observed entries never increases (tested at
    the solver level); the published re-picking of :math:`\gamma` is not monotone,
    with or without gaps.

    References
    ----------
    R. Zhang and H. Tong, "Robust Principal Component Analysis with Adaptive Neighbors",
    NeurIPS 2019, problems (6), (16), (22), eqs. (14)-(15), (18), (21), Algorithms 1-2.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import AdaptiveNeighborsPCA
    >>> rng = np.random.default_rng(0)
    >>> basis = np.linalg.qr(rng.normal(size=(10, 2)))[0]
    >>> X = rng.normal(size=(100, 2)) * 4 @ basis.T + 0.1 * rng.normal(size=(100, 10))
    >>> X[:20] = 30 * rng.normal(size=(20, 10))          # 20% gross outliers
    >>> model = AdaptiveNeighborsPCA(n_components=2, neighbor_rate=0.8).fit(X)
    >>> int(model.outliers_.sum()), bool(model.outliers_[:20].all())
    (20, True)
    """

    __doc__ = with_detector_attributes(__doc__)

    _supports_missing = True
    _tall_fit_blas = "scipy"  # the scatter route (_outlier_api)
    _dask_fit = "adaptive_neighbors"  # robustpca._dask.fit.FITS

    def __init__(
        self,
        n_components=None,
        *,
        n_neighbors=None,
        neighbor_rate=0.85,
        init="uniform",
        max_iter=300,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.neighbor_rate = neighbor_rate
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _resolve_n_neighbors(self, n_samples: int) -> int:
        rate = self.neighbor_rate
        if isinstance(rate, bool) or not isinstance(rate, numbers.Real):
            raise TypeError(
                f"neighbor_rate must be a real number, got {type(rate).__name__} ({rate!r})."
            )
        rate = cast(float, rate)  # any Real: typed as float for the comparison and product
        if not (math.isfinite(rate) and 0 < rate <= 1):
            raise ValueError(f"neighbor_rate={rate!r} must lie in (0, 1].")
        if self.n_neighbors is not None:
            k = check_positive_int(self.n_neighbors, "n_neighbors")
            if k > n_samples:
                raise ValueError(f"n_neighbors={k} must be between 1 and n_samples={n_samples}.")
            return k
        # floor, with a relative guard so that 0.8 * 100 is 80 even if it rounds below
        k = math.floor(rate * n_samples * (1 + 1e-12))
        if k < 1:
            raise ValueError(
                f"neighbor_rate={rate!r} activates floor({rate!r} * n_samples={n_samples}) "
                "= 0 samples; increase neighbor_rate or give n_neighbors."
            )
        return k

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        """Algorithm 2 on the observed entries: the errors :math:`g_i` are the observed
        squared residuals and the weighted step runs on the data completed by the
        current reconstruction (:class:`~robustpca.solvers.missing.MissingPCAProblem`)."""
        problem = MissingPCAProblem(X, missing, self.n_components_, rng)
        return self._fit_solver(X, rng, sample_weight, problem=problem)

    def _fit_solver(self, X, rng, sample_weight=None, problem=None):
        n_samples = X.shape[0]
        self.n_neighbors_ = self._resolve_n_neighbors(n_samples)
        init = self.init
        if isinstance(init, str):
            if init not in _INITS:
                raise ValueError(f"init={init!r} must be one of {_INITS}.")
        else:
            raise TypeError(f"init must be one of {_INITS}, got {type(init).__name__}.")
        return solve_adaptive_neighbors_pca(
            X,
            self.n_components_,
            self.n_neighbors_,
            rng=rng,
            init=init,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=self.callback,
            problem=problem,
        )

    def _store(self, result):
        super()._store(result)
        self.outliers_ = self.weights_ == 0
