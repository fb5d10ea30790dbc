r"""``partial_fit``: PCA and the reweighting estimators fitted over a stream of batches.

The estimators whose weighted step is weighted PCA (Nie et al. 2014, problem 14) need
only the weighted count, mean and scatter of the data
(:mod:`robustpca.solvers.incremental`), which merge exactly across batches. So
:class:`~robustpca.PCA` fitted batch by batch equals its batch fit to rounding, and the
reweighting estimators run Algorithm 2 as a stochastic majorise-minimise fit.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import validate_data

from .._array_api import FLOAT_DTYPES, finish_fit, input_namespace, to_numpy
from .._validation import (
    as_generator,
    check_magnitude,
    check_n_components,
    check_observed,
    check_sample_weight,
    is_dask_collection,
    missing_mask,
    weighted_rows,
)
from .._warnings import external_stacklevel
from ..linalg import flip_component_signs
from ..losses import RobustLoss
from ..solvers import StopReason
from ..solvers.incremental import (
    ReferenceSample,
    ScatterStatistics,
    StreamingReweightedPCA,
    residual_norms,
)
from ..solvers.informative_coordinates import constant_columns, model_constants
from ..solvers.missing import complete, solve_weighted_pca_missing

__all__ = ["IncrementalMixin"]

#: The reference sample of the outlier diagnostics holds at most this many rows ...
REFERENCE_ROWS = 1000
#: ... and entries, but never fewer than REFERENCE_MIN_ROWS rows.
REFERENCE_ENTRIES = 1 << 21
REFERENCE_MIN_ROWS = 64

#: ``stop_reason_`` of a reweighting estimator after ``partial_fit``.
STREAM_STOP = "partial_fit: one stochastic majorise-minimise step per batch"


def _check_forgetting_factor(value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"forgetting_factor must be a real number in [0, 1], got "
            f"{type(value).__name__} ({value!r})."
        )
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"forgetting_factor={value!r} must be in [0, 1].")
    return value


def check_stream_rank(estimator, fitted: int) -> None:
    """A ``ValueError`` naming ``n_components`` where ``set_params`` changed it between
    ``partial_fit`` calls, as scikit-learn's ``IncrementalPCA`` raises: a stream keeps
    the rank ``fitted`` it started with (None keeps it too), so a change would otherwise
    be silently ignored."""
    spec = estimator.n_components
    if spec is None or (
        isinstance(spec, numbers.Integral) and not isinstance(spec, bool) and spec == fitted
    ):
        return
    raise ValueError(
        f"n_components has changed from {fitted} to {spec!r} between calls to partial_fit: "
        f"a stream keeps its number of components. Set n_components back to {fitted}, or "
        "call fit to start again with the new value."
    )


def _all_zero(sample_weight, n: int) -> bool:
    """Whether ``sample_weight`` is a valid weight vector of ``n`` zeros (or a zero)."""
    w = np.asarray(sample_weight)
    if w.dtype.kind not in "biuf":
        return False  # check_sample_weight says why
    return w.shape in ((), (n,)) and not np.any(w)  # NaN counts as nonzero


def _streams(estimator) -> bool:
    """``available_if`` check of ``partial_fit``: a rank given as an int (or None). A
    variance share or ``'auto'`` is chosen on the spectrum of all the data, which a
    stream does not have yet; such an estimator has no ``partial_fit``."""
    spec = estimator.n_components
    if isinstance(spec, str) or (
        isinstance(spec, numbers.Real) and not isinstance(spec, (bool, numbers.Integral))
    ):
        raise AttributeError(
            f"n_components={spec!r}: partial_fit needs an int or None (a variance share "
            "or 'auto' is chosen on the spectrum of all the data, which a stream does not "
            "have yet)."
        )
    return True


class IncrementalMixin:
    r"""Gives ``partial_fit`` to an estimator whose weighted step is weighted PCA.

    The estimator says how its batches are weighted through ``_stream_loss``: None
    (:class:`~robustpca.PCA`: every weight 1, the fit exact) or the loss whose
    weights :math:`h'(r_i^2)` Algorithm 2 of Nie et al. (2014) re-weights with (it
    then sets ``_stream_reweights``, and may set ``_stream_weight_scale``, the factor
    between the loss's weights and its ``weights_``).
    """

    n_components: Any
    _route_attributes: tuple[str, ...]

    #: Whether batches are weighted by ``_stream_loss`` (a reweighting estimator).
    _stream_reweights = False
    #: ``weights_`` = this times the loss weights (HQ-PCA reports g(r) = 2 h'(r^2)).
    _stream_weight_scale = 1.0

    def _stream_loss(self, scale: float, mean_square: float) -> RobustLoss | None:
        """The loss that weights a batch (None: unit weights, PCA). ``scale`` is the mean
        squared distance of the first batch to its mean, both with the sample weights
        (the scale of an ``epsilon``),
        ``mean_square`` the running mean squared residual
        (:class:`~robustpca.solvers.incremental.ResidualScaleMemory`)."""
        return None

    def _fit(self, X, sample_weight=None):
        # a batch fit starts afresh: a later partial_fit starts a new stream
        self.__dict__.pop("_stream", None)
        X = super()._fit(X, sample_weight)
        n = X.shape[0]
        if isinstance(n, numbers.Integral):
            self.n_samples_seen_ = int(n)
        return X

    @available_if(_streams)
    def partial_fit(self, X, y=None, sample_weight=None, *, forgetting_factor=1.0, new_pass=False):
        r"""Update the fit with one batch of samples (scikit-learn's incremental API).

        The first call (or the first after ``fit``) starts the fit (every call checks
        the parameters, as ``fit`` does; an ``n_components`` changed since the start is
        a ``ValueError``, as in scikit-learn's ``IncrementalPCA``); each call merges
        the batch's weighted count, mean and scatter into the accumulated ones
        (:mod:`robustpca.solvers.incremental`) and refits from them, so every fitted
        attribute is that of the data seen after every call. Memory:
        ``min(n_samples_seen_, n_features) x n_features`` floats (twice that from the
        second pass on), whatever the number of samples.

        **PCA** is exact: over any split of the data into batches (with
        ``forgetting_factor=1``) it equals :meth:`fit` on their concatenation, with
        the same ``sample_weight``, to rounding (the scatter merge of Chan, Golub &
        LeVeque 1979, nothing truncated; scikit-learn's ``IncrementalPCA`` keeps
        ``k`` singular values, exact only for data of rank ``k``). With
        ``n_components=None`` the first batch fixes the rank, ``min(its rows,
        n_features)`` as in ``IncrementalPCA``, so a first batch of fewer rows than
        features keeps fewer components than :meth:`fit`.

        **Reweighting estimators** run Algorithm 2 of Nie et al. (2014) as a
        stochastic majorise-minimise fit. As Algorithm 1 starts from unit weights,
        the first batch is weighted at its own PCA (with its ``sample_weight``, as
        every fit here). Every batch gets the loss's
        weights :math:`d_i = h'(r_i^2)` at the *anchor* fit, its weighted statistics
        join the accumulated ones, and the fit is their weighted PCA: the minimiser of
        the sum of the majorisers of the batches seen. During the first pass the anchor is the
        latest fit. ``new_pass=True`` on the first batch of a later pass over the same
        data restarts the accumulation and fixes the anchor, for the whole pass, at
        the fit when the pass starts, :math:`\theta_p`. *What this converges to:* a
        sample's weight depends only on its own residual at the anchor, and the merge
        is exact, so the pass's statistics are those of every sample weighted at
        :math:`\theta_p`, and the fit at the end of the pass is
        :math:`T(\theta_p)`, one iteration of the batch Algorithm 2 (:math:`T`: the
        weighted PCA of all the data with the weights at its argument), exactly to
        rounding. The passes therefore are the batch iterations started from the
        first pass's fit: the objective over the data never increases from one pass
        to the next (Theorem 1), and their limits are the fixed points of the batch
        fit, which satisfy the KKT conditions (23) (Theorem 2); with a loss whose
        scale is estimated from the residuals (HQ-PCA's kernel width), each pass uses
        the previous pass's, which moves the iterates but not the fixed points. Within
        a pass, the batches not yet revisited are represented by the previous pass's
        statistics, scaled to the sample weight still to come. Without ``new_pass``
        (one pass, or a stream seen once) the weights of successive batches come from
        successive fits: the statistics mix the majorisers of different iterates, and
        the fit is a stochastic MM estimate (Mairal 2013) rather than a fixed point
        of the batch map.

        **Missing entries** (NaN). Each batch is completed at the anchor: a gap takes
        the anchor's fit of its row on the observed coordinates, so the row's residual
        is its observed one (:mod:`robustpca.solvers.missing`), and the completed
        batch is merged as above. A pass with ``new_pass`` is then one iteration of
        the batch fit with missing entries (for PCA, one EM step), and the passes
        converge to its fixed points; PCA is no longer exact after one pass. A first
        batch with gaps starts from the method's own fit of it on its observed
        entries: completing the next batches at a poor start would pull their gaps
        towards it, and the weights could not undo that.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One batch (any number of rows); never modified. NaN marks a missing entry,
            as in :meth:`fit` (a row needs one observed entry).
        y : Ignored
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative frequency weights (as :class:`~robustpca.PCA`'s ``fit``: a row
            of weight 0 is as no row, of weight 2 as the row twice); a reweighting
            estimator multiplies its loss weights by them. A batch whose weights are all
            zero only discounts the statistics by ``forgetting_factor`` (the fit is
            kept); it cannot start a stream nor a ``new_pass`` (``ValueError``).
        forgetting_factor : float in [0, 1], default=1
            The accumulated statistics are multiplied by it before the batch is merged.
            1 (stationary data) keeps every batch; :math:`\lambda < 1` keeps an
            effective memory of about :math:`1/(1-\lambda)` batches, to track a
            drifting subspace (PCA is then no longer the batch fit); 0 keeps only this
            batch.
        new_pass : bool, default=False
            The data seen so far come again, starting with this batch (above).

        Returns
        -------
        self : object

        Notes
        -----
        ``n_samples_seen_`` counts the rows of every call (every pass), ``n_missing_``
        their missing entries. A reweighting estimator's ``weights_`` and ``residuals_``
        are those of the last batch, at its anchor; ``objective_history_`` holds each
        batch's :math:`\sum_i s_i \rho(r_i)` there, ``n_iter_`` the number of steps,
        and ``converged_`` is False (a stream has no stopping rule). ``predict`` and
        ``decision_function`` use reference statistics recomputed after every call, at
        the current fit, from a random sample of at most 1,000 rows (and
        :data:`REFERENCE_ENTRIES` entries, but never fewer than 64 rows) of those seen
        since the last ``new_pass``
        (:class:`~robustpca.solvers.incremental.ReferenceSample`): while the rows seen
        are fewer, they are all of them, and PCA's diagnostics then equal those of
        :meth:`fit`. The sample is part of the model: a pickle of it holds those rows,
        in float64.
        """
        if is_dask_collection(X):
            raise TypeError(
                "partial_fit takes one in-memory batch (a NumPy or array-API array); "
                "a Dask array is fitted by fit, or passed to partial_fit by blocks."
            )
        stream = getattr(self, "_stream", None)
        first = stream is None
        lam = _check_forgetting_factor(forgetting_factor)
        if not isinstance(new_pass, (bool, np.bool_)):
            raise TypeError(f"new_pass must be a bool, got {new_pass!r}.")
        # every call (set_params between batches): as fit would, and the stream's rank
        self._check_params()
        self._validate_common()
        if not first:
            check_stream_rank(self, self.n_components_)
        xp, device = input_namespace(X)
        X = validate_data(
            self,
            to_numpy(X),
            dtype=FLOAT_DTYPES,
            reset=first,
            ensure_min_samples=1,
            ensure_all_finite=self._finite,
        )
        check_magnitude(X)
        missing = missing_mask(X) if getattr(self, "_supports_missing", False) else None
        if missing is not None:
            check_observed(missing, None, where="X")
        w = self._batch_weights(to_numpy(sample_weight), X.shape[0], stream, bool(new_pass))
        if first:
            stream = self._start_stream(X, missing, w)
        step = stream["fit"].step(
            X,
            w,
            self._loss_factory(stream),
            forgetting_factor=lam,
            new_pass=bool(new_pass) and not first,
            missing=missing,
        )
        reweighted = self._stream_reweights and step.residuals is not None and np.any(w > 0)
        if reweighted and not np.any(w * step.weights):
            warnings.warn(
                f"Every sample of this batch has weight zero at the current {type(self).__name__} "
                "fit (a capped loss's threshold or a kernel width too small): the batch leaves "
                "the fit unchanged.",
                UserWarning,
                stacklevel=external_stacklevel(),
            )
        self._stream_record(stream, X, w, step, lam, bool(new_pass) and not first, missing)
        # the dtype of every batch seen: float64 once one was (as IncrementalPCA's)
        stream["dtype"] = np.result_type(stream.get("dtype", X.dtype), X.dtype)
        finish_fit(self, stream["dtype"], xp, device)
        sample = stream["reference"]
        # weighted once a batch had weights or the held rows were discounted
        weighted = stream["weighted"] or sample_weight is not None or lam != 1.0
        weights = sample.weights if weighted else None
        stream["weighted"] = weights is not None
        self._set_outlier_reference(sample.rows, weights)
        return self

    def _batch_weights(self, sample_weight, n: int, stream, new_pass: bool) -> np.ndarray:
        """The batch's validated weights. All zero: accepted once the stream has a fit
        (:meth:`ScatterStatistics.update` then only discounts), else a ``ValueError``
        naming ``sample_weight``: there is nothing to fit, or to start a pass with."""
        if sample_weight is None or not _all_zero(sample_weight, n):
            return check_sample_weight(sample_weight, n)
        if stream is None or stream["fit"].mean is None:
            raise ValueError(
                "partial_fit: every entry of sample_weight is zero and no positive weight "
                "has been seen yet in this stream, so there is nothing to fit."
            )
        if new_pass:
            raise ValueError(
                "partial_fit(new_pass=True): every entry of sample_weight is zero; a pass "
                "starts with a batch of positive weight."
            )
        return np.zeros(n)

    def _check_stream_n_components(self, n_samples: int, n_features: int) -> int:
        spec = self.n_components
        # None: the first batch's min(n_samples, n_features), as IncrementalPCA
        upper = n_samples if spec is None else n_features
        return int(check_n_components(spec, upper, n_features, owner=type(self).__name__))

    def _start_stream(self, X, missing=None, sample_weight=None) -> dict:
        """The stream's state after its first batch's checks (and batch fit). A first
        batch with gaps starts from a fit of it that completes it (:meth:`_start_with_gaps`)."""
        for name in getattr(self, "_route_attributes", ()):  # a previous fit's extras
            self.__dict__.pop(name, None)
        self._route_attributes = ()
        n, d = X.shape
        self.n_components_ = self._check_stream_n_components(weighted_rows(sample_weight, n), d)
        rng = as_generator(getattr(self, "random_state", None))
        start = None
        if missing is not None:
            # the method's own fit of the batch (PCA: EM): a completion at a poor start
            # would pull the next batches' gaps towards it, which the weights cannot undo
            start = self._start_with_gaps(X, missing, rng, sample_weight)
            Xf = complete(X, missing, start.mean, start.components)[0]
        else:
            Xf = np.asarray(X, dtype=np.float64)
        w = np.ones(n) if sample_weight is None else sample_weight
        fit = StreamingReweightedPCA.start(d, self.n_components_, rng)
        capacity = max(min(REFERENCE_ROWS, REFERENCE_ENTRIES // max(d, 1)), REFERENCE_MIN_ROWS)
        self._stream = stream = {
            "fit": fit,
            "scale": _mean_square(Xf, w),
            "reference": ReferenceSample.empty(capacity, d),
            "low": np.fmin.reduce(X, axis=0).astype(np.float64),  # NaN: never observed
            "high": np.fmax.reduce(X, axis=0).astype(np.float64),
            "n_missing": 0,
            "weighted": False,
            "objectives": [],
            "n_steps": 0,
        }
        self.n_samples_seen_ = 0
        if self._stream_reweights and start is None:
            # Algorithm 1 starts from D = I: the first batch is weighted at its own PCA,
            # with its frequency weights (a row of weight 0 is no row)
            start = ScatterStatistics.of(X, w).principal(self.n_components_, rng)
        if start is not None:
            fit.mean, fit.components = start.mean, start.components
        return stream

    def _start_with_gaps(self, X, missing, rng, sample_weight):
        """The fit that starts a stream whose first batch has gaps: the method's own on
        the rows of positive weight (a row of weight 0 is no row) where they all weigh 1;
        else, for a reweighting method (whose fit on the observed entries takes no
        weights), weighted PCA's EM, as a complete first batch starts from weighted PCA."""
        w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        keep = w > 0
        if not self._stream_reweights:
            return self._fit_solver_missing(X, missing, rng, sample_weight)
        if np.all(w[keep] == 1.0):
            rows = X if keep.all() else X[keep]
            return self._fit_solver_missing(rows, missing[keep], rng)
        return solve_weighted_pca_missing(X, missing, self.n_components_, w, rng=rng)[0]

    def _loss_factory(self, stream):
        if not self._stream_reweights:
            return None
        return lambda mean_square: self._stream_loss(stream["scale"], mean_square)

    def _stream_record(self, stream, X, w, step, lam: float, new_pass: bool, missing) -> None:
        """Set every fitted attribute from the stream after a batch."""
        fit = stream["fit"]
        stream["low"] = np.fmin(stream["low"], np.fmin.reduce(X, axis=0))
        stream["high"] = np.fmax(stream["high"], np.fmax.reduce(X, axis=0))
        stream["n_missing"] += 0 if missing is None else int(np.count_nonzero(missing))
        keep = w > 0  # a row of weight 0 is no row of the diagnostics' sample either
        rows, weights = (X, w) if keep.all() else (X[keep], w[keep])
        stream["reference"] = stream["reference"].update(
            rows, weights, fit.rng, forgetting_factor=lam, reset=new_pass
        )
        stream["n_steps"] += 1
        self.n_samples_seen_ += X.shape[0]
        # the entries missing from the rows seen (the reference sample's rows keep NaN)
        self.n_missing_ = stream["n_missing"]
        robust = self._stream_reweights
        if fit.mean is None:  # no positive weight yet: nothing to fit
            raise ValueError(
                "partial_fit: every weight of the first batch is zero, so there is no fit "
                "(check sample_weight, or a capped loss's threshold)."
            )
        self.components_ = flip_component_signs(np.ascontiguousarray(fit.components))
        self.mean_ = fit.mean.copy()
        if not robust and step.result is not None:  # PCA: its closed-form attributes
            result = self._finish(step.result)  # type: ignore[attr-defined]
            self.objective_history_ = np.asarray(result.objective, dtype=float)
            for key, value in result.info.items():
                setattr(self, f"{key}_", value)
            self._route_attributes = tuple(f"{key}_" for key in result.info)
        if robust:
            residuals, weights, objective = step.residuals, step.weights, step.objective
            if residuals is None:  # a first batch of at most k rows: no fit to weight at
                loss = self._stream_loss(stream["scale"], fit.scale.mean_square())
                assert loss is not None  # _stream_reweights
                residuals = residual_norms(X, fit.mean, fit.components)
                weights, objective = loss.weights(residuals), float(w @ loss.rho(residuals))
            stream["objectives"].append(objective)
            self.objective_history_ = np.asarray(stream["objectives"], dtype=float)
            self.weights_ = self._stream_weight_scale * weights
            self.residuals_ = residuals
            self._route_attributes = ("weights_", "residuals_")
            self.n_iter_, self.converged_, self.stop_reason_ = stream["n_steps"], False, STREAM_STOP
        else:
            self.n_iter_, self.converged_ = 1, True
            self.stop_reason_ = StopReason.CLOSED_FORM
        self._unmodelled_constants = None
        if getattr(self, "_supports_missing", False):
            constants = constant_columns(np.vstack([stream["low"], stream["high"]]))
            self._unmodelled_constants = model_constants(constants, self.mean_, self.components_)


def _mean_square(X: np.ndarray, w: np.ndarray) -> float:
    """The weighted mean squared distance of the rows of ``X`` to their weighted mean
    (the scale of a loss's ``epsilon``); rows of weight 0 take no part."""
    if np.all(w == 1.0):  # unit weights: the plain mean
        centred = X - X.mean(axis=0)
        return float(np.einsum("ij,ij->", centred, centred)) / X.shape[0]
    keep = w > 0
    X, w = X[keep], w[keep]
    total = float(w.sum())
    centred = X - (w @ X) / total
    return float(w @ np.einsum("ij,ij->i", centred, centred)) / total
