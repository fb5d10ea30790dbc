"""Spherical PCA (Locantore et al. 1999): PCA of the data projected on a sphere."""

from __future__ import annotations

import numpy as np

from .._validation import check_nonnegative_float
from ..solvers import SolverResult
from ..solvers.spherical import solve_spherical_pca
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes
from ._rrcov_common import ImputationEMMixin, RrcovFamilyMixin, with_imputation_doc

__all__ = ["SphericalPCA"]


class SphericalPCA(ImputationEMMixin, RrcovFamilyMixin, BaseSubspaceEstimator):
    r"""Spherical PCA: axes of the data projected on the unit sphere about the spatial median.

    Locantore, Marron, Simpson, Tripoli, Zhang & Cohen (1999), as rrcov's
    ``PcaLocantore`` computes it (:mod:`robustpca.solvers.spherical`): the spatial median
    :math:`m`, the sphered samples :math:`(x_i - m) / \lVert x_i - m\rVert`, their
    classical principal axes, and robust eigenvalues from the MAD of the scores. One SVD:
    the fastest robust PCA here, with a 50% breakdown point for the centre and the axes,
    but (as Locantore et al. note) the axes are those of the data only for elliptical
    distributions, and the eigenvalues are not consistent for the data's.

    The eigenvalues are the squared MAD of the *data's* scores, as Locantore et al.
    define them (sec. 2.3); rrcov (1.7-2, the version of the reference values in
    ``tests/reference``) takes the MAD of the sphered scores, which puts them on
    the unit sphere's scale: ``scale_on="sphere"`` reproduces rrcov, eigenvalues,
    distances and flags included. The axes, centre and an automatic ``k`` (rrcov's rule on
    the sphered data's classical eigenvalues) are rrcov's either way, but where one of
    the samples is the spatial median: the centre is then that sample, not the iterate
    near it where rrcov stops (:func:`~robustpca.solvers.spherical.spatial_median`).

    %(imputation)s

    Parameters
    ----------
    n_components : int, float, "auto" or None, default="auto"
        ``k``; ``"auto"`` is ``PcaLocantore(k = 0)``'s rule, a float in (0, 1) the share
        of the sphered data's variance, None every axis (rrcov's default).
    kmax : int or None, default=None
        Largest ``k`` the ``"auto"`` rule may choose; None is ``n_features`` (rrcov's
        default). A share is not capped, as in :class:`~robustpca.ROBPCA`.
    scale_on : {"data", "sphere"}, default="data"
        Scores whose MAD gives the eigenvalues (above). With ``"sphere"`` the
        diagnostics' cutoffs are rrcov's; with ``"data"`` the eigenvalues are not those
        of a consistent covariance, so the score distances take the rule of the
        estimators without consistent eigenvalues (:mod:`robustpca.diagnostics`,
        "scores"), which flags far fewer inliers beyond the chi-square cutoff.
    delta : float, default=1e-3
        Tolerance of the spatial median (rrcov's ``delta``): its Weiszfeld steps stop
        once a step is at most ``delta * sqrt(n_features)`` in the data's units, and
        distances below ``delta`` times their median are floored, as in rrcov. The
        fit therefore depends on the units: where the typical distance to the centre
        is well below one, the median stops after a step or two, short of the spatial
        median; a smaller ``delta`` (or the data in larger units) takes it closer.
    random_state : int, RandomState, Generator or None, default=None
        Only used to complete the basis when the data have fewer directions of variance
        than ``n_components``.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Principal axes of the sphered samples (orthonormal rows), by decreasing robust
        eigenvalue.
    mean_ : ndarray of shape (n_features,)
        Spatial median.
    explained_variance_ : ndarray of shape (n_components_,)
        Robust eigenvalues.
    <detector attributes>
    n_components_, n_features_in_, n_iter_ (spatial-median iterations), converged_,
    stop_reason_, objective_history_

    References
    ----------
    N. Locantore, J. S. Marron, D. G. Simpson, N. Tripoli, J. T. Zhang, K. L. Cohen,
    "Robust principal component analysis for functional data", Test 8(1), 1-73, 1999.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import SphericalPCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4)) * [4, 2, 0.3, 0.3]
    >>> X[:10] = [0, 0, 30, 30]
    >>> SphericalPCA(n_components=2).fit(X).predict(X)[:10].tolist()
    [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
    """

    __doc__ = with_imputation_doc(with_detector_attributes(__doc__))

    _dask_fit = "spherical"  # robustpca._dask.fit.FITS

    @property
    def _od_cutoff_rule(self) -> str | None:
        """rrcov's rule on rrcov's (sphere-scale) eigenvalues; the "scores" rule on
        Locantore's data-scale ones (``scale_on`` above)."""
        return "robust" if self.scale_on == "sphere" else None

    def _likelihood_from_scores(self) -> bool:
        """``scale_on="sphere"``: the eigenvalues are on the unit sphere's scale; ``score``
        takes the training scores' median and MAD."""
        return self.scale_on == "sphere"

    def __init__(
        self,
        n_components="auto",
        *,
        kmax=None,
        scale_on="data",
        delta=1e-3,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.kmax = kmax
        self.scale_on = scale_on
        self.delta = delta
        self.random_state = random_state
        self.contamination = contamination

    def _check_params(self) -> None:
        self._check_kmax()
        if self.scale_on not in ("data", "sphere"):
            raise ValueError(f"scale_on must be 'data' or 'sphere', got {self.scale_on!r}.")
        check_nonnegative_float(self.delta, "delta", strict=True)

    def _fit_solver(self, X, rng, sample_weight=None) -> SolverResult:
        fit = solve_spherical_pca(
            np.asarray(X, dtype=np.float64), scale_on=self.scale_on, delta=self.delta
        )
        return self._finish_axes(
            fit.components,
            fit.eigenvalues,
            fit.mean,
            fit.sphere_eigenvalues,
            fit.rank,
            rng,
            n_iter=fit.n_iter,
        )
