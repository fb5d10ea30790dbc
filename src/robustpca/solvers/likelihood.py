r"""The Gaussian model of a fitted subspace (probabilistic PCA) and its log-likelihood.

A fit with centre :math:`b`, orthonormal components :math:`U` (``k x d``), score centre
:math:`c`, score variances :math:`\lambda_1, \dots, \lambda_k` and noise variance
:math:`\sigma^2` is the Gaussian of probabilistic PCA (Tipping & Bishop 1999, eq. 6-8)

.. math::
    x \sim \mathcal N\bigl(b + U^\top c,\;
    C = U^\top \operatorname{diag}(\lambda) U + \sigma^2 (I - U^\top U)\bigr).

With the scores :math:`t = U (x - b)` and the orthogonal distance
:math:`OD = \lVert (I - U^\top U)(x - b)\rVert_2`, the squared Mahalanobis distance is
:math:`m^2 = \sum_j (t_j - c_j)^2 / \lambda_j + OD^2 / \sigma^2` and

.. math::
    \log p(x) = -\tfrac12 \Bigl(d \log 2\pi + \sum_j \log\lambda_j
    + (d - k) \log\sigma^2 + m^2\Bigr).

:func:`average_log_likelihood` averages it over rows, optionally with each row's term
bounded below by :meth:`SubspaceGaussian.floor` (the robust score of the estimators,
:mod:`robustpca.estimators._likelihood`), and :func:`noise_variance` estimates
:math:`\sigma^2` from training orthogonal distances, classically (Tipping & Bishop's
maximum likelihood, the mean of the discarded eigenvalues) or robustly (the median of
:math:`OD^2` over the median of :math:`\chi^2_{d-k}`).

References
----------
M. E. Tipping, C. M. Bishop, "Probabilistic principal component analysis", Journal of
the Royal Statistical Society B 61(3), 1999, eq. (6)-(8).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..robust_scale import variance_count, weighted_median
from .optimal_mean import variance_dof

__all__ = [
    "SubspaceGaussian",
    "average_log_likelihood",
    "background_variance",
    "background_variance_from_median",
    "noise_variance",
    "noise_variance_from_median",
    "noise_variance_from_sum",
    "subspace_gaussian",
]

#: The least variance of the model: a zero variance (a rank-deficient fit, constant
#: data) would give an infinite log-likelihood.
_TINY = float(np.finfo(np.float64).tiny)
#: The largest squared distance counted (an uncapped mean stays finite for any number of
#: rows even where a variance sits at its floor and a row lies off the model).
_MAX_SQUARED_DISTANCE = 1e250


@dataclass(frozen=True)
class SubspaceGaussian:
    """Probabilistic PCA model of a fitted subspace (module docstring).

    Attributes
    ----------
    center : ndarray of shape (n_components,)
        Centre :math:`c` of the scores.
    variances : ndarray of shape (n_components,)
        Variances :math:`\\lambda_j` of the scores (positive).
    noise_variance : float
        Variance :math:`\\sigma^2` of each of the ``n_features - n_components``
        orthogonal coordinates (positive; unused when there are none).
    n_features : int
        Dimension :math:`d` of the data.
    background_variance : float
        :math:`\\tau`, the variance per coordinate of an isotropic Gaussian about the
        centre fitted to the training rows (:func:`background_variance`), for
        :meth:`floor`; 0: the model's own ``tr(C) / d``.
    """

    center: np.ndarray
    variances: np.ndarray
    noise_variance: float
    n_features: int
    background_variance: float = 0.0

    @property
    def n_components(self) -> int:
        return int(self.center.shape[0])

    @property
    def noise_dims(self) -> int:
        """:math:`d - k`, the orthogonal coordinates (0 when the fit holds them all)."""
        return max(self.n_features - self.n_components, 0)

    def log_det(self) -> float:
        """:math:`\\log\\det C = \\sum_j \\log\\lambda_j + (d - k)\\log\\sigma^2`."""
        noise = self.noise_dims * np.log(self.noise_variance) if self.noise_dims else 0.0
        return float(np.sum(np.log(self.variances)) + noise)

    def squared_distances(self, scores: np.ndarray, od: np.ndarray) -> np.ndarray:
        """:math:`m^2` of each row, from its scores and orthogonal distance (at most
        ``1e250``: a row off a model of zero variance stays finite).

        Parameters
        ----------
        scores : ndarray of shape (n_samples, n_components)
            The rows' scores :math:`t = U (x - b)` (the centre :math:`c` not removed).
        od : ndarray of shape (n_samples,)
            The rows' orthogonal distances.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            z = (np.asarray(scores, dtype=np.float64) - self.center) / np.sqrt(self.variances)
            m2 = np.einsum("ij,ij->i", z, z)
            if self.noise_dims:
                m2 = m2 + np.asarray(od, dtype=np.float64) ** 2 / self.noise_variance
        return np.minimum(np.nan_to_num(m2, nan=_MAX_SQUARED_DISTANCE), _MAX_SQUARED_DISTANCE)

    def log_likelihood(self, scores: np.ndarray, od: np.ndarray) -> np.ndarray:
        """:math:`\\log p(x)` of each row (module docstring).

        Parameters
        ----------
        scores : ndarray of shape (n_samples, n_components)
            As in :meth:`squared_distances`.
        od : ndarray of shape (n_samples,)
            As in :meth:`squared_distances`.
        """
        return self._log_density(self.squared_distances(scores, od))

    def _log_density(self, m2: np.ndarray) -> np.ndarray:
        return -0.5 * (self.n_features * np.log(2.0 * np.pi) + self.log_det() + m2)

    def floor(self, quantile: float) -> float:
        r"""The least log-likelihood a row counts with: the log-density on the
        ``quantile`` contour of the isotropic background Gaussian
        :math:`\mathcal N(b, \tau I)`, and at most that on the model's own contour,

        .. math::
            \ell_0 = -\tfrac12\bigl(d \log 2\pi + \max(d \log\tau,\ \log\det C)
            + \chi^2_d(q)\bigr).

        Every row inside the model's ``quantile`` contour keeps its exact
        log-likelihood. :math:`\tau` comes from the training rows' distances to the
        centre, not from the model's variances, so the floor is (nearly) the same for
        fits of every rank on the same data and the rows at it (held-out outliers)
        cannot favour one: a floor at the model's own contour moves with
        :math:`\log\det C`, smallest for the most uneven spectrum, which favoured ranks
        that model noise directions.

        Parameters
        ----------
        quantile : float
            :math:`q`, in (0, 1).
        """
        d = self.n_features
        tau = self.background_variance
        if not tau > 0:
            tau = (float(np.sum(self.variances)) + self.noise_dims * self.noise_variance) / d
        log_det = max(d * np.log(max(tau, _TINY)), self.log_det())
        chi2 = float(stats.chi2.ppf(quantile, d))
        return float(-0.5 * (d * np.log(2.0 * np.pi) + log_det + chi2))


def background_variance(
    squared_norms: np.ndarray, n_features: int, sample_weight: np.ndarray | None = None
) -> float:
    r""":math:`\tau = \operatorname{med}_i \lVert x_i - b \rVert^2 / \chi^2_d(1/2)`: the
    variance of the isotropic Gaussian about the centre :math:`b` whose squared
    distances have the training rows' median (weighted median with frequency weights),
    a scale of the whole data that no minority of outlying rows carries away and that
    does not depend on the rank of the fit (0 without rows).

    Parameters
    ----------
    squared_norms : ndarray of shape (n_samples,)
        :math:`\lVert x_i - b \rVert^2` of the training rows (scores and ODs:
        :math:`\lVert t_i \rVert^2 + OD_i^2`).
    n_features : int
    sample_weight : ndarray of shape (n_samples,), optional

    Returns
    -------
    float
    """
    values = np.asarray(squared_norms, dtype=np.float64)
    if values.size == 0 or n_features < 1:
        return 0.0
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w is not None and not np.any(w > 0):
        return 0.0
    return background_variance_from_median(_weighted_median(values, w), n_features)


def background_variance_from_median(median: float, n_features: int) -> float:
    r""":math:`\tau` of :func:`background_variance` from the (weighted) median of the
    rows' squared distances to the centre, however that median was found (in memory,
    or by the counting passes of :mod:`robustpca.solvers.chunked_reference`).

    Parameters
    ----------
    median : float
        :math:`\operatorname{med}_i \lVert x_i - b \rVert^2`.
    n_features : int
        :math:`d` (0 is returned below 1).
    """
    if n_features < 1:
        return 0.0
    return float(median) / float(stats.chi2.ppf(0.5, n_features))


def subspace_gaussian(
    center: np.ndarray,
    scales: np.ndarray,
    noise_var: float,
    n_features: int,
    *,
    floor: float = 0.0,
    background: float = 0.0,
) -> SubspaceGaussian:
    """The model with score standard deviations ``scales``; every variance at least
    ``floor`` (and the smallest positive float), so that a zero scale (a component or
    an orthogonal part with no spread in the training data) gives a finite model.

    Parameters
    ----------
    center : ndarray of shape (n_components,)
    scales : ndarray of shape (n_components,)
        Standard deviations of the scores (square roots of :math:`\\lambda_j`).
    noise_var : float
        :math:`\\sigma^2` (:func:`noise_variance`).
    n_features : int
    floor : float, default=0.0
        The least variance (typically the rounding level of the data's squared scale).
    background : float, default=0.0
        :math:`\\tau` of :meth:`SubspaceGaussian.floor` (:func:`background_variance`).

    Returns
    -------
    SubspaceGaussian
    """
    least = max(float(floor), _TINY)
    center = np.asarray(center, dtype=np.float64)
    variances = np.maximum(np.asarray(scales, dtype=np.float64) ** 2, least)
    noise = max(float(noise_var), least)
    return SubspaceGaussian(center, variances, noise, int(n_features), float(background))


def noise_variance(
    od: np.ndarray,
    n_features: int,
    n_components: int,
    *,
    robust: bool,
    sample_weight: np.ndarray | None = None,
) -> float:
    r""":math:`\sigma^2` from the training orthogonal distances.

    Under the model :math:`OD^2 / \sigma^2 \sim \chi^2_{d-k}`. The classical estimate
    is Tipping & Bishop's maximum likelihood (eq. 8), the mean of the ``d - k``
    discarded eigenvalues: :math:`\sum_i w_i OD_i^2 / ((\sum_i w_i - 1)(d - k))`, with
    the ``n - 1`` denominator of the eigenvalues (scikit-learn's ``noise_variance_``
    where ``n_samples >= n_features``). The robust one is
    :math:`\operatorname{med}_i OD_i^2 / \chi^2_{d-k}(1/2)` (weighted median with
    weights), which a minority of outlying rows cannot carry away. 0 when ``k >= d``
    (no orthogonal coordinate) or no row is given.

    Parameters
    ----------
    od : ndarray of shape (n_samples,)
        Training orthogonal distances.
    n_features, n_components : int
    robust : bool
        The median rule (True) or the classical mean (False).
    sample_weight : ndarray of shape (n_samples,), optional
        Sample weights (frequencies where they are whole numbers).

    Returns
    -------
    float
    """
    dof = n_features - n_components
    od2 = np.asarray(od, dtype=np.float64) ** 2
    if dof <= 0 or od2.size == 0:
        return 0.0
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w is not None and not np.any(w > 0):
        return 0.0
    if not robust:
        total = float(od2.size if w is None else w.sum())
        sq = float(np.sum(od2) if w is None else w @ od2)
        count = None if w is None else variance_count(w)
        return noise_variance_from_sum(sq, total, n_features, n_components, count)
    return noise_variance_from_median(_weighted_median(od2, w), n_features, n_components)


def noise_variance_from_sum(
    sum_od2: float,
    total_weight: float,
    n_features: int,
    n_components: int,
    count: float | None = None,
) -> float:
    r"""The classical :math:`\sigma^2` of :func:`noise_variance` from the weighted sum
    of :math:`OD^2` and the weights' sum and count (0 when ``k >= d``).

    Parameters
    ----------
    sum_od2 : float
        :math:`\sum_i w_i OD_i^2`.
    total_weight : float
        :math:`\sum_i w_i`.
    n_features, n_components : int
        :math:`d` and :math:`k`.
    count : float or None, default=None
        The weights' :func:`~robustpca.robust_scale.variance_count`; None: whole weights.
    """
    dof = n_features - n_components
    if dof <= 0:
        return 0.0
    # the divisor of explained_variance_, so that sigma^2 is their mean beyond k
    divisor = variance_dof(total_weight, count) * dof
    return float(sum_od2) / divisor if divisor > 0 else 0.0


def noise_variance_from_median(median_od2: float, n_features: int, n_components: int) -> float:
    r"""The robust :math:`\sigma^2` of :func:`noise_variance` from the (weighted)
    median of :math:`OD^2`, however it was found (in memory, or by counting passes):
    :math:`\operatorname{med} OD^2 / \chi^2_{d-k}(1/2)` (0 when ``k >= d``).

    Parameters
    ----------
    median_od2 : float
        :math:`\operatorname{med} OD^2`.
    n_features, n_components : int
        :math:`d` and :math:`k`.
    """
    dof = n_features - n_components
    if dof <= 0:
        return 0.0
    return float(median_od2) / float(stats.chi2.ppf(0.5, dof))


def _weighted_median(values: np.ndarray, w: np.ndarray | None) -> float:
    """The median; with frequency weights, that of each value repeated ``w_i`` times
    (:func:`~robustpca.robust_scale.weighted_median`: unit weights give the median, as
    no weights do; ``"median"`` of
    :func:`~robustpca.solvers.chunked_reference.exact_statistics` on Dask)."""
    if w is None:
        return float(np.median(values))
    return float(weighted_median(np.asarray(values, dtype=np.float64), w))


def average_log_likelihood(
    model: SubspaceGaussian,
    scores: np.ndarray,
    od: np.ndarray,
    *,
    floor_quantile: float | None = None,
) -> float:
    r"""Mean over rows of :math:`\log p(x_i)`, each bounded below by
    :meth:`SubspaceGaussian.floor` at ``floor_quantile`` (None: no bound).

    Parameters
    ----------
    model : SubspaceGaussian
    scores : ndarray of shape (n_samples, n_components)
    od : ndarray of shape (n_samples,)
    floor_quantile : float in (0, 1) or None, default=None

    Returns
    -------
    float
    """
    ll = model.log_likelihood(scores, od)
    if floor_quantile is not None:
        ll = np.maximum(ll, model.floor(floor_quantile))
    return float(np.mean(ll))
