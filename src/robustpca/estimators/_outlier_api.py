r"""The outlier-detector API of every estimator: ``score_samples``, ``decision_function``,
``predict``, ``fit_predict`` and ``offset_``, on the diagnostics of
:mod:`robustpca.diagnostics`, as scikit-learn's outlier detectors
(:class:`~sklearn.ensemble.IsolationForest`,
:class:`~sklearn.covariance.EllipticEnvelope`).

At the end of ``fit`` each estimator stores the reference statistics of its training
data's diagnostics in ``_outlier_reference`` (the centre and scales of the scores and the
location and scale of the orthogonal distances; :class:`~robustpca.diagnostics.
DiagnosticReference`), which fix the score-distance and orthogonal-distance cutoffs
:math:`c_{SD}, c_{OD}` at rrcov's quantile 0.975 (``DEFAULT_QUANTILE``). Then, for any
data, training or new:

* ``score_samples`` is minus the **outlyingness** :math:`\max(SD/c_{SD},\ OD/c_{OD})`
  (:attr:`~robustpca.diagnostics.OutlierDiagnostics.outlyingness`): the two distances
  in units of their cutoffs, so that they are comparable, and 1 on the cutoff;
* ``decision_function = score_samples - offset_``, and ``predict`` is -1 where it is
  negative, +1 elsewhere.

``contamination="auto"`` (the default) sets ``offset_ = -1``: ``predict`` flags a sample
exactly as :func:`~robustpca.diagnostics.outlier_diagnostics` does (beyond either rrcov
cutoff) and ``decision_function`` is :math:`1 - \max(SD/c_{SD},\ OD/c_{OD})`. A float
``contamination`` in (0, 0.5] sets ``offset_`` between the training scores so that
``predict`` flags that share of the training rows, :math:`\lfloor c\,n + 1/2 \rfloor` of
``n`` (for a fit with ``sample_weight``, :math:`c` times their total, rounded half up
where every weight is whole; rows whose scores tie at the threshold, up to rounding, are
all flagged or all kept, whichever count is nearer). Both
cutoffs are then multiplied by the same factor :math:`-\text{offset\_}`, so the share
chooses how far out the cutoffs sit and the diagnostics choose their shape. For another
quantile of the diagnostics themselves, use ``outlier_diagnostics(model, X,
quantile=q)``.

The estimators with a ``contamination`` parameter declare scikit-learn's
``"outlier_detector"`` estimator type, so :func:`~sklearn.base.is_outlier_detector` holds
and ``check_estimator`` runs its outlier checks on them; they pass with a float
``contamination`` (``tests/test_common.py``). With ``"auto"`` one of them,
``check_outliers_fit_predict``, can fail: it wants some of its 300 samples in three
compact blobs flagged, and rrcov's cutoffs rightly flag none for several estimators.

``reconstruction_error`` keeps the orthogonal distance alone (the
reconstruction error, lazy on Dask and in-namespace for array-API inputs); before
``contamination`` existed ``score_samples`` returned minus that.
"""

from __future__ import annotations

from typing import overload

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._docstrings import as_in_source
from .._validation import names_checked
from ..diagnostics import (
    DEFAULT_QUANTILE,
    diagnostic_reference,
    observed_counts,
    outlier_diagnostics,
)
from ..linalg.blocked import Projector, blas_matmul
from ..solvers.contamination_cut import (
    contamination_target,
    offset_at_cut,
    resolved_gaps,
    whole_weights,
)

__all__ = [
    "DENSITY_ATTRIBUTES",
    "DETECTOR_ATTRIBUTES",
    "OutlierDetectorMixin",
    "check_contamination",
    "contamination_offset",
    "with_detector_attributes",
]

#: The Attributes entries of what every fit sets for the detector API, one text for the
#: estimators' docstrings (:func:`with_detector_attributes`)
DETECTOR_ATTRIBUTES = """\
    n_missing_ : int
        Missing (NaN) entries in the training data (0 without).
    offset_ : float
        ``decision_function = score_samples - offset_``: -1 with
        ``contamination="auto"`` (rrcov's cutoffs), else set so that ``predict`` flags
        that share of the training rows.
"""

#: The Attributes entry of the estimators with a density (``score``), added to
#: :data:`DETECTOR_ATTRIBUTES` by :func:`with_detector_attributes`
DENSITY_ATTRIBUTES = """\
    noise_variance_ : float
        Variance of each coordinate orthogonal to the components in the Gaussian model
        of ``score`` (0 where the components span the data; ``get_covariance``).
"""


@overload
def with_detector_attributes(doc: str, density: bool = True) -> str: ...
@overload
def with_detector_attributes(doc: None, density: bool = True) -> None: ...
def with_detector_attributes(doc: str | None, density: bool = True) -> str | None:
    """``doc`` with its ``<detector attributes>`` line replaced by
    :data:`DETECTOR_ATTRIBUTES`, and :data:`DENSITY_ATTRIBUTES` where the estimator has
    a ``score`` (``density``)."""
    if doc is None:  # python -OO
        return None
    entries = DETECTOR_ATTRIBUTES + (DENSITY_ATTRIBUTES if density else "")
    return as_in_source(doc).replace("    <detector attributes>\n", entries)


#: The training distances are computed at fit by blocks of rows: at most 1/8 of the
#: data and 2**20 entries per block, so the pass adds little to the fit's peak memory.
#: Each block's two products read all of ``components_``, so blocks of few rows cost
#: more: PCP on the occluded 400 x 10,304 AT&T faces (204 components), one BLAS
#: thread, 0.24-0.27 s at 1/32 (13 rows), 0.14-0.17 s at 1/8 (50 rows).
_BLOCK_ELEMENTS = 1 << 20
_BLOCK_FRACTION = 8


def _block_rows(shape) -> int:
    n, d = shape[0], max(int(np.prod(shape[1:])), 1)
    return max(1, min(-(-n // _BLOCK_FRACTION), _BLOCK_ELEMENTS // d))


class OutlierDetectorMixin:
    """``score_samples`` from ``reconstruction_error``, and ``predict``/
    ``decision_function``/``fit_predict`` from the training diagnostics."""

    #: The BLAS library of the solver's products on tall data (``n_samples >=
    #: n_features``): ``"scipy"`` for the scatter route of
    #: :class:`~robustpca.linalg.WeightedPCAProblem`. The training distances at the end
    #: of ``fit`` use the same one, so that the threads of the other library are not
    #: woken between the last iteration and this pass ("One BLAS library per loop" in
    #: :mod:`robustpca.linalg.blocked`: PCA on 20,000 x 100 took 0.07-0.15 s at two
    #: BLAS threads against 0.03-0.04 s at one).
    _tall_fit_blas = "numpy"

    def _reference_distances(self, X):
        """Training scores and ODs as NumPy, by row blocks (no data-sized temporary).

        ``X`` is the validated training data (NumPy, or the input's array namespace for
        the estimators that fit there); the fitted arrays may be in ``X``'s namespace or
        on the host. Subclasses whose ``components_`` is expensive override this.
        """
        from .._array_api import to_numpy

        if getattr(self, "_supports_missing", False) and getattr(self, "n_missing_", 0):
            return _observed_distances(self, X)  # NaN in the training data
        if hasattr(self, "image_shape_"):  # 2-D estimators: image products, no components_
            return self._reference_distances_images(X)
        xp = _namespace(X)
        if xp is np:
            mean, comps = to_numpy(self.mean_), to_numpy(self.components_)
        else:
            mean, comps = self.mean_, self.components_
        n = X.shape[0]
        step = _block_rows(X.shape)
        scores, od = [], []
        projector = None
        if (
            xp is np
            and self._tall_fit_blas == "scipy"
            and X.ndim == 2
            and n >= X.shape[1]
            and X.dtype == mean.dtype == comps.dtype == np.float64
        ):
            projector = Projector(comps.T)
        for start in range(0, n, step):
            if projector is not None:  # SciPy's BLAS, in place on a C-ordered block
                Xc = np.subtract(X[start : min(start + step, n)], mean, order="C")
                scores.append(projector.project_out(Xc))
                od.append(np.einsum("ij,ij->i", Xc, Xc))
                continue
            Xc = X[start : min(start + step, n), ...] - mean
            T = Xc @ comps.T
            if xp is np:  # in place: two block-sized arrays at most
                Xc -= T @ comps
                sq = np.einsum("ij,ij->i", Xc, Xc)
            else:
                R = Xc - T @ comps
                sq = xp.sum(R * R, axis=1)
            scores.append(np.asarray(to_numpy(T), dtype=np.float64))
            od.append(np.asarray(to_numpy(sq), dtype=np.float64))
        return np.concatenate(scores), np.sqrt(np.concatenate(od))

    def _reference_distances_images(self, X):
        """Scores and ODs of the 2-D estimators by the image products, on the host."""
        from .._array_api import to_numpy
        from ..solvers.two_d import image_residuals, project_images

        X = np.asarray(to_numpy(X))
        left = None if self._left is None else np.asarray(to_numpy(self._left))
        right, mean = np.asarray(to_numpy(self.right_components_)), to_numpy(self.mean_)
        step = _block_rows(X.shape)
        scores, od = [], []
        for start in range(0, X.shape[0], step):
            E = (X[start : start + step] - mean).reshape(-1, *self.image_shape_)
            scores.append(project_images(E, left, right).reshape(E.shape[0], -1))
            od.append(image_residuals(E, left, right))
        return (
            np.concatenate(scores).astype(np.float64, copy=False),
            np.concatenate(od).astype(np.float64, copy=False),
        )

    def _score_metric(self) -> tuple[np.ndarray, np.ndarray] | tuple[None, None]:
        """The centre and scales of the training scores (their statistics in
        :mod:`robustpca.diagnostics`), or ``(None, None)`` before the training
        diagnostics exist (during ``fit``).

        A row with fewer than ``k`` observed coordinates fits a whole affine set of
        scores; ``transform`` and ``reconstruct`` take the one of smallest score
        distance, nearest the centre. The minimum-norm one sits at ``mean_``, which is
        no centre of the data for the estimators whose mean is only identified
        orthogonally to the subspace: RPCA-OM on hbk with a fifth of its cells missing
        put such rows at 28.7 in a column whose regular values lie in [0, 3.4], and
        flagged every one as a leverage point."""
        reference = getattr(self, "_outlier_reference", None)
        if reference is None:
            return None, None
        return reference.score_center, reference.score_scale

    def _set_outlier_reference(self, X, sample_weight=None) -> None:
        """Store ``_outlier_reference`` from the training data ``X`` (end of fit), with
        the frequency weights of the fit where it has them."""
        self._outlier_reference = None  # a refit: the last fit's metric (_score_metric)
        scores, od = self._reference_distances(X)
        from .._array_api import to_numpy

        skew = None
        if getattr(self, "_od_cutoff_rule", None) == "skew" and hasattr(
            self, "_skew_score_distances"
        ):
            with names_checked(self):  # X: validated at fit (a DataFrame's names checked)
                skew = np.asarray(to_numpy(self._skew_score_distances(X)), dtype=np.float64)
        if sample_weight is not None:
            sample_weight = np.asarray(to_numpy(sample_weight), dtype=np.float64)
            if sample_weight.ndim == 0:
                sample_weight = np.full(od.shape[0], float(sample_weight))
        counts = observed_counts(self, X) if getattr(self, "n_missing_", 0) else None
        self._outlier_reference = diagnostic_reference(
            self, scores, od, skew, sample_weight, n_observed=counts
        )
        store = getattr(self, "_set_likelihood_reference", None)
        if store is not None:  # the Gaussian model of score() (estimators/_likelihood.py)
            store(scores, od, sample_weight, counts)
        self._set_offset(X, sample_weight)

    def _set_offset(self, X, sample_weight=None) -> None:
        """``offset_`` from ``contamination`` (module docstring): -1 for ``"auto"``, else
        a value between the training ``score_samples`` (computed as ``predict`` will
        compute them, so the training rows are flagged by the same arithmetic)."""
        from .._array_api import to_numpy

        contamination = getattr(self, "contamination", "auto")
        if isinstance(contamination, str):  # "auto": rrcov's cutoffs (validated at fit)
            self.offset_ = -1.0
            return
        import array_api_compat
        from sklearn import config_context

        from .._array_api import _is_foreign, move_to

        mean = self.__dict__["mean_"]
        if _is_foreign(mean) and not _is_foreign(X):  # fitted on the host, moved back
            xp = array_api_compat.array_namespace(mean)
            X = move_to(X, xp=xp, device=array_api_compat.device(mean))
        with config_context(array_api_dispatch=_is_foreign(X)), names_checked(self):
            scores = np.asarray(to_numpy(self.score_samples(X)), dtype=np.float64)
        if sample_weight is not None:
            sample_weight = np.asarray(to_numpy(sample_weight), dtype=np.float64)
        self.offset_ = contamination_offset(scores, float(contamination), sample_weight)

    def _diagnose(self, X, method: str):
        """The diagnostics of ``X`` with the training cutoffs (``X=None``: only check
        that the model has them)."""
        from .._array_api import check_same_namespace

        check_is_fitted(self)
        if X is not None:
            check_same_namespace(X, self, attribute="mean_", method=method)
        if getattr(self, "_outlier_reference", None) is None:
            raise ValueError(
                f"This {type(self).__name__} has no training diagnostics for {method} "
                "(_outlier_reference, set at the end of fit): use "
                "robustpca.diagnostics.outlier_diagnostics(model, X, reference=X_train), "
                "or reconstruction_error for the orthogonal distances."
            )
        return None if X is None else outlier_diagnostics(self, X, quantile=DEFAULT_QUANTILE)

    def score_samples(self, X):
        r"""Typicality of each sample: minus its outlyingness :math:`\max(SD/c_{SD},\
        OD/c_{OD})` (higher = more typical; -1 on the rrcov cutoffs).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to score against the training cutoffs (a Dask array gives a lazy
            result; an array-API array one in its namespace).

        Returns
        -------
        ndarray of shape (n_samples,)
            The orthogonal distance alone is ``reconstruction_error``.
        """
        return self._score_samples(X, "score_samples")

    def _score_samples(self, X, method: str):
        """``score_samples``, with errors naming the public ``method`` called."""
        from .._validation import is_dask_collection

        if is_dask_collection(X):
            from .._dask import lazy_method

            self._diagnose(None, method)  # fitted, with training cutoffs
            return lazy_method(self, "score_samples", X)
        values = -self._diagnose(X, method).outlyingness
        dtype = _output_dtype(self, X)
        if dtype == np.float32:  # beyond float32's range: its largest, not an overflow
            big = float(np.finfo(np.float32).max)
            values = np.where(np.isfinite(values), np.clip(values, -big, big), values)
        return _to_input_namespace(values.astype(dtype, copy=False), X)

    def _decision(self, X, method: str):
        check_is_fitted(self, "offset_")
        return self._score_samples(X, method) - self.offset_

    def decision_function(self, X):
        r"""``score_samples(X) - offset_``: negative for the samples ``predict`` flags.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples whose score distance (SD) and orthogonal distance (OD) are compared
            with the training cutoffs.

        Returns
        -------
        ndarray of shape (n_samples,)
            With ``contamination="auto"``, :math:`1 - \max(SD/c_{SD},\ OD/c_{OD})`:
            zero at the cutoff, up to 1 at the centre.
        """
        return self._decision(X, "decision_function")

    def predict(self, X):
        """Outlier labels: -1 where ``decision_function`` is negative, +1 elsewhere.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to label, judged against the cutoffs and ``offset_`` fixed at ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,), dtype int
            With ``contamination="auto"``, ``-1`` exactly where
            :func:`~robustpca.diagnostics.outlier_diagnostics` (quantile 0.975, the
            training cutoffs) flags the sample.
        """
        from .._array_api import to_numpy
        from .._validation import is_dask_collection

        decision = self._decision(X, "predict")
        if is_dask_collection(decision):  # lazy, as the transforms
            import dask.array as da

            return da.where(decision < 0, -1, 1)
        labels = np.where(np.asarray(to_numpy(decision)) < 0, -1, 1)
        return _to_input_namespace(labels, X)

    def fit_predict(self, X, y=None, **kwargs):
        """Fit, then label the training samples (+1 inlier, -1 outlier).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, labelled after the fit.
        y : Ignored
        **kwargs
            Passed to ``fit`` (e.g. ``sample_weight`` for :class:`~robustpca.PCA`).

        Returns
        -------
        ndarray of shape (n_samples,), dtype int
        """
        return self.fit(X, **kwargs).predict(X)


def check_contamination(contamination) -> None:
    """``contamination`` is ``"auto"`` or a real in (0, 0.5]: a ``ValueError`` naming it."""
    import numbers

    if isinstance(contamination, str) and contamination == "auto":
        return
    if (
        isinstance(contamination, numbers.Real)
        and not isinstance(contamination, bool)
        and 0.0 < float(contamination) <= 0.5
    ):
        return
    raise ValueError(
        f"contamination must be 'auto' or a float in (0, 0.5] (the share of the training "
        f"rows to flag), got {contamination!r}."
    )


def contamination_offset(scores: np.ndarray, contamination: float, sample_weight=None) -> float:
    r"""The offset that flags ``contamination`` of the training rows (``scores < offset``).

    The count is :math:`c\,n` rounded half up; with sample weights, the weight of the
    flagged rows is nearest :math:`c` times the total, rounded half up where every
    weight is whole (frequency weights: the rows repeated)
    (:func:`~robustpca.solvers.contamination_cut.contamination_target`). The cut goes
    between two sorted scores that differ by more than rounding (relative
    :data:`~robustpca.solvers.contamination_cut.TIE_RTOL`), at the boundary of a group
    of ties nearest that count (the lower one on a tie), and at their midpoint, so that
    rounding differences of a recomputed score cannot move a row across it. Rows of
    weight 0 take no part, as if dropped. Always finite."""
    if sample_weight is None:
        w = np.ones(scores.shape[0])
    else:  # a row of weight 0 is no row: its score is no candidate cut (nor midpoint)
        w = np.broadcast_to(np.asarray(sample_weight, dtype=np.float64), scores.shape)
        scores, w = scores[w > 0], w[w > 0]
    n = scores.shape[0]
    if n == 0:  # no row of positive weight (fit rejects this): rrcov's cutoffs, as "auto"
        return -1.0
    order = np.argsort(scores, kind="stable")
    s, w = scores[order], w[order]
    cum = np.concatenate([[0.0], np.cumsum(w)])
    target = contamination_target(contamination, float(cum[-1]), whole_weights(w))
    # possible cuts j (rows s[:j] flagged): between scores distinct beyond rounding (rows
    # whose scores tie in exact arithmetic, such as those that set a skewed cutoff, come
    # out a few ulps apart in one route and equal in another), with s[j] finite
    cuts = np.flatnonzero(np.concatenate([[True], resolved_gaps(s), [True]]))
    cuts = cuts[(cuts == n) | np.isfinite(s[np.minimum(cuts, n - 1)])]
    j = int(cuts[np.argmin(np.abs(cum[cuts] - target))])  # first of the nearest
    return offset_at_cut(s, j)


def _output_dtype(model, X):
    """float32 for float32 data on a float32 model (as ``transform``), else float64."""
    from .._array_api import to_numpy

    x32 = str(getattr(X, "dtype", "")).endswith("float32")
    return np.float32 if x32 and to_numpy(model.mean_).dtype == np.float32 else np.float64


def _observed_distances(model, X):
    """Scores and corrected ODs of training data with NaN, on the host (the fit may have
    moved its attributes to the input's array namespace; the data came back here)."""
    from .._array_api import to_numpy
    from ..solvers.informative_coordinates import informative_counts, observed_od
    from ..solvers.missing import observed_fit

    Xh = np.asarray(to_numpy(X), dtype=np.float64)
    missing = np.isnan(Xh)
    comps = np.asarray(to_numpy(model.components_), dtype=np.float64)
    mean = np.asarray(to_numpy(model.mean_), dtype=np.float64)
    scipy_blas = model._tall_fit_blas == "scipy" and Xh.shape[0] >= Xh.shape[1]
    matmul = blas_matmul if scipy_blas else np.matmul  # the fit's library, as above
    constants = getattr(model, "_unmodelled_constants", None)
    counts = None if constants is None else informative_counts(missing, constants)[0]
    scores, _, r = observed_fit(Xh, missing, mean, comps, matmul=matmul, n_informative=counts)
    return scores, observed_od(r, Xh, missing, constants, comps.shape[0])


def _to_input_namespace(values: np.ndarray, X):
    """The host result in the namespace and on the device of ``X`` (array-API inputs)."""
    from .._array_api import input_namespace, move_to

    xp, device = input_namespace(X)
    return values if xp is None else move_to(values, xp=xp, device=device)


def _namespace(X):
    if isinstance(X, np.ndarray):
        return np
    import array_api_compat

    return array_api_compat.array_namespace(X)
