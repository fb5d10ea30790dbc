"""R-T-PCA (Guo 2013) and the rank-constrained robust PCA it is compared with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.validation import validate_data

from .._array_api import FLOAT_DTYPES, finish_fit, input_namespace, to_numpy
from .._validation import (
    check_bool,
    check_magnitude,
    check_n_components,
    check_nonnegative_float,
    check_positive_int,
    is_dask_collection,
)
from ..solvers.transfer import (
    lipschitz_constant,
    solve_rank_constrained_rpca,
    solve_robust_transfer_pca,
)
from ._base import BaseSubspaceEstimator, as_generator
from ._outlier_api import with_detector_attributes

__all__ = ["RankConstrainedRobustPCA", "RobustTransferPCA"]


def _check_eta(eta, lipschitz: float) -> float:
    """``None`` -> the Lipschitz constant; a given value must not be below it (Lemma 1)."""
    if eta is None:
        return lipschitz
    value = check_nonnegative_float(eta, "eta", strict=True)
    if value < lipschitz:
        raise ValueError(
            f"eta={value!r} is below the Lipschitz constant {lipschitz!r} of the gradient "
            "of the smooth part; Lemma 1 (monotone objective) needs eta >= it. Use "
            "eta=None for the constant itself."
        )
    return value


class _ProximalMixin:
    """The iteration parameters shared by the two estimators."""

    #: the ranks are the model's (n_shared, n_source, n_target): no "auto" or share
    _supports_auto_rank = False
    #: a fit sets ``low_rank_`` (a background for ``subtract_background``)
    _sets_low_rank = True
    # constructor parameters of both estimators (set by their __init__)
    accelerate: bool
    max_iter: int
    tol: float
    callback: Callable[..., Any] | None

    def _solver_options(self, rng) -> dict:
        return {
            "rng": rng,
            "accelerate": check_bool(self.accelerate, "accelerate"),
            "max_iter": self.max_iter,
            "tol": self.tol,
            "callback": self.callback,
        }


class RankConstrainedRobustPCA(_ProximalMixin, BaseSubspaceEstimator):
    r"""Robust PCA with a rank constraint: the "R-PCA" baseline of Guo (2013).

    The relaxed robust PCA of Wright et al. (eq. 6 of Guo 2013) with the nuclear norm
    replaced by an explicit rank bound, as in Guo's sec. 5:

    .. math::
        \min_{M, E}\; \frac{\alpha}{2}\lVert M + E - X\rVert_F^2 + \beta\lVert E\rVert_1
        \quad \text{s.t.} \quad \operatorname{rank}(M) \le k .

    Solved by the proximal projected gradient of Guo's Algorithm 1 with one low-rank
    block: from :math:`M = E = 0`, a gradient step of length :math:`1/\eta`, then the
    best rank-:math:`k` approximation for :math:`M` and soft thresholding at
    :math:`\beta/\eta` for :math:`E`. With :math:`\eta \ge 2\alpha` (the Lipschitz
    constant of the gradient) the objective never increases (Guo's Lemma 1). For fixed
    :math:`M` the optimal :math:`E` is the soft thresholding of :math:`X - M` at
    :math:`\beta/\alpha`, so the problem is a rank-:math:`k` fit under an entrywise Huber
    loss with threshold :math:`\beta/\alpha` (in data units: scale the data or
    :math:`\beta` together).

    The model has no offset: ``mean_`` is zero, ``components_`` are the top right
    singular vectors of the recovered low-rank matrix ``low_rank_`` and ``transform`` is
    ``X @ components_.T``.

    Parameters
    ----------
    n_components : int or None, default=None
        The rank bound :math:`k` (and number of components); ``None`` is
        ``min(n_samples, n_features)``, for which the constraint is void and
        ``low_rank_`` reproduces ``X``.
    alpha : float, default=1.0
        Weight :math:`\alpha > 0` of the squared reconstruction loss.
    beta : float, default=0.1
        Weight :math:`\beta \ge 0` of the l1 penalty on the errors.
    eta : float or None, default=None
        Inverse step size; ``None`` uses :math:`2\alpha`. Smaller values are refused.
    accelerate : bool, default=False
        Add restarted momentum (monotone; see :mod:`robustpca.solvers.transfer`). On
        some of rrcov's tables it reaches ``tol`` in far fewer iterations, and where
        the plain method stops at ``max_iter`` it ends at a lower objective
        (``benchmarks/bench_transfer_momentum.py``;
        ``docs/design-notes/estimator-options.md``).
        It is not the default because on the denoising of Guo's sec. 5 the converged
        fit is not the better estimate: on three Yale tasks at 0-255 pixels (rank 11,
        5% salt noise) the plain iterates, capped at ``max_iter``, recovered the clean
        target with an RMSE of 0.079-0.082 against 0.091-0.096 for the converged ones
        (the same script; ``docs/reproduction/guo2013.md`` for the paper's protocol).
    max_iter : int, default=5000
        Maximum number of iterations (the plain method converges linearly and slowly).
    tol : float, default=1e-6
        Stop when the relative decrease of the objective is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration; returning True stops.
    random_state : int, Generator or None, default=None
        Only used to complete ``components_`` when ``low_rank_`` has lower rank.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Top right singular vectors of ``low_rank_`` (orthonormal rows).
    mean_ : ndarray of shape (n_features,)
        Zeros (the model has no offset).
    low_rank_ : ndarray of shape (n_samples, n_features)
        The recovered low-rank matrix :math:`M`.
    sparse_ : ndarray of shape (n_samples, n_features)
        The sparse errors :math:`E`.
    eta_ : float
        The inverse step used.
    initial_objective_ : float
        Objective at the starting point :math:`M = E = 0`.
    n_restarts_ : int
        Momentum restarts (0 unless ``accelerate``).
    objective_history_ : ndarray
        Objective after every iteration (non-increasing).
    <detector attributes>
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    References
    ----------
    Y. Guo, "Robust Transfer Principal Component Analysis with Rank Constraints",
    NIPS 2013, eq. (6), Algorithm 1, Lemma 1, sec. 5 ("R-PCA").
    J. Wright, Y. Peng, Y. Ma, A. Ganesh and S. Rao, "Robust principal component
    analysis: exact recovery of corrupted low-rank matrices by convex optimization",
    NIPS 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import RankConstrainedRobustPCA
    >>> rng = np.random.default_rng(0)
    >>> L = rng.normal(size=(40, 2)) @ rng.normal(size=(2, 30))
    >>> X = L.copy()
    >>> idx = rng.choice(X.size, 60, replace=False)
    >>> X.flat[idx] += rng.choice([-20.0, 20.0], size=60)   # 5% gross errors
    >>> model = RankConstrainedRobustPCA(n_components=2).fit(X)
    >>> bool(np.linalg.norm(model.low_rank_ - L) < 0.02 * np.linalg.norm(L))
    True
    """

    __doc__ = with_detector_attributes(__doc__)

    def __init__(
        self,
        n_components=None,
        *,
        alpha=1.0,
        beta=0.1,
        eta=None,
        accelerate=False,
        max_iter=5000,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.beta = beta
        self.eta = eta
        self.accelerate = accelerate
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def _fit_solver(self, X, rng, sample_weight=None):
        alpha = check_nonnegative_float(self.alpha, "alpha", strict=True)
        beta = check_nonnegative_float(self.beta, "beta")
        k = self.n_components_
        return solve_rank_constrained_rpca(
            X,
            k,
            n_components=k,
            alpha=alpha,
            beta=beta,
            eta=_check_eta(self.eta, 2.0 * alpha),
            **self._solver_options(rng),
        )


class RobustTransferPCA(_ProximalMixin, BaseSubspaceEstimator):
    r"""Robust transfer PCA (R-T-PCA): denoise a target matrix with a related source.

    Solves problem (11) of Guo (2013),

    .. math::
        \min_{M_c, M_s, M_t, E_s, E_t}\; \frac{\alpha_s}{2}\lVert A_s M_c + M_s + E_s
        - X_s\rVert_F^2 + \frac{\alpha_t}{2}\lVert A_t M_c + M_t + E_t - X_t\rVert_F^2
        + \beta_s\lVert E_s\rVert_1 + \beta_t\lVert E_t\rVert_1

    subject to :math:`\operatorname{rank}(M_c) \le k_c`, :math:`\operatorname{rank}(M_s)
    \le k_s`, :math:`\operatorname{rank}(M_t) \le k_t`. The shared part :math:`M_c`
    (source rows :math:`A_s M_c` stacked on target rows :math:`A_t M_c`) has one row
    space for both matrices, so a clean source (``source``) supplies the directions
    that gross errors hide in the target ``X``. The recovered target is
    :math:`\hat X_t = A_t M_c + M_t` (``low_rank_``).

    Algorithm 1 (proximal projected gradient): all variables start at zero; every
    iteration takes a gradient step of length :math:`1/\eta` and projects in closed
    form (16)-(17), a rank-:math:`k` truncation for each :math:`M` and soft thresholding
    at :math:`\beta/\eta` for each :math:`E`. With :math:`\eta = 3\max(\alpha_s,
    \alpha_t)`, the Lipschitz constant of the gradient, objective (13) never increases
    (Lemma 1, eq. 21).

    **Without a source** (``fit(X)``, as in scikit-learn's checks) nothing can be
    shared: the problem is the target-only rank-constrained robust PCA (6), the "R-PCA"
    of the paper, with rank ``n_components`` (default ``n_shared + n_target``), solved
    as :class:`RankConstrainedRobustPCA` with :math:`\alpha_t, \beta_t`. ``shared_`` is
    then the whole low-rank part and ``target_private_`` is zero.

    The model has no offset: ``mean_`` is zero, ``components_`` are the top right
    singular vectors of ``low_rank_`` and ``transform`` is ``X @ components_.T``.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of ``components_``. With a source: ``None`` keeps ``n_shared +
        n_target`` (the rank bound of :math:`\hat X_t`, capped by its shape); beyond
        the rank of :math:`\hat X_t` the extra directions are arbitrary orthonormal
        ones. Without a source: also the rank of the target-only problem.
    n_shared, n_source, n_target : int, default=8, 3, 3
        The rank bounds :math:`k_c, k_s, k_t` (Guo's sec. 5 uses 8, 3, 3). Each must
        fit its matrix: :math:`k_c \le \min(n_s + n_t, d)`, :math:`k_s \le \min(n_s,
        d)`, :math:`k_t \le \min(n_t, d)`; zero drops the part.
    alpha_source, alpha_target : float, default=1.0
        :math:`\alpha_s, \alpha_t > 0`, weights of the squared losses.
    beta_source, beta_target : float, default=0.1
        :math:`\beta_s, \beta_t \ge 0`, weights of the l1 penalties. Entries of the
        residual beyond :math:`\beta/\alpha` are taken as errors (the penalties are in
        data units: Guo's 0.1 is read as 0-255 pixels, ``docs/reproduction/guo2013.md``;
        on pixels in [0, 1] it is a threshold of 25.5 grey levels).
    eta : float or None, default=None
        Inverse step; ``None`` uses :math:`3\max(\alpha_s, \alpha_t)` (the exact
        Lipschitz constant, smaller when the shared or a private rank is zero). Values below the
        Lipschitz constant are refused.
    accelerate : bool, default=False
        Add Nesterov momentum with a monotone restart (the objective still never
        increases; see :mod:`robustpca.solvers.transfer`). It reaches a given objective
        in fewer iterations, but on a non-convex problem it may end at another
        stationary point than the plain Algorithm 1: on Guo's Yale tasks (sec. 5.1) it
        reached a lower objective but recovered the clean target less well than the
        plain iterates stopped at ``max_iter`` (``benchmarks/bench_transfer_momentum.py``;
        ``docs/design-notes/estimator-options.md``). So the default is the paper's
        Algorithm 1.
    max_iter : int, default=10000
        Maximum number of iterations. Algorithm 1 converges linearly and slowly: on the
        Yale tasks of Guo's sec. 5.1 it needs thousands of iterations to reach
        ``tol=1e-6``, hence the large default.
    tol : float, default=1e-6
        Stop when the relative decrease of objective (13) is at most ``tol``.
    callback : callable or None, default=None
        ``callback(iteration, state)`` after each iteration; returning True stops.
    random_state : int, Generator or None, default=None
        Only used to complete ``components_`` when ``low_rank_`` has lower rank.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Share of the training rows that ``predict`` flags; ``"auto"`` flags those beyond
        rrcov's cutoffs (:mod:`robustpca.diagnostics`). It sets ``offset_``
        (:mod:`~robustpca.estimators._outlier_api`).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Top right singular vectors of ``low_rank_``.
    mean_ : ndarray of shape (n_features,)
        Zeros (the model has no offset).
    low_rank_ : ndarray of shape (n_samples, n_features)
        The recovered target :math:`\hat X_t = A_t M_c + M_t`.
    shared_ : ndarray of shape (n_source_samples + n_samples, n_features)
        :math:`M_c`, the source rows first.
    source_private_ : ndarray of shape (n_source_samples, n_features)
        :math:`M_s`.
    target_private_ : ndarray of shape (n_samples, n_features)
        :math:`M_t`.
    source_sparse_ : ndarray of shape (n_source_samples, n_features)
        :math:`E_s`.
    sparse_ : ndarray of shape (n_samples, n_features)
        :math:`E_t`, the errors found in the target.
    eta_ : float
        The inverse step used.
    initial_objective_ : float
        Objective (13) at the zero starting point.
    n_restarts_ : int
        Momentum restarts (0 unless ``accelerate``).
    objective_history_ : ndarray
        Objective (13) after every iteration (non-increasing).
    offset_ : float
        ``decision_function = score_samples - offset_``: -1 with
        ``contamination="auto"`` (rrcov's cutoffs), else set so that ``predict`` flags
        that share of the training rows.
    noise_variance_ : float
        Variance of each coordinate orthogonal to the components in the Gaussian model
        of ``score`` (0 where the components span the data; ``get_covariance``).
    n_components_, n_features_in_, n_iter_, converged_, stop_reason_

    Notes
    -----
    No SVD of a block is taken: each rank-:math:`k` projection is one warm-started step
    of subspace iteration with a Rayleigh-Ritz extraction, checked against a residual
    tolerance and replaced by the exact top-:math:`k` eigenpairs of the smaller Gram
    matrix when the check fails (:mod:`robustpca.solvers.transfer`). An iteration costs
    :math:`O((n_s + n_t)\, d\, (k + 5))` per block, far less than Algorithm 1 with full
    SVDs, at the same objective to 1e-7 relative (``benchmarks/bench_transfer.py``).

    References
    ----------
    Y. Guo, "Robust Transfer Principal Component Analysis with Rank Constraints",
    NIPS 2013, problem (11), objective (13), Algorithm 1, eqs. (16)-(17), Lemma 1.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import RobustTransferPCA
    >>> rng = np.random.default_rng(0)
    >>> Bc = rng.normal(size=(4, 50))                   # row space of both matrices
    >>> source = rng.normal(size=(50, 4)) @ Bc          # clean, related data
    >>> clean = rng.normal(size=(50, 4)) @ Bc
    >>> X = clean.copy()
    >>> idx = rng.choice(X.size, 500, replace=False)
    >>> X.flat[idx] += rng.choice([-30.0, 30.0], size=500)   # 20% gross errors
    >>> model = RobustTransferPCA(n_shared=4, n_source=0, n_target=0).fit(X, source=source)
    >>> alone = RobustTransferPCA(n_components=4).fit(X)     # no source: R-PCA, rank 4
    >>> def error(M):
    ...     return np.linalg.norm(M - clean) / np.linalg.norm(clean)
    >>> bool(error(model.low_rank_) < 0.05 < 1.0 < error(alone.low_rank_))
    True
    """

    def __init__(
        self,
        n_components=None,
        *,
        n_shared=8,
        n_source=3,
        n_target=3,
        alpha_source=1.0,
        alpha_target=1.0,
        beta_source=0.1,
        beta_target=0.1,
        eta=None,
        accelerate=False,
        max_iter=10000,
        tol=1e-6,
        callback=None,
        random_state=None,
        contamination="auto",
    ):
        self.n_components = n_components
        self.n_shared = n_shared
        self.n_source = n_source
        self.n_target = n_target
        self.alpha_source = alpha_source
        self.alpha_target = alpha_target
        self.beta_source = beta_source
        self.beta_target = beta_target
        self.eta = eta
        self.accelerate = accelerate
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.random_state = random_state
        self.contamination = contamination

    def fit(self, X, y=None, source=None):
        """Fit R-T-PCA to the target ``X`` with the related, clean ``source``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The corrupted target matrix :math:`X_t`; never modified.
        y : Ignored
            Present for scikit-learn API consistency.
        source : array-like of shape (n_source_samples, n_features) or None
            The source matrix :math:`X_s`, with the same columns as ``X``. ``None``
            fits the target-only problem (see the class notes).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        for name, value in (("X", X), ("source", source)):
            if is_dask_collection(value):
                from .._dask.fit import refuse_dask

                raise refuse_dask(self, name)
        xp, device = input_namespace(X)
        X = validate_data(self, to_numpy(X), dtype=FLOAT_DTYPES, ensure_min_samples=2, reset=True)
        check_magnitude(X)
        self._validate_common()
        rng = as_generator(self.random_state)
        if source is None:
            result = self._fit_solver(X, rng)
        else:
            self._check_source_names(source)
            result = self._fit_transfer(X, self._check_source(to_numpy(source), X.shape[1]), rng)
        self._store(result)
        finish_fit(self, X.dtype, xp, device)
        self._set_outlier_reference(X)  # the outlier-detector API (_outlier_api)
        return self

    def _check_ranks(self) -> tuple[int, int, int]:
        ranks = cast(
            tuple[int, int, int],
            tuple(
                check_positive_int(getattr(self, name), name, minimum=0)
                for name in ("n_shared", "n_source", "n_target")
            ),
        )
        if ranks[0] + ranks[2] == 0:
            raise ValueError(
                "n_shared + n_target must be >= 1: the recovered target A_t M_c + M_t "
                "would be zero."
            )
        return ranks

    def _check_weights(self) -> dict:
        out = {}
        for name in ("alpha_source", "alpha_target"):
            out[name] = check_nonnegative_float(getattr(self, name), name, strict=True)
        for name in ("beta_source", "beta_target"):
            out[name] = check_nonnegative_float(getattr(self, name), name)
        return out

    def _check_source_names(self, source) -> None:
        """A DataFrame ``source`` has ``X``'s columns, in its order, where ``X`` had names
        (its columns are matched by position)."""
        names = getattr(self, "feature_names_in_", None)
        columns = getattr(source, "columns", None)
        if names is None or columns is None:
            return
        if [str(c) for c in columns] != [str(c) for c in names]:
            raise ValueError(
                "source must have the columns of X, in the same order (they are matched by "
                f"position); X has {list(names)}, source has {list(columns)}."
            )

    @staticmethod
    def _check_source(source, n_features: int) -> np.ndarray:
        if np.ndim(source) != 2:
            raise ValueError(
                f"source must be a 2-D array (n_source_samples, n_features), got "
                f"{np.ndim(source)} dimension(s)."
            )
        Xs = check_array(source, dtype=np.float64, input_name="source", ensure_min_samples=1)
        check_magnitude(Xs, name="source")
        if Xs.shape[1] != n_features:
            raise ValueError(
                f"source has {Xs.shape[1]} columns but X has {n_features}; the source and "
                "the target must have the same features (columns)."
            )
        return Xs

    def _fit_solver(self, X, rng, sample_weight=None):
        """The target-only problem: rank-constrained R-PCA with ``n_components``."""
        kc, _, kt = self._check_ranks()
        w = self._check_weights()
        n, d = X.shape
        if self.n_components is None and kc + kt > min(n, d):
            raise ValueError(
                f"Without a source, the target-only problem has rank n_shared + n_target = "
                f"{kc + kt}, which exceeds min(n_samples, n_features)={min(n, d)}; pass "
                "n_components (the rank) or smaller ranks."
            )
        k = check_n_components(kc + kt if self.n_components is None else self.n_components, n, d)
        self.n_components_ = k
        alpha = w["alpha_target"]
        result = solve_rank_constrained_rpca(
            X,
            k,
            n_components=k,
            alpha=alpha,
            beta=w["beta_target"],
            eta=_check_eta(self.eta, 2.0 * alpha),
            **self._solver_options(rng),
        )
        result.info.update(
            shared=result.info["low_rank"],
            source_private=np.zeros((0, d)),
            target_private=np.zeros((n, d)),
            source_sparse=np.zeros((0, d)),
        )
        return result

    def _fit_transfer(self, X, Xs, rng):
        kc, ks, kt = self._check_ranks()
        w = self._check_weights()
        (nt, d), ns = X.shape, Xs.shape[0]
        bounds = {
            "n_shared": (kc, min(ns + nt, d), "the stacked [source; X]"),
            "n_source": (ks, min(ns, d), "source"),
            "n_target": (kt, min(nt, d), "X"),
        }
        for name, (k, bound, matrix) in bounds.items():
            if k > bound:
                raise ValueError(
                    f"{name}={k} exceeds the size of {matrix}: at most {bound} "
                    f"(source has shape {Xs.shape}, X has shape {X.shape})."
                )
        if self.n_components is None:
            k = min(kc + kt, nt, d)
        else:
            k = check_n_components(self.n_components, nt, d)
        self.n_components_ = k
        lipschitz = lipschitz_constant(
            w["alpha_source"], w["alpha_target"], n_source=ks, n_target=kt, n_shared=kc
        )
        return solve_robust_transfer_pca(
            X,
            Xs,
            n_shared=kc,
            n_source=ks,
            n_target=kt,
            n_components=k,
            eta=_check_eta(self.eta, lipschitz),
            **w,
            **self._solver_options(rng),
        )
