r"""``score``: the average log-likelihood of data under the Gaussian model of a fit, so that
``GridSearchCV`` and ``cross_val_score`` choose ``n_components`` with no scorer.

**The model.** Every linear fit (``mean_`` :math:`b`, orthonormal ``components_``
:math:`U`) is read as probabilistic PCA (Tipping & Bishop 1999):
:math:`x \sim \mathcal N(b + U^\top c,\; U^\top \operatorname{diag}(\lambda) U +
\sigma^2 (I - U^\top U))` (:mod:`robustpca.solvers.likelihood`). Its parameters are the
training statistics of the outlier diagnostics (:mod:`robustpca.diagnostics`, stored at
``fit``), so the model is as robust as the fit:

* :math:`c` and :math:`\sqrt{\lambda_j}` are the score centre and scales of the
  diagnostics: ``explained_variance_`` (consistent eigenvalues; :math:`c = 0`) for
  :class:`~robustpca.PCA` and the rrcov family, the median and MAD of the training scores
  of each component for the methods without consistent eigenvalues (the reweighting,
  convex, known-rank and 2-D methods) and for the rrcov configurations whose eigenvalues
  are not the data's variances (``SphericalPCA(scale_on="sphere")``, on the unit
  sphere's scale; ``ROBPCA(skew=True)``, a plain covariance of the h-subset), whose
  diagnostics keep rrcov's;
* :math:`\sigma^2` from the training orthogonal distances (:math:`OD^2/\sigma^2 \sim
  \chi^2_{d-k}`): their median over the median of :math:`\chi^2_{d-k}` for the robust
  fits, Tipping & Bishop's mean of the discarded eigenvalues for classical PCA.

**The aggregate.** A held-out outlying row has a log-likelihood without bound below, so
a plain mean over a fold with a few gross outliers is their mean: every rank then loses
to the one whose model is widest (the smallest ``k``). The robust fits therefore bound
each row's term below by :math:`\ell_0`, the log-density on the 97.5% contour (the
quantile of the diagnostics' cutoffs) of a background Gaussian :math:`\mathcal N(b,
\tau I)`, :math:`\tau` the median squared distance of the training rows to the centre
over the median of :math:`\chi^2_d`, and at most the log-density on the model's own
97.5% contour (:meth:`~robustpca.solvers.likelihood.SubspaceGaussian.floor`). Every row
inside that contour keeps its exact log-likelihood; a held-out outlier costs at most the
gap to :math:`\ell_0`, which the fits of every rank on the same data share, so the
outliers cannot favour one. Capping each row at the model's own contour instead
(:math:`m^2 \le \chi^2_d(0.975)`) makes the capped rows count
:math:`-\tfrac12 \log\det C`, smallest for the most uneven spectrum: the held-out
outliers could then favour a rank with an extra noise direction over the rank that the
held-out inliers alone choose. What separates the ranks is then what a likelihood should
weigh: a ``k`` too small leaves signal in the orthogonal part (a large :math:`\sigma^2`),
a ``k`` too large models training noise (variances fitted to one fold's noise
directions, which the held-out rows do not share). Classical :class:`~robustpca.PCA`
keeps the plain mean, which is scikit-learn's ``PCA.score`` where ``n_samples >=
n_features``: on wider data its :math:`\sigma^2` is Tipping & Bishop's, the discarded
variance over :math:`d - k` (the zero eigenvalues included), where scikit-learn's
divides by :math:`\min(n, d) - k`.

A Dask fit stores the same model: its two variances are order statistics (or, for
classical PCA, a weighted sum) that the counting passes of its training diagnostics
take alongside them (:mod:`robustpca._dask.reference`).

``score_samples`` is the outlier API's (minus the outlyingness in units of the
cutoffs, :mod:`robustpca.estimators._outlier_api`); the rows' own terms of the
likelihood come from ``mahalanobis`` (their squared distances :math:`m^2`, as in
scikit-learn's ``EmpiricalCovariance.mahalanobis``).
``KernelL21PCA`` has no ``score``: its distances live in a kernel embedding with no
dimension :math:`d` to normalise a density by.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._array_api import to_numpy
from .._observed import observed_counts
from .._validation import is_dask_collection
from ..diagnostics import DEFAULT_QUANTILE
from ..robust_scale import weighted_mad, weighted_median
from ..solvers.likelihood import (
    SubspaceGaussian,
    average_log_likelihood,
    background_variance,
    noise_variance,
    subspace_gaussian,
)
from ._outlier_api import _to_input_namespace

__all__ = ["LikelihoodScoreMixin"]


def _has_density(estimator) -> bool:
    """``available_if`` check: a linear model in the input space (not a kernel one)."""
    return bool(getattr(estimator, "_linear_model", True))


class LikelihoodScoreMixin:
    """``score(X)``: the (robust) average log-likelihood under the fit's Gaussian model."""

    # set by BaseEstimator's validation and OutlierDetectorMixin at fit
    n_features_in_: int
    _outlier_reference: Any
    _likelihood_reference: tuple[Any, SubspaceGaussian] | None

    def _set_likelihood_reference(self, scores, od, sample_weight=None, n_observed=None) -> None:
        """Store the Gaussian model of the fit (end of ``fit``, after
        ``_outlier_reference``; module docstring), from the training scores and ODs
        (NumPy) with the fit's frequency weights and, with missing entries, each row's
        observed coordinates (the rows fitted exactly, at most ``k`` of them, are left
        out as in the diagnostics)."""
        self._likelihood_reference = None
        reference = getattr(self, "_outlier_reference", None)
        if reference is None or not _has_density(self):
            return
        k = int(reference.score_center.shape[0])
        d = int(self.n_features_in_)
        od = np.asarray(od, dtype=np.float64)
        rows = np.ones(od.shape[0], dtype=bool)
        if n_observed is not None:
            rows &= np.asarray(n_observed) > k
        w = None
        if sample_weight is not None:
            w = np.broadcast_to(np.asarray(sample_weight, dtype=np.float64), od.shape)[rows]
        robust = reference.rule != "classical"
        sigma2 = noise_variance(od[rows], d, k, robust=robust, sample_weight=w)
        t = np.asarray(scores, dtype=np.float64).reshape(od.shape[0], -1)[rows]
        squared_norms = np.einsum("ij,ij->i", t, t) + od[rows] ** 2
        tau = background_variance(squared_norms, d, w) if robust else 0.0
        stats = None
        if self._likelihood_from_scores():
            centre = weighted_median(t, w) if t.shape[0] else np.zeros(k)
            stats = (centre, weighted_mad(t, w) if t.shape[0] else np.zeros(k))
        self._store_likelihood_model(sigma2, tau, stats)

    def _likelihood_from_scores(self) -> bool:
        """Whether the model's score centre and scales are the median and MAD of the
        training scores although the diagnostics use ``explained_variance_`` (eigenvalues
        on another scale than the data's; module docstring)."""
        return False

    def _store_likelihood_model(
        self, noise_var: float, background: float, score_stats: tuple | None = None
    ) -> None:
        r"""Store the Gaussian model of the fit from its two training variances,
        :math:`\sigma^2` and :math:`\tau` (``_set_likelihood_reference`` in memory;
        a Dask fit finds them by counting passes, :mod:`robustpca._dask.reference`),
        with the score centre and scales of ``_outlier_reference``, or ``score_stats``
        (centre, scale) where :meth:`_likelihood_from_scores`."""
        self._likelihood_reference = None
        reference = getattr(self, "_outlier_reference", None)
        if reference is None or not _has_density(self):
            return
        d = int(self.n_features_in_)
        # rounding level of a variance: od_floor is sqrt(eps) times the median norm of the
        # centred training rows, spread over the d coordinates
        floor = reference.od_floor**2 / max(d, 1)
        centre, scale = reference.score_center, reference.score_scale
        if score_stats is not None:
            centre, scale = (np.asarray(a, dtype=np.float64) for a in score_stats)
        model = subspace_gaussian(centre, scale, noise_var, d, floor=floor, background=background)
        self._likelihood_reference = (reference, model)
        self.noise_variance_ = float(model.noise_variance) if model.noise_dims else 0.0

    def _likelihood_model(self) -> SubspaceGaussian:
        """The stored model, checked to belong to the current fit."""
        check_is_fitted(self)
        stored = getattr(self, "_likelihood_reference", None)
        reference = getattr(self, "_outlier_reference", None)
        if stored is None or reference is None or stored[0] is not reference:
            raise ValueError(
                f"This {type(self).__name__} has no training statistics for its likelihood "
                "(its fit did not store the outlier diagnostics' reference): refit it to "
                "use score."
            )
        return stored[1]

    @available_if(_has_density)
    def score(self, X, y=None) -> float:
        r"""Average log-likelihood of ``X`` under the Gaussian model of the fit.

        The model is probabilistic PCA (Tipping & Bishop 1999) with the fit's centre and
        components and robust variances (module :mod:`robustpca.estimators._likelihood`):

        .. math::
            \operatorname{score}(X) = \frac1n \sum_{i=1}^n
            \max\bigl(\log p(x_i),\ \ell_0\bigr), \qquad
            \log p(x) = -\tfrac12 \Bigl(d \log 2\pi + \sum_{j=1}^k \log\lambda_j
            + (d - k)\log\sigma^2 + m^2(x)\Bigr),

        .. math::
            m^2(x) = \sum_{j=1}^k \frac{(t_j - c_j)^2}{\lambda_j} + \frac{OD^2}{\sigma^2},
            \qquad \ell_0 = -\tfrac12 \bigl(d \log 2\pi + \max(d \log\tau,\ \log\det C)
            + \chi^2_d(0.975)\bigr),

        with :math:`t` = ``transform(x)``, :math:`OD` = ``reconstruction_error(x)``,
        :math:`c_j, \lambda_j` the centre and variance of the training scores of
        component ``j`` (``explained_variance_`` where the estimator has consistent
        eigenvalues, else their median and squared MAD), :math:`\sigma^2` the median
        training :math:`OD^2` over the median of :math:`\chi^2_{d-k}`, :math:`\log\det
        C = \sum_j \log\lambda_j + (d - k)\log\sigma^2` and :math:`\tau` the median
        squared distance of the training rows to ``mean_`` over the median of
        :math:`\chi^2_d`. The floor :math:`\ell_0` (the 97.5% contour of the background
        Gaussian :math:`\mathcal N(b, \tau I)`, at most the model's own) bounds what a
        held-out outlier can cost, equally for every rank, while every row inside the
        model's 97.5% contour keeps its exact log-likelihood, so that cross-validation
        (``GridSearchCV`` over ``n_components``) chooses the rank of the inliers.
        :class:`~robustpca.PCA` uses no floor and the classical :math:`\sigma^2` (the
        mean of the discarded eigenvalues): its score is scikit-learn's ``PCA.score``
        where ``n_samples >= n_features``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (NaN marks a missing entry where the estimator supports them: the
            scores and corrected OD of the observed coordinates enter :math:`m^2`; a
            row with at most ``k`` observed coordinates is fitted exactly, carries no
            evidence, and is left out of the average as at fit, unless every row is).
        y : Ignored
            Present for scikit-learn API consistency.

        Returns
        -------
        float
            Higher is better; a log-density, so comparable only between fits on data of
            the same units and dimension.

        References
        ----------
        M. E. Tipping, C. M. Bishop, "Probabilistic principal component analysis",
        Journal of the Royal Statistical Society B 61(3), 1999, eq. (6)-(8).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.model_selection import GridSearchCV
        >>> from robustpca import ROBPCA
        >>> rng = np.random.default_rng(0)
        >>> W = np.linalg.qr(rng.normal(size=(10, 2)))[0]
        >>> X = rng.normal(size=(120, 2)) * [3.0, 2.0] @ W.T + 0.1 * rng.normal(size=(120, 10))
        >>> X[:12] = 10 * rng.normal(size=(12, 10))              # 10% gross outliers
        >>> search = GridSearchCV(ROBPCA(random_state=0), {"n_components": [1, 2, 3, 4]}, cv=3)
        >>> search.fit(X).best_params_
        {'n_components': 2}
        """
        model = self._likelihood_model()
        estimator: Any = self  # BaseSubspaceEstimator's: one validation of X for both
        scores, od = estimator._transform_and_distances(X)
        counts = observed_counts(self, X)
        if is_dask_collection(scores):  # lazy transforms of a dask X: one pass for both
            import dask

            scores, od, counts = dask.compute(scores, od, counts)
        od = np.asarray(to_numpy(od), dtype=np.float64)
        scores = np.asarray(to_numpy(scores), dtype=np.float64).reshape(od.shape[0], -1)
        if counts is not None:  # rows fitted exactly (at most k observed): no evidence
            informative = np.asarray(counts) > scores.shape[1]
            if informative.any():  # left out, as at fit, unless no row is left
                scores, od = scores[informative], od[informative]
        robust = self._outlier_reference.rule != "classical"
        floor = DEFAULT_QUANTILE if robust else None
        return average_log_likelihood(model, scores, od, floor_quantile=floor)

    @available_if(_has_density)
    def mahalanobis(self, X):
        r"""Squared Mahalanobis distances of ``X`` under the Gaussian model of the fit.

        :math:`m^2 = \sum_j (t_j - c_j)^2 / \lambda_j + OD^2 / \sigma^2`, the model of
        :meth:`score` (:math:`\log p(x) = -\tfrac12(d \log 2\pi + \log\det C + m^2)`),
        as scikit-learn's ``EmpiricalCovariance.mahalanobis`` gives them for a full
        covariance. Unlike the outlyingness of ``decision_function`` (the larger of the
        score and orthogonal distances, each in units of its own cutoff), one model
        weighs the two distances (``docs/outlier-detection.md`` measures ranking rows
        by it as an outlier detector).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (NaN marks a missing entry where the estimator supports them; a
            dask array gives a lazy result).

        Returns
        -------
        ndarray of shape (n_samples,)
            :math:`m^2` of each row (at most ``1e250``), float64 also for a float32 fit
            (the model of :meth:`score`); an array-API ``X`` gets them in its namespace,
            on its device.

        References
        ----------
        M. E. Tipping, C. M. Bishop, "Probabilistic principal component analysis",
        Journal of the Royal Statistical Society B 61(3), 1999, eq. (6)-(8).
        """
        model = self._likelihood_model()
        estimator: Any = self  # BaseSubspaceEstimator's: one validation of X for both
        scores, od = estimator._transform_and_distances(X)
        if is_dask_collection(scores):  # lazy, chunked like the rows of X
            import dask.array as da

            scores = scores.rechunk({1: -1})
            return da.map_blocks(
                _squared_distances, scores, od[:, None], model=model, drop_axis=1,
                dtype=np.float64, meta=np.empty(0),
            )  # fmt: skip
        od = np.asarray(to_numpy(od), dtype=np.float64)
        scores = np.asarray(to_numpy(scores), dtype=np.float64).reshape(od.shape[0], -1)
        # an array-API X gets them in its namespace, as score_samples gives its scores
        return _to_input_namespace(model.squared_distances(scores, od), X)

    @available_if(_has_density)
    def get_covariance(self):
        r"""Covariance of the Gaussian model of the fit (that of :meth:`score`).

        :math:`C = U^\top \operatorname{diag}(\lambda) U + \sigma^2 (I - U^\top U)`,
        :math:`U` = ``components_``, :math:`\lambda` the variances of the scores and
        :math:`\sigma^2` = ``noise_variance_``, as scikit-learn's
        ``PCA.get_covariance`` (equal to it for :class:`~robustpca.PCA` where
        ``n_samples >= n_features``; on wider data its :math:`\sigma^2` divides by
        :math:`d - k`, scikit-learn's by :math:`\min(n, d) - k`). Its centre is
        ``mean_`` plus the scores' centre on the components (0 with consistent
        eigenvalues).

        Returns
        -------
        ndarray of shape (n_features, n_features)
            In the namespace and on the device of ``components_``; float64 also for a
            float32 fit (the model of :meth:`score`).
        """
        U, model = self._density_parts()
        C = (U.T * model.variances) @ U
        if model.noise_dims:
            C += model.noise_variance * (np.eye(U.shape[1]) - U.T @ U)
        return _to_input_namespace(C, self.components_)

    @available_if(_has_density)
    def get_precision(self):
        r"""Inverse of :meth:`get_covariance`, by the components without a ``d x d``
        inversion: :math:`U^\top \operatorname{diag}(1/\lambda) U +
        (I - U^\top U) / \sigma^2` (every variance of the model is positive).

        Returns
        -------
        ndarray of shape (n_features, n_features)
            In the namespace and on the device of ``components_``; float64 also for a
            float32 fit (the model of :meth:`score`).
        """
        U, model = self._density_parts()
        P = (U.T / model.variances) @ U
        if model.noise_dims:
            P += (np.eye(U.shape[1]) - U.T @ U) / model.noise_variance
        return _to_input_namespace(P, self.components_)

    def _density_parts(self) -> tuple[np.ndarray, SubspaceGaussian]:
        """The components (host, float64) and the stored model of :meth:`score`."""
        model = self._likelihood_model()
        estimator: Any = self
        return np.asarray(to_numpy(estimator.components_), dtype=np.float64), model


def _squared_distances(scores, od, *, model: SubspaceGaussian) -> np.ndarray:
    return model.squared_distances(scores.reshape(od.shape[0], -1), od[:, 0])
