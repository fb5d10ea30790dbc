r"""Known-rank robust PCA: AccAltProj (Cai, Cai & Wei 2019) and GoDec (Zhou & Tao 2011).

Both split the training data into a low-rank part of rank ``n_components`` and a sparse
part of gross, entry-wise errors (:mod:`robustpca.solvers.known_rank`), like
:class:`~robustpca.PrincipalComponentPursuit` but with the rank given instead of a
penalty: no nuclear norm, so no singular value thresholding of the whole spectrum, and
an iteration costs a few products with ``r`` columns.

The conventions follow :class:`~robustpca.PrincipalComponentPursuit`: ``low_rank_`` and
``sparse_`` are the decomposition of the training data, ``mean_`` is zero (the model
``X = L + S`` has no offset: an offset is one more direction of ``L``),
``components_`` the right singular vectors of ``low_rank_``, and :meth:`transform`
projects new samples on them.

Missing entries (NaN, or ``fit(X, mask=...)``) are fitted on the observed entries, as
PCP does: ``sparse_`` is zero in the gaps and ``low_rank_`` fills them
(:mod:`robustpca.solvers.known_rank`, "Missing entries"; GoDec's low-rank step with gaps
in :mod:`robustpca.solvers.godec`).

AccAltProj and GoDec fit tall dask arrays chunk by chunk
(:mod:`robustpca.solvers.chunked_known_rank`, :mod:`robustpca.solvers.chunked_godec`: GoDec's
global threshold by exact counting passes). Not provided: a ``center`` option and an
array-API solver (array-API inputs are fitted on the host by the base class and the fitted
arrays moved back).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._docstrings import extended
from .._validation import (
    check_bool,
    check_nonnegative_float,
    check_positive_int,
    check_positive_or_auto,
)
from .._warnings import external_stacklevel
from ..solvers import StopReason
from ..solvers.godec import solve_godec
from ..solvers.godec_card import ResidualCutoff, full_card_message, gross_left_out
from ..solvers.known_rank import RESIDUAL, solve_accaltproj
from ._base import BaseSubspaceEstimator
from ._masked import MaskedFitMixin
from ._outlier_api import with_detector_attributes

__all__ = ["AccAltProj", "GoDec"]


class _KnownRankRPCA(MaskedFitMixin, BaseSubspaceEstimator):
    """Shared logic: the rank is ``n_components`` (an int or None), nothing automatic."""

    #: a fit sets ``low_rank_`` (a background for ``subtract_background``)
    _sets_low_rank = True

    #: the rank is the method's input: no variance share or "auto"
    _supports_auto_rank = False
    #: NaN (or ``mask``) marks missing entries, fitted on the observed ones
    _supports_missing = True

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        return self._fit_solver(X, rng, observed=~missing)

    def transform(self, X):
        """Coordinates of ``X`` on the fitted low-rank row space.

        ``(X - mean_) @ components_.T``: the orthogonal projection of each sample on the
        span of the right singular vectors of ``low_rank_`` (``mean_`` is zero), as for
        :class:`~robustpca.PrincipalComponentPursuit`. New samples are not decomposed:
        their gross errors are not removed first and enter their coordinates (the
        ``reconstruction_error`` of such a sample is large, which is what the outlier
        scores use). A sample with NaN is projected by least squares on its observed
        coordinates, as by the other estimators that take missing entries.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        return super().transform(X)


_COMMON_PARAMS = r"""
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=1e-7
        Stop when :math:`\lVert X - L - S\rVert_F \le \mathrm{tol}\,\lVert X\rVert_F`
        (the paper's criterion) or when the objective (for AccAltProj: and the
        threshold) changes by at most ``tol`` relative between two iterations (noisy
        data; our addition).
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration (``state.objective``,
        ``state.components``: the current basis, ``(n_components, n_features)``);
        returning ``True`` stops.
    random_state : int, Generator or None, default=None
        Seeds the random starts and the completion of ``components_`` beyond the rank.
"""

_COMMON_ATTRS = r"""
    low_rank_ : ndarray of shape (n_samples, n_features)
        Recovered low-rank part ``L`` of the training data, rank at most ``n_components``.
    sparse_ : ndarray of shape (n_samples, n_features)
        Recovered sparse part ``S``.
    components_ : ndarray of shape (n_components_, n_features)
        Right singular vectors of ``low_rank_`` (orthonormal rows); beyond ``rank_``
        completed by orthonormal directions drawn from ``random_state``.
    mean_ : ndarray of shape (n_features,)
        Zeros (the model has no offset).
    rank_ : int
        Numerical rank of ``low_rank_`` (singular values above ``max(n, d) * eps`` times
        the largest), at most ``n_components_``.
    low_rank_singular_values_ : ndarray of shape (n_components_,)
        Singular values of ``low_rank_``, decreasing.
    explained_variance_ : ndarray of shape (n_components_,)
        ``low_rank_singular_values_ ** 2 / (n_samples - 1)``: the variance of the
        training scores of ``low_rank_`` along ``components_`` (second moments: no
        centring).
    objective_history_ : ndarray
        The objective after each iteration (see Notes).
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_
"""
_COMMON_ATTRS = with_detector_attributes(_COMMON_ATTRS)


class AccAltProj(_KnownRankRPCA):
    r"""Robust PCA of known rank by accelerated alternating projections (AccAltProj).

    Cai, Cai & Wei (2019), Algorithm 1: ``X = L + S`` with ``L`` of rank ``r`` and ``S``
    sparse, by alternating a rank-``r`` truncation of ``X - S`` projected on the tangent
    space of the current ``L`` with a hard thresholding of ``X - L`` at a level
    :math:`\zeta_k` that decays geometrically:

    .. math::
        L_{k+1} = H_r(P_{T_k}(X - S_k)),\quad
        \zeta_{k+1} = \beta\big(\sigma_{r+1} + \gamma^{k+1}\sigma_1\big)
                      (P_{T_k}(X - S_k)),\quad
        S_{k+1} = \mathcal T_{\zeta_{k+1}}(X - L_{k+1}),

    from the initialisation of their Algorithm 3 (two hard thresholdings around a
    truncated SVD). The tangent-space trick makes the truncation an SVD of a
    ``2r x 2r`` matrix; an iteration costs about three products of an ``n x d`` array
    with ``r`` columns. On incoherent problems (rank ``r`` with spread-out singular
    vectors, a fraction ``alpha`` of corrupted entries per row and column below about
    :math:`1/(\mu r)`) the iterates converge linearly to the exact ``L`` (their Theorem
    1), at any magnitude of the errors.

    Parameters
    ----------
    n_components : int or None, default=None
        The rank ``r`` of ``L`` (``None``: ``min(n_samples, n_features)``, which makes
        ``L = X``; pass the rank).
    beta : float or 'auto', default='auto'
        Constant :math:`\beta` of the thresholds; ``'auto'``:
        :math:`1/(2(nd)^{1/4})` (the authors' code; see Notes).
    beta_init : float or 'auto', default='auto'
        Constant :math:`\beta_{init}` of the first thresholding; ``'auto'``:
        :math:`\beta` (the authors' code: :math:`4\beta`, which fails when the errors
        dominate the top singular value of ``X``; see Notes).
    gamma : float, default=0.5
        Decay :math:`\gamma \in (0, 1)` of the thresholds. Larger is safer and slower
        (the authors suggest up to 0.7 for hard problems). With missing entries raise
        it as more is missing: 0.5 suits a fifth of the entries missing, 0.7 and 0.8
        larger shares (``tests/test_known_rank_missing.py``;
        ``docs/design-notes/estimator-options.md``).
    trim : bool, default=False
        Trim the factors before each projection (Algorithm 2, needed by the theory).
    incoherence : float, default=5.0
        The incoherence :math:`\mu \ge 1` used by the trimming step.
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
    beta_, beta_init_ : float
        The threshold constants used.
    thresholds_ : ndarray
        The thresholds :math:`\zeta_{-1}, \zeta_0, \zeta_1, \dots` used."""
        + _COMMON_ATTRS
        + r"""
    Notes
    -----
    The objective is the relative residual
    :math:`\lVert X - L_k - S_k\rVert_F/\lVert X\rVert_F`, the paper's stopping measure.

    Where the paper leaves choices open we follow the authors' MATLAB code (as does the
    ``rpca`` package): :math:`\beta = 1/(2(nd)^{1/4})`, :math:`\gamma = 0.5`, no
    trimming, :math:`\mu = 5` when trimming; except :math:`\beta_{init}`, where their
    :math:`4\beta` failed on 13 of 24 planted problems (all those with errors of 10-50
    times the mean :math:`|L|` on 10% or more of the entries) and :math:`\beta` on 1
    (:func:`robustpca.solvers.known_rank.accaltproj_defaults`). Theorem 1 takes
    :math:`\beta = \mu r/(2\sqrt{nd})`, :math:`\beta_{init}/\beta \in [2, 6]\,
    \sigma_1(L)/\sigma_1(X)` and :math:`\gamma \in (1/\sqrt{12}, 1)`, with the unknown
    incoherence :math:`\mu` and :math:`\sigma_1(L)`. The
    trimming follows Algorithm 2 (rows of the factors scaled to at most
    :math:`\sqrt{\mu r/n}`). The truncated SVDs of the initialisation use ARPACK's
    Lanczos method (the authors use ``svds``).

    On data that are not exactly low rank plus sparse (``X = L + S + N`` with dense
    noise ``N``, or real images) the algorithm still drives the residual to zero: as
    the thresholds decay, ``sparse_`` absorbs every small entry and ends up dense
    (``X = L + S`` exactly), while ``low_rank_`` stays accurate (on a planted problem
    with Gaussian noise, its error was a fifth of the noise's norm). Read
    ``low_rank_``, not the support of ``sparse_``, on such data; GoDec's cardinality
    bound keeps its ``sparse_`` sparse.

    ``fit`` on a tall dask array stays chunked (one pass an iteration; ``trim=False``,
    ``2 n_components <= n_features``, no NaN; ``docs/dask.md``); array-API inputs are
    fitted on the host (NumPy).

    References
    ----------
    H. Cai, J.-F. Cai and K. Wei, "Accelerated alternating projections for robust
    principal component analysis", Journal of Machine Learning Research 20(20), 2019,
    Algorithms 1-3 and Theorem 1.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.estimators._known_rank import AccAltProj
    >>> rng = np.random.default_rng(0)
    >>> L = rng.normal(size=(200, 3)) @ rng.normal(size=(3, 150))
    >>> S = np.where(rng.random(L.shape) < 0.05, 50 * rng.normal(size=L.shape), 0.0)
    >>> model = AccAltProj(n_components=3, random_state=0).fit(L + S)
    >>> bool(np.linalg.norm(model.low_rank_ - L) < 1e-6 * np.linalg.norm(L))
    True
    """,
    )

    def __init__(
        self,
        n_components=None,
        *,
        beta="auto",
        beta_init="auto",
        gamma=0.5,
        trim=False,
        incoherence=5.0,
        max_iter=100,
        tol=1e-7,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.beta = beta
        self.beta_init = beta_init
        self.gamma = gamma
        self.trim = trim
        self.incoherence = incoherence
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    _dask_fit = "accaltproj"

    def _fit_solver(self, X, rng, sample_weight=None, observed=None):
        beta = check_positive_or_auto(self.beta, "beta")
        beta_init = check_positive_or_auto(self.beta_init, "beta_init")
        gamma = check_nonnegative_float(self.gamma, "gamma", strict=True)
        if not gamma < 1:
            raise ValueError(f"gamma={gamma!r} must lie in (0, 1).")
        incoherence = check_nonnegative_float(self.incoherence, "incoherence")
        if incoherence < 1:
            raise ValueError(f"incoherence={incoherence!r} must be >= 1.")
        return solve_accaltproj(
            X,
            self.n_components_,
            beta=beta,
            beta_init=beta_init,
            gamma=gamma,
            trim=check_bool(self.trim, "trim"),
            incoherence=incoherence,
            max_iter=self.max_iter,
            tol=self.tol,
            rng=rng,
            callback=self.callback,
            observed=observed,
        )


class GoDec(_KnownRankRPCA):
    r"""Low-rank + sparse decomposition of known rank and cardinality by GoDec.

    Zhou & Tao (2011), Algorithm 1, for

    .. math:: \min_{L, S} \lVert X - L - S\rVert_F^2 \quad\text{s.t.}\quad
              \operatorname{rank}(L) \le r,\ \operatorname{card}(S) \le k ,

    alternating :math:`L_t = \text{BRP}_r(X - S_{t-1})`, the bilateral random
    projection with power iterations (a rank-``r`` approximation from a few products
    with ``r`` columns, no SVD), and :math:`S_t = P_\Omega(X - L_t)`, keeping the ``k``
    entries of largest magnitude. The objective never increases (see Notes); with
    noise, ``X - L - S`` is the noise estimate.

    Parameters
    ----------
    n_components : int or None, default=None
        The rank bound ``r`` (``None``: ``min(n_samples, n_features)``, which makes
        ``L = X``; pass the rank).
    card : 'auto', int or float, default='auto'
        The cardinality bound ``k`` of ``S``. ``'auto'``: estimated from the data as
        the fit goes, as the entries of the residual ``X - L`` beyond 3 robust standard
        deviations of their column (see Notes). An int in
        ``[0, n_samples * n_features]``, or a float in ``[0, 1)``, the fraction of the
        entries (of the observed entries when some are missing; rounded): the bound
        of the paper, fixed. GoDec is sensitive to it: too small a ``k`` leaves gross
        errors in ``L``, too large a ``k`` slows the BRP step to a crawl.
    power : int, default=1
        Power iterations ``q >= 0`` of the BRP. ``q = 0`` (the default of the authors'
        code and of hyperspy) is cheaper per iteration (two products with ``X`` fewer),
        but its rough first subspace can stall the iteration on problems that ``q = 1``
        solves (``docs/design-notes/estimator-options.md``).
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
    card_ : int
        The cardinality bound ``k`` used (``sparse_`` has at most ``card_`` non-zeros);
        with ``card='auto'``, the last estimate.
    missing_step_ : {'em', 'als'} or None
        The low-rank step taken with missing entries (see Notes); None without them."""
        + _COMMON_ATTRS
        + r"""
    Notes
    -----
    The objective is the paper's, :math:`\lVert X - L_t - S_t\rVert_F^2`. The problem is
    not convex: where the data hold no clear rank-``r`` structure (a table of
    measurements rather than a video's background), fits from different
    ``random_state`` (the first projection) can stop at different ``low_rank_``.

    The BRP step is written as in the authors' code: :math:`Y_2 \leftarrow Z^T(ZY_2)`
    ``power + 1`` times, :math:`Q = \operatorname{qr}(Y_2)`, :math:`L = ZQQ^T` (the best
    approximation with the row space of the paper's
    :math:`Y_1(A_2^TY_1)^{-1}Y_2^T`). Our choice: the projection matrix :math:`A_1` is
    Gaussian at the first iteration and the previous row basis afterwards (warm start),
    and a step that would fit worse than the previous basis keeps it; so the objective
    is non-increasing at every iteration, the monotonicity behind the paper's Theorem 1,
    which fresh random projections at every iteration do not guarantee. The stopping
    rule is the paper's on the unsquared relative residual, plus a stall test (``tol``).

    **card='auto'** (ours; the paper takes ``k`` as given). An entry of the residual
    :math:`R = X - L` is a gross error where
    :math:`|R_{ij}| > 3 \cdot 1.4826\,\operatorname{median}_i |R_{ij}|`, three robust
    standard deviations of its column. ``k`` starts at the count on the first fit (at
    least three tenths of the entries: a first fit bent by the gross errors masks some of
    them), ``S`` keeps the ``k`` entries largest in their columns' scales, and ``k``
    is counted again whenever the objective settles or the residual vanishes, until
    it no longer changes; it is capped at half of the entries. As the fit improves
    the scales fall and smaller errors are found, and entries counted wrongly are
    released: for that the low-rank step after the first fits ``L`` to the entries
    outside ``S`` (the least-squares sweep below) instead of the BRP step, which
    fills them with the current ``L`` and keeps its errors there. The rule is
    scale-free (a column scaled by ``a`` has its scale scaled by ``a``), but it
    assumes at most half of each column gross. The objective may rise where ``k``
    changes. Where ``sparse_`` is full (``card_`` non-zeros, or the cap of
    ``'auto'``) and the entries beyond the cutoff outside it carry more than half of
    :math:`\lVert X - L - S\rVert_F^2`, gross errors were left in ``low_rank_``:
    ``fit`` warns (``UserWarning``) and says what to change
    (:mod:`robustpca.solvers.godec_card`).

    With missing entries (the paper has none) the objective is that of the observed
    entries. Where it is cheap, the low-rank step after the first is then an exact
    alternating least-squares sweep on the entries neither missing nor in ``sparse_``
    rather than the BRP step on the data completed by ``L``, which converges slowly
    where rows keep few such entries: on rrcov's five tables with a tenth of the cells
    missing the completion converged within ``max_iter=100`` on 16 of 40 masks, the sweep
    on all 40 (:func:`robustpca.solvers.godec.solve_godec`, ``missing_step``).

    ``fit`` on a tall dask array stays chunked (the global threshold by exact counting
    passes; no missing entries; ``docs/dask.md``), and array-API inputs are fitted on
    the host (NumPy).

    References
    ----------
    T. Zhou and D. Tao, "GoDec: randomized low-rank & sparse matrix decomposition in
    noisy case", ICML 2011, problem (1), Algorithm 1 and Theorem 1. ``card='auto'``
    and the least-squares low-rank step are ours.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.estimators._known_rank import GoDec
    >>> rng = np.random.default_rng(0)
    >>> L = rng.normal(size=(200, 3)) @ rng.normal(size=(3, 150))
    >>> mask = rng.random(L.shape) < 0.05
    >>> S = np.where(mask, 50 * rng.normal(size=L.shape), 0.0)
    >>> model = GoDec(n_components=3, random_state=0).fit(L + S)
    >>> bool(np.linalg.norm(model.low_rank_ - L) < 1e-6 * np.linalg.norm(L))
    True
    >>> bool(model.card_ == mask.sum())
    True
    """,
    )

    def __init__(
        self,
        n_components=None,
        *,
        card="auto",
        power=1,
        max_iter=100,
        tol=1e-7,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.card = card
        self.power = power
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    _dask_fit = "godec"

    def _resolve_card(self, size: int, n_observed: int) -> int | ResidualCutoff:
        card = self.card
        if isinstance(card, str):
            if card != "auto":
                raise ValueError(f"card={card!r} must be 'auto', an int or a float.")
            return ResidualCutoff()
        if isinstance(card, bool) or not isinstance(card, numbers.Real):
            raise TypeError(f"card must be 'auto', an int or a float, got {type(card).__name__}.")
        if isinstance(card, numbers.Integral):
            if not 0 <= int(card) <= size:
                raise ValueError(
                    f"card={card} must be between 0 and n_samples * n_features={size}."
                )
            return int(card)
        if not (np.isfinite(float(card)) and 0.0 <= float(card) < 1.0):
            raise ValueError(
                f"card={card!r} as a float must lie in [0, 1) (a fraction of the entries)."
            )
        return round(float(card) * n_observed)

    def _fit_solver(self, X, rng, sample_weight=None, observed=None):
        card = self._resolve_card(X.size, X.size if observed is None else int(observed.sum()))
        power = check_positive_int(self.power, "power", minimum=0)
        result = solve_godec(
            X,
            self.n_components_,
            card,
            power=power,
            max_iter=self.max_iter,
            tol=self.tol,
            rng=rng,
            callback=self.callback,
            observed=observed,
        )
        self._warn_gross_left_out(X, observed, result)
        return result

    def _warn_gross_left_out(self, X, observed, result) -> None:
        """Warn where ``sparse_`` is full (``card_`` non-zeros, or the cap of 'auto')
        and the residual entries beyond the rule's threshold outside it carry most of
        ``X - L - S``: gross errors were left in the fit (``godec_card.gross_left_out``)."""
        if result.stop_reason == RESIDUAL or result.stop_reason == StopReason.CALLBACK:
            return
        S, k = result.info["sparse"], int(result.info["card"])
        rule = ResidualCutoff()
        n_entries = X.size if observed is None else int(observed.sum())
        auto = isinstance(self.card, str)
        if n_entries == 0 or k < (rule.cap(n_entries) if auto else max(k, 1)):
            return
        if np.count_nonzero(S) < k:
            return
        data = X if observed is None else np.where(observed, X, 0.0)
        reference = float(np.sqrt(np.einsum("ij,ij->", data, data) / n_entries))
        residual = data - result.info["low_rank"]
        count, share = gross_left_out(residual, S, observed, rule, reference)
        if share < 0.5:
            return
        message = full_card_message(self.card, k, rule, count, share)
        warnings.warn(message, UserWarning, stacklevel=external_stacklevel())
