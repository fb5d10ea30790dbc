"""RPCA-OM: robust PCA with the optimal mean (Nie, Yuan & Huang, ICML 2014)."""

from __future__ import annotations

from .._validation import check_nonnegative_float, resolve_epsilon
from ..array_api_linalg import ArrayAPIWeightedPCAProblem
from ..linalg import WeightedPCAProblem
from ..losses import RobustLoss, make_loss
from ..solvers import solve_optimal_mean_pca
from ..solvers.missing import MissingPCAProblem
from ._base import BaseSubspaceEstimator, warn_if_all_capped
from ._incremental import IncrementalMixin
from ._outlier_api import with_detector_attributes

__all__ = ["OptimalMeanPCA"]


class OptimalMeanPCA(IncrementalMixin, BaseSubspaceEstimator):
    r"""Robust PCA with the mean optimised jointly (RPCA-OM).

    Solves problem (13) of Nie et al. (2014),

    .. math::
        \min_{b,\; U^\top U = I} \sum_{i=1}^n
        \sqrt{\lVert (I - UU^\top)(x_i - b) \rVert_2^2 + \epsilon} ,

    the l2,1 reconstruction error in which the centre ``b`` is a variable rather than
    the arithmetic mean, by the iteratively re-weighted Algorithm 1: starting from
    ``D = I`` (so the first pass is PCA), each iteration sets ``b`` to the
    ``D``-weighted mean, ``U`` to the top eigenvectors of the ``D``-weighted scatter
    (problem 16) and :math:`d_{ii} = 1 / (2\sqrt{r_i^2 + \epsilon})`. The objective
    never increases (Theorem 1) and the limit satisfies the KKT conditions (23)
    (Theorem 2).

    ``loss`` selects the other concave losses that Algorithm 2 (sec. 3.2) handles with
    the same loop: l2,p with :math:`0 < p \le 2` (``p = 2`` is PCA) and the capped l2
    loss :math:`\min(r, \theta)`, under which samples beyond the cap get weight zero.

    Parameters
    ----------
    n_components : int or None, default=None
        Subspace dimension ``k``; ``None`` keeps ``min(n_samples, n_features)``.
    loss : {'l21', 'l2p', 'capped'} or RobustLoss, default='l21'
        Loss on per-sample residual norms.
    p : float, default=1.0
        Exponent of ``loss='l2p'``, in (0, 2].
    threshold : float or None, default=None
        Cap :math:`\theta` of ``loss='capped'`` (required for it, in data units).
    epsilon : float or 'auto', default='auto'
        The smoothing of footnote 1 of the paper, :math:`\lVert z\rVert_2 \to
        \sqrt{z^\top z + \epsilon}`. ``'auto'`` uses ``1e-12`` times the mean squared
        norm of the centred data, which keeps weights finite for samples lying exactly
        on the subspace while being scale invariant and negligible in the objective.
        ``0`` is allowed: zero residuals are then floored at ``1e-12`` times the
        largest residual.
    max_iter : int, default=100
        Maximum number of re-weighting iterations.
    tol : float, default=1e-6
        Stop when the relative decrease of the objective is at most ``tol``; for
        ``loss='l2p'``, at most ``p * tol``, so that ``tol`` applies to the power mean
        :math:`(\sum_i \rho(r_i) / n)^{1/p}` (as ``p`` tends to 0 the objective tends
        to ``n`` whatever the fit).
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration, with ``state`` an
        :class:`~robustpca.solvers.IterationState` (``objective``, ``weights``, and
        lazily ``components`` and ``mean``). Returning ``True`` stops the fit.
    random_state : int, Generator or None, default=None
        Only used to complete the basis when the data have fewer than ``n_components``
        directions of variance; the algorithm itself is deterministic.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Orthonormal basis ``U^T`` of the subspace.
    mean_ : ndarray of shape (n_features,)
        The optimal mean ``b``.
    weights_ : ndarray of shape (n_samples,)
        Weights :math:`d_{ii}` at the solution (small for outlying samples; exactly
        zero for capped samples).
    residuals_ : ndarray of shape (n_samples,)
        Training residual norms :math:`\lVert (I-UU^\top)(x_i - b)\rVert_2`.
    epsilon_ : float
        The smoothing constant used: that of ``loss`` when it is a ``RobustLoss``
        instance (NaN where it has none).
    objective_history_ : ndarray
        Objective of problem (13) (with the chosen loss) after each iteration.
    n_samples_seen_ : int
        Rows fitted (with :meth:`partial_fit`, the rows seen by every call).
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    For ``n_samples < n_features`` every iteration works on the ``n x n`` Gram matrix
    computed once, so it costs ``O(n^2 k)`` plus a partial eigendecomposition,
    independent of ``n_features``; the basis is formed once at the end.

    **Missing entries** (NaN in ``X``): each sample's residual is measured on its
    observed coordinates (the least-squares fit of those coordinates to the affine
    subspace) and its weight comes from that residual. Each iteration is the weighted
    step (14) on the data completed by the current reconstruction, then the weights
    (:class:`~robustpca.solvers.missing.MissingPCAProblem`). Chosen over alternating
    weighted least squares because the completion turns the l2,1 loss on the observed
    entries into a majorizer that the paper's closed-form step minimises: the
    observed-entries objective of problem (13) never increases (Theorem 1 carries
    over; tested). Rows with at most ``n_components`` observed entries have a zero
    observed residual for any subspace, so the weighted steps leave them out: with the
    largest weight of the l2,1 loss, their completions had pinned the subspace and
    stalled the fit (hbk with gaps); ``weights_`` still reports the loss's weight at
    their zero residual. The gap values are extrapolated by SQUAREM
    (:mod:`robustpca.solvers.accelerated_em`), the objective kept monotone: it stops no
    higher, in fewer iterations (``docs/design-notes/missing-entries.md``).
    ``n_missing_`` counts the missing entries.

    **Streams.** :meth:`partial_fit` runs Algorithm 1 as a stochastic majorise-minimise
    fit over batches; with ``new_pass=True`` at the start of each later pass over the
    same data, each pass is one iteration of the batch loop, so the passes converge to
    the batch fit's fixed points (the method's docstring says exactly how).

    References
    ----------
    F. Nie, J. Yuan and H. Huang, "Optimal Mean Robust Principal Component Analysis",
    ICML 2014, problems (13)-(16), Algorithms 1-2, Theorems 1-2.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import OptimalMeanPCA
    >>> rng = np.random.default_rng(0)
    >>> basis = np.linalg.qr(rng.normal(size=(10, 2)))[0]
    >>> X = 5.0 + rng.normal(size=(200, 2)) * 4 @ basis.T + 0.1 * rng.normal(size=(200, 10))
    >>> X[:30] = 8.0 + 20 * rng.normal(size=(30, 10))       # 15% gross outliers
    >>> model = OptimalMeanPCA(n_components=2).fit(X)
    >>> inlier_mean = X[30:].mean(axis=0)
    >>> bool(np.linalg.norm(model.mean_ - inlier_mean) < np.linalg.norm(X.mean(0) - inlier_mean))
    True
    """

    __doc__ = with_detector_attributes(__doc__)

    _supports_missing = True
    _tall_fit_blas = "scipy"  # the scatter route (_outlier_api)
    _dask_fit = "optimal_mean"  # robustpca._dask.fit.FITS
    _stream_reweights = True  # partial_fit (_incremental)

    def __init__(
        self,
        n_components=None,
        *,
        loss="l21",
        p=1.0,
        threshold=None,
        epsilon="auto",
        max_iter=100,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.loss = loss
        self.p = p
        self.threshold = threshold
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _loss_for_scale(self, scale):
        """The loss and ``epsilon_`` for data whose centred rows have mean squared norm
        ``scale`` (shared with the chunked fit of :mod:`robustpca._dask`)."""
        eps = resolve_epsilon(self.epsilon, scale)
        # checked whatever the loss, as scikit-learn checks every parameter: a value
        # the loss ignores is still a mistake
        if self.threshold is not None:
            check_nonnegative_float(self.threshold, "threshold", strict=True)
        p = check_nonnegative_float(self.p, "p", strict=True)
        if p > 2:
            raise ValueError(f"p={self.p!r} must be in (0, 2].")
        if self.loss in ("huber", "cauchy"):
            raise ValueError(
                f"loss={self.loss!r} is not a loss of RPCA-OM; use 'l21', 'l2p' or 'capped' "
                "(Huber and Cauchy weights belong to R1PCA)."
            )
        loss = make_loss(self.loss, p=self.p, threshold=self.threshold, epsilon=eps)
        if isinstance(self.loss, RobustLoss):  # an instance keeps its own smoothing
            eps = float(getattr(loss, "epsilon", float("nan")))
        return loss, eps

    def _stream_loss(self, scale, mean_square):
        """The loss of ``partial_fit``, its ``epsilon`` from the first batch's scale."""
        loss, self.epsilon_ = self._loss_for_scale(scale)
        return loss

    def _fit_solver(self, X, rng, sample_weight=None):
        # the subproblem first: its centred Gram matrix gives the loss's scale for free
        return self._solve(WeightedPCAProblem(X, self.n_components_, rng), X)

    def _fit_solver_missing(self, X, missing, rng, sample_weight=None):
        """The same loop on the observed entries: each weighted step runs on the data
        completed by the current reconstruction (:class:`~robustpca.solvers.missing.
        MissingPCAProblem`), the weights come from the observed residuals."""
        return self._solve(MissingPCAProblem(X, missing, self.n_components_, rng), X)

    def _fit_solver_namespace(self, X, xp, device, rng):
        """The same solve with every pass over ``X`` in its array namespace, on its device
        (:class:`~robustpca.array_api_linalg.ArrayAPIWeightedPCAProblem`)."""
        return self._solve(ArrayAPIWeightedPCAProblem(X, self.n_components_, rng, xp, device), X)

    def _solve(self, problem, X):
        loss, self.epsilon_ = self._loss_for_scale(problem.mean_sq_distance())
        result = solve_optimal_mean_pca(
            X,
            self.n_components_,
            loss,
            rng=problem.rng,
            max_iter=self.max_iter,
            tol=self.tol * loss.power,  # the relative change of the power mean (docstring)
            callback=self.callback,
            problem=problem,
        )
        warn_if_all_capped(result, self.threshold, unit="sample")
        return result
