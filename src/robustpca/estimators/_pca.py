"""Classical (weighted) PCA with the diagnostic interface of the robust estimators."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from .._array_api import max_precision_float_dtype, to_numpy
from .._validation import check_sample_weight
from .._warnings import external_stacklevel
from ..array_api_linalg import ArrayAPIWeightedPCAProblem
from ..linalg import RANK_RTOL
from ..rank_selection import select_n_components
from ..solvers import solve_weighted_pca
from ..solvers.missing import solve_weighted_pca_missing
from ._base import BaseSubspaceEstimator
from ._incremental import IncrementalMixin
from ._outlier_api import with_detector_attributes

__all__ = ["PCA"]


class PCA(IncrementalMixin, BaseSubspaceEstimator):
    r"""Principal component analysis with optional per-sample weights.

    Solves problem (4) of Nie et al. (2014), with weights:

    .. math::
        \min_{b,\; U^\top U = I} \sum_i w_i \lVert (I - UU^\top)(x_i - b)\rVert_2^2 ,

    whose solution is the weighted mean and the top eigenvectors of the weighted
    scatter matrix. With integer weights this equals PCA on the data with every row
    repeated ``w_i`` times (scikit-learn's ``PCA`` has no ``sample_weight``).

    Wide data (``n_samples < n_features``) go through the ``n x n`` Gram matrix;
    tall data through the ``d x d`` scatter (see :mod:`robustpca.linalg`).

    Parameters
    ----------
    n_components : int, float, "auto" or None, default=None
        Number of components; ``None`` keeps ``min(n_samples, n_features)``. A float in
        ``(0, 1)`` keeps the fewest components explaining that share of the variance;
        ``"auto"`` applies rrcov's ``PcaClassic(k = 0)`` rule (80% of the variance, the
        eigenvalue-ratio guard, ``kmax = n_features``), on the classical eigenvalues.
    random_state : int, Generator or None, default=None
        Only used to complete the basis when the data have fewer directions of
        variance than ``n_components``.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Principal axes (orthonormal rows), by decreasing weighted variance.
    mean_ : ndarray of shape (n_features,)
        Weighted mean.
    explained_variance_ : ndarray of shape (n_components,)
        Weighted variance along each component. Whole weights are frequencies: the
        denominator is ``sum(w) - 1`` (``n - 1`` like scikit-learn with unit weights).
        Other weights, and a stream's discounted ones, are reliability weights: the
        denominator is ``sum(w) - sum(w**2) / sum(w)``, as ``numpy.cov(aweights=w)``,
        so that scaling every weight by a constant changes nothing.
    explained_variance_ratio_ : ndarray of shape (n_components,)
    n_samples_seen_ : int
        Rows fitted (with :meth:`partial_fit`, the rows seen by every call).
    <detector attributes>
    n_components_, n_features_in_, n_iter_ (always 1), converged_ (always True),
    stop_reason_, objective_history_ (the weighted squared reconstruction error)

    Notes
    -----
    **Missing entries** (NaN in ``X``) are fitted by EM: complete the gaps with the
    current reconstruction (the least-squares fit of each row's observed coordinates),
    weighted PCA on the completion, repeat (:mod:`robustpca.solvers.missing`). Each
    iteration is the closed-form minimiser on the completed data, so the weighted
    squared residual on the observed entries never increases; ``n_iter_`` and
    ``objective_history_`` are then the EM's (otherwise one closed-form step), its gap
    values extrapolated by SQUAREM (:mod:`robustpca.solvers.accelerated_em`), which
    cuts the iterations where EM is slow (a flat direction, many gaps). EM is
    chosen over alternating least squares because its step is the very closed form of
    the complete-data fit. Rows with at most ``n_components`` observed entries fit any
    subspace exactly and take no part in the EM steps (their completions, free along the
    subspace, had kept hbk's EM from converging); ``mean_`` and ``explained_variance_``
    are the closed form on the final completion of every row. ``transform`` and the
    other methods accept rows with NaN
    (:class:`~robustpca.estimators._base.BaseSubspaceEstimator`).

    **Streams.** :meth:`partial_fit` fits batch by batch from the merged weighted count,
    mean and scatter (:mod:`robustpca.solvers.incremental`): over any split of the data
    it equals :meth:`fit`, ``sample_weight`` included, to rounding.

    **Rank tolerance.** Eigenvalues of the scatter below ``1e-12`` of the largest count as
    zero (their rounding is about ``eps`` times the largest), and their axes are completed
    arbitrarily: directions that hold only rounding (columns collinear to the data's
    precision) then take no part in the score distances. Features whose variances differ
    by more than that lose their components too, which scikit-learn's SVD keeps; the fit
    warns then, and standardized features keep them.

    The outlier diagnostics (:mod:`robustpca.diagnostics`, ``predict``) follow rrcov's
    ``PcaClassic``: score distances with ``explained_variance_``, the OD cutoff from the
    mean and standard deviation of the training :math:`OD^{2/3}`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import PCA
    >>> X = np.random.default_rng(0).normal(size=(50, 5))
    >>> pca = PCA(n_components=2).fit(X, sample_weight=np.full(50, 2.0))
    >>> pca.components_.shape
    (2, 5)
    """

    __doc__ = with_detector_attributes(__doc__)

    #: rrcov's PcaClassic diagnostics (:mod:`robustpca.diagnostics`).
    _od_cutoff_rule = "classical"
    _supports_missing = True
    _tall_fit_blas = "scipy"  # the scatter route (_outlier_api)
    _dask_fit = "pca"  # robustpca._dask.fit.FITS

    def __init__(self, n_components=None, *, random_state=None, contamination="auto"):
        self.n_components = n_components
        self.random_state = random_state
        self.contamination = contamination

    def fit(self, X, y=None, sample_weight=None):
        """Fit PCA to ``X``, optionally weighting each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative, finite weights, not all zero.

        Returns
        -------
        self
        """
        self._fit(X, sample_weight=sample_weight)
        return self

    def _select_n_components(self, X, spec, sample_weight=None) -> int:
        """A variance share or rrcov's ``k = 0`` rule on all the (weighted) eigenvalues,
        with ``PcaClassic``'s ``kmax = n_features`` and rank (``rankMM``)."""
        X = np.asarray(to_numpy(X), dtype=np.float64)
        w = check_sample_weight(sample_weight, X.shape[0])
        mean = (w @ X) / w.sum()
        s = np.linalg.svd(np.sqrt(w)[:, None] * (X - mean), compute_uv=False)
        rank = max(int(np.sum(s >= max(X.shape) * np.finfo(np.float64).eps * s[0])), 1)
        eigenvalues = s**2  # only their ratios choose k (a divisor overflowed for W <= 1)
        k = select_n_components(eigenvalues, spec, kmax=X.shape[1], rank=rank)
        return min(k, *X.shape)

    def _fit_solver(self, X, rng, sample_weight=None):
        w = check_sample_weight(sample_weight, X.shape[0])
        result = self._finish(solve_weighted_pca(X, self.n_components_, w, rng=rng))
        if np.any(result.info["explained_variance"] == 0):
            _warn_if_scales_unresolved(X, w)
        return result

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        """EM on the observed entries (:func:`~robustpca.solvers.missing.
        solve_weighted_pca_missing`), then the closed form on the final completion for
        ``components_``, ``explained_variance_`` and ``mean_`` (its subspace is the EM
        fixed point; its axes are the completion's principal axes, in the order of their
        variances). The EM steps leave out the rows fitted exactly; this closed form
        counts every row, and their completions lie on the EM's affine subspace, so the
        mean stays on it."""
        w = check_sample_weight(sample_weight, X.shape[0])
        em, completed = solve_weighted_pca_missing(X, missing, self.n_components_, w, rng=rng)
        final = self._finish(solve_weighted_pca(completed, self.n_components_, w, rng=rng))
        return replace(em, info=final.info, mean=final.mean, components=final.components)

    def _fit_solver_namespace(self, X, xp, device, rng):
        """PCA with the passes over ``X`` in its array namespace, on its device
        (:class:`~robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem`)."""
        problem = ArrayAPIWeightedPCAProblem(X, self.n_components_, rng, xp, device)
        w = np.ones(X.shape[0])
        result = self._finish(
            solve_weighted_pca(X, self.n_components_, w, rng=rng, problem=problem)
        )
        if np.any(result.info["explained_variance"] == 0):  # wide data, k = n: always (rank n - 1)
            _warn_if_spread(*_column_spread_namespace(X, xp, device))  # X stays on the device
        return result

    def _finish(self, result):
        total = result.info.pop("total_variance")
        ratio = (
            result.info["explained_variance"] / total
            if total > 0
            else (np.zeros(self.n_components_))
        )
        result.info["explained_variance_ratio"] = ratio
        return result


def _warn_if_scales_unresolved(X: np.ndarray, w: np.ndarray) -> None:
    """Warn where components were zeroed because the features' scales differ too much.

    The scatter's eigenvalues carry a rounding of about ``eps`` times the largest, and
    those below ``RANK_RTOL`` of it count as zero, their axes completed arbitrarily.
    That is right for directions that hold only rounding (columns collinear to the
    data's own precision), but it also drops a feature whose variance is below
    ``RANK_RTOL`` of another's (a count in millions beside a ratio), which scikit-learn's
    SVD keeps. The column variances, each exact to its own rounding, tell the two apart.
    """
    mean = (w @ X) / w.sum()
    variances, moments = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    step = max(1, (1 << 22) // max(X.shape[1], 1))
    for lo in range(0, X.shape[0], step):
        rows = np.asarray(X[lo : lo + step], dtype=np.float64)
        moments += w[lo : lo + step] @ (rows * rows)
        block = rows - mean
        variances += w[lo : lo + step] @ (block * block)
    _warn_if_spread(variances, moments)


def _column_spread_namespace(X, xp, device) -> tuple[np.ndarray, np.ndarray, float]:
    """The column sums of squares about the mean and about 0 of ``X`` (unit weights), in
    its namespace, by blocks of rows in the device's widest float (no copy of all ``X``),
    and that float's epsilon: only two ``d``-vectors cross to the host."""
    wide = max_precision_float_dtype(xp, device)
    n, d = X.shape
    step = max(1, (1 << 22) // max(d, 1))
    blocks = [(lo, min(lo + step, n)) for lo in range(0, n, step)]

    def rows(lo: int, hi: int):
        block = X[lo:hi, ...]
        return block if block.dtype == wide else xp.astype(block, wide)

    total = variances = moments = xp.zeros(d, dtype=wide, device=device)
    for lo, hi in blocks:
        total = total + xp.sum(rows(lo, hi), axis=0)
    mean = total / n
    for lo, hi in blocks:
        block = rows(lo, hi)
        moments = moments + xp.sum(block * block, axis=0)
        block = block - mean
        variances = variances + xp.sum(block * block, axis=0)
    eps = float(np.finfo(np.float64 if wide == xp.float64 else np.float32).eps)
    return _host(variances), _host(moments), eps


def _host(a) -> np.ndarray:
    return np.asarray(to_numpy(a), dtype=np.float64)


def _warn_if_spread(
    variances: np.ndarray, moments: np.ndarray, eps: float = float(np.finfo(np.float64).eps)
) -> None:
    """The warning of :func:`_warn_if_scales_unresolved` from the column sums of squares
    about the mean (``variances``) and about 0 (``moments``), computed to ``eps``."""
    # a constant column's mean can be off by an ulp: variance at its own rounding is 0
    positive = variances[variances > (64 * eps) ** 2 * moments]
    if positive.size and positive.min() < RANK_RTOL * positive.max():
        warnings.warn(
            f"PCA: the features' variances span {positive.max() / positive.min():.1e}, more "
            f"than 1 / {RANK_RTOL:g}. Components below {RANK_RTOL:g} of the largest "
            "variance are taken as zero (explained_variance_ 0, arbitrary axes), so those "
            "of the small-scale features are lost. Standardize the features first "
            "(sklearn.preprocessing.StandardScaler) to keep them.",
            UserWarning,
            stacklevel=external_stacklevel(),
        )
