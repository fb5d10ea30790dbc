"""PCA-L1: principal components that maximise the L1 dispersion (Kwak, TPAMI 2008)."""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning

from .._validation import check_positive_int
from .._warnings import external_stacklevel
from ..solvers import StopReason
from ..solvers.l1_pca import solve_l1_pca, solve_l1_pca_missing
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes

__all__ = ["L1PCA"]


class L1PCA(BaseSubspaceEstimator):
    r"""PCA-L1: greedy maximisation of the L1-norm dispersion (Kwak 2008).

    Each component solves, on the centred data deflated by the previous components,

    .. math::
        w_j = \arg\max_{\lVert w \rVert_2 = 1} \sum_{i=1}^n \lvert w^\top x_i^{(j)} \rvert,
        \qquad x_i^{(j+1)} = x_i^{(j)} - w_j w_j^\top x_i^{(j)} ,

    with :math:`x_i^{(1)} = x_i - \bar x`. Kwak's fixed-point iteration alternates the
    polarities :math:`p_i = \operatorname{sign}(w^\top x_i)` and
    :math:`w = \sum_i p_i x_i / \lVert \sum_i p_i x_i \rVert` until the polarities stop
    changing; the objective never decreases (Theorem 1). A fixed point where some
    :math:`w^\top x_i = 0` is not a local maximum, so :math:`w` is then perturbed by a
    small random vector and the iteration resumes (Kwak's step 4(b)).

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components; ``None`` keeps ``min(n_samples, n_features)``.
    max_iter : int, default=1000
        Maximum number of fixed-point iterations *per component*.
    tol : float, default=0.0
        A component also stops when its objective grows by at most ``tol`` (relative)
        although some polarity changed. ``0`` keeps Kwak's criterion: polarities
        unchanged.
    max_perturbations : int, default=10
        Maximum number of random perturbations per component (Kwak's step 4(b)); ``0``
        disables them. The cap guarantees termination.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration (numbered across
        components), with ``state`` an :class:`~robustpca.solvers.IterationState`
        (``objective`` of the current component; ``components`` fitted so far plus the
        current one). Returning ``True`` stops the fit; the components not yet fitted
        are then Kwak's starting points.
    random_state : int, Generator or None, default=None
        Seeds the perturbations and the completion of the basis when the data have
        fewer than ``n_components`` directions of variance.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Orthonormal PCA-L1 directions, in the order they were found.
    mean_ : ndarray of shape (n_features,)
        The arithmetic mean of the training data. Kwak assumes centred data and does
        not estimate the centre robustly; this is the usual choice for PCA-L1.
    objective_history_ : ndarray of shape (n_iter_,)
        :math:`\sum_i |w^\top x_i^{(j)}|` after each iteration, component after
        component; non-decreasing within each component. With missing entries, one
        value per completion of the gaps instead: the dispersion
        :math:`\sum_{i,j} |w_j^\top (x_i - m)|` of the completed data (the callback
        still sees each component's iterations).
    n_iter_per_component_ : ndarray of shape (n_components,)
        Iterations spent on each component (``0`` for directions completed because
        the deflated data were zero), over every completion where there are missing
        entries; on complete data they split ``objective_history_``.
    n_perturbations_per_component_ : ndarray of shape (n_components,)
        Number of random perturbations used by each component.
    n_iter_ : int
        Total number of iterations, ``n_iter_per_component_.sum()``.
    converged_ : bool
        False when a component reached ``max_iter`` (a ``ConvergenceWarning`` is
        emitted) or the callback stopped the fit.
    <detector attributes>
    n_components_, n_features_in_, stop_reason_

    Notes
    -----
    Every iteration costs one product :math:`Xw` and one :math:`X^\top p`. The
    iteration starts from the sample with the largest norm, as Kwak suggests. Kwak's
    test ":math:`w^\top x_i = 0`" is applied with a relative tolerance
    :math:`\sqrt{\varepsilon}\,\lVert x_i\rVert` and skips samples of (numerically) zero
    norm, such as a sample lying on the mean, which are orthogonal to every direction
    (Nie & Huang). The perturbation is shorter than half the smallest relative margin
    :math:`|w^\top x_i| / \lVert x_i \rVert` of the other samples, so it only changes
    the polarities of the orthogonal samples and the objective still never decreases.
    Because the method is greedy, the first components do not depend on
    ``n_components`` (for a fixed ``random_state``).

    **Missing entries** (NaN in ``X``): EM. PCA-L1 is greedy with deflation, so each EM
    iteration runs the whole fit on the data completed by the current reconstruction
    (each row's least-squares fit on its observed coordinates), each direction starting
    from the previous completion's, until the L1 dispersion of the completion changes by
    at most ``1e-5`` relatively (:func:`~robustpca.solvers.l1_pca.solve_l1_pca_missing`).
    No monotone objective is claimed (the completion enters the maximised dispersion),
    and the sign patterns can cycle: where the dispersion repeats with a period of 2 to
    8 completions the fit keeps the cycle's completion of largest dispersion, and where
    it settles in neither way it stops after 50 completions; both with a
    ``ConvergenceWarning``.

    References
    ----------
    N. Kwak, "Principal component analysis based on L1-norm maximization", IEEE
    Transactions on Pattern Analysis and Machine Intelligence 30(9):1672-1680, 2008,
    the PCA-L1 algorithm (steps 1-4), Theorem 1 and its greedy extension to several
    features.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import L1PCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 5)) * [5.0, 2.0, 1.0, 0.5, 0.1]
    >>> model = L1PCA(n_components=2, random_state=0).fit(X)
    >>> model.components_.shape
    (2, 5)
    >>> bool(np.allclose(model.components_ @ model.components_.T, np.eye(2)))
    True
    >>> int(np.argmax(np.abs(model.components_[0])))
    0
    """

    __doc__ = with_detector_attributes(__doc__)

    _supports_missing = True

    def __init__(
        self,
        n_components=None,
        *,
        max_iter=1000,
        tol=0.0,
        max_perturbations=10,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol
        self.max_perturbations = max_perturbations
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        """PCA-L1 by EM on the observed entries (:func:`~robustpca.solvers.l1_pca.
        solve_l1_pca_missing`)."""
        check_positive_int(self.max_perturbations, "max_perturbations", minimum=0)
        result = solve_l1_pca_missing(
            X,
            missing,
            self.n_components_,
            rng=rng,
            max_iter=self.max_iter,
            tol=self.tol,
            max_perturbations=self.max_perturbations,
            callback=self.callback,
        )
        if not result.converged and result.stop_reason not in (
            StopReason.MAX_ITER,
            StopReason.CALLBACK,
        ):  # the EM's
            kept = (
                "the completion of largest dispersion in the cycle"
                if result.stop_reason.startswith("EM completions cycle")
                else "the last completion"
            )
            warnings.warn(
                f"L1PCA: {result.stop_reason} (PCA-L1's greedy signs can cycle "
                f"from one completion to the next); the fit uses {kept}.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )
        return result

    def _fit_solver(self, X, rng, sample_weight=None):
        check_positive_int(self.max_perturbations, "max_perturbations", minimum=0)
        return solve_l1_pca(
            X,
            self.n_components_,
            rng=rng,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=self.callback,
            max_perturbations=self.max_perturbations,
        )
