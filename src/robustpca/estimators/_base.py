"""The estimator contract shared by every subspace method in robustpca.

A subclass implements ``_fit_solver(X, rng, sample_weight) -> SolverResult``; the base
class validates the input, draws the random generator, stores the fitted attributes,
warns when the iteration cap is hit, and provides ``transform``,
``inverse_transform``, ``reconstruction_error`` and ``score_samples``.

float32 input is fitted without a float64 copy where the solver allows it and every
floating fitted attribute is float32; other dtypes become float64. Arrays of another
array-API namespace (with ``sklearn.config_context(array_api_dispatch=True)``) are
solved on the host and the fitted attributes moved back to their namespace and device;
the transforms then run in that namespace (:mod:`robustpca._array_api`).
"""

from __future__ import annotations

import numbers
import warnings
from abc import abstractmethod

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from .._array_api import (
    FLOAT_DTYPES,
    check_same_namespace,
    finish_fit,
    float_dtypes,
    get_namespace,
    get_namespace_and_device,
    input_namespace,
    to_numpy,
)
from .._validation import (
    as_generator,
    check_coordinates,
    check_magnitude,
    check_n_components,
    check_nonnegative_float,
    check_observed,
    check_positive_int,
    column_ranges,
    is_dask_collection,
    missing_mask,
    weighted_rows,
)
from .._warnings import external_stacklevel
from ..linalg import flip_component_signs
from ..rank_selection import select_n_components, spherical_spectrum
from ..solvers import SolverResult, StopReason
from ..solvers.informative_coordinates import (
    constant_columns,
    informative_counts,
    model_constants,
    observed_od,
)
from ..solvers.missing import initial_fill, observed_fit
from ._lazy import _lazy_on_dask
from ._likelihood import LikelihoodScoreMixin
from ._outlier_api import OutlierDetectorMixin, check_contamination

__all__ = ["BaseSubspaceEstimator"]


def _is_linear(estimator) -> bool:
    """``available_if`` check of the methods that map back to the input space."""
    return estimator._linear_model


def warn_if_all_capped(result: SolverResult, threshold, *, unit: str) -> None:
    """Warn when a capped-loss fit stopped because every ``unit``'s residual reached the
    cap (``StopReason.ALL_CAPPED``): all weights are zero, the last subspace with a
    positive weight is returned."""
    if result.stop_reason == StopReason.ALL_CAPPED:
        warnings.warn(
            f"Every {unit}'s residual reached threshold={threshold}: all weights are zero "
            "and the last subspace with a positive weight is returned. Increase threshold.",
            UserWarning,
            stacklevel=external_stacklevel(),
        )


class BaseSubspaceEstimator(
    LikelihoodScoreMixin,
    OutlierDetectorMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    BaseEstimator,
):
    r"""Common machinery: validation, fitted attributes, projection and diagnostics.

    ``n_components`` may be an int, None (all), a float in ``(0, 1)`` (the share of the
    variance to keep) or ``"auto"`` (rrcov's rule: at least 80% of the variance, at most
    ``kmax = 10`` components, the eigenvalue-ratio guard;
    :func:`~robustpca.rank_selection.select_n_components`). The share and ``"auto"``
    are taken of a robust spectrum: by default that of spherical PCA
    (:func:`~robustpca.rank_selection.spherical_spectrum`, one SVD, 50% breakdown),
    because the reweighting and convex methods have no consistent eigenvalues and a
    full-rank preliminary fit would cost a fit; :class:`~robustpca.PCA` uses its own
    (classical) eigenvalues. Methods that choose their rank themselves set
    ``_supports_auto_rank = False`` and raise a ``ValueError``.

    The estimators are outlier detectors as well (``predict``, ``decision_function``,
    ``fit_predict``; :mod:`robustpca.estimators._outlier_api`), on the diagnostics of
    :mod:`robustpca.diagnostics` with the training statistics stored at fit.

    **Missing entries.** Estimators with ``_supports_missing`` (the ``allow_nan`` input
    tag; the user guide's "Missing entries" page lists them) fit ``X`` with NaN on its
    observed entries (each class says how; :mod:`robustpca.solvers.missing`)
    and accept rows with NaN in every method: ``transform`` gives the least-squares
    scores of the observed coordinates (``components_[:, observed]``), ``reconstruct``
    fills the gaps with the fitted values, ``reconstruction_error`` is the observed
    residual norm times :math:`\sqrt{(p - k) / (p_O - k)}` for ``p_O`` observed of
    ``p`` coordinates (:func:`~robustpca.solvers.informative_coordinates.od_correction`:
    the degrees of freedom left by a ``k``-score fit, so the OD is on the scale of a
    complete row's and of the training cutoff; the constant training columns that the
    model does not use count as uninformative, and a row's deviation from such a
    constant adds to its OD as it is,
    :func:`~robustpca.solvers.informative_coordinates.observed_od`), and so
    ``score_samples``, ``predict``,
    ``decision_function`` and :mod:`robustpca.diagnostics`. A row (or, at fit, a
    column) with no observed entry is a ``ValueError`` naming it. Rows without NaN take
    the complete-data formulas unchanged; the others reject NaN as scikit-learn does.

    :meth:`fit` sets the attributes below.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Orthonormal rows spanning the fitted subspace.
    mean_ : ndarray of shape (n_features,)
        Fitted offset (centre) of the subspace.
    n_components_ : int
        Number of components fitted.
    n_features_in_ : int
        Number of features seen during fit.
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether a convergence criterion stopped the solver.
    stop_reason_ : str
        Why the solver stopped, in words.
    objective_history_ : ndarray
        Value of the method's objective after each iteration.
    weights_ : ndarray of shape (n_samples,)
        Per-sample weights learned by reweighting methods (absent otherwise).
    n_missing_ : int
        Number of missing (NaN) entries of the training data.
    offset_ : float
        ``decision_function = score_samples - offset_``: -1 with
        ``contamination="auto"`` (rrcov's cutoffs), else the threshold that flags that
        share of the training rows (:mod:`robustpca.estimators._outlier_api`).

    ``fit`` also keeps the reference statistics of the training data's outlier
    diagnostics in the private ``_outlier_reference``, for ``predict`` and
    ``decision_function`` (a Dask fit takes them by exact counting passes,
    :mod:`robustpca._dask.reference`, and counts those in ``n_passes_``).
    """

    #: Whether ``n_components`` may be a variance share or ``"auto"``.
    _supports_auto_rank = True
    #: rrcov's ``kmax`` for ``n_components="auto"`` (``PcaHubert``'s default).
    _auto_rank_kmax = 10
    #: Whether ``fit`` and the transforms accept NaN as missing entries (the subclass
    #: then implements ``_fit_solver_missing``); others reject NaN as scikit-learn does.
    _supports_missing = False
    #: Whether ``n_components`` is the rank the fit identifies, so that a fit with
    #: missing entries needs the observed entries to outnumber the parameters of that
    #: rank (:func:`~robustpca._validation.check_observed`). The convex estimators
    #: choose their rank by a penalty and clear it: only empty rows and columns stop them.
    _n_components_is_rank = True
    #: The name of the class's chunked fit in :data:`robustpca._dask.fit.FITS`, or None
    #: (a dask array is then refused). A subclass that overrides ``_fit_solver`` without
    #: naming its own chunked fit has none: the inherited one would fit another method.
    _dask_fit: str | None = None
    #: Whether ``components_`` and ``mean_`` live in the input space, so that
    #: ``inverse_transform`` and ``reconstruct`` exist (not for a kernel model).
    _linear_model = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_fit_solver" in vars(cls) and "_dask_fit" not in vars(cls):
            cls._dask_fit = None

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None) -> SolverResult:
        """Run the method's solver on data with missing entries (``missing`` is True
        where ``X`` is NaN); only called when ``_supports_missing``."""
        raise NotImplementedError  # pragma: no cover - guarded by _supports_missing

    @abstractmethod
    def _fit_solver(self, X, rng, sample_weight=None) -> SolverResult:
        """Run the method's solver on validated float64 or float32 NumPy data."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.array_api_support = True
        tags.input_tags.allow_nan = bool(self._supports_missing)
        if "contamination" in self.get_params(deep=False):  # the detector API (_outlier_api)
            tags.estimator_type = "outlier_detector"
        return tags

    @property
    def _finite(self):
        """``validate_data``'s ``ensure_all_finite``: NaN passes where it is supported."""
        return "allow-nan" if self._supports_missing else True

    def _validate_common(self) -> None:
        """Check the iteration parameters every iterative estimator shares."""
        if hasattr(self, "max_iter"):
            check_positive_int(self.max_iter, "max_iter")
        if hasattr(self, "tol"):
            check_nonnegative_float(self.tol, "tol")
        if getattr(self, "callback", None) is not None and not callable(self.callback):
            raise TypeError(f"callback must be callable or None, got {self.callback!r}.")
        check_contamination(getattr(self, "contamination", "auto"))

    def _fit(self, X, sample_weight=None):
        if is_dask_collection(X):
            from .._dask import fit_dask  # the chunked, out-of-core route (issue 6)
            from .._dask.reference import set_outlier_reference

            self._validate_common()
            self._outlier_reference = self._likelihood_reference = None
            self.__dict__.pop("offset_", None)
            if is_dask_collection(sample_weight) and sample_weight.ndim == 0:
                sample_weight = np.asarray(sample_weight.compute())  # one number, as NumPy's
            fit_dask(self, X, sample_weight)
            # the training diagnostics and offset_ by exact counting passes
            set_outlier_reference(self, X, sample_weight)
            return X
        self.__dict__.pop("n_passes_", None)  # a Dask fit's, not this one's
        xp, device = input_namespace(X)
        # weights on a device NumPy cannot read (a GPU's) cross to the host once, here
        sample_weight = to_numpy(sample_weight)
        # estimators with a namespace solver fit array-API data where they are
        # (robustpca.array_api_linalg); only the fitted arrays cross to the host
        in_namespace = (
            xp is not None and hasattr(self, "_fit_solver_namespace") and sample_weight is None
        )
        ranges = None  # the column ranges of NumPy data with no NaN (column_ranges)
        if in_namespace:
            if callable(getattr(X, "detach", None)):  # PyTorch: the fit takes no gradient
                X = X.detach()
            X = validate_data(
                self,
                X,
                dtype=float_dtypes(xp, device),  # the device's widest float for ints
                ensure_min_samples=2,
                reset=True,
                ensure_all_finite=self._finite,
            )
            check_magnitude(X)
            if self._supports_missing and bool(xp.any(xp.isnan(X))):
                X, in_namespace = to_numpy(X), False  # fitted on the host (solvers.missing)
        else:
            X = validate_data(
                self,
                to_numpy(X),
                dtype=FLOAT_DTYPES,
                ensure_min_samples=2,
                reset=True,
                ensure_all_finite=self._finite,
            )
            ranges = column_ranges(X) if self._supports_missing else None
            check_magnitude(X, ranges=ranges)
        self._validate_common()
        with_gaps = self._supports_missing and not in_namespace and ranges is None
        missing = missing_mask(X) if with_gaps else None
        n_samples, n_features = X.shape
        # n_components=None: as many as the rows the weights make (a row of weight 0 is
        # no row, one of weight 2 two rows), or the features
        spec = self._check_n_components(weighted_rows(sample_weight, n_samples), n_features)
        if missing is not None:
            rank = spec if isinstance(spec, numbers.Integral) else 1
            check_observed(missing, rank if self._n_components_is_rank else n_features)
        if isinstance(spec, numbers.Integral):
            self.n_components_ = int(spec)
        else:
            X_rank = X if missing is None else initial_fill(X, missing)
            self.n_components_ = self._select_n_components(X_rank, spec, sample_weight)
        rng = as_generator(getattr(self, "random_state", None))
        self.n_missing_ = 0 if missing is None else int(missing.sum())
        if missing is not None:
            self._store(self._fit_solver_missing(X, missing, rng, sample_weight))
            dtype = X.dtype
        elif in_namespace:
            self._store(self._fit_solver_namespace(X, xp, device, rng))
            dtype = np.float32 if X.dtype == xp.float32 else np.float64
        else:
            self._store(self._fit_solver(X, rng, sample_weight))
            dtype = X.dtype
        finish_fit(self, dtype, xp, device)
        self._unmodelled_constants = (
            self._model_constants(X, xp if in_namespace else np, ranges)
            if self._supports_missing
            else None
        )
        self._set_outlier_reference(X, sample_weight)
        return X

    def _model_constants(self, X, xp, ranges=None):
        """The training data's constant columns that the fitted model does not use
        (:func:`~robustpca.solvers.informative_coordinates.model_constants`): their
        entries count as unobserved in the fits and diagnostics of rows with NaN
        (``ranges``: the column ranges of ``X``, where the fit has them)."""
        if xp is np:
            constants = constant_columns(X, ranges=ranges)
        else:  # only the column ranges cross from the device
            ranges = [np.asarray(to_numpy(f(X, axis=0))) for f in (xp.min, xp.max)]
            constants = constant_columns(np.stack(ranges).astype(np.float64))
        mean = np.asarray(to_numpy(self.mean_), dtype=np.float64)
        return model_constants(constants, mean, np.asarray(to_numpy(self.components_)))

    def _check_n_components(self, n_samples: int, n_features: int) -> int | float | str:
        """``n_components`` checked against the data shape: the number of components, or
        a variance share or ``"auto"`` to resolve on a spectrum."""
        return check_n_components(
            self.n_components,
            n_samples,
            n_features,
            allow_auto=self._supports_auto_rank,
            owner=type(self).__name__,
        )

    def _rank_spectrum(self, X, sample_weight=None) -> tuple[np.ndarray, int | None]:
        """Eigenvalues (and rank) that a variance share or ``"auto"`` is taken of."""
        return spherical_spectrum(to_numpy(X))

    def _select_n_components(self, X, spec, sample_weight=None) -> int:
        """Resolve a variance share or ``"auto"`` into the number of components."""
        eigenvalues, rank = self._rank_spectrum(X, sample_weight)
        k = select_n_components(eigenvalues, spec, kmax=self._auto_rank_kmax, rank=rank)
        return min(k, *X.shape)

    def fit(self, X, y=None):
        """Fit the model to ``X`` of shape (n_samples, n_features).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; never modified.
        y : Ignored
            Present for scikit-learn API consistency.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._check_params()
        self._fit(X)
        return self

    def _check_params(self) -> None:
        """Check the estimator's own parameters before ``X`` is read (a ``ValueError`` or
        ``TypeError`` naming the parameter); the iteration parameters that every
        iterative estimator shares are checked by ``_validate_common``."""

    def _store(self, result: SolverResult) -> None:
        # a refit drops what only the last fit's route stored (PCP fitted on complete
        # data, then with gaps, kept the first fit's residuals_ trace)
        for name in getattr(self, "_route_attributes", ()):
            self.__dict__.pop(name, None)
        self._store_components(result.components)
        self.mean_ = result.mean
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.stop_reason_ = result.stop_reason
        self.objective_history_ = np.asarray(result.objective, dtype=float)
        stored = [f"{key}_" for key in result.info]
        if result.weights is not None:
            self.weights_ = result.weights
            stored.append("weights_")
        for key, value in result.info.items():
            setattr(self, f"{key}_", value)
        self._route_attributes = tuple(stored)
        if result.stop_reason == StopReason.MAX_ITER:
            # the limit set, not n_iter_: PCA-L1 counts every component's iterations,
            # PCA-GM with gaps every pass's (L1PCA(max_iter=1) used to say max_iter=3)
            limit = getattr(self, "max_iter", None)
            limit = self.n_iter_ if limit is None else limit
            counted = "" if limit == self.n_iter_ else f" ({self.n_iter_} iterations in all)"
            warnings.warn(
                f"{type(self).__name__} reached max_iter={limit}{counted} before its "
                f"stopping criterion fell below tol={getattr(self, 'tol', None)}; "
                "increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )
        elif result.stop_reason == StopReason.OBJECTIVE_ROSE:
            warnings.warn(
                f"{type(self).__name__} stopped after {self.n_iter_} iterations: "
                f"{result.stop_reason}. With missing entries, fills growing without bound "
                "mean the fit has no minimiser on these gaps: choose a smaller "
                "n_components, or a method with a penalty. Without smoothing (epsilon or "
                "delta 0), use the default.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )

    def _store_components(self, components: np.ndarray) -> None:
        """Set ``components_`` from the solver's (overridden where it is derived)."""
        self.components_ = flip_component_signs(np.ascontiguousarray(components))

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def _check_X(self, X, *, allow_nan: bool = False):
        """Validated ``X`` on the host; NaN passes with ``allow_nan`` where the estimator
        supports missing entries."""
        check_is_fitted(self)
        finite = self._finite if allow_nan else True
        X = to_numpy(X)  # as in fit: a float32 tensor stays float32 (validate_data can't tell)
        X = validate_data(self, X, dtype=FLOAT_DTYPES, reset=False, ensure_all_finite=finite)
        check_magnitude(X)
        return X

    def _check_X_namespace(self, X, method: str):
        """Validated ``X`` in its own array namespace (that of the fitted attributes)."""
        check_is_fitted(self)
        check_same_namespace(X, self, attribute="components_", method=method)
        if input_namespace(X)[0] is None:  # NumPy's rules, by fit's own conversion
            X = to_numpy(X)
        xp, _, device = get_namespace_and_device(X, self.components_)
        dtypes = float_dtypes(xp, device)  # as in fit: float32 on a device without float64
        X = validate_data(self, X, dtype=dtypes, reset=False, ensure_all_finite=self._finite)
        check_magnitude(X)
        return X, xp

    def _fitted_in(self, X, xp):
        """``mean_`` and ``components_`` in the dtype that ``X``'s and theirs promote to
        (NumPy's rule: float64 input on a float32 model gives float64, as a NumPy model
        does). ``X - mean`` then promotes ``X`` (the array API's rule for elementwise
        operations, with no copy of ``X``), and every product has operands of one dtype:
        PyTorch's ``matmul`` does not promote."""
        dtype = xp.result_type(X.dtype, self.components_.dtype, self.mean_.dtype)
        return _as_dtype(self.mean_, dtype, xp), _as_dtype(self.components_, dtype, xp)

    def _observed(self, X, xp):
        """:func:`~robustpca.solvers.missing.observed_fit` of ``X`` when it has NaN (the
        scores, the reconstruction and the corrected orthogonal distances, on the host),
        else None (the complete-data formulas apply unchanged). A row with fewer than
        ``k`` observed coordinates gets the scores of smallest score distance
        (:meth:`_score_metric`)."""
        if not self._supports_missing or not bool(xp.any(xp.isnan(X))):
            return None
        Xh = np.asarray(to_numpy(X), dtype=np.float64)
        missing = np.isnan(Xh)
        check_observed(missing, None, where="X")
        mean = np.asarray(to_numpy(self.mean_), dtype=np.float64)
        comps = np.asarray(to_numpy(self.components_), dtype=np.float64)
        centre, scale = self._score_metric()
        constants = getattr(self, "_unmodelled_constants", None)
        counts = None if constants is None else informative_counts(missing, constants)[0]
        scores, fitted, r = observed_fit(
            Xh,
            missing,
            mean,
            comps,
            centre=centre,
            scale=scale,
            n_informative=counts,
        )
        od = observed_od(r, Xh, missing, constants, comps.shape[0])
        dtype = xp.result_type(X.dtype, self.components_.dtype)  # as the complete rows'
        return tuple(_back(a, X, xp, dtype) for a in (scores, fitted, od))

    @_lazy_on_dask
    def transform(self, X):
        """Coordinates of ``X`` in the fitted subspace: ``(X - mean_) @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New samples; NaN marks a missing entry where the estimator supports them
            (least-squares scores of each row's observed coordinates).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        X, xp = self._check_X_namespace(X, "transform")
        observed = self._observed(X, xp)
        if observed is not None:  # least squares on each row's observed coordinates
            return observed[0]
        mean, components = self._fitted_in(X, xp)
        return (X - mean) @ components.T

    @available_if(_is_linear)
    @_lazy_on_dask
    def inverse_transform(self, X):
        """Map subspace coordinates back: ``X @ components_ + mean_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        check_same_namespace(X, self, attribute="components_", method="inverse_transform")
        if input_namespace(X)[0] is None:
            X = to_numpy(X)
        xp, _ = get_namespace(X, self.components_)
        Z = check_coordinates(X, self.components_.shape[0], xp, self.components_.dtype)
        mean, components = self._fitted_in(Z, xp)
        return _as_dtype(Z, components.dtype, xp) @ components + mean

    @available_if(_is_linear)
    @_lazy_on_dask
    def reconstruct(self, X):
        """Projection of ``X`` on the fitted affine subspace (denoised samples).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; NaN marks a missing entry where the estimator supports them (a row's
            projection is then fitted on its observed coordinates and fills the gaps).

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        X, xp = self._check_X_namespace(X, "reconstruct")
        observed = self._observed(X, xp)
        if observed is not None:  # the fit of the observed coordinates fills the gaps
            return observed[1]
        mean, components = self._fitted_in(X, xp)
        return ((X - mean) @ components.T) @ components + mean

    def _transform_and_distances(self, X):
        """``(transform(X), reconstruction_error(X))`` from one validation of ``X`` (one
        feature-name check, one observed fit of the rows with gaps); the two calls on a
        dask array or where the two methods are not the linear model's
        (``_linear_model`` False, or an override)."""
        if is_dask_collection(X) or not self._linear_model:
            return self.transform(X), self.reconstruction_error(X)
        X, xp = self._check_X_namespace(X, "transform")
        observed = self._observed(X, xp)
        if observed is not None:
            return observed[0], observed[2]
        mean, components = self._fitted_in(X, xp)
        Xc = X - mean
        scores = Xc @ components.T
        return scores, xp.linalg.vector_norm(Xc - scores @ components, axis=1)

    @_lazy_on_dask
    def reconstruction_error(self, X):
        """Per-sample l2 norm of ``x - mean_ - P (x - mean_)`` (the orthogonal distance).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; for a row with NaN (where supported) the observed residual, scaled by
            :func:`~robustpca.solvers.informative_coordinates.od_correction`.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X, xp = self._check_X_namespace(X, "reconstruction_error")
        observed = self._observed(X, xp)
        if observed is not None:  # observed coordinates, corrected (od_correction)
            return observed[2]
        mean, components = self._fitted_in(X, xp)
        Xc = X - mean
        residual = Xc - (Xc @ components.T) @ components
        return xp.linalg.vector_norm(residual, axis=1)


def _as_dtype(a, dtype, xp):
    """``a`` cast to ``dtype`` in its namespace ``xp`` (itself where it has it)."""
    return a if a.dtype == dtype else xp.astype(a, dtype)


def _back(values: np.ndarray, X, xp, dtype):
    """A host result in the namespace (and dtype) of the validated input ``X``."""
    if xp is np or isinstance(X, np.ndarray):
        return values.astype(dtype, copy=False)
    from .._array_api import move_to

    out = move_to(values.astype(np.float64, copy=False), xp=xp, device=xp_device(X))
    return out if out.dtype == dtype else xp.astype(out, dtype)


def xp_device(X):
    import array_api_compat

    return array_api_compat.device(X)
