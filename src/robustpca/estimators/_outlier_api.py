r"""The outlier-detector API of every estimator: ``predict``, ``decision_function``,
``fit_predict``, on the diagnostics of :mod:`robustpca.diagnostics`.

At the end of ``fit`` each estimator stores the reference statistics of its training
data's diagnostics in ``_outlier_reference`` (the centre and scales of the scores and the
location and scale of the orthogonal distances; :class:`~robustpca.diagnostics.
DiagnosticReference`). ``predict`` then flags a sample of any data, training or new,
exactly as :func:`~robustpca.diagnostics.outlier_diagnostics` does, with the training
cutoffs at rrcov's quantile 0.975 (``DEFAULT_QUANTILE``): -1 beyond the score-distance
or the orthogonal-distance cutoff, +1 otherwise. For another quantile, use
``outlier_diagnostics(model, X, quantile=q).outliers``; a constructor parameter on
every estimator was judged too heavy for one number rrcov itself rarely changes.

``decision_function`` is :math:`1 - \max(SD / c_{SD},\ OD / c_{OD})`: negative for the
flagged samples, zero at the cutoff, positive inside; in units of the cutoffs, so the two
criteria are comparable.

This follows :class:`sklearn.base.OutlierMixin` (``fit_predict`` is ``fit(X).predict(X)``,
labels +1/-1) without declaring the ``"outlier_detector"`` estimator type: that type
promises ``decision_function = score_samples - offset_``, while ``score_samples`` keeps
its meaning across the library (minus the orthogonal distance, lazy on Dask and
in-namespace for array-API inputs), and the decision combines two distances.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..diagnostics import (
    DEFAULT_QUANTILE,
    diagnostic_reference,
    observed_counts,
    outlier_diagnostics,
)
from ..linalg.blocked import Projector, blas_matmul

__all__ = ["OutlierDetectorMixin"]

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
        diagnostics exist (during ``fit``, or after a Dask fit).

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

    def _diagnose(self, X, method: str):
        from .._array_api import check_same_namespace

        check_is_fitted(self)
        check_same_namespace(X, self, attribute="mean_", method=method)
        if getattr(self, "_outlier_reference", None) is None:
            raise ValueError(
                f"This {type(self).__name__} has no training diagnostics "
                "(_outlier_reference; a Dask fit does not compute them): use "
                "robustpca.diagnostics.outlier_diagnostics(model, X, reference=X_train)."
            )
        return outlier_diagnostics(self, X, quantile=DEFAULT_QUANTILE)

    def score_samples(self, X):
        """Typicality of each sample: minus its ``reconstruction_error`` (higher = typical).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to score; scikit-learn's outlier detectors use the same sign.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return -self.reconstruction_error(X)

    def predict(self, X):
        """Outlier labels: -1 beyond a diagnostic cutoff of the training data, +1 inside.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to label, judged against the cutoffs fixed at ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,), dtype int
            ``-1`` where :func:`~robustpca.diagnostics.outlier_diagnostics` (quantile
            0.975, the training cutoffs) flags the sample, ``+1`` elsewhere.
        """
        return _to_input_namespace(np.where(self._diagnose(X, "predict").outliers, -1, 1), X)

    def decision_function(self, X):
        r"""Margin to the cutoffs: :math:`1 - \max(SD/c_{SD},\ OD/c_{OD})`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples whose score distance (SD) and orthogonal distance (OD) are compared
            with the training cutoffs.

        Returns
        -------
        ndarray of shape (n_samples,)
            Negative for outliers, zero at the cutoff, up to 1 at the centre.
        """
        return _to_input_namespace(self._diagnose(X, "decision_function").margins, X)

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
