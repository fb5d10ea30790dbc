"""HQ-PCA: robust PCA by the maximum correntropy criterion (He, Hu, Zheng & Kong 2011)."""

from __future__ import annotations

import dataclasses
import numbers
import warnings

import numpy as np

from .._array_api import to_numpy
from .._warnings import external_stacklevel, warn_if_few_samples_weighed
from ..array_api_linalg import ArrayAPIWeightedPCAProblem
from ..linalg import WeightedPCAProblem
from ..losses import WelschLoss
from ..solvers import StopReason, solve_optimal_mean_pca
from ..solvers.missing import MissingPCAProblem
from ._base import BaseSubspaceEstimator
from ._incremental import IncrementalMixin
from ._outlier_api import with_detector_attributes

__all__ = ["HQPCA"]

#: The fit counts as exact once the objective is below this fraction of half the data's
#: total squared spread (or of sigma^2 for a smaller fixed width): residuals at rounding level.
EXACT_RTOL = 1e-20


def check_kernel_width(kernel_width) -> float | None:
    """``None`` or a finite positive real number (the kernel width sigma)."""
    if kernel_width is None:
        return None
    if isinstance(kernel_width, bool) or not isinstance(kernel_width, numbers.Real):
        raise TypeError(
            "kernel_width must be None or a real number > 0, got "
            f"{type(kernel_width).__name__} ({kernel_width!r})."
        )
    width = float(kernel_width)
    if not (width > 0 and width < float("inf")):
        raise ValueError(f"kernel_width={width!r} must be None or finite and > 0.")
    if width * width < np.finfo(float).tiny:
        raise ValueError(f"kernel_width={width!r} is too small: its square underflows.")
    return width


class HQPCA(IncrementalMixin, BaseSubspaceEstimator):
    r"""HQ-PCA: PCA that maximises the correntropy of the reconstruction, mean included.

    Solves the maximum-correntropy problem of He et al. (2011), eq. (2)-(3) of Oh & Kwak
    (2016),

    .. math::
        \max_{W^\top W = I,\; m} \sum_{i=1}^N g(r_i), \quad
        r_i = \lVert (I - WW^\top)(x_i - m) \rVert_2 , \quad
        g(r) = e^{-r^2 / (2\sigma^2)}
        \;\Leftrightarrow\;
        \min_{W^\top W = I,\; m} \sum_{i=1}^N \sigma^2 \bigl(1 - g(r_i)\bigr) ,

    the Welsch M-estimator of the reconstruction (:class:`~robustpca.losses.WelschLoss`),
    by half-quadratic optimisation. The half-quadratic auxiliary variables are
    :math:`p_i = g(r_i)`; for fixed :math:`p` the problem is weighted PCA, whose
    solution is the :math:`p`-weighted mean and the top eigenvectors of the
    :math:`p`-weighted scatter. That is the reweighted loop of Nie et al. (2014),
    :func:`~robustpca.solvers.minimize_reweighted` with the Welsch weights, started from
    PCA (all :math:`p_i` equal); for a fixed :math:`\sigma` the objective never
    increases. Samples with large residuals get exponentially small weights, and the
    mean is estimated jointly with the subspace.

    The kernel of eq. (2) acts on the norm of the reconstruction error vector, as in the
    correntropy :math:`\frac1N\sum_i g(x_i - \hat x_i)` of He et al.; Oh & Kwak's eq. (2)
    writes the squared error as the argument of :math:`g`, which would make
    :math:`1 - g` non-concave in the squared error and the half-quadratic step no longer
    a majorisation, so we follow He et al.

    Parameters
    ----------
    n_components : int or None, default=None
        Subspace dimension; ``None`` keeps ``min(n_samples, n_features)``.
    kernel_width : float or None, default=None
        The kernel width :math:`\sigma` in data units. ``None`` follows He et al.
        (2011): :math:`\sigma^2 = \frac{1}{2N} \sum_i r_i^2`, re-estimated from the
        residuals at every iteration (Oh & Kwak do not state a rule). The objective is
        then evaluated with the current :math:`\sigma` and need not decrease
        monotonically; with a fixed width it does.
    max_iter : int, default=300
        Maximum number of half-quadratic iterations. With the adaptive kernel width
        the last digits converge slowly, and an iteration costs no more than weighted
        PCA, so the cap is generous.
    tol : float, default=1e-6
        Stop when the relative change of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration (``state`` is an
        :class:`~robustpca.solvers.IterationState`); returning ``True`` stops.
    random_state : int, Generator or None, default=None
        Only used to complete the basis of rank-deficient data.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
    mean_ : ndarray of shape (n_features,)
        The jointly estimated mean :math:`m = \sum_i p_i x_i / \sum_i p_i`.
    weights_ : ndarray of shape (n_samples,)
        Auxiliary variables :math:`p_i = g(r_i) \in [0, 1]` at the solution.
    residuals_ : ndarray of shape (n_samples,)
        Training residual norms :math:`r_i`.
    kernel_width_ : float
        :math:`\sigma` at the solution.
    objective_history_ : ndarray
        :math:`\sum_i \sigma^2 (1 - g(r_i))` after each iteration (``objective[0]`` is
        the value at PCA).
    n_samples_seen_ : int
        Rows fitted (with :meth:`partial_fit`, the rows seen by every call).
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    He et al.'s kernel width grows with the outliers' own residuals. On planted data
    (``tests/conftest.py``) HQ-PCA recovers the subspace with 10% gross outliers, still
    beats PCA by far at 20%, and breaks down at 30%, where :math:`\sigma` ends 25 times
    the inliers' residual; a fixed ``kernel_width`` at the inliers' scale recovers it.
    An exact fit (every residual at rounding level) stops as exact rather than chasing
    the noise of its relative objective change. Wide data go through the ``n x n`` Gram
    matrix (see :class:`~robustpca.linalg.WeightedPCAProblem`).

    **Missing entries** (NaN in ``X``): the correntropy weights come from each sample's
    residual on its observed coordinates, and each half-quadratic step is weighted PCA
    on the data completed by the current reconstruction
    (:class:`~robustpca.solvers.missing.MissingPCAProblem`). The Welsch loss is
    nondecreasing in the residual, so with a fixed ``kernel_width`` the objective on the
    observed entries never increases (tested); the adaptive width is not monotone with
    or without gaps. EM is chosen because it keeps the paper's closed-form step.

    **Streams.** :meth:`partial_fit` runs the half-quadratic loop as a stochastic
    majorise-minimise fit over batches (the method's docstring says what it converges
    to); the adaptive kernel width of a pass is that of the previous pass's residuals.

    References
    ----------
    R. He, B.-G. Hu, W.-S. Zheng and X.-W. Kong, "Robust principal component analysis
    based on maximum correntropy criterion", IEEE Trans. Image Process. 20(6), 2011.
    J. Oh and N. Kwak, "Generalized mean for robust principal component analysis",
    Pattern Recognition 54, 2016, eq. (2)-(3).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.estimators._hq import HQPCA
    >>> rng = np.random.default_rng(0)
    >>> basis = np.linalg.qr(rng.normal(size=(10, 2)))[0]
    >>> X = 5.0 + rng.normal(size=(200, 2)) * 4 @ basis.T + 0.1 * rng.normal(size=(200, 10))
    >>> X[:30] = 8.0 + 20 * rng.normal(size=(30, 10))       # 15% gross outliers
    >>> model = HQPCA(n_components=2).fit(X)
    >>> bool(model.weights_[:30].max() < model.weights_[30:].min())   # outliers weigh least
    True
    """

    __doc__ = with_detector_attributes(__doc__)

    _dask_fit = "hq"  # robustpca._dask.fit.FITS
    _supports_missing = True
    _tall_fit_blas = "scipy"  # the scatter route (_outlier_api)
    _stream_reweights = True  # partial_fit (_incremental)
    _stream_weight_scale = 2.0  # weights_ are g(r_i) = 2 h'(r_i^2)

    def __init__(
        self,
        n_components=None,
        *,
        kernel_width=None,
        max_iter=300,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.kernel_width = kernel_width
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _stream_loss(self, scale, mean_square):
        """The Welsch loss of ``partial_fit``; He et al.'s adaptive width from the mean
        squared residual of the stream (:class:`~robustpca.solvers.incremental.
        ResidualScaleMemory`)."""
        width = check_kernel_width(self.kernel_width)
        if width is None:
            width = float(np.sqrt(0.5 * mean_square)) if mean_square > 0 else 1.0
        self.kernel_width_ = width
        return WelschLoss(kernel_width=width)

    def _fit_solver(self, X, rng, sample_weight=None):
        return self._solve(WeightedPCAProblem(X, self.n_components_, rng))

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        """The same loop on the observed entries: each weighted step runs on the data
        completed by the current reconstruction (:class:`~robustpca.solvers.missing.
        MissingPCAProblem`), the weights come from the observed residuals."""
        return self._solve(MissingPCAProblem(X, missing, self.n_components_, rng))

    def _fit_solver_namespace(self, X, xp, device, rng):
        """The same solve with every pass over ``X`` in its array namespace, on its device
        (:class:`~robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem`)."""
        return self._solve(ArrayAPIWeightedPCAProblem(X, self.n_components_, rng, xp, device))

    def _solve(self, problem):
        width = check_kernel_width(self.kernel_width)
        loss = WelschLoss(kernel_width=width)
        # An exact fit leaves residuals at rounding level, where the relative objective
        # change is noise (the adaptive sigma shrinks with them): stop there, as exact.
        # rho(r) >= min(r^2, sigma^2) / 3, so an objective below this level means tiny
        # residuals even for a tiny fixed sigma (with the adaptive sigma, r_i^2 <= 2 N
        # sigma^2 and the objective is at least sum_i r_i^2 / (4 N)).
        scale = 0.5 * problem.mean_sq_distance() * problem.n_samples
        exact_level = EXACT_RTOL * (scale if width is None else min(scale, width * width))
        exact = []

        def monitor(iteration, state):
            if self.callback is not None and self.callback(iteration, state):
                return True
            if state.objective <= exact_level:
                exact.append(iteration)
                return True
            return False

        result = solve_optimal_mean_pca(
            problem.X,
            self.n_components_,
            loss,
            rng=problem.rng,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=monitor,
            problem=problem,
        )
        if exact:
            result = dataclasses.replace(result, stop_reason=StopReason.EXACT, converged=True)
        if result.stop_reason == StopReason.ALL_CAPPED:
            warnings.warn(
                f"kernel_width={self.kernel_width} is so small that every sample's "
                "correntropy weight underflowed to zero; the last subspace with a positive "
                "weight is returned. Increase kernel_width.",
                UserWarning,
                stacklevel=external_stacklevel(),
            )
        else:
            warn_if_few_samples_weighed(
                to_numpy(result.weights), problem.n_samples, self.n_components_
            )
        sigma = loss.resolve(result.info["residuals"]).kernel_width
        return dataclasses.replace(
            result,
            weights=2.0 * result.weights,  # the loss weights are g(r_i) / 2
            info={**result.info, "kernel_width": float(sigma)},
        )
