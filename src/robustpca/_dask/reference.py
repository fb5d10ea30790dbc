r"""The training diagnostics of a Dask fit, chunk by chunk (issue 41).

An in-memory fit ends by storing the reference statistics of its training data's
outlier diagnostics (``_outlier_reference``:
:func:`~robustpca.diagnostics.diagnostic_reference`) and, for a float
``contamination``, the ``offset_`` between the training ``score_samples``. A Dask fit
computes the same here, in passes over the row chunks, never holding the rows:

* the **tall route** takes each chunk's scores and orthogonal distances (the
  observed-coordinates fit for rows with NaN, as the transforms do) and finds the
  medians and MADs of the diagnostics by the exact counting passes of
  :func:`~robustpca.solvers.chunked_reference.exact_statistics`: one stage for the
  score columns, :math:`OD^{2/3}` and the rows' norms, one more for :math:`SD^{2/3}`
  (the "scores" rule, whose centre and scales the first stage fixes), one more for the
  offset of a float ``contamination``. A stage is two passes (a counting pass, then the
  values in the windows it proves), one for data of at most
  :data:`~robustpca.solvers.chunked_reference.SMALL_ROWS` rows, and data above that size
  pay one pass more, once, for the pilot rows that set the bins;
* the **wide route** (fewer rows than features) brings the ``k + 1`` distances of its
  few rows back in one pass (the lazy transforms by column blocks) and takes the
  statistics in memory.

The first stage also takes the two variances of ``score``'s Gaussian model
(:mod:`robustpca.estimators._likelihood`): the (weighted) medians of :math:`OD^2` and of
the squared norms :math:`\lVert t \rVert^2 + OD^2`, or for the classical rule the
weighted sum of :math:`OD^2`, as two more columns of the same passes, and hands them to
the estimator's ``_store_likelihood_model``. The results equal the in-memory fit's to
rounding; the passes are added to ``n_passes_``. No stored distance of the fits is
reused: the rrcov family's cutoffs in its reweighting belong to intermediate fits, not
to the final centre and loadings.
This module never imports an estimator.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._distance_rounding import rounding_levels, score_rounding, span_od
from ..diagnostics import RRCOV_RULES, DiagnosticReference, diagnostic_reference
from ..robust_scale import skewed_cutoff
from ..solvers.chunked import NumpyPassRunner
from ..solvers.chunked_order_statistics import gather_rows, pilot_indices
from ..solvers.chunked_reference import SMALL_ROWS, exact_statistics
from ..solvers.chunked_skew import skewed_cutoffs_chunked
from ..solvers.contamination_cut import whole_weights
from ..solvers.likelihood import (
    background_variance_from_median,
    noise_variance_from_median,
    noise_variance_from_sum,
)
from .arrays import _dask, _is_dask, as_float_array, row_blocks
from .fit import DaskPassRunner
from .missing import observed_block
from .rrcov import row_index

__all__ = ["BlockDistances", "ChunkedReference", "chunked_reference", "set_outlier_reference"]

#: The quantile of the cutoffs that ``score_samples`` uses (``DEFAULT_QUANTILE``).
_QUANTILE = 0.975


def _finite(x):
    if not np.isfinite(x).all():
        raise ValueError("Input X contains NaN or infinity.")
    return x


@dataclass(frozen=True)
class BlockDistances:
    """A block's scores, orthogonal distances and (with ``with_counts``) each row's
    observed coordinates, as ``_reference_distances`` and ``observed_counts`` of the
    estimator compute them; rows with NaN take the observed-coordinates fit."""

    mean: np.ndarray
    components: np.ndarray
    allow_nan: bool = False
    constants: Any = None
    with_counts: bool = False

    def __call__(self, x):
        d = x.shape[1]
        if self.allow_nan and self.with_counts and x.shape[0]:
            empty = np.isnan(x).all(axis=1)
            if empty.any():  # a stream's rows with no observed entry (its fit takes them):
                # no evidence, so no coordinate counted, and left out of the statistics
                t_seen, od_seen, counts_seen = self(x[~empty])
                t = np.zeros((x.shape[0], self.components.shape[0]))
                od, counts = np.zeros(x.shape[0]), np.zeros(x.shape[0], dtype=np.int64)
                t[~empty], od[~empty], counts[~empty] = t_seen, od_seen, counts_seen
                return t, od, counts
        fit = observed_block(x, self.mean, self.components, self.allow_nan, _finite, self.constants)
        unused = None if self.constants is None else self.constants.mask
        if fit is not None:
            missing, (t, _, od) = fit
            counts = d - missing.sum(axis=1)
            if unused is not None:
                counts = counts - (~missing & unused).sum(axis=1)
        else:
            xc = x - self.mean
            t = xc @ self.components.T
            xc -= t @ self.components
            od = np.sqrt(np.einsum("ij,ij->i", xc, xc))
            counts = np.full(x.shape[0], d - (0 if unused is None else int(unused.sum())))
        t = np.asarray(t, dtype=np.float64)
        od = np.asarray(od, dtype=np.float64)
        return t, od, (counts if self.with_counts else None)


def _rows(distances, k, x, w, all_scores):
    """The weights of a block's rows in the OD and in the score statistics (-1: out)."""
    t, od, counts = distances(x)
    ww = np.ones(x.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    positive = ww > 0
    od_row = score_row = positive
    if counts is not None:
        od_row = (counts > k) & positive
        score_row = ((counts >= k) | all_scores) & positive
    return t, od, ww, od_row, score_row


@dataclass(frozen=True)
class ReferenceColumns:
    r"""The first stage's columns: the scores ("scores" rule), :math:`OD^{2/3}`, the
    rows' centred norms and the ODs (their largest only); with ``likelihood``, then
    :math:`OD^2` and :math:`\lVert t \rVert^2 + OD^2` with the fit's weights (the
    variances of ``score``: :mod:`robustpca.estimators._likelihood`); for the rrcov
    rules, then the scores, their range only."""

    distances: BlockDistances
    k: int
    scores_rule: bool
    all_scores: bool = False
    likelihood: bool = False

    def __call__(self, x, w):
        t, od, ww, od_row, score_row = _rows(self.distances, self.k, x, w, self.all_scores)
        squared = np.sum(t**2, axis=1) + od**2
        one = np.ones_like(ww)
        values = [od ** (2.0 / 3.0), np.sqrt(squared), od]
        # the norms' median with the weights too (the rounding floors, as in memory);
        # the ODs give their largest only
        weights = [np.where(od_row, ww, -1.0)] * 2 + [np.where(od_row, one, -1.0)]
        if self.likelihood:
            values += [od**2, squared]
            weights += [weights[0], weights[0]]
        score_weights = [np.where(score_row, ww, -1.0)] * t.shape[1]
        if self.scores_rule:
            values = [*t.T, *values]
            weights = score_weights + weights
        else:  # the scores' range only: the rounding on components of zero scale
            values = [*values, *t.T]
            weights = weights + score_weights
        return np.column_stack(values), np.column_stack(weights)


@dataclass(frozen=True)
class DeviationColumns:
    """:math:`|t_j - c_j|` of the score rows (their weighted mean: a zero MAD's scale)."""

    distances: BlockDistances
    k: int
    centre: np.ndarray
    all_scores: bool = False

    def __call__(self, x, w):
        t, _, ww, _, score_row = _rows(self.distances, self.k, x, w, self.all_scores)
        weight = np.where(score_row, ww, -1.0)
        return np.abs(t - self.centre), np.repeat(weight[:, None], t.shape[1], axis=1)


@dataclass(frozen=True)
class ScoreDistanceColumns:
    """:math:`SD^{2/3}` of the score rows under a reference (the "scores" rule)."""

    distances: BlockDistances
    k: int
    reference: DiagnosticReference
    all_scores: bool = False

    def __call__(self, x, w):
        t, _, ww, _, score_row = _rows(self.distances, self.k, x, w, self.all_scores)
        sd23 = np.minimum(self.reference.score_distances(t) ** (2.0 / 3.0), 1e100)
        return sd23[:, None], np.where(score_row, ww, -1.0)[:, None]


@dataclass(frozen=True)
class ScoreSampleColumns:
    """Each row's ``score_samples`` (minus its outlyingness under the reference), in the
    output dtype of the estimator's method; every row of positive weight counts, with
    its weight."""

    distances: BlockDistances
    reference: DiagnosticReference
    float32: bool = False
    adjusted: Any = None  # a skew fit's adjusted outlyingness: the score distance

    def __call__(self, x, w):
        t, od, _ = self.distances(x)
        sd = None if self.adjusted is None else self.adjusted(x)
        values = -_outlyingness(self.reference, t, od, sd)
        if self.float32 and x.dtype == np.float32:
            big = float(np.finfo(np.float32).max)
            values = np.where(np.isfinite(values), np.clip(values, -big, big), values)
            values = values.astype(np.float32)
        return values.astype(np.float64)[:, None], _row_weights(w, x.shape[0])[:, None]


def _outlyingness(reference: DiagnosticReference, t, od, sd=None) -> np.ndarray:
    sd = reference.score_distances(t) if sd is None else sd
    return reference.diagnostics(sd, od, _QUANTILE).outlyingness


@dataclass(frozen=True)
class ChunkedReference:
    """:func:`chunked_reference`'s result: the diagnostics' reference, the pilot rows
    (or None), the passes taken and, where asked, the noise and background variances
    of the likelihood model (``score``), with the training scores' centre and scales
    where the model takes them there (``_likelihood_from_scores``)."""

    reference: DiagnosticReference
    pilot: Any
    passes: int
    variances: tuple | None = None


def _likelihood_variances(stats, summary, at: int, rule: str, d: int, k: int):
    r""":math:`\sigma^2` and :math:`\tau` (:mod:`robustpca.solvers.likelihood`) from the
    first stage's columns ``at`` (:math:`OD^2`) and ``at + 1`` (squared norms): their
    medians for the robust rules, the weighted sum of :math:`OD^2` for the classical
    one (no background), as ``_set_likelihood_reference`` computes them in memory."""
    if not summary.count[at] > 0:  # no row with more than k observed coordinates
        return 0.0, 0.0
    if rule == "classical":
        weight = float(summary.weight[at])
        count = summary.variance_count(at)
        return noise_variance_from_sum(float(summary.mean[at]) * weight, weight, d, k, count), 0.0
    return (
        noise_variance_from_median(float(stats[at]), d, k),
        background_variance_from_median(float(stats[at + 1]), d),
    )


def chunked_reference(
    model,
    run,
    n: int,
    distances: BlockDistances,
    *,
    rows=None,
    index=None,
    pilot_rows=None,
    likelihood: bool = False,
) -> ChunkedReference:
    """``diagnostic_reference(model, scores, od, None, rows, n_observed=...)`` of the rows
    behind ``run`` (a passes runner), by exact counting passes; ``index``: the rows'
    global numbers (for the pilot above :data:`SMALL_ROWS` rows); ``pilot_rows``: the
    pilot's rows where the fit gathered them already (no pass). With ``likelihood``,
    the first stage also takes the two order statistics (or the sum) of the
    likelihood's variances, in the same passes."""
    k = int(distances.components.shape[0])
    rule = getattr(model, "_od_cutoff_rule", None)
    eigenvalues = getattr(model, "explained_variance_", None)
    scores_rule = not (rule in RRCOV_RULES and eigenvalues is not None)
    rule = "scores" if scores_rule else str(rule)
    passes = 0
    pilot = None
    if n > SMALL_ROWS and pilot_rows is not None:
        pilot = (np.asarray(pilot_rows, dtype=np.float64), None)
    elif n > SMALL_ROWS and index is not None:
        pilot = (gather_rows(run, index, pilot_indices(n)), None)
        passes += 1
    od_kind = None if rule == "classical" and not scores_rule else "median_mad"
    kinds = (["median_mad"] * k if scores_rule else []) + [od_kind, "median", None]
    if likelihood:  # the weighted median of solvers.likelihood (robust_scale's)
        median = None if rule == "classical" else "median"
        kinds += [median, median]
    from_scores = getattr(model, "_likelihood_from_scores", None)
    own_scores = likelihood and from_scores is not None and bool(from_scores())
    if not scores_rule:  # the scores' range, or their median and MAD for the likelihood
        kinds += ["median_mad" if own_scores else None] * k
    all_scores = False
    while True:
        columns = ReferenceColumns(distances, k, scores_rule, all_scores, likelihood)
        stats, summary, used = exact_statistics(run, rows, columns, kinds, n, pilot=pilot)
        passes += used
        # no row with k observed coordinates: every row's scores count (diagnostics)
        if not (scores_rule and k and distances.with_counts and summary.count[0] == 0):
            break
        if all_scores:
            break
        all_scores = True
    first = k if scores_rule else 0
    od_count = float(summary.count[first])
    if scores_rule:
        centre = np.array([s[0] if s is not None else np.nan for s in stats[:k]])
        scale = np.array([s[1] if s is not None else np.nan for s in stats[:k]])
        if k and summary.count[0] > 0 and not np.all(scale > 0):
            deviations = DeviationColumns(distances, k, centre, all_scores)
            _, mean_dev, used = exact_statistics(run, rows, deviations, [None] * k, n)
            passes += used
            scale = np.where(scale > 0, scale, np.sqrt(np.pi / 2.0) * mean_dev.mean)
    else:
        centre = np.zeros(k)
        values = np.asarray(eigenvalues, dtype=np.float64)
        scale = np.sqrt(np.clip(values, 0.0, None))
    largest = max(float(summary.high[first + 1]), 1e-300) if od_count else 0.0
    levels = rounding_levels(model, float(stats[first + 1]) if od_count else 0.0, largest)
    scale = np.where(scale > levels.scale, scale, 0.0)
    floor = levels.floor
    applies = bool(od_count) and bool(summary.high[first + 2] > levels.spanned)
    span = span_od(model, k, bool(od_count) and not applies, levels)
    location = spread = 0.0
    if od_count and rule == "classical":  # the (weighted) mean and standard deviation
        count = summary.variance_count(first)  # the rows, or the total frequency weight
        location = float(summary.mean[first])
        # the weighted mean square, times the count (as od_location_scale in memory)
        sq = float(summary.m2[first]) / float(summary.weight[first]) * count
        spread = float(np.sqrt(sq / (count - 1))) if count > 1 else 0.0
    elif od_count:
        location, spread = (float(v) for v in stats[first])
    at = slice(0, k) if scores_rule else slice(len(kinds) - k, len(kinds))
    low, high = summary.low[at], summary.high[at]
    deviation = np.maximum(high - centre, centre - low)  # -inf: no score row
    reference = DiagnosticReference(
        rule,
        centre,
        scale,
        location,
        spread,
        0.0,
        0.0,
        applies,
        floor,
        span_od=span,
        score_rounding=score_rounding(scale, np.maximum(deviation, 0.0), floor),
    )
    variances = None
    if likelihood:
        d = int(distances.components.shape[1])
        variances = _likelihood_variances(stats, summary, first + 3, rule, d, k)
        if own_scores and not scores_rule:
            score_stats = np.array([s if s is not None else (0.0, 0.0) for s in stats[at]])
            variances = (*variances, (score_stats[:, 0], score_stats[:, 1]))
    if rule != "scores" or not (k == 0 or summary.count[0] > 0):
        return ChunkedReference(reference, pilot, passes, variances)
    sd = ScoreDistanceColumns(distances, k, reference, all_scores)
    (sd_stats,), _, used = exact_statistics(run, rows, sd, ["median_mad"], n, pilot=pilot)
    passes += used
    reference = replace(reference, sd_location=float(sd_stats[0]), sd_scale=float(sd_stats[1]))
    return ChunkedReference(reference, pilot, passes, variances)


def _weights(sample_weight, n: int):
    if sample_weight is None:
        return None
    if _is_dask(sample_weight):
        return sample_weight.astype(np.float64)
    w = np.asarray(sample_weight, dtype=np.float64)
    return np.full(n, float(w)) if w.ndim == 0 else w


def set_outlier_reference(est, X, sample_weight=None) -> None:
    """Store ``_outlier_reference`` and ``offset_`` of a Dask fit of ``est`` on ``X``
    (the end of ``fit``, as the in-memory fit does), and the likelihood model of
    ``score`` where the estimator has one (its ``_store_likelihood_model``), adding
    the passes to ``n_passes_``. An online fit's last rows then seed the window of a
    later ``partial_fit``, on either route."""
    _set_reference(est, X, sample_weight)
    tail = est.__dict__.pop("_dask_stream_tail", None)
    if tail is not None:
        est._seed_window(tail)


def _set_reference(est, X, sample_weight) -> None:
    X = as_float_array(X, keep_float32=True)
    n, d = X.shape
    est._outlier_reference = None
    pilot_rows = est.__dict__.pop("_dask_pilot_rows", None)  # gathered by the fit's first pass
    weights = _weights(sample_weight, n)
    contamination = getattr(est, "contamination", "auto")
    mean, components = np.asarray(est.mean_), np.asarray(est.components_)
    if n < d:  # the wide route: n small, its distances come back in one pass
        dask, _ = _dask()
        skew = getattr(est, "_adjusted", None)
        skew = None if skew is None else est._skew_score_distances(X)
        # a fit that saw gaps (the online ones take them in blocks of whole rows): the
        # distances of a row's observed entries need the whole row
        rows = X.rechunk({1: -1}) if getattr(est, "n_missing_", 0) and X.numblocks[1] > 1 else X
        t, od, w, skew = dask.compute(
            est.transform(rows), est.reconstruction_error(rows), weights, skew
        )
        est._outlier_reference = diagnostic_reference(est, t, od, skew, w)
        store = getattr(est, "_set_likelihood_reference", None)
        if store is not None:  # from the same distances, in memory
            store(t, od, w, None)
        est._reference_passes = 1
        est.n_passes_ = getattr(est, "n_passes_", 0) + 1
        if not isinstance(contamination, str):
            reference = est._outlier_reference
            sd = skew if reference.sd_skew_cutoff > 0 else None
            values = -_outlyingness(reference, t, od, sd)
            runner = NumpyPassRunner(values[:, None], chunk_rows=max(n, 1))
            (offset,), _, _ = exact_statistics(
                runner,
                w,
                _Identity(),
                ["offset"],
                n,
                share=float(contamination),
                whole=w is None or whole_weights(w),
            )
            est.offset_ = float(offset)
        else:
            est.offset_ = -1.0
        return
    X = row_blocks(X)
    run = DaskPassRunner(X)
    distances = BlockDistances(
        mean,
        components,
        bool(getattr(est, "_supports_missing", False)),
        getattr(est, "_unmodelled_constants", None),
        with_counts=bool(getattr(est, "n_missing_", 0)),
    )
    index = row_index(X)
    store = getattr(est, "_store_likelihood_model", None)
    found = chunked_reference(
        est,
        run,
        n,
        distances,
        rows=weights,
        index=index,
        pilot_rows=pilot_rows,
        likelihood=store is not None,
    )
    reference, pilot = found.reference, found.pilot
    if reference.rule == "skew":
        reference = _with_skew_cutoffs(est, run, index, n, distances, reference, pilot_rows)
    est._outlier_reference = reference
    if store is not None and found.variances is not None:
        store(*found.variances)
    if isinstance(contamination, str):
        est.offset_ = -1.0
    else:
        float32 = mean.dtype == np.float32
        skew = reference.sd_skew_cutoff > 0
        samples = ScoreSampleColumns(distances, reference, float32, est._adjusted if skew else None)
        (offset,), _, _ = exact_statistics(
            run,
            weights,
            samples,
            ["offset"],
            n,
            pilot=pilot,
            share=float(contamination),
            whole=weights is None or whole_weights(weights),
        )
        est.offset_ = float(offset)
    est._reference_passes = run.n_passes  # of n_passes_: those of the diagnostics
    est.n_passes_ = getattr(est, "n_passes_", 0) + run.n_passes


@dataclass(frozen=True)
class SkewColumns:
    """A skew fit's orthogonal distances and adjusted outlyingness, (b, 2); the latter 0
    where the fit has none (data with no direction of variance)."""

    distances: BlockDistances
    adjusted: Any

    def __call__(self, x):
        _, od, _ = self.distances(x)
        sd = np.zeros(od.shape[0]) if self.adjusted is None else self.adjusted(x)
        return np.column_stack([od, sd])


def _with_skew_cutoffs(est, run, index, n: int, distances, reference, pilot_rows):
    """``reference`` with the skew rule's cutoffs (``diagnostic_reference``'s, over the
    rows behind ``run``): the rows of data of at most ``MEDCOUPLE_ROWS`` rows are brought
    back in one pass and cut in memory; above, the medcouples are those of the fit's rows
    ``_medcouple_rows`` (one gathering pass) and the quartiles exact counts."""
    columns = SkewColumns(distances, est._adjusted)
    sample = getattr(est, "_medcouple_rows", None)
    if sample is None:  # every row's values, as in memory
        values = columns(gather_rows(run, index, np.arange(n)))
        od_cut, sd_cut = skewed_cutoff(values[:, 0]), skewed_cutoff(values[:, 1])
    else:
        sample_values = columns(gather_rows(run, index, sample))
        if pilot_rows is None:
            pilot_rows = gather_rows(run, index, pilot_indices(n))
        pilot_values = columns(np.asarray(pilot_rows, dtype=np.float64))
        (od_cut, sd_cut), _ = skewed_cutoffs_chunked(
            run, index, columns, n, sample_values, pilot_values
        )
    od_cut = od_cut if reference.od_cutoff_applies else 0.0
    return replace(reference, od_skew_cutoff=float(od_cut), sd_skew_cutoff=float(sd_cut))


class _Identity:
    """The rows themselves as the one column, every row weighing its weight."""

    def __call__(self, x, w):
        return x[:, :1], _row_weights(w, x.shape[0])[:, None]


def _row_weights(w, n: int) -> np.ndarray:
    """The rows' weights in the offset's column: a row of weight 0 is left out entirely
    (-1), as if dropped, as ``contamination_offset`` drops it in memory."""
    if w is None:
        return np.ones(n)
    w = np.asarray(w, dtype=np.float64)
    return np.where(w > 0, w, -1.0)
