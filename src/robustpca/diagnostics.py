r"""Outlier diagnostics for a fitted subspace: score and orthogonal distances with cutoffs.

In the manner of R's rrcov (``PcaHubert``, ``PcaGrid``; Hubert, Rousseeuw & Vanden
Branden 2005, sec. 3.5), each sample gets two distances to a fitted ``k``-dimensional
affine subspace with centre :math:`b` and basis :math:`U`:

* the **score distance** :math:`SD_i = \sqrt{\sum_{j=1}^k t_{ij}^2 / l_j}` with the
  scores :math:`t_i = U^\top (x_i - b)` and :math:`l_j` the squared robust scale (MAD) of
  score ``j``: how far the sample lies *within* the subspace. Cutoff
  :math:`\sqrt{\chi^2_{k, q}}`.
* the **orthogonal distance** :math:`OD_i = \lVert (I - UU^\top)(x_i - b) \rVert_2`
  (the estimators' ``reconstruction_error``): how far it lies *from* the subspace.
  Cutoff by the Wilson-Hilferty approximation: :math:`OD^{2/3}` is approximately normal,
  so the cutoff is :math:`(\operatorname{med}(OD^{2/3}) + \operatorname{MAD}(OD^{2/3})
  z_q)^{3/2}`.

A sample beyond the OD cutoff is an orthogonal outlier; beyond the SD cutoff only, a good
leverage point; beyond both, a bad leverage point. :func:`plot_outlier_map` draws the
outlier map (SD against OD with both cutoffs).

References
----------
M. Hubert, P. J. Rousseeuw, K. Vanden Branden, "ROBPCA: a new approach to robust
principal component analysis", Technometrics 47(1), 2005, sec. 3.5 and Fig. 2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from sklearn.utils.validation import check_is_fitted

__all__ = ["OutlierDiagnostics", "outlier_diagnostics", "plot_outlier_map"]

#: Consistency factor of the MAD for the normal distribution.
_MAD_NORMAL = 1.482602218505602


def _mad(x: np.ndarray, axis: int = 0) -> np.ndarray:
    med = np.median(x, axis=axis, keepdims=True)
    return _MAD_NORMAL * np.median(np.abs(x - med), axis=axis)


@dataclass(frozen=True)
class OutlierDiagnostics:
    """Distances, cutoffs and flags of :func:`outlier_diagnostics`.

    Attributes
    ----------
    score_distances, orthogonal_distances : ndarray of shape (n_samples,)
    score_cutoff, orthogonal_cutoff : float
    score_scales : ndarray of shape (n_components,)
        The robust standard deviations :math:`\\sqrt{l_j}` of the scores.
    quantile : float
    """

    score_distances: np.ndarray
    orthogonal_distances: np.ndarray
    score_cutoff: float
    orthogonal_cutoff: float
    score_scales: np.ndarray
    quantile: float

    @property
    def score_outliers(self) -> np.ndarray:
        """Samples beyond the score-distance cutoff (leverage points)."""
        return self.score_distances > self.score_cutoff

    @property
    def orthogonal_outliers(self) -> np.ndarray:
        """Samples beyond the orthogonal-distance cutoff (off the subspace)."""
        return self.orthogonal_distances > self.orthogonal_cutoff

    @property
    def outliers(self) -> np.ndarray:
        """Samples beyond either cutoff."""
        return self.score_outliers | self.orthogonal_outliers


def outlier_diagnostics(model, X, *, quantile: float = 0.975, reference=None) -> OutlierDiagnostics:
    """Score and orthogonal distances of ``X`` to a fitted subspace, with cutoffs.

    Parameters
    ----------
    model : fitted estimator
        Any robustpca estimator with ``transform`` and ``reconstruction_error``
        (``components_`` with orthonormal rows and ``mean_``).
    X : array-like of shape (n_samples, n_features)
        Samples to diagnose.
    quantile : float in (0, 1), default=0.975
        Quantile of the cutoffs (rrcov's default).
    reference : array-like of shape (m, n_features), optional
        Data on which the score scales and the orthogonal cutoff are estimated; ``X``
        itself by default (usually the training data).

    Returns
    -------
    OutlierDiagnostics

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import OptimalMeanPCA
    >>> from robustpca.diagnostics import outlier_diagnostics
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)) @ rng.normal(size=(2, 8)) + 0.1 * rng.normal(size=(300, 8))
    >>> X[:10] += 5 * rng.normal(size=(10, 8))           # orthogonal outliers
    >>> diag = outlier_diagnostics(OptimalMeanPCA(2).fit(X), X)
    >>> bool(diag.orthogonal_outliers[:10].all())
    True
    """
    if isinstance(quantile, bool) or not (0 < float(quantile) < 1):
        raise ValueError(f"quantile={quantile!r} must lie in (0, 1).")
    check_is_fitted(model)
    ref = X if reference is None else reference
    scores_ref = np.asarray(model.transform(ref))
    scales = _mad(scores_ref, axis=0)
    positive = scales > 0
    scales = np.where(positive, scales, np.std(scores_ref, axis=0))
    scales = np.where(scales > 0, scales, 1.0)
    k = scores_ref.shape[1]

    scores = np.asarray(model.transform(X))
    sd = np.sqrt(np.sum((scores / scales) ** 2, axis=1))
    od = np.asarray(model.reconstruction_error(X))
    od_ref = od if reference is None else np.asarray(model.reconstruction_error(ref))

    z = stats.norm.ppf(quantile)
    od23 = od_ref ** (2.0 / 3.0)
    od_cut = float(max(np.median(od23) + _mad(od23) * z, 0.0) ** 1.5)
    sd_cut = float(np.sqrt(stats.chi2.ppf(quantile, k)))
    return OutlierDiagnostics(sd, od, sd_cut, od_cut, scales, float(quantile))


def plot_outlier_map(diagnostics: OutlierDiagnostics, *, ax=None, labels=None):
    """The outlier map: score distance against orthogonal distance, with the cutoffs.

    Parameters
    ----------
    diagnostics : OutlierDiagnostics
    ax : matplotlib Axes, optional
        Drawn on a new figure when omitted.
    labels : sequence of str, optional
        Labels written next to the flagged samples.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(5, 4)).add_subplot()
    d = diagnostics
    flagged = d.outliers
    ax.scatter(
        d.score_distances[~flagged],
        d.orthogonal_distances[~flagged],
        s=12,
        color="0.4",
        label="regular",
    )
    ax.scatter(
        d.score_distances[flagged],
        d.orthogonal_distances[flagged],
        s=16,
        color="tab:red",
        label="flagged",
    )
    ax.axvline(d.score_cutoff, color="tab:blue", linestyle="--", linewidth=1)
    ax.axhline(d.orthogonal_cutoff, color="tab:blue", linestyle="--", linewidth=1)
    if labels is not None:
        for i in np.flatnonzero(flagged):
            ax.annotate(
                str(labels[i]), (d.score_distances[i], d.orthogonal_distances[i]), fontsize=7
            )
    ax.set_xlabel("score distance")
    ax.set_ylabel("orthogonal distance")
    ax.set_title(f"Outlier map (cutoffs at the {100 * d.quantile:g}% quantile)")
    ax.legend(loc="upper right", fontsize=8)
    return ax
