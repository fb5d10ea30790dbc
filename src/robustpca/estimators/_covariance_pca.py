"""PCA of a robust covariance matrix (rrcov's ``PcaCov``), the MCD by default."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import clone

from .._validation import MAX_ALLOCATED_COUNT, check_positive_int
from .._warnings import external_stacklevel
from ..linalg import svd_right
from ..solvers import SolverResult
from ..solvers.mcd import minimum_covariance_determinant, sorted_eigh
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes
from ._rrcov_common import ImputationEMMixin, RrcovFamilyMixin, with_imputation_doc

__all__ = ["CovariancePCA"]


class CovariancePCA(ImputationEMMixin, RrcovFamilyMixin, BaseSubspaceEstimator):
    r"""PCA of a robust covariance: the eigenvectors and eigenvalues of a robust scatter.

    The plug-in approach (Croux & Haesbroeck 2000): estimate the centre and covariance
    robustly, then take the eigen-decomposition, as rrcov's ``PcaCov``. By default the
    reweighted MCD exactly as robustbase computes it (``alpha=0.5``, 50% breakdown;
    :func:`robustpca.solvers.mcd.minimum_covariance_determinant`), so that the fit equals
    ``PcaCov``'s; any scikit-learn covariance estimator (an object with ``fit`` and the
    fitted ``location_`` and ``covariance_``, such as
    :class:`~sklearn.covariance.MinCovDet` or :class:`~sklearn.covariance.OAS`) can be
    passed instead.

    The MCD needs more samples than features (``n_samples > n_features + 1``; rrcov
    refuses ``n < p`` too); for wide data use :class:`~robustpca.ROBPCA`, which reduces
    the dimension first. Where every sample lies in a proper affine subspace (a constant
    column), the MCD is taken within it, where robustbase stops on the exact fit and
    returns the classical estimate: the fit is then that of the data without the
    degenerate directions.

    %(imputation)s

    Parameters
    ----------
    n_components : int, float, "auto" or None, default="auto"
        ``k``; ``"auto"`` is ``PcaCov(k = 0)``'s rule on the robust eigenvalues, a float in
        (0, 1) their share, None every axis (rrcov's default).
    covariance : "mcd" or estimator, default="mcd"
        The robust scatter.
    alpha : float in [0.5, 1], default=0.5
        Coverage of the MCD (``covariance="mcd"`` only).
    kmax : int or None, default=None
        Largest ``k`` the ``"auto"`` rule may choose; None is ``n_features`` (rrcov's
        default). A share is not capped, as in :class:`~robustpca.ROBPCA`.
    n_starts : int, default=500
        FAST-MCD random starts.
    random_state : int, RandomState, Generator or None, default=None
        Seeds FAST-MCD, and a ``covariance`` estimator whose own ``random_state`` is
        None (scikit-learn's ``MinCovDet``).
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
    mean_ : ndarray of shape (n_features,)
        Robust centre.
    covariance_ : ndarray of shape (n_features, n_features)
        Robust covariance.
    explained_variance_ : ndarray of shape (n_components_,)
        Its largest eigenvalues.
    support_ : ndarray of bool or None
        Samples kept by the reweighted MCD (None for another estimator): those within
        the cutoff of the raw fit, of which the reweighted estimates are the mean and
        covariance (robustbase's ``mcd.wt`` is taken again from the reweighted fit, and
        can hold others).
    <detector attributes>
    n_components_, n_features_in_, n_iter_ (1), converged_, stop_reason_,
    objective_history_

    References
    ----------
    C. Croux, G. Haesbroeck, "Principal component analysis based on robust estimators of
    the covariance or correlation matrix: influence functions and efficiencies",
    Biometrika 87(3), 603-618, 2000.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import CovariancePCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4)) * [4, 2, 0.3, 0.3]
    >>> X[:10] = [0, 0, 30, 30]
    >>> CovariancePCA(n_components=2, random_state=0).fit(X).predict(X)[:10].tolist()
    [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
    """

    __doc__ = with_imputation_doc(with_detector_attributes(__doc__))

    _dask_fit = "covariance"  # robustpca._dask.fit.FITS

    def __init__(
        self,
        n_components="auto",
        *,
        covariance="mcd",
        alpha=0.5,
        kmax=None,
        n_starts=500,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.covariance = covariance
        self.alpha = alpha
        self.kmax = kmax
        self.n_starts = n_starts
        self.random_state = random_state
        self.contamination = contamination

    def _check_params(self) -> None:
        self._check_kmax()
        check_positive_int(self.n_starts, "n_starts", maximum=MAX_ALLOCATED_COUNT)
        cov = self.covariance
        if isinstance(cov, str):
            if cov != "mcd":
                raise ValueError(f"covariance must be 'mcd' or an estimator, got {cov!r}.")
        elif not hasattr(cov, "fit"):
            raise TypeError(
                f"covariance must be 'mcd' or a covariance estimator with fit(), got {cov!r}."
            )
        alpha = self.alpha
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise TypeError(f"alpha must be a float in [0.5, 1], got {alpha!r}.")
        if not 0.5 <= float(alpha) <= 1.0:
            raise ValueError(f"alpha must lie in [0.5, 1], got {alpha!r}.")

    def _fit_solver(self, X, rng, sample_weight=None) -> SolverResult:
        X = np.asarray(X, dtype=np.float64)
        n, p = X.shape
        support: np.ndarray | None
        if isinstance(self.covariance, str):
            if n <= p + 1:
                raise ValueError(
                    f"CovariancePCA with the MCD needs n_samples > n_features + 1, got "
                    f"X of shape {X.shape}; use ROBPCA for wide data."
                )
            location, covariance, support = _mcd_in_affine_hull(X, self.alpha, self.n_starts, rng)
        else:
            est = clone(self.covariance)
            if est.get_params().get("random_state", False) is None:  # seeded from ours
                est.set_params(random_state=int(rng.integers(np.iinfo(np.int32).max)))
            est.fit(X)
            location, covariance = est.location_, est.covariance_
            support = getattr(est, "support_", None)
        self.support_ = support
        self.covariance_ = covariance
        values, vectors, negative = sorted_eigh((covariance + covariance.T) / 2.0)
        if negative < 0:
            warnings.warn(
                f"CovariancePCA: the covariance estimate is not non-negative definite "
                f"(eigenvalue {negative:.3g}; rrcov's PcaCov stops here): with "
                f"n_samples={n} for {p} features, robustbase's small-sample correction of "
                "the reweighted MCD is negative. Its negative eigenvalues are set to 0; "
                "use more samples than features, or ROBPCA.",
                UserWarning,
                stacklevel=external_stacklevel(),
            )
        rank = int(np.sum(values > p * np.finfo(np.float64).eps * max(values[0], 1e-300)))
        return self._finish_axes(vectors[:, :rank].T, values[:rank], location, values, rank, rng)


def _mcd_in_affine_hull(
    X: np.ndarray, alpha: float, n_starts: int, rng
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The reweighted MCD of ``X`` within the affine hull of its rows.

    Where every sample lies in a proper affine subspace (a constant column, a column that
    is a combination of others), every h-subset's covariance is singular and the MCD's
    criterion cannot choose among them: robustbase stops on the exact fit and returns
    the classical estimate of all the samples (rrcov's ``PcaCov`` on bushfire with a
    zero column flags rows 12, 13 and 15, none of the 12 it flags without it), and
    FAST-MCD's random starts returned an arbitrary one here (7 of the 12 flags changed).
    The MCD is affine equivariant, so it is taken in coordinates of the hull (rank by the
    singular values above ``max(n, p) eps`` of the largest, as :class:`~robustpca.PCA`)
    and mapped back: zero variance off the hull, the fit of the data without the
    degenerate directions on it. Data of full rank take the MCD as they are
    (robustbase's to the bit)."""
    centre = X.mean(axis=0)
    s, Vt = svd_right(X - centre)
    rank = int(np.sum(s > max(X.shape) * np.finfo(np.float64).eps * max(s[0], 1e-300)))
    if rank == 0:  # every sample the same point: no scatter, every sample on it
        return centre, np.zeros((X.shape[1],) * 2), np.ones(X.shape[0], dtype=bool)
    if rank == X.shape[1]:
        fit = minimum_covariance_determinant(X, alpha, n_starts=n_starts, random_state=rng)
        return fit.location, fit.covariance, fit.support
    V = Vt[:rank].T
    fit = minimum_covariance_determinant(
        (X - centre) @ V, alpha, n_starts=n_starts, random_state=rng
    )
    return centre + V @ fit.location, V @ fit.covariance @ V.T, fit.support
