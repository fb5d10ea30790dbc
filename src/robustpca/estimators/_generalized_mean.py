"""PCA-GM: PCA with the generalized mean of the reconstruction errors (Oh & Kwak 2016)."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._array_api import host_method
from .._warnings import external_stacklevel
from ..losses import L2pLoss
from ..solvers import StopReason
from ..solvers._result import renumbered
from ..solvers.generalized_mean import (
    check_p,
    resolve_delta,
    solve_generalized_mean,
    solve_generalized_mean_pca,
)
from ..solvers.generalized_mean_missing import solve_generalized_mean_missing
from ..solvers.missing import MissingPCAProblem, initial_fill
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes

__all__ = ["GeneralizedMeanPCA"]

#: Alternations of the centre (Algorithm 1) and the subspace (Algorithm 2) when ``X``
#: has missing entries (``_fit_solver_missing``).
CENTER_PASSES = 3

_CENTERS = ("generalized", "mean")


class GeneralizedMeanPCA(BaseSubspaceEstimator):
    r"""PCA-GM: robust PCA minimising the generalized mean of the squared errors.

    Solves problem (10) of Oh & Kwak (2016),

    .. math::
        \min_{W^\top W = I} \Bigl(\frac1N \sum_{i=1}^N e_i(W)^p\Bigr)^{1/p}
        \;\Leftrightarrow\; \min_{W^\top W = I} \sum_{i=1}^N \bigl(e_i(W) + \delta
        \bigr)^p ,
        \qquad e_i(W) = \lVert \tilde x_i \rVert^2 - \lVert W^\top \tilde x_i\rVert^2 ,

    with :math:`\tilde x_i = x_i - m_G` and the perturbation :math:`\delta` of eq. (13):
    the arithmetic mean of PCA's squared reconstruction errors (eq. 9 with ``p = 1``) is
    replaced by the power mean with :math:`0 < p \le 1`, which lets large errors
    (outliers) count less while keeping the Euclidean distance, so the solution is
    rotation invariant. The centre :math:`m_G` is the generalized sample mean (eq. 6,
    Algorithm 1, :func:`~robustpca.solvers.generalized_mean.generalized_sample_mean`)
    computed first with the same ``p`` and ``delta``; Algorithm 2 then starts from PCA
    about :math:`m_G` and alternates :math:`\beta_i = (e_i + \delta)^{p-1}` (eq. 11)
    with the top eigenvectors of :math:`\sum_i \beta_i \tilde x_i \tilde x_i^\top`
    (eq. 12). Objective (10) never increases. With ``p = 1`` this is PCA.

    For :math:`p < 1/2`, :math:`e^p` is not differentiable at :math:`e = 0` with an
    infinite slope, so any subspace that contains samples exactly is a local minimiser
    of (10); the iteration converges to a local minimum near its PCA start (as the
    paper says of Fig. 2), which need not be the global one.

    Parameters
    ----------
    n_components : int or None, default=None
        Subspace dimension ``m``; ``None`` keeps ``min(n_samples, n_features)``.
    p : float, default=0.3
        Power of the generalized mean, in (0, 1]. The default is the value of the
        paper's Fig. 2 example; smaller values discount large errors more.
    delta : float or 'auto', default='auto'
        Perturbation :math:`\delta` of eq. (13), in squared data units, used by both
        algorithms. ``'auto'`` is ``1e-6`` times the mean squared distance of the
        samples to their arithmetic mean ("small enough that the modified objective
        function is not affected too much", sec. 3.3), which keeps the fit scale
        equivariant.
    center : {'generalized', 'mean'}, default='generalized'
        Centre the data on the generalized sample mean :math:`m_G` (as in the paper)
        or on the arithmetic mean.
    max_iter : int, default=100
        Maximum number of iterations of each algorithm.
    tol : float, default=1e-6
        Each algorithm stops when the relative change of the generalized mean of its
        errors (:math:`M_p`, eq. 9) is at most ``tol``, that of its objective (6 or 10)
        at most ``p * tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration of Algorithm 2 (``state``
        is an :class:`~robustpca.solvers.IterationState`); returning ``True`` stops.
    random_state : int, Generator or None, default=None
        Only used to complete the basis when the data have fewer than ``n_components``
        directions of variance; the algorithms are deterministic.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        :math:`W_G^\top`, orthonormal rows.
    mean_ : ndarray of shape (n_features,)
        The centre: :math:`m_G` or the arithmetic mean.
    weights_ : ndarray of shape (n_samples,)
        :math:`\beta_i = (e_i + \delta)^{p-1}` at the solution (eq. 11): small for
        samples with large errors; all 1 when ``p = 1``.
    residuals_ : ndarray of shape (n_samples,)
        :math:`\sqrt{e_i}`, the training reconstruction errors.
    delta_ : float
        The perturbation used.
    center_n_iter_ : int
        Iterations of Algorithm 1 (0 with ``center='mean'``).
    objective_history_ : ndarray
        :math:`\sum_i (e_i + \delta)^p` (eq. 10, 13) after each iteration;
        ``objective_history_[0]`` is the value at PCA about ``mean_``.
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    Wide data (``n_samples < n_features``) are handled through the ``n x n`` Gram
    matrix (see :class:`~robustpca.linalg.WeightedPCAProblem`).

    **Missing entries** (NaN in ``X``): the generalized mean of Algorithm 1 is taken of
    the distances on the observed coordinates, and Algorithm 2's weighted step runs on
    the data completed by the current reconstruction, the weights :math:`\beta_i` from
    the observed residuals (:class:`~robustpca.solvers.missing.MissingPCAProblem`); the
    observed-entries objective never increases within a pass (tested), the gap values
    extrapolated by SQUAREM (:mod:`robustpca.solvers.accelerated_em`). Centre and
    subspace are alternated ``CENTER_PASSES = 3`` times, the later centres computed on
    the completed data (a centre from gaps filled by the centre itself lies off the
    inliers' subspace).

    References
    ----------
    J. Oh and N. Kwak, "Generalized mean for robust principal component analysis",
    Pattern Recognition 54, 2016, eq. (4)-(13), Algorithms 1-2, Fig. 1-2.

    Examples
    --------
    The toy example of Fig. 2: ``y = x + noise`` with 10 noisier outliers.

    >>> import numpy as np
    >>> from robustpca import PCA
    >>> from robustpca.estimators._generalized_mean import GeneralizedMeanPCA
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=110)
    >>> e = np.concatenate([rng.normal(0, 0.5, 100), rng.normal(0, 3, 10)])
    >>> X = np.column_stack([x, x + e])
    >>> def degrees(model):
    ...     return float(np.degrees(np.arctan2(*model.components_[0, ::-1])) % 180)
    >>> round(degrees(PCA(1).fit(X))), round(degrees(GeneralizedMeanPCA(1, p=0.3).fit(X)))
    (65, 48)
    """

    __doc__ = with_detector_attributes(__doc__)

    _supports_missing = True
    _tall_fit_blas = "scipy"  # the scatter route (_outlier_api)
    _dask_fit = "generalized_mean"  # robustpca._dask.fit.FITS

    def __init__(
        self,
        n_components=None,
        *,
        p=0.3,
        delta="auto",
        center="generalized",
        max_iter=100,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.p = p
        self.delta = delta
        self.center = center
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _check_center(self) -> None:
        if not (isinstance(self.center, str) and self.center in _CENTERS):
            raise ValueError(f"center={self.center!r} must be 'generalized' or 'mean'.")

    def _solve_pca(self, X, p, mean, delta, rng, problem=None, callback=None):
        """Algorithm 2 about ``mean`` with this estimator's rank and stopping rule
        (``problem``: the observed-entries problem of a fit with missing values;
        ``callback``: in place of the estimator's)."""
        return solve_generalized_mean_pca(
            X,
            self.n_components_,
            p,
            mean=mean,
            delta=delta,
            rng=rng,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=self.callback if callback is None else callback,
            problem=problem,
        )

    def _fit_solver(self, X, rng, sample_weight=None):
        p = check_p(self.p)
        delta = resolve_delta(self.delta, X)
        self._check_center()
        if self.center == "generalized":
            located = solve_generalized_mean(X, p, delta, max_iter=self.max_iter, tol=self.tol)
            self._warn_center_max_iter([located.stop_reason])
            mean, center_n_iter = located.mean, located.n_iter
        else:
            mean, center_n_iter = X.mean(axis=0), 0
        result = self._solve_pca(X, p, mean, delta, rng)
        result.info.update(delta=delta, center_n_iter=center_n_iter)
        return result

    def _warn_center_max_iter(self, stops) -> None:
        """The ``ConvergenceWarning`` of Algorithm 1 where a centring stopped at
        ``max_iter`` (``stops``: the stop reasons of the centrings of the fit)."""
        if StopReason.MAX_ITER in stops:
            warnings.warn(
                f"The generalized sample mean (Algorithm 1) reached max_iter="
                f"{self.max_iter} before the relative change of the generalized mean "
                f"M_p fell below tol={self.tol}; increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        """Algorithms 1 and 2 on the observed entries, alternated ``CENTER_PASSES`` times.

        The first pass takes the generalized mean of the observed distances
        (:func:`~robustpca.solvers.generalized_mean_missing.solve_generalized_mean_missing`:
        the gaps completed by the centre itself) and runs Algorithm 2 about it, the
        weighted step on the data completed by the current reconstruction
        (:class:`~robustpca.solvers.missing.MissingPCAProblem`). A centre computed from
        gaps completed by the centre lies off the inliers' subspace, so each later pass
        recomputes the generalized mean (Algorithm 1) on the data completed by the last
        subspace and Algorithm 2 about it. Within a pass the objective on the observed
        entries never increases; ``objective_history_`` is the last pass's. The callback
        sees the iterations of all passes numbered on, and its ``True`` ends the fit.
        """
        p = check_p(self.p)
        delta = resolve_delta(self.delta, initial_fill(X, missing))
        self._check_center()
        loss = L2pLoss(p=2.0 * p, epsilon=delta)
        center_n_iter, n_iter, completed, stops = 0, 0, None, []
        for _ in range(CENTER_PASSES if self.center == "generalized" else 1):
            if self.center == "mean":
                mean = np.nanmean(X, axis=0)
            elif completed is None:
                located = solve_generalized_mean_missing(  # tol on M_p, as in memory
                    X, missing, loss, max_iter=self.max_iter, tol=self.tol * p
                )
                mean, center_n_iter = located.solution, center_n_iter + located.n_iter
                stops.append(located.stop_reason)
            else:
                located = solve_generalized_mean(
                    completed, p, delta, max_iter=self.max_iter, tol=self.tol
                )
                mean, center_n_iter = located.mean, center_n_iter + located.n_iter
                stops.append(located.stop_reason)
            problem = MissingPCAProblem(
                X, missing, self.n_components_, rng, center=False, offset=mean
            )
            if completed is not None:
                problem.X = completed
            callback = renumbered(self.callback, n_iter)  # numbered on across passes
            result = self._solve_pca(X, p, mean, delta, rng, problem=problem, callback=callback)
            n_iter += result.n_iter
            completed = problem.X
            if result.stop_reason == StopReason.CALLBACK:
                break
        self._warn_center_max_iter(stops)
        result = dataclasses.replace(result, n_iter=n_iter)
        result.info.update(delta=delta, center_n_iter=center_n_iter)
        return result

    @host_method()
    def generalized_mean_error(self, X) -> float:
        r"""Objective (9) on ``X``: :math:`(\frac1N \sum_i e_i^p)^{1/p}` (no :math:`\delta`).

        The generalized mean of the squared reconstruction errors about ``mean_``; with
        ``p = 1`` it is PCA's mean squared reconstruction error.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; the errors are those of :meth:`reconstruction_error`.

        Returns
        -------
        float
        """
        p = check_p(self.p)
        e = self.reconstruction_error(X) ** 2
        return float(np.mean(e**p) ** (1.0 / p))
