"""ROBPCA (Hubert, Rousseeuw & Vanden Branden 2005): the high-breakdown robust PCA of rrcov."""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._array_api import host_copy, to_numpy
from .._validation import (
    MAX_ALLOCATED_COUNT,
    check_bool,
    check_positive_int,
    is_dask_collection,
)
from .._warnings import external_stacklevel
from ..linalg import complete_orthonormal
from ..solvers import SolverResult, StopReason
from ..solvers.robpca import (
    directionless,
    every_sample_kept,
    not_nonnegative_definite,
    solve_robpca,
)
from ._base import BaseSubspaceEstimator
from ._outlier_api import with_detector_attributes
from ._rrcov_common import ImputationEMMixin, with_imputation_doc

__all__ = ["ROBPCA"]


class ROBPCA(ImputationEMMixin, BaseSubspaceEstimator):
    r"""ROBPCA: projection pursuit for the h-subset, then a reweighted MCD in k dimensions.

    Hubert, Rousseeuw & Vanden Branden (2005), computed as R's rrcov ``PcaHubert``
    (version 1.7-2) computes it, so that the two give the same fit to rounding
    (:mod:`robustpca.solvers.robpca` lists the steps):

    1. the data are reduced to their affine span (an SVD, so ``n_features >
       n_samples`` works: the NIR spectra of octane are 39 x 226);
    2. the Stahel-Donoho outlyingness over directions through pairs of points picks the
       ``h`` least outlying samples (:mod:`robustpca.solvers.outlyingness`);
    3. their PCA gives a first subspace (and chooses ``k`` when it is automatic);
    4. samples close to it in orthogonal distance are refitted, and in the
       k-dimensional score space C-steps and a reweighted MCD
       (:mod:`robustpca.solvers.mcd`, robustbase's consistency and small-sample
       factors) give the final centre, loadings and eigenvalues.

    For data of small rank (at most ``min(n_samples / 5, kmax)``) rrcov replaces steps
    2-4 by the MCD of the reduced data; so does this estimator when ``mcd=True``.

    Choices where the paper or rrcov leave room, documented here:

    * ``alpha=None`` (the default) is rrcov's default: ``h = h_alpha_n(0.75, n, kmax)``
      whether or not ``k`` is given, and the coverage of the MCD steps ``h / n``; a
      float is an ``alpha`` passed to ``PcaHubert``: ``h = h_alpha_n(alpha, n, k)``
      and the MCD steps at ``alpha`` (rrcov's two conventions, kept so that both match);
      when an int ``n_components`` exceeds ``kmax``, ``kmax`` is raised to it (rrcov
      would lower ``k`` to ``kmax`` with a warning).
    * rrcov decides between the final MCD and a reweighting of the C-step fit by
      comparing the MCD's log-determinant with the C-steps' determinant; since a
      log-determinant is below a determinant of comparable size, rrcov in effect always
      takes the MCD, and so does this estimator.
    * FAST-MCD is robustbase's search with 500 random starts (scikit-learn's
      ``MinCovDet`` tries 30 and stops at a worse subset on two of the rrcov tables;
      :mod:`robustpca.solvers.mcd`).
    * the directions: rrcov's own deterministic pairs by default
      (``directions="rrcov"``), or pairs drawn from ``random_state``. Either way the
      pairs are chosen by row position, and ties in the outlyingness are broken by
      position, as in rrcov: the fit can change with the order of the rows, most on
      discrete data (``docs/design-notes/outlier-recommendation.md``).

    Breakdown: 50% at ``alpha = 0.5`` (``h`` about ``n / 2``), about 25% at the default
    0.75. A tight cluster of leverage points beyond ``1 - alpha`` of the data takes the
    fit over, as it does rrcov's; ``alpha=0.5`` resists larger clusters, breaking down
    where ``PcaHubert(alpha = 0.5)`` does (``tests/test_robpca.py``;
    ``docs/which-method.md``; ``docs/design-notes/estimator-options.md``).

    %(imputation)s

    Parameters
    ----------
    n_components : int, float, "auto" or None, default="auto"
        ``k``. ``"auto"`` is rrcov's ``k = 0`` rule on the h-subset's eigenvalues (the
        fewest components explaining 80% of the variance, at most ``kmax``, the
        eigenvalue-ratio guard); a float in (0, 1) is the share of that variance, with
        no cap (as in scikit-learn's ``PCA``; ``kmax`` still sets ``h``); ``None`` is
        ``min(n_samples, n_features)``, as an int. From ``n_samples - 1`` components
        the h-subset holds every sample and the fit is classical PCA, with a warning.
    alpha : float in [0.5, 1] or None, default=None
        Coverage: the fraction of samples the fit must describe (None: 0.75, with
        rrcov's default conventions above); ``1 - alpha`` is the
        fraction of outliers it resists.
    kmax : int, default=10
        Largest ``k`` the ``"auto"`` rule may choose; also sets ``h``.
    mcd : bool, default=True
        MCD shortcut for data of small rank (rrcov's ``mcd``; not used when ``skew``).
    skew : bool, default=False
        ROBPCA for skewed data (Hubert, Rousseeuw & Verdonck 2009; rrcov's ``skew=TRUE``):
        the skew-adjusted outlyingness (Hubert & Van der Veeken 2008, random hyperplane
        directions from ``random_state``) in place of the Stahel-Donoho one, the
        medcouple cutoff for the orthogonal distances, and the mean and covariance of
        the ``h`` least outlying samples in the k-dimensional space in place of the MCD.
        The diagnostics follow: the score distance is the adjusted outlyingness and both
        cutoffs are the adjusted boxplot's. Above 65,536 samples the medcouples are
        those of a random sample of that many rows from ``random_state``
        (:func:`~robustpca.solvers.outlyingness.medcouple_rows`; the medians and quartiles
        stay those of all rows), in memory and on Dask alike. Where sparse columns leave
        rows alone in some direction (affine leverage one), the hyperplanes are drawn
        through subsets that hold those rows, uniform among the regular subsets as
        robustbase's draws are (:func:`~robustpca.solvers.outlyingness.forced_rows`);
        uniform draws are then almost all singular. In memory, subsets that miss the rows
        where two columns differ from their most common value are skipped without an SVD
        (:class:`~robustpca.solvers.outlyingness.SupportTest`): they are singular, so
        the directions are the same. Where fewer than one drawn subset in ten is
        regular all the same, the rest are greedy bases of random orders of the rows
        (:func:`~robustpca.solvers.outlyingness.greedy_subsets`), not uniform among the
        regular subsets; robustbase stops with an error where its bound is reached.
        Above 16,777,216 values they come from a sample of the rows; where that sample
        does not span the space either, no direction is found and a ``UserWarning`` says
        so (every row's outlyingness is then 0).
    max_directions : int, default=250
        Directions of the outlyingness (rrcov's ``maxdir``).
    n_starts : int, default=500
        Random starts of FAST-MCD (robustbase's ``nsamp``).
    directions : {"rrcov", "random"}, default="rrcov"
        ``"rrcov"``: the pairs of rrcov's deterministic generator (all pairs when there
        are at most ``max_directions``), for results identical to ``PcaHubert``;
        ``"random"``: pairs drawn from ``random_state``.
    random_state : int, RandomState, Generator or None, default=None
        Seeds FAST-MCD (and the directions when ``directions="random"``).
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Robust loadings, by decreasing robust eigenvalue.
    mean_ : ndarray of shape (n_features,)
        Robust centre.
    explained_variance_ : ndarray of shape (n_components_,)
        Robust eigenvalues (rrcov's ``@eigenvalues``).
    n_components_ : int
        ``k``, given or chosen.
    rank_ : int
        Rank of the centred data.
    h_ : int
        Size of the h-subset.
    h_subset_ : ndarray of int
        Indices of the h least outlying training samples.
    outlyingness_ : ndarray of shape (n_samples,) or None
        Their Stahel-Donoho outlyingness (None in the MCD shortcut).
    support_ : ndarray of bool, shape (n_samples,)
        Samples kept by the final reweighted MCD: those within the cutoff of the raw
        fit, of which the reweighted estimates are the mean and covariance (robustbase's
        ``mcd.wt`` is taken again from the reweighted fit, and can hold others).
    initial_eigenvalues_ : ndarray
        Eigenvalues of the h-subset's PCA (rrcov's ``eig0``).
    <detector attributes>
    n_features_in_, n_iter_ (1), converged_ (True), stop_reason_, objective_history_

    Notes
    -----
    The outlier diagnostics (:mod:`robustpca.diagnostics`, ``predict``) are rrcov's for
    robust fits: score distances with ``explained_variance_``, the OD cutoff from the
    median and MAD of :math:`OD^{2/3}`; on the five rrcov tables the distances, cutoffs
    and flags equal ``PcaHubert``'s (``tests/test_robpca.py``).

    References
    ----------
    M. Hubert, P. J. Rousseeuw, K. Vanden Branden, "ROBPCA: a new approach to robust
    principal component analysis", Technometrics 47(1), 64-79, 2005.
    M. Hubert, P. J. Rousseeuw, T. Verdonck, "Robust PCA for skewed data and its outlier
    map", Computational Statistics & Data Analysis 53(6), 2264-2274, 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import ROBPCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 5)) * [5, 3, 1, 0.5, 0.2]
    >>> X[:10] += 40  # a cluster of leverage points
    >>> model = ROBPCA(n_components=2, random_state=0).fit(X)
    >>> bool((model.predict(X)[:10] == -1).all())
    True
    """

    __doc__ = with_imputation_doc(with_detector_attributes(__doc__))
    _dask_fit = "robpca"  # robustpca._dask.fit.FITS

    @property
    def _od_cutoff_rule(self) -> str:
        """rrcov's cutoffs: median/MAD of OD^(2/3), or the adjusted boxplot when skewed."""
        return "skew" if self.skew else "robust"

    def _likelihood_from_scores(self) -> bool:
        """``skew=True``: the eigenvalues are the plain covariance of the h-subset, as in
        rrcov, not consistent variances; ``score`` takes the training scores' own."""
        return bool(self.skew)

    def __init__(
        self,
        n_components="auto",
        *,
        alpha=None,
        kmax=10,
        mcd=True,
        skew=False,
        max_directions=250,
        n_starts=500,
        directions="rrcov",
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.kmax = kmax
        self.mcd = mcd
        self.skew = skew
        self.max_directions = max_directions
        self.n_starts = n_starts
        self.directions = directions
        self.random_state = random_state
        self.contamination = contamination

    def _check_params(self) -> None:
        alpha = self.alpha
        if alpha is None:
            pass
        elif isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise TypeError(f"alpha must be a float in [0.5, 1], got {alpha!r}.")
        elif not 0.5 <= float(alpha) <= 1.0:
            raise ValueError(f"alpha must lie in [0.5, 1], got {alpha!r}.")
        check_positive_int(self.kmax, "kmax")
        for name in ("max_directions", "n_starts"):
            check_positive_int(getattr(self, name), name, maximum=MAX_ALLOCATED_COUNT)
        for name in ("mcd", "skew"):
            check_bool(getattr(self, name), name)
        if self.directions not in ("rrcov", "random"):
            raise ValueError(f"directions must be 'rrcov' or 'random', got {self.directions!r}.")

    def _skew_score_distances(self, X) -> np.ndarray:
        """Adjusted outlyingness of ``X`` in the fitted k-dimensional space (``skew=True``):
        the score distance of skew-adjusted ROBPCA (rrcov's ``@sd = @ao``); 0 where the fit
        has no model of the scores to adjust (no direction of variance in the data, or an
        h-subset that is a single point)."""
        adjusted = getattr(self, "_adjusted", None)
        if adjusted is None and not self.skew:
            raise ValueError("the adjusted outlyingness exists for skew=True fits only.")
        if is_dask_collection(X):  # lazily, by the blocks of X
            from .._dask.transforms import lazy_skew_distances

            return lazy_skew_distances(self, X)
        # NumPy on the host, for an array-API X too (the caller takes its values)
        X = np.asarray(self._check_X(to_numpy(X), allow_nan=True), dtype=np.float64)
        if adjusted is None:
            return np.zeros(X.shape[0])
        missing = np.isnan(X)
        if missing.any():  # the gaps filled as reconstruct fills them (observed coordinates)
            X = np.where(missing, np.asarray(host_copy(self).reconstruct(X), dtype=float), X)
        return adjusted(X)

    def _select_n_components(self, X, spec, sample_weight=None) -> int:
        """Placeholder: ROBPCA chooses ``k`` mid-algorithm, on the h-subset's spectrum."""
        return 1

    def _fit_solver(self, X, rng, sample_weight=None) -> SolverResult:
        X = np.asarray(X, dtype=np.float64)
        n_samples, n_features = X.shape
        spec = self.n_components
        if spec is None:  # every direction, as for the other estimators
            spec = min(n_samples, n_features)
        kmax = self.kmax
        if isinstance(spec, numbers.Integral):
            spec = min(int(spec), n_samples, n_features)
            kmax = max(kmax, spec)
        result = solve_robpca(
            X,
            spec,
            alpha=self.alpha,
            kmax=kmax,
            mcd=self.mcd,
            skew=self.skew,
            max_directions=self.max_directions,
            n_starts=self.n_starts,
            rng=rng,
            direction_rng=rng if self.directions == "random" else None,
        )
        message = directionless(result.n_directions)
        if message:
            warnings.warn(message, UserWarning, stacklevel=external_stacklevel())
        if result.negative_eigenvalue < 0:
            message = not_nonnegative_definite(
                result.negative_eigenvalue, n_samples, result.n_components
            )
            warnings.warn(message, UserWarning, stacklevel=external_stacklevel())
        if result.h >= n_samples and result.n_components and (self.alpha or 0.75) < 1:
            message = every_sample_kept(n_samples, kmax)
            warnings.warn(message, UserWarning, stacklevel=external_stacklevel())
        components, eigenvalues = result.components, result.eigenvalues
        k = int(spec) if isinstance(spec, int) else max(result.n_components, 1)
        if components.shape[0] < k:  # fewer directions of variance than asked for
            basis = complete_orthonormal(components.T, k, rng)
            components = basis.T
            eigenvalues = np.concatenate([eigenvalues, np.zeros(k - eigenvalues.size)])
        self.n_components_ = k
        self.rank_ = result.rank
        self.h_ = result.h
        self.h_subset_ = result.h_subset
        self.outlyingness_ = result.outlyingness
        self.support_ = result.mcd_support
        self.initial_eigenvalues_ = result.initial_eigenvalues
        self._adjusted = result.adjusted
        self._medcouple_rows = result.medcouple_rows
        return SolverResult(
            components=components[:k],
            mean=result.mean,
            weights=None,
            n_iter=1,
            converged=True,
            stop_reason=StopReason.CLOSED_FORM,
            objective=np.array([float(np.sum(eigenvalues[:k]))]),
            info={"explained_variance": eigenvalues[:k]},
        )
