r"""Convex robust PCA: principal component pursuit, outlier pursuit and CRPCA-OM.

The three estimators decompose the training data into a low-rank part and a sparse
part by the inexact ALM of :mod:`robustpca.solvers.alm`. The convex problem has no
``n_components``: its rank is set by the penalty (``lam`` or ``gamma``). To project new
data, ``components_`` holds the top right singular vectors of the recovered low-rank
part (after removing ``mean_``), so ``transform`` gives coordinates in its row space
and ``reconstruct`` projects a sample on it.

Memory: a fit holds the two arrays that become ``low_rank_`` and ``sparse_`` plus small
blocks (see :mod:`robustpca.solvers.alm_blocks`), and ``components_``, which is ``rank_ x
n_features`` with ``n_components=None``: its peak is below 3x the data unless the rank of
the low-rank part approaches ``min(n_samples, n_features)``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._docstrings import extended
from .._validation import (
    check_bool,
    check_gap_tol,
    check_mu_scale,
    check_nonnegative_float,
    check_positive_or_auto,
    check_rho,
)
from .._warnings import warn_if_rank_below
from ..solvers.alm import gamma_max, solve_crpca_om, solve_outlier_pursuit, solve_pcp
from ..solvers.alm_blocks import BLOCK_BYTES
from ..solvers.alm_observed import solve_observed
from ..solvers.missing import initial_fill
from ..solvers.penalty_range import reported_objective, solver_gamma, solver_lam
from ._base import BaseSubspaceEstimator
from ._convex_docs import _ACCURACY_NOTE, _COMMON_ATTRS, _COMMON_PARAMS
from ._masked import MaskedFitMixin

__all__ = ["ConvexOptimalMeanPCA", "OutlierPursuit", "PrincipalComponentPursuit"]

#: ``lam='video'`` is :math:`1/\sqrt{m \max(n, d)}` with ``m = VIDEO_PERSISTENCE``: a
#: change over a whole frame enters the low-rank part when it lasts about ``m`` frames
#: or more (see ``PrincipalComponentPursuit``).
VIDEO_PERSISTENCE = 10
#: ``gamma='auto'`` is this fraction of the smallest gamma at which the low-rank part
#: vanishes (see ``OutlierPursuit``).
AUTO_GAMMA_FRACTION = 0.3
_SVD_SOLVERS = ("auto", "full", "partial")


def _flip_signs_in_place(components: np.ndarray) -> np.ndarray:
    """:func:`robustpca.linalg.flip_component_signs` in place, by row blocks: the largest
    entry in magnitude of every row becomes positive."""
    k, d = components.shape
    step = max(1, min(BLOCK_BYTES // (8 * max(d, 1)), -(-k // 32)))
    for i in range(0, k, step):
        block = components[i : i + step]
        idx = np.argmax(np.abs(block), axis=1)
        signs = np.sign(block[np.arange(block.shape[0]), idx])
        signs[signs == 0] = 1.0
        block *= signs[:, None]
    return components


class _ConvexLowRankPCA(MaskedFitMixin, BaseSubspaceEstimator):
    """Shared fitting logic: validate the ALM parameters, run the solver, keep extras."""

    #: a fit sets ``low_rank_`` (a background for ``subtract_background``)
    _sets_low_rank = True

    _rho_upper: float | None = None
    #: ``center='median'`` is accepted (PCP)
    _median_center = False
    #: the convex program chooses the rank (n_components caps it): no "auto" or share
    _supports_auto_rank = False
    #: NaN (or ``mask``) marks missing entries: the observed-entries problem
    #: (:mod:`robustpca.solvers.alm_observed`), ``low_rank_`` filling the gaps
    _supports_missing = True
    #: ``n_components`` only sets how many directions of ``L`` are kept: the penalty
    #: sets the rank, so the observed entries are not counted against it (with its
    #: default None, the rank-``min(n, d)`` count refused any gap in wide data)
    _n_components_is_rank = False

    def _observed_kwargs(self, rng, X) -> dict:
        keep = "mu mu_max rho max_iter tol gap_tol rng n_components callback".split()
        return {key: value for key, value in self._alm_kwargs(rng, X).items() if key in keep}

    def _alm_kwargs(self, rng, X=None) -> dict:
        if not (isinstance(self.svd_solver, str) and self.svd_solver in _SVD_SOLVERS):
            raise ValueError(f"svd_solver must be one of {_SVD_SOLVERS}, got {self.svd_solver!r}.")
        median = isinstance(getattr(self, "center", None), str) and self.center == "median"
        if hasattr(self, "center") and not (self._median_center and median):
            also = " or 'median'" if self._median_center else ""  # PCP and outlier pursuit
            check_bool(self.center, "center", also=also)  # (CRPCA-OM centres)
        mu = check_positive_or_auto(self.mu, "mu")
        mu_max = check_positive_or_auto(self.mu_max, "mu_max")
        if mu is not None and mu_max is not None and mu_max < mu:
            raise ValueError(f"mu_max={mu_max!r} must be >= mu={mu!r}.")
        if X is not None:
            check_mu_scale(X, mu, mu_max)
        return {
            "mu": mu,
            "mu_max": mu_max,
            "rho": check_rho(self.rho, upper=self._rho_upper),
            "max_iter": self.max_iter,
            "tol": self.tol,
            "gap_tol": check_gap_tol(self.gap_tol),
            "svd_solver": self.svd_solver,
            "rng": rng,
            "callback": self.callback,
            "n_components": self.n_components,
            "return_dual": False,  # low_rank_ reuses the multiplier's buffer
        }

    def _finish(self, result):
        # the SVD statistics stay with the solver; the objective takes the user's penalty
        self.n_components_ = result.components.shape[0]
        info = {k: v for k, v in result.info.items() if k not in ("dual", "svd_counts")}
        row_sparse = hasattr(self, "gamma")  # outlier pursuit, CRPCA-OM
        weight = self.gamma_ if row_sparse else self.lam_
        objective = reported_objective(info.pop("objective_parts"), weight, row_sparse=row_sparse)
        return replace(result, info=info, objective=objective)

    def _store(self, result):
        # The base class fixes the signs of components_ on a copy, with an |components_|
        # temporary; with n_components=None, components_ is rank_ x n_features (a large
        # share of the data for PCP on faces), and those two arrays would lift the peak
        # of the fit above 3x the data. Same signs, fixed in place.
        components = _flip_signs_in_place(result.components)
        super()._store(replace(result, components=components[:0]))
        self.components_ = components
        if self.n_components is None:  # the rank's own count (at least 1): nothing asked
            return
        row_sparse = hasattr(self, "gamma")  # its low rank grows as gamma falls
        penalty = ("gamma", self.gamma_, "smaller") if row_sparse else ("lam", self.lam_, "larger")
        warn_if_rank_below(self, int(self.rank_), components.shape[0], *penalty)

    def _resolve_gamma(self, X, centred: bool) -> float:
        if isinstance(self.gamma, str):
            if self.gamma != "auto":
                raise ValueError(f"gamma must be 'auto' or a positive float, got {self.gamma!r}.")
            center = X.mean(axis=0, dtype=np.float64) if centred else None
            value = AUTO_GAMMA_FRACTION * gamma_max(X, center)
            return value if value > 0 else 1.0
        return check_nonnegative_float(self.gamma, "gamma", strict=True)


class PrincipalComponentPursuit(_ConvexLowRankPCA):
    r"""Robust PCA by principal component pursuit (PCP), the convex program of Candès et al.

    .. math:: \min_{L, S} \lVert L\rVert_* + \lambda\lVert S\rVert_1
              \quad\text{s.t.}\quad X = L + S ,

    solved by the inexact augmented Lagrangian method of Lin, Chen & Ma (2010,
    Algorithm 5): singular value thresholding for ``L``, soft thresholding for ``S``.
    It separates a low-rank matrix from sparse, entry-wise gross errors (corrupted
    pixels rather than corrupted samples); it is problem (28) of Nie et al. (2014) with
    :math:`\gamma = 1/\lambda`.

    ``n_components`` does not enter the convex problem: it only sets how many top right
    singular vectors of the recovered ``L`` are kept in ``components_`` for
    ``transform`` (``None``: the numerical rank of ``L``, at least 1).

    Parameters
    ----------
    n_components : int or None, default=None
        Number of directions of ``L`` kept for ``transform``.
    lam : float, 'auto' or 'video', default='auto'
        Weight :math:`\lambda` of the l1 term; ``'auto'`` is the universal choice
        :math:`1/\sqrt{\max(n, d)}` of Candès et al. (2011, Theorem 1.1). It is scale
        free: ``L`` and ``S`` scale with ``X``. ``'video'`` (frames as rows or as
        columns) is :math:`1/\sqrt{m\max(n, d)}` with :math:`m = 10`; see Notes.
    center : bool or 'median', default=False
        Subtract the arithmetic mean first. PCP models ``X = L + S`` without an offset
        (the offset is one more direction of ``L``), so the default does not centre and
        ``mean_`` is zero; centring spreads the gross errors of every sample into the
        mean and therefore into every row. ``'median'`` subtracts the column medians,
        which gross errors in fewer than half of the samples cannot carry away (for
        video, one frame per row: the temporal median of each pixel, the background of a
        static camera); ``mean_`` holds them.
    rho : float, default=1.5
        Growth factor of the penalty, > 1 (1.5 in Lin et al.'s code).
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).
    """

    __doc__ = extended(
        __doc__,
        _COMMON_PARAMS
        + r"""
    Attributes
    ----------
    lam_ : float
        The :math:`\lambda` used.
    mean_ : ndarray of shape (n_features,)
        Zeros, the arithmetic mean with ``center=True``, the column medians with
        ``center='median'``."""
        + _COMMON_ATTRS
        + r"""
    Notes
    -----"""
        + _ACCURACY_NOTE
        + r"""
    ``mu='auto'`` and ``mu_max='auto'`` are :math:`\mu_0 = 1.25/\lVert X\rVert_2`,
    :math:`\bar\mu = 10^7\mu_0` and :math:`Y_0 = X/\max(\lVert X\rVert_2,
    \lambda^{-1}\lVert X\rVert_\infty)` (Lin et al.'s code). With ``svd_solver='auto'``
    an iteration costs a Gram matrix of the iterate (or a few products with it) instead
    of a full SVD (see ``benchmarks/README.md``).

    **Video** (``lam='video'``, ``center='median'``). A rank-one pattern
    :math:`uv^\top` costs :math:`\lVert u\rVert_2\lVert v\rVert_2` in ``L`` and
    :math:`\lambda\lVert u\rVert_1\lVert v\rVert_1` in ``S``, so it goes to ``L``
    when its effective support :math:`k(u)k(v)`, :math:`k(u) = \lVert
    u\rVert_1^2/\lVert u\rVert_2^2`, exceeds :math:`1/\lambda^2`. With ``'auto'`` on
    a clip of ``n`` frames of ``d > n`` pixels that is ``d``: a change over one whole
    frame is on the edge, so the noise and flicker of every frame enter ``L``, whose
    rank grows with the clip (tens to hundreds on a few hundred frames of a static
    camera).
    ``'video'`` asks a change over a whole frame to last about :math:`m = 10` frames
    (a third of a second at 30 frames per second; an object of a tenth of the frame,
    a hundred frames) before it is background, whatever the clip's length, which
    leaves ``L`` the rank of a static background and its slow changes. Where the
    background rank is that low, the nuclear norm shrinks the background itself toward
    zero (a static background of brightness :math:`b_j` sits at a quantile of its
    pixel's values below the median, lower for brighter pixels), which
    ``center='median'`` removes by taking the temporal median out first: ``L`` then
    holds the background's changes, ``low_rank_`` the whole background
    (``benchmarks/bench_pcp_video.py`` measures both rules on CDnet clips).

    References
    ----------
    E. J. Candès, X. Li, Y. Ma and J. Wright, "Robust principal component analysis?",
    Journal of the ACM 58(3), 2011, eq. (1.1) and Theorem 1.1.
    Z. Lin, M. Chen and Y. Ma, "The augmented Lagrange multiplier method for exact
    recovery of corrupted low-rank matrices", arXiv:1009.5055, 2010, Algorithm 5.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import PrincipalComponentPursuit
    >>> rng = np.random.default_rng(0)
    >>> L = rng.normal(size=(80, 2)) @ rng.normal(size=(2, 60))
    >>> S = np.where(rng.random((80, 60)) < 0.05, 10 * rng.normal(size=(80, 60)), 0.0)
    >>> model = PrincipalComponentPursuit(random_state=0).fit(L + S)
    >>> model.rank_, bool(np.linalg.norm(model.low_rank_ - L) < 1e-4 * np.linalg.norm(L))
    (2, True)
    """,
    )

    def __init__(
        self,
        n_components=None,
        *,
        lam="auto",
        center=False,
        mu="auto",
        mu_max="auto",
        rho=1.5,
        max_iter=1000,
        tol=1e-7,
        gap_tol=1e-3,
        svd_solver="auto",
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.lam = lam
        self.center = center
        self.mu = mu
        self.mu_max = mu_max
        self.rho = rho
        self.max_iter = max_iter
        self.tol = tol
        self.gap_tol = gap_tol
        self.svd_solver = svd_solver
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    _median_center = True
    _dask_fit = "pcp"

    def _resolve_lam(self, X) -> None:
        if isinstance(self.lam, str):
            if self.lam not in ("auto", "video"):
                raise ValueError(
                    f"lam must be 'auto', 'video' or a positive float, got {self.lam!r}."
                )
            persistence = VIDEO_PERSISTENCE if self.lam == "video" else 1
            self.lam_ = 1.0 / np.sqrt(persistence * max(X.shape))
        else:
            self.lam_ = check_nonnegative_float(self.lam, "lam", strict=True)

    def _center(self) -> bool | str:
        return "median" if isinstance(self.center, str) else bool(self.center)

    def _fit_solver(self, X, rng, sample_weight=None):
        self._resolve_lam(X)
        kwargs = self._alm_kwargs(rng, X)
        lam = solver_lam(self.lam_, X.shape)
        return self._finish(solve_pcp(X, lam=lam, center=self._center(), **kwargs))

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        self._resolve_lam(X)
        return self._finish(
            solve_observed(
                X,
                ~missing,
                lam=solver_lam(self.lam_, X.shape),
                center=self._center(),
                **self._observed_kwargs(rng, X),
            )
        )


class OutlierPursuit(_ConvexLowRankPCA):
    r"""Robust PCA by outlier pursuit (CRPCA): l2,1 loss on samples + nuclear norm.

    Problem (29) of Nie et al. (2014), the outlier pursuit of Xu, Caramanis & Sanghavi
    (2012) with :math:`\lambda = 1/\gamma`:

    .. math:: \min_Z \lVert X - Z\rVert_{2,1} + \gamma\lVert Z\rVert_* ,
              \qquad \lVert E\rVert_{2,1} = \sum_i \lVert e_i\rVert_2 ,

    where :math:`e_i` is the error of sample ``i`` (a row), so whole samples are
    declared outliers. It is solved by Algorithm 3 of Nie et al. without the mean
    (inexact ALM: singular value thresholding for ``Z``, row shrinkage for
    :math:`E = X - Z`, :math:`E_0 = \Lambda_0 = 0`). ``outliers_`` marks the samples with
    :math:`e_i \ne 0` (row shrinkage gives exact zeros).

    Parameters
    ----------
    n_components : int or None, default=None
        Number of directions of ``Z`` kept for ``transform``; ``None``: its numerical
        rank (at least 1).
    gamma : float or 'auto', default='auto'
        Weight :math:`\gamma` of the nuclear norm. The objective is homogeneous in
        ``X``, so :math:`\gamma` does not depend on the units of the data. ``Z = 0`` is
        optimal exactly when :math:`\gamma \ge \gamma_{\max} = \lVert G\rVert_2`, ``G``
        the samples scaled to unit norm (the subgradient condition); ``'auto'`` is
        :math:`0.3\,\gamma_{\max}` (:func:`robustpca.solvers.alm.gamma_max`). The
        outlier-pursuit theorem's :math:`\lambda = 3/(7\sqrt{f n})` (Xu et al.,
        Theorem 1, for an outlier fraction ``f`` within its small-fraction regime) gave
        ``Z = 0`` on our planted problems with 10% outliers; :math:`0.3\,\gamma_{\max}`
        recovered the planted outliers exactly on all six planted problems we tried
        (30 to 400 samples, rank 2-10, 5-20% outliers; 0.25 did too, 0.35 failed on
        one). It is a heuristic: tune ``gamma`` for real data.
    center : bool, default=False
        Subtract the arithmetic mean first: the CRPCA that Nie et al. compare with
        (sec. 5.3). Outlier pursuit itself (Xu et al.) models ``X = L + C`` without an
        offset; :class:`ConvexOptimalMeanPCA` optimises the mean instead.
    rho : float, default=1.5
        Growth factor of the penalty, in (1, 2) (Nie et al. 2014, Algorithm 3).
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).
    """

    __doc__ = extended(
        __doc__,
        _COMMON_PARAMS
        + r"""
    Attributes
    ----------
    gamma_ : float
        The :math:`\gamma` used.
    outliers_ : ndarray of shape (n_samples,), bool
        Samples whose error row :math:`e_i` is non-zero (on noisy data possibly every
        row: the model's support, not a detector; ``predict`` flags by the cutoffs).
    mean_ : ndarray of shape (n_features,)
        Zeros, or the arithmetic mean with ``center=True``."""
        + _COMMON_ATTRS
        + r"""
    Notes
    -----"""
        + _ACCURACY_NOTE
        + r"""
    ``mu='auto'``: :math:`\mu_0 = 1.25/\lVert X\rVert_2`; ``mu_max='auto'``:
    :math:`\bar\mu = 10^9\mu_0`, the ratio of Nie et al.'s :math:`\bar\mu = 10^8` to
    their :math:`\mu_0 = 0.1` (``mu=0.1, mu_max=1e8`` reproduces the paper's values,
    tied to its pixel scale); :math:`10^7\mu_0` with missing entries (as for PCP).

    References
    ----------
    H. Xu, C. Caramanis and S. Sanghavi, "Robust PCA via outlier pursuit", IEEE Trans.
    Information Theory 58(5), 2012, eq. (2) and Theorem 1.
    F. Nie, J. Yuan and H. Huang, "Optimal mean robust principal component analysis",
    ICML 2014, problem (29), Algorithm 3.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import OutlierPursuit
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2)) @ rng.normal(size=(2, 30))
    >>> X[:10] = 3 * rng.normal(size=(10, 30))                  # 10 outlying samples
    >>> model = OutlierPursuit(random_state=0).fit(X)
    >>> np.flatnonzero(model.outliers_)
    array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    """,
    )

    _rho_upper = 2.0
    _dask_fit = "outlier_pursuit"

    def __init__(
        self,
        n_components=None,
        *,
        gamma="auto",
        center=False,
        mu="auto",
        mu_max="auto",
        rho=1.5,
        max_iter=1000,
        tol=1e-7,
        gap_tol=1e-3,
        svd_solver="auto",
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.center = center
        self.mu = mu
        self.mu_max = mu_max
        self.rho = rho
        self.max_iter = max_iter
        self.tol = tol
        self.gap_tol = gap_tol
        self.svd_solver = svd_solver
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _fit_solver(self, X, rng, sample_weight=None):
        self.gamma_ = self._resolve_gamma(X, centred=bool(self.center))
        kwargs = self._alm_kwargs(rng, X)
        gamma = solver_gamma(self.gamma_, len(X))
        result = solve_outlier_pursuit(X, gamma=gamma, center=bool(self.center), **kwargs)
        return self._finish(result)

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        # gamma='auto' is taken of the data with the gaps at their column medians
        self.gamma_ = self._resolve_gamma(initial_fill(X, missing), centred=bool(self.center))
        result = solve_observed(
            X,
            ~missing,
            lam=1.0 / solver_gamma(self.gamma_, len(X)),
            row_sparse=True,
            center=bool(self.center),
            **self._observed_kwargs(rng, X),
        )
        return self._finish(result)


class ConvexOptimalMeanPCA(_ConvexLowRankPCA):
    r"""CRPCA-OM: convex robust PCA with the optimal mean (Nie, Yuan & Huang 2014).

    Problem (30) of Nie et al., outlier pursuit with the mean as a variable:

    .. math:: \min_{b, Z} \lVert X - 1b^\top - Z\rVert_{2,1} + \gamma\lVert Z\rVert_* ,

    solved by their Algorithm 3 (inexact ALM on problem 31): the ``(b, Z)`` step is the
    closed form of Theorem 3 (``b`` the arithmetic mean of
    :math:`\tilde X = X - E + \Lambda/\mu`, ``Z`` the singular value thresholding of
    the centred :math:`\tilde X` at :math:`\gamma/\mu`), the ``E`` step row shrinkage at
    :math:`1/\mu`, then :math:`\Lambda \mathrel{+}= \mu(X - 1b^\top - Z - E)` and
    :math:`\mu = \min(\rho\mu, \bar\mu)` with :math:`1 < \rho < 2`. The centring is a
    broadcast subtraction; the ``n x n`` centring matrix is never formed. By Lemma 3,
    ``Z`` has zero-mean columns, so ``b`` is the centre of the recovered low-rank part;
    because ``b`` is optimised, the optimum of (30) is never above that of (29) on the
    data centred by their arithmetic mean (:class:`OutlierPursuit` with
    ``center=True``), and it is below it when outliers bias the arithmetic mean.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of directions of ``Z`` kept for ``transform``; ``None``: its numerical
        rank (at least 1).
    gamma : float or 'auto', default='auto'
        Weight :math:`\gamma` of the nuclear norm, scale free; ``'auto'`` is
        :math:`0.3\,\gamma_{\max}` computed on the data centred by their arithmetic
        mean (see :class:`OutlierPursuit`). The paper's range 30 to 90 (sec. 5.3)
        exceeds :math:`\gamma_{\max} \le \sqrt{n}` on 400 faces, where it gives
        ``Z = 0``.
    rho : float, default=1.5
        Growth factor of the penalty, in (1, 2) as Algorithm 3 requires.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).
    """

    __doc__ = extended(
        __doc__,
        _COMMON_PARAMS
        + r"""
    Attributes
    ----------
    gamma_ : float
        The :math:`\gamma` used.
    mean_ : ndarray of shape (n_features,)
        The optimal mean ``b``.
    outliers_ : ndarray of shape (n_samples,), bool
        Samples whose error row :math:`e_i` is non-zero (on noisy data possibly every
        row: the model's support, not a detector; ``predict`` flags by the cutoffs)."""
        + _COMMON_ATTRS
        + r"""
    Notes
    -----"""
        + _ACCURACY_NOTE
        + r"""
    ``mu`` and ``mu_max`` as in :class:`OutlierPursuit` (``mu=0.1, mu_max=1e8`` are the
    paper's values). The paper's fixed :math:`\mu_0 = 0.1` does not suit every scale: on
    the occluded AT&T faces (pixels 0-255, :math:`\lVert X\rVert_2 \approx 10^4`,
    :math:`\gamma = 2.6`) it stopped after 9 iterations at an objective 13% above the
    one reached with ``mu='auto'`` (23 iterations).

    The data are translated by their arithmetic mean before the ALM (the problem is
    translation equivariant), which keeps ``mu='auto'`` and ``tol`` independent of the
    offset.

    References
    ----------
    F. Nie, J. Yuan and H. Huang, "Optimal mean robust principal component analysis",
    ICML 2014, problems (30)-(33), Lemmas 1-3, Theorem 3, Algorithm 3, sec. 5.3.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import ConvexOptimalMeanPCA, OutlierPursuit
    >>> rng = np.random.default_rng(0)
    >>> X = 5.0 + rng.normal(size=(100, 2)) @ rng.normal(size=(2, 30))
    >>> X[:10] = 20 + 3 * rng.normal(size=(10, 30))              # biased outliers
    >>> om = ConvexOptimalMeanPCA(gamma=2.0, random_state=0).fit(X)
    >>> crpca = OutlierPursuit(gamma=2.0, center=True, random_state=0).fit(X)
    >>> bool(om.objective_history_[-1] < crpca.objective_history_[-1])
    True
    """,
    )

    _rho_upper = 2.0
    _dask_fit = "crpca_om"

    def __init__(
        self,
        n_components=None,
        *,
        gamma="auto",
        mu="auto",
        mu_max="auto",
        rho=1.5,
        max_iter=1000,
        tol=1e-7,
        gap_tol=1e-3,
        svd_solver="auto",
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.mu = mu
        self.mu_max = mu_max
        self.rho = rho
        self.max_iter = max_iter
        self.tol = tol
        self.gap_tol = gap_tol
        self.svd_solver = svd_solver
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _fit_solver(self, X, rng, sample_weight=None):
        self.gamma_ = self._resolve_gamma(X, centred=True)
        gamma = solver_gamma(self.gamma_, len(X))
        return self._finish(solve_crpca_om(X, gamma=gamma, **self._alm_kwargs(rng, X)))

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        self.gamma_ = self._resolve_gamma(initial_fill(X, missing), centred=True)
        result = solve_observed(
            X,
            ~missing,
            lam=1.0 / solver_gamma(self.gamma_, len(X)),
            row_sparse=True,
            with_mean=True,
            # the solution is translation equivariant, the ALM's start and stopping
            # rules are not: centre first, as solve_crpca_om does
            center=True,
            **self._observed_kwargs(rng, X),
        )
        return self._finish(result)
