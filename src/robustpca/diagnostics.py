r"""Outlier diagnostics for a fitted subspace: score and orthogonal distances with cutoffs.

Defined as R's rrcov defines them for every robust PCA (its ``.distances`` and
``.crit.od``; Hubert, Rousseeuw & Vanden Branden 2005, sec. 3.5), so that one function
serves every estimator and the flags cannot drift between methods. A sample with scores
:math:`t_i = U^\top (x_i - b)` (``transform``) in a ``k``-dimensional fit gets

* the **score distance** :math:`SD_i = \sqrt{\sum_{j=1}^k (t_{ij} - c_j)^2 / s_j^2}`,
  how far it lies *within* the subspace; cutoff :math:`\sqrt{\chi^2_{k, q}}`;
* the **orthogonal distance** :math:`OD_i = \lVert (I - UU^\top)(x_i - b) \rVert_2`
  (``reconstruction_error``), how far it lies *from* the subspace. :math:`OD^{2/3}` is
  approximately normal (Wilson-Hilferty), so the cutoff is
  :math:`(\hat\mu + \hat\sigma z_q)^{3/2}` with a location and scale
  :math:`\hat\mu, \hat\sigma` of the training :math:`OD^{2/3}`.

The centre :math:`c`, the scales :math:`s` and the OD rule depend on the estimator:

``"classical"``, ``"robust"``, ``"skew"``
    For estimators with consistent eigenvalues (:class:`~robustpca.PCA` and the rrcov
    estimators, which set ``_od_cutoff_rule``), rrcov's definitions exactly:
    :math:`c = 0` (the scores are centred by the fit's centre),
    :math:`s_j^2` = ``explained_variance_``; the OD location and scale are the
    mean and standard deviation for classical PCA, the median and MAD for robust fits;
    for skew-adjusted ROBPCA the cutoff is the largest OD below
    :math:`Q_3 + 1.5\, e^{3\,MC}\,IQR` (the adjusted boxplot; ``MC`` the medcouple,
    :func:`~robustpca.robust_scale.medcouple`), and the score distance is the
    estimator's adjusted outlyingness (``_skew_score_distances``) with the same cutoff
    rule, where the estimator provides it.
``"scores"``
    For every other estimator (the founding-paper methods have no consistent
    eigenvalues), :math:`c_j` the median and :math:`s_j` the MAD (times 1.4826) of the
    training scores of component ``j`` (the mean absolute deviation times
    :math:`\sqrt{\pi/2}` where the MAD is zero; a component with neither is left out, as
    rrcov leaves out zero eigenvalues); median/MAD OD cutoff. Centring matters: RPCA-OM's
    mean is only identified orthogonally to the subspace, so its raw scores can all sit
    far from zero. The SD cutoff is the larger of :math:`\sqrt{\chi^2_{k, q}}` and the
    OD's rule applied to the training SDs, :math:`(\hat\mu + \hat\sigma z_q)^{3/2}` with
    the median and MAD of :math:`SD^{2/3}` (``sd_location``, ``sd_scale``): for
    Gaussian scores :math:`SD^2` is :math:`\chi^2_k` and the two agree, but the
    per-component MADs miss the joint spread of heavy-tailed or dependent scores, where
    :math:`\chi^2_{k, q}` alone flagged a third of the inliers of real tables
    (``docs/design-notes/outlier-cutoffs.md``).

There is no OD cutoff (``orthogonal_cutoff = 0``) when the fit holds every direction
of the data (all training ODs are zero up to rounding: ``k`` equals the rank), as in
rrcov's ``PcaHubert`` and ``PcaClassic`` (its other functions count ``p`` directions and
take a cutoff of the rounding, which flags rows on rounding). No training row is then
flagged by OD, but a new row off the training rows' span (``k < p``: its OD beyond the
rounding of their largest norm) is, with its OD in units of that rounding as
outlyingness; the score distance then counts a component of zero scale in units of the
rounding level, so a row off it is far out too.

A sample beyond the OD cutoff is an orthogonal outlier; beyond the SD cutoff only, a
good leverage point; beyond both, a bad leverage point. :func:`plot_outlier_map` draws
the outlier map.

**Missing entries.** For the estimators that accept NaN, a row with gaps gets the
least-squares scores of its observed coordinates and the OD of its observed
coordinates times :math:`\sqrt{(p - k) / (p_O - k)}` (``p_O`` of ``p`` coordinates
observed; :func:`robustpca.solvers.missing.od_correction`): a ``k``-score fit leaves
``p_O - k`` residual degrees of freedom, so this puts the OD on the scale of a complete
row's. A row with ``p_O <= k`` observed coordinates is fitted exactly (OD 0, which
carries no information): the training rows fitted exactly are left out of the OD
location and scale, which they would drag to 0, and of the score statistics where
``p_O < k`` (:func:`diagnostic_reference`'s ``n_observed``).

The reference statistics (``c``, ``s``, the OD location and scale) come from the
training data: every estimator stores them at fit (``_outlier_reference``), so that
diagnostics, ``predict`` and ``decision_function`` on new data use the training cutoffs,
as rrcov's do.

References
----------
M. Hubert, P. J. Rousseeuw, K. Vanden Branden, "ROBPCA: a new approach to robust
principal component analysis", Technometrics 47(1), 2005, sec. 3.5 and Fig. 2.
M. Hubert, P. J. Rousseeuw, T. Verdonck, "Robust PCA for skewed data and its outlier
map", Computational Statistics & Data Analysis 53(6), 2009, sec. 3.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import stats
from sklearn.utils.validation import check_is_fitted

from ._distance_rounding import rounding_levels, score_rounding, span_od
from ._observed import observed_counts
from ._validation import check_sample_weight, is_dask_collection
from .plotting import plot_outlier_map  # drawn there, listed here as in earlier releases
from .robust_scale import od_location_scale, scores_scale, weighted_mad, weighted_median
from .robust_scale import skewed_cutoff as _skew_cutoff

__all__ = [
    "DEFAULT_QUANTILE",
    "DiagnosticReference",
    "OutlierDiagnostics",
    "diagnostic_reference",
    "observed_counts",
    "outlier_diagnostics",
    "plot_outlier_map",
]

#: rrcov's ``crit.pca.distances``: the quantile of both cutoffs by default.
DEFAULT_QUANTILE = 0.975
#: rrcov's rules, for estimators with consistent eigenvalues (``_od_cutoff_rule``).
RRCOV_RULES = ("classical", "robust", "skew")
#: A distance within this relative rounding of its cutoff is at the cutoff, so regular:
#: the skew rule's cutoffs are training distances, which another route may recompute an
#: ulp above (skew ROBPCA on octane at k = 1 flagged sample 23, whose OD is the cutoff).
_AT_CUTOFF = 1.0 + 8.0 * float(np.finfo(np.float64).eps)
_LARGEST = float(np.finfo(np.float64).max)  # the largest outlyingness (finite scores)


@dataclass(frozen=True)
class DiagnosticReference:
    """Reference statistics of the diagnostics, estimated on the training data.

    Attributes
    ----------
    rule : {"classical", "robust", "skew", "scores"}
        How they were estimated (module docstring).
    score_center, score_scale : ndarray of shape (n_components,)
        :math:`c` and :math:`s` of the score distance (``score_scale = 0``: left out).
    od_location, od_scale : float
        Location and scale of the training :math:`OD^{2/3}` (rules other than "skew").
    od_skew_cutoff, sd_skew_cutoff : float
        The adjusted-boxplot cutoffs of the "skew" rule (0 otherwise; ``sd_skew_cutoff``
        is 0 also when the estimator has no adjusted outlyingness).
    od_cutoff_applies : bool
        False when the training ODs are all zero (``k`` equals the rank): no OD cutoff.
    od_floor : float
        The OD below which a distance is zero up to rounding (``ZERO_OD`` times the
        median training norm, or the centre's norm where most rows sit at the centre),
        and the least OD cutoff: where more than half the
        training samples lie on the subspace exactly, a cutoff taken of their ODs would
        flag samples on the subspace by their rounding.
    sd_location, sd_scale : float
        Median and MAD of the training :math:`SD^{2/3}` ("scores" rule; 0 otherwise),
        the empirical score-distance cutoff.
    span_od : float
        With no OD cutoff and ``k < p``, the OD beyond which a row lies off the span of
        the training rows (the rounding of their largest norm; inf otherwise).
    score_rounding : ndarray of shape (n_components,), optional
        The rounding of the training scores on the components of zero scale: their
        largest deviation from the centre, at least ``od_floor`` (None: ``od_floor``).
    """

    rule: str
    score_center: np.ndarray
    score_scale: np.ndarray
    od_location: float
    od_scale: float
    od_skew_cutoff: float
    sd_skew_cutoff: float
    od_cutoff_applies: bool
    od_floor: float = 0.0
    sd_location: float = 0.0
    sd_scale: float = 0.0
    span_od: float = np.inf
    score_rounding: np.ndarray | None = None

    def score_distances(self, scores: np.ndarray) -> np.ndarray:
        """:math:`SD` of the scores over the components of nonzero scale, as rrcov
        leaves out zero eigenvalues. Where the training rows lie in the fit exactly (no
        OD cutoff), a component of zero scale counts too: a deviation within the
        training rows' rounding on it (``score_rounding``) is zero, as theirs are, and
        one beyond it counts in its units, so a row off the component is far out. Each
        row's standardised scores are divided by their largest before they are squared,
        which a gross outlier's could overflow.

        Parameters
        ----------
        scores : ndarray of shape (n_samples, n_components)
            The rows' scores (``transform``).

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scale = self.score_scale
        deviation = np.abs(scores - self.score_center)
        if not (np.all(scale > 0) or self.od_cutoff_applies):
            unit = self.score_rounding
            unit = np.full(scale.shape, self.od_floor) if unit is None else unit
            zero = scale <= 0
            deviation = np.where(zero & (deviation <= unit), 0.0, deviation)
            scale = np.where(zero, unit, scale)
        keep = scale > 0
        z = deviation[:, keep] / scale[keep]
        if z.shape[1] == 0:
            return np.zeros(z.shape[0])
        top = np.max(z, axis=1)
        unit = np.where((top > 0) & np.isfinite(top), top, 1.0)[:, None]
        return top * np.sqrt(np.sum((z / unit) ** 2, axis=1))  # inf stays inf

    def score_cutoff(self, quantile: float) -> float:
        r"""The SD cutoff: the adjusted boxplot's for a skew fit, else
        :math:`\sqrt{\chi^2_{k, q}}`, or the OD rule applied to the training SDs where it
        is larger (the "scores" rule; module docstring).

        Parameters
        ----------
        quantile : float
            The quantile ``q`` of the cutoff, in (0, 1).

        Returns
        -------
        float
        """
        if self.sd_skew_cutoff > 0:
            return self.sd_skew_cutoff
        chi2 = float(np.sqrt(stats.chi2.ppf(quantile, self.score_center.shape[0])))
        empirical = self.sd_location + self.sd_scale * stats.norm.ppf(quantile)
        return max(chi2, float(empirical**1.5) if empirical > 0 else 0.0)

    def orthogonal_cutoff(self, quantile: float) -> float:
        r"""The OD cutoff :math:`(\hat\mu + \hat\sigma z_q)^{3/2}` (the adjusted boxplot's
        for a skew fit), never below ``od_floor``; 0 where there is no OD cutoff.

        Parameters
        ----------
        quantile : float
            The quantile ``q`` of the cutoff, in (0, 1).

        Returns
        -------
        float
        """
        if not self.od_cutoff_applies:
            return 0.0
        if self.rule == "skew":
            return max(self.od_skew_cutoff, self.od_floor)
        value = self.od_location + self.od_scale * stats.norm.ppf(quantile)
        return max(float(value**1.5) if value > 0 else 0.0, self.od_floor)

    def diagnostics(self, sd, od, quantile: float, row_labels=None) -> OutlierDiagnostics:
        """The :class:`OutlierDiagnostics` of rows under this reference.

        Parameters
        ----------
        sd, od : ndarray of shape (n_samples,)
            The rows' score and orthogonal distances.
        quantile : float
            The quantile of the cutoffs, in (0, 1).
        row_labels : sequence of str, optional
            Labels of the rows, for the plots.

        Returns
        -------
        OutlierDiagnostics
        """
        return OutlierDiagnostics(
            sd,
            od,
            self.score_cutoff(quantile),
            self.orthogonal_cutoff(quantile),
            self.score_scale,
            float(quantile),
            self.score_center,
            self.rule,
            row_labels,
            self.span_od,
            (self.od_location, self.od_scale),
            (self.sd_location, self.sd_scale),
        )


def diagnostic_reference(
    model,
    scores: np.ndarray,
    od: np.ndarray,
    skew_distances: np.ndarray | None = None,
    sample_weight: np.ndarray | None = None,
    *,
    n_observed: np.ndarray | None = None,
) -> DiagnosticReference:
    """The reference statistics from training scores and ODs (module docstring).

    Parameters
    ----------
    model : fitted estimator
        Its ``_od_cutoff_rule`` and ``explained_variance_`` choose the rule.
    scores : ndarray of shape (n_samples, n_components)
        ``model.transform`` of the training data.
    od : ndarray of shape (n_samples,)
        ``model.reconstruction_error`` of the training data.
    skew_distances : ndarray of shape (n_samples,), optional
        The adjusted outlyingness of the training data ("skew" rule).
    sample_weight : ndarray of shape (n_samples,), optional
        Frequency weights of the training samples (:class:`~robustpca.PCA`): the
        statistics equal those of the data with each row repeated ``w_i`` times
        (ignored by the "skew" rule).
    n_observed : ndarray of shape (n_samples,), optional
        The observed coordinates of each training row (:func:`observed_counts`; None:
        every row complete). A row with at most ``k`` is left out of the OD statistics,
        one with fewer than ``k`` of the score statistics too (module docstring,
        "Missing entries"). With no row left for the OD statistics there is no OD cutoff.

    Returns
    -------
    DiagnosticReference
    """
    scores = np.asarray(scores, dtype=np.float64)
    od = np.asarray(od, dtype=np.float64)
    n_rows = od.shape[0]
    od_rows, score_rows = _reference_rows(scores.shape[1], n_rows, n_observed)
    if skew_distances is not None:
        skew_distances = np.asarray(skew_distances, dtype=np.float64)[score_rows]
    w = w_od = None
    if sample_weight is not None:
        w = check_sample_weight(sample_weight, n_rows)  # the caller's, checked by name
        od_rows &= w > 0  # a zero weight removes a row
        score_rows &= w > 0
        w, w_od = w[score_rows], w[od_rows]
    scores_od, od = (scores, od) if od_rows.all() else (scores[od_rows], od[od_rows])
    norms = np.sqrt(np.einsum("ij,ij->i", scores_od, scores_od) + od**2)
    if not score_rows.all():
        scores = scores[score_rows]
    rule = getattr(model, "_od_cutoff_rule", None)
    eigenvalues = getattr(model, "explained_variance_", None)
    if rule in RRCOV_RULES and eigenvalues is not None:
        centre = np.zeros(scores.shape[1])
        eigenvalues = np.asarray(_as_host(eigenvalues), dtype=np.float64)
        scale = np.sqrt(np.clip(eigenvalues, 0.0, None))
    else:
        rule = "scores"
        centre = weighted_median(scores, w)
        scale = scores_scale(scores, centre, w)
    largest = max(float(norms.max()), 1e-300) if norms.size else 0.0
    typical = float(weighted_median(norms, w_od)) if norms.size else 0.0  # as Dask's
    levels = rounding_levels(model, typical, largest)
    # a scale the fit does not resolve (more components than the data's rank) is zero,
    # left out as rrcov leaves out zero eigenvalues (else the flags are rounding)
    scale = np.where(scale > levels.scale, scale, 0.0)
    floor = levels.floor
    applies = bool(od.size) and bool(od.max() > levels.spanned)  # ODs not all rounding
    span = span_od(model, scores.shape[1], bool(od.size) and not applies, levels)
    location, spread = od_location_scale(od ** (2.0 / 3.0), w_od, rule) if od.size else (0.0, 0.0)
    rows, sample = getattr(model, "_medcouple_rows", None), None  # a skew fit's, if sampled
    if rule == "skew" and rows is not None and n_rows > rows[-1]:  # (the training rows)
        sample = np.isin(np.arange(n_rows), rows)
    od_skew = sd_skew = 0.0
    if rule == "skew" and applies:
        od_skew = _skew_cutoff(od, None if sample is None else sample[od_rows])
    if rule == "skew" and skew_distances is not None:
        ao = np.asarray(skew_distances, dtype=np.float64)
        sd_skew = _skew_cutoff(ao, None if sample is None else sample[score_rows])
    reference = DiagnosticReference(
        rule, centre, scale, location, spread, od_skew, sd_skew, applies, floor, span_od=span
    )
    if scores.shape[0]:
        # max |score - centre| per column, without a (n, k) temporary
        deviation = np.maximum(scores.max(axis=0) - centre, centre - scores.min(axis=0))
        reference = replace(reference, score_rounding=score_rounding(scale, deviation, floor))
    if rule != "scores" or not scores.shape[0]:
        return reference
    sd23 = reference.score_distances(scores) ** (2.0 / 3.0)  # Wilson-Hilferty, as the OD
    sd23 = np.minimum(sd23, 1e100)  # an infinite SD (overflow) counts as a huge one
    return replace(
        reference,
        sd_location=float(weighted_median(sd23, w)),
        sd_scale=float(weighted_mad(sd23, w)),
    )


def _reference_rows(
    n_components: int, n_samples: int, n_observed: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The training rows (boolean) of the OD statistics and of the score statistics:
    those with more than ``k`` observed coordinates, and with at least ``k``
    (:func:`diagnostic_reference`). The score statistics keep every row if none has
    ``k`` (no determined scores at all)."""
    if n_observed is None:
        return np.ones(n_samples, dtype=bool), np.ones(n_samples, dtype=bool)
    n_observed = np.asarray(n_observed)
    if n_observed.shape != (n_samples,):
        raise ValueError(f"n_observed must have shape ({n_samples},), got {n_observed.shape}.")
    determined = n_observed >= n_components
    if not determined.any():
        determined[:] = True
    return n_observed > n_components, determined


@dataclass(frozen=True)
class OutlierDiagnostics:
    """Distances, cutoffs and flags of :func:`outlier_diagnostics`.

    Attributes
    ----------
    score_distances, orthogonal_distances : ndarray of shape (n_samples,)
    score_cutoff, orthogonal_cutoff : float
        ``orthogonal_cutoff = 0`` means no OD cutoff (``k`` equals the rank; rrcov).
    score_scales : ndarray of shape (n_components,)
        The scales :math:`s_j` of the scores (square roots of the eigenvalues for the
        rrcov rules).
    quantile : float
    score_center : ndarray of shape (n_components,)
        The centre :math:`c` of the scores.
    rule : str
        "classical", "robust", "skew" or "scores" (module docstring).
    row_labels : ndarray of shape (n_samples,), optional
        The index of a DataFrame ``X``; None otherwise (1-based row numbers are used).
    span_od : float
        With no OD cutoff, the OD beyond which a row lies off the span of the training
        rows: flagged, with the OD in units of it as outlyingness (inf: none; ``k = p``).
    od_model, sd_model : (float, float)
        Location and scale of the training :math:`OD^{2/3}` and (rule "scores")
        :math:`SD^{2/3}`, the models of the cutoffs (:attr:`normal_outlyingness`).
    """

    score_distances: np.ndarray
    orthogonal_distances: np.ndarray
    score_cutoff: float
    orthogonal_cutoff: float
    score_scales: np.ndarray
    quantile: float
    score_center: np.ndarray | None = None
    rule: str = "scores"
    row_labels: np.ndarray | None = None
    span_od: float = np.inf
    od_model: tuple[float, float] = (0.0, 0.0)
    sd_model: tuple[float, float] = (0.0, 0.0)

    @property
    def score_outliers(self) -> np.ndarray:
        """Samples beyond the score-distance cutoff (leverage points)."""
        return self.score_distances > self.score_cutoff * _AT_CUTOFF

    @property
    def orthogonal_outliers(self) -> np.ndarray:
        """Samples beyond the orthogonal-distance cutoff (off the subspace); none when
        there is no OD cutoff (``orthogonal_cutoff = 0``, as rrcov), except those off
        the span of the training rows (``span_od``)."""
        if self.orthogonal_cutoff <= 0:  # lazy for dask distances
            return self.orthogonal_distances > self.span_od
        return self.orthogonal_distances > self.orthogonal_cutoff * _AT_CUTOFF

    @property
    def outliers(self) -> np.ndarray:
        """Samples beyond either cutoff (rrcov's ``!flag``)."""
        return self.score_outliers | self.orthogonal_outliers

    @property
    def outlyingness(self) -> np.ndarray:
        r""":math:`\max(SD/c_{SD},\ OD/c_{OD})`, the distances in units of their cutoffs:
        above 1 beyond a cutoff (the OD term only where there is an OD cutoff); at most
        the largest float (a row off the span of all-zero training rows), never inf."""
        ratio = _ratio(self.score_distances, self.score_cutoff * _AT_CUTOFF)
        with np.errstate(over="ignore"):
            if self.orthogonal_cutoff > 0:
                cutoff = self.orthogonal_cutoff * _AT_CUTOFF
                ratio = np.maximum(ratio, self.orthogonal_distances / cutoff)
            elif np.isfinite(self.span_od):  # off the training span: in units of its rounding
                od = self.orthogonal_distances
                ratio = np.where(od > self.span_od, np.maximum(ratio, od / self.span_od), ratio)
        return np.minimum(ratio, _LARGEST)

    @property
    def normal_outlyingness(self) -> np.ndarray:
        r"""The larger of the two distances as standard normal scores, each the
        Wilson-Hilferty cube root of its square in the units of its model: :math:`SD^2`
        against :math:`\chi^2_k`, :math:`OD^{2/3}` against the location and scale of the
        OD cutoff (rrcov's models), shifted to equal :math:`\Phi^{-1}(q)` at each cutoff.
        It flags what :attr:`outliers` flags (above :math:`\Phi^{-1}(q)`), but compares
        the two distances by their tail probabilities everywhere, not by ratios to their
        cutoffs. A distance without such a model (the "skew" rule, a zero scale) counts
        as its ratio to the cutoff times :math:`\Phi^{-1}(q)`."""
        zq = float(stats.norm.ppf(self.quantile))
        k = self.score_center.shape[0] if self.score_center is not None else 0
        chi2 = float(np.sqrt(stats.chi2.ppf(self.quantile, k))) if k else 0.0
        if k and abs(self.score_cutoff - chi2) <= 1e-12 * chi2:  # Wilson-Hilferty
            unit = np.cbrt(k) * np.sqrt(2 / (9 * k))  # (SD^2 / k)^(1/3): sd 1 / sqrt(9k / 2)
            sd = _normal_score(self.score_distances, self.score_cutoff, unit, zq)
        elif self.rule == "scores" and self.sd_model[1] > 0:  # the empirical SD rule
            sd = _normal_score(self.score_distances, self.score_cutoff, self.sd_model[1], zq)
        else:
            sd = zq * _ratio(self.score_distances, self.score_cutoff * _AT_CUTOFF)
        od = self.orthogonal_distances
        if self.orthogonal_cutoff > 0 and self.rule != "skew" and self.od_model[1] > 0:
            scale = self.od_model[1]
            return np.maximum(sd, _normal_score(od, self.orthogonal_cutoff, scale, zq))
        if self.orthogonal_cutoff > 0:
            return np.maximum(sd, zq * od / (self.orthogonal_cutoff * _AT_CUTOFF))
        if np.isfinite(self.span_od):  # off the training span, as in outlyingness
            with np.errstate(over="ignore"):  # at most the largest float, as there
                off = np.minimum(zq * od / self.span_od, _LARGEST)
            return np.where(od > self.span_od, np.maximum(sd, off), sd)
        return sd

    @property
    def margins(self) -> np.ndarray:
        """``1 - outlyingness``: negative beyond a cutoff, zero at it."""
        return 1.0 - self.outlyingness

    @property
    def labels(self) -> np.ndarray:
        """Row labels: the DataFrame index, else 1-based row numbers (as rrcov)."""
        if self.row_labels is not None:
            return np.asarray(self.row_labels)
        return np.arange(1, self.score_distances.shape[0] + 1)


def _ratio(distances: np.ndarray, cutoff: float) -> np.ndarray:
    """``distances / cutoff``; a zero cutoff (degenerate skew rule) gives 0 or inf."""
    if cutoff > 0:
        return distances / cutoff
    return np.where(distances > 0, np.inf, 0.0)


def _normal_score(distance, cutoff: float, scale: float, zq: float):
    """``zq + (d^(2/3) - c^(2/3)) / scale``: a distance's normal score by the cube root
    of its square (as ``cbrt(d)^2``, which no distance overflows), ``zq`` at the cutoff
    ``c`` (with the flags' tolerance)."""
    return zq + (np.cbrt(distance) ** 2 - np.cbrt(cutoff * _AT_CUTOFF) ** 2) / scale


def _as_host(values) -> np.ndarray:
    from ._array_api import to_numpy

    return np.asarray(to_numpy(values), dtype=np.float64)


def model_distances(model, X) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, Any]:
    """Scores, ODs (and adjusted outlyingness, "skew" estimators) of ``X`` as NumPy,
    and its rows' :func:`observed_counts`."""
    both = getattr(model, "_transform_and_distances", None)  # one validation where it can
    scores, od = both(X) if both else (model.transform(X), model.reconstruction_error(X))
    skew, rule = None, getattr(model, "_od_cutoff_rule", None)
    if rule == "skew" and hasattr(model, "_skew_score_distances"):
        skew = model._skew_score_distances(X)
    counts = observed_counts(model, X)
    if is_dask_collection(scores):
        import dask

        scores, od, counts = dask.compute(scores, od, counts)
    if counts is not None and not np.any(counts < model.n_features_in_):
        counts = None  # a Dask array without gaps
    skew = None if skew is None else _as_host(skew)
    return _as_host(scores), _as_host(od), skew, counts


def outlier_diagnostics(
    model, X, *, quantile: float = DEFAULT_QUANTILE, reference=None
) -> OutlierDiagnostics:
    """Score and orthogonal distances of ``X`` to a fitted subspace, with cutoffs.

    Parameters
    ----------
    model : fitted estimator
        Any robustpca estimator (``transform`` and ``reconstruction_error``).
    X : array-like of shape (n_samples, n_features)
        Samples to diagnose (a DataFrame's index labels the samples).
    quantile : float in (0, 1), default=0.975
        Quantile of the cutoffs (rrcov's default; the skew rule's cutoffs have none).
    reference : array-like of shape (m, n_features), optional
        Data on which the score centre and scales and the OD cutoff are estimated. By
        default the training data's statistics stored at fit (``_outlier_reference``;
        lazy distances for a Dask ``X``), or ``X`` itself for a model without them.

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
    >>> bool(diag.orthogonal_outliers[:10].all()), int(diag.outliers[10:].sum()) < 15
    (True, True)
    """
    if np.ndim(quantile) != 0 or np.asarray(quantile).dtype.kind not in "iuf":  # bool: "b"
        raise TypeError(f"quantile must be a real number in (0, 1), got {quantile!r}.")
    if not 0 < quantile < 1:  # NaN fails too
        raise ValueError(f"quantile={quantile!r} must lie in (0, 1).")
    check_is_fitted(model)
    stored = getattr(model, "_outlier_reference", None)
    if is_dask_collection(X) and reference is None and stored is not None:  # lazy
        scores, od, skew = model.transform(X), model.reconstruction_error(X), None
        if stored.sd_skew_cutoff > 0 and hasattr(model, "_skew_score_distances"):
            skew = model._skew_score_distances(X)
    else:
        scores, od, skew, counts = model_distances(model, X)
    if reference is not None:
        r_scores, r_od, r_skew, r_counts = model_distances(model, reference)
        ref = diagnostic_reference(model, r_scores, r_od, r_skew, n_observed=r_counts)
    elif getattr(model, "_outlier_reference", None) is not None:
        ref = model._outlier_reference
    else:
        ref = diagnostic_reference(model, scores, od, skew, n_observed=counts)
    sd = skew if (ref.sd_skew_cutoff > 0 and skew is not None) else ref.score_distances(scores)
    index = getattr(X, "index", None)
    return ref.diagnostics(sd, od, quantile, None if index is None else np.asarray(index))
