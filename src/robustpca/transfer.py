r"""The denoising methods compared in Guo (2013), sec. 5, runnable by name.

Every method takes the clean source matrix :math:`X_s^0` and the corrupted target
:math:`X_t` (same columns) and returns the recovered low-rank target :math:`\hat X_t`,
with one signature::

    method(source, target, *, n_shared=8, n_source=3, n_target=3, alpha=1.0, beta=0.1,
           **options) -> ndarray of shape target.shape

``options`` (``accelerate``, ``max_iter``, ``tol``) go to the robust solvers; every
method takes the same keywords, ignores those it does not use (``n_source`` is R-T-PCA's
only) and raises a :class:`TypeError` on any other.

=========== ==========================================================================
name        method (the rank of :math:`\hat X_t` is ``n_shared + n_target``)
=========== ==========================================================================
R-T-PCA     :class:`~robustpca.estimators._transfer.RobustTransferPCA`, problem (11)
R-S-PCA     rank-constrained robust PCA (6) of the stack :math:`[X_s^0; X_t]`
R-PCA       rank-constrained robust PCA (6) of :math:`X_t` alone
S-PCA       PCA (2)-(3) of the stack :math:`[X_s^0; X_t]`: its best rank-k approximation
PCA         PCA (2)-(3) of :math:`X_t`
R-2Step-PCA robust PCA of the stack with rank ``n_shared`` gives :math:`M_c`, then
            robust PCA of :math:`X_t - A_t M_c` with rank ``n_target`` gives :math:`M_t`
=========== ==========================================================================

PCA here is problem (2) of the paper, the best rank-k approximation with no centring
(:math:`M^* = X V_k V_k^\top`, eq. 3), like the robust methods, which have no offset.
:func:`add_salt_noise` (from :mod:`robustpca.datasets.corruption`) and :func:`rmse` (from
:mod:`robustpca.metrics`), the corruption and the score of sec. 5, are re-exported here.

References
----------
Y. Guo, "Robust Transfer Principal Component Analysis with Rank Constraints",
NIPS 2013, sec. 5 (Tables 1-2, Figures 1-2).

Examples
--------
>>> import numpy as np
>>> from robustpca.transfer import COMPARISON_METHODS, recover_target
>>> sorted(COMPARISON_METHODS)
['PCA', 'R-2Step-PCA', 'R-PCA', 'R-S-PCA', 'R-T-PCA', 'S-PCA']
>>> rng = np.random.default_rng(0)
>>> source, target = rng.random((2, 20, 16))
>>> recover_target("PCA", source, target, n_shared=2, n_target=1).shape
(20, 16)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.utils import check_array

from ._validation import check_positive_int
from .datasets.corruption import add_salt_noise
from .estimators._transfer import RankConstrainedRobustPCA, RobustTransferPCA
from .linalg import WeightedPCAProblem
from .metrics import rmse

__all__ = [
    "COMPARISON_METHODS",
    "add_salt_noise",
    "pca_recover",
    "r_2step_pca",
    "r_pca",
    "r_s_pca",
    "r_t_pca",
    "recover_target",
    "rmse",
    "s_pca",
]


def _check_pair(source, target) -> tuple[np.ndarray, np.ndarray]:
    Xt = check_array(target, dtype=np.float64, input_name="target", ensure_min_samples=2)
    Xs = check_array(source, dtype=np.float64, input_name="source")
    if Xs.shape[1] != Xt.shape[1]:
        raise ValueError(
            f"source has {Xs.shape[1]} columns but target has {Xt.shape[1]}; they must "
            "have the same features (columns)."
        )
    return Xs, Xt


def _check_ranks(n_shared, n_source, n_target) -> tuple[int, int, int]:
    """The three ranks, as :class:`~robustpca.RobustTransferPCA` checks them: whole
    numbers >= 0 (zero drops a part), with ``n_shared + n_target >= 1``."""
    shared = check_positive_int(n_shared, "n_shared", minimum=0)
    source = check_positive_int(n_source, "n_source", minimum=0)
    target = check_positive_int(n_target, "n_target", minimum=0)
    if shared + target == 0:
        raise ValueError("n_shared + n_target must be >= 1: the recovered target would be zero.")
    return shared, source, target


#: The solver options every method takes (the robust ones pass them on).
_SOLVER_OPTIONS = ("accelerate", "max_iter", "tol")


def _check_options(method: str, options: dict) -> None:
    """A TypeError, as for any unknown keyword, unless every key of ``options`` is a
    solver option."""
    for key in options:
        if key not in _SOLVER_OPTIONS:
            raise TypeError(
                f"{method}() got an unexpected keyword argument {key!r}; its keywords are "
                "n_shared, n_source, n_target, alpha, beta and the solver options "
                f"{', '.join(_SOLVER_OPTIONS)}."
            )


def _check_rank(X: np.ndarray, rank: int, name: str = "n_shared + n_target") -> None:
    """Refuse a rank above ``min(X.shape)``, naming the parameter(s) ``name`` that set it."""
    if rank > min(X.shape):
        raise ValueError(
            f"{name} = {rank} exceeds the rank a {X.shape[0]} x {X.shape[1]} matrix can have."
        )


def _rpca(
    X: np.ndarray,
    rank: int,
    alpha: float,
    beta: float,
    options: dict,
    name: str = "n_shared + n_target",
) -> np.ndarray:
    if rank == 0:  # a part dropped
        return np.zeros_like(X)
    _check_rank(X, rank, name)
    model = RankConstrainedRobustPCA(n_components=rank, alpha=alpha, beta=beta, **options)
    return model.fit(X).low_rank_


def _truncated(X: np.ndarray, rank: int) -> np.ndarray:
    """Best rank-``rank`` approximation of ``X`` (eq. 3), via the smaller Gram matrix."""
    _check_rank(X, rank)
    rng = np.random.default_rng(0)  # only completes a basis beyond the rank of X
    V = WeightedPCAProblem(X, rank, rng, center=False).solve(np.ones(X.shape[0])).basis()
    return (X @ V) @ V.T


def r_t_pca(
    source, target, *, n_shared=8, n_source=3, n_target=3, alpha=1.0, beta=0.1, **options
) -> np.ndarray:
    r"""R-T-PCA: problem (11) of Guo (2013).

    With :math:`\alpha_s = \alpha_t = \alpha` and :math:`\beta_s = \beta_t = \beta`, as in
    Guo's sec. 5; the recovered target is :math:`A_t M_c + M_t`.

    Parameters
    ----------
    source, target : array-like of shape (n_source_samples, d) and (n_samples, d)
        The clean source :math:`X_s^0` and the corrupted target :math:`X_t`.
    n_shared : int, default=8
        Rank bound of the shared part :math:`M_c`; 0 drops it.
    n_source : int, default=3
        Rank bound of the source's own part :math:`M_s`; 0 drops it.
    n_target : int, default=3
        Rank bound of the target's own part :math:`M_t` (``n_shared + n_target >= 1``).
    alpha : float, default=1.0
        :math:`\alpha_s = \alpha_t`, the weight of the squared reconstruction errors.
    beta : float, default=0.1
        :math:`\beta_s = \beta_t`, the weight of the l1 norms of the sparse errors.
    **options
        ``accelerate``, ``max_iter``, ``tol``: options of
        :class:`~robustpca.estimators._transfer.RobustTransferPCA`.

    Returns
    -------
    ndarray of shape (n_samples, d)
        The recovered low-rank target :math:`\hat X_t`.
    """
    _check_options("r_t_pca", options)
    Xs, Xt = _check_pair(source, target)
    n_shared, n_source, n_target = _check_ranks(n_shared, n_source, n_target)
    model = RobustTransferPCA(
        n_shared=n_shared,
        n_source=n_source,
        n_target=n_target,
        alpha_source=alpha,
        alpha_target=alpha,
        beta_source=beta,
        beta_target=beta,
        **options,
    )
    return model.fit(Xt, source=Xs).low_rank_


def r_s_pca(
    source, target, *, n_shared=8, n_source=3, n_target=3, alpha=1.0, beta=0.1, **options
) -> np.ndarray:
    r"""R-S-PCA: rank-constrained robust PCA of ``[source; target]``, target rows.

    Parameters
    ----------
    source, target : array-like of shape (n_source_samples, d) and (n_samples, d)
        The clean source :math:`X_s^0` and the corrupted target :math:`X_t`.
    n_shared : int, default=8
        With ``n_target``, the rank bound ``n_shared + n_target`` (at least 1) of the stack's fit.
    n_source : int, default=3
        Not used (R-T-PCA's only).
    n_target : int, default=3
        See ``n_shared``.
    alpha : float, default=1.0
        Weight of the squared reconstruction error (:math:`\alpha`).
    beta : float, default=0.1
        Weight of the l1 norm of the sparse errors (:math:`\beta`).
    **options
        ``accelerate``, ``max_iter``, ``tol``: options of
        :class:`~robustpca.estimators._transfer.RankConstrainedRobustPCA`.

    Returns
    -------
    ndarray of shape (n_samples, d)
        The recovered low-rank target :math:`\hat X_t`.
    """
    _check_options("r_s_pca", options)
    Xs, Xt = _check_pair(source, target)
    n_shared, n_source, n_target = _check_ranks(n_shared, n_source, n_target)
    stacked = _rpca(np.vstack([Xs, Xt]), n_shared + n_target, alpha, beta, options)
    return stacked[Xs.shape[0] :]


def r_pca(
    source, target, *, n_shared=8, n_source=3, n_target=3, alpha=1.0, beta=0.1, **options
) -> np.ndarray:
    r"""R-PCA: rank-constrained robust PCA of the target alone.

    Parameters
    ----------
    source, target : array-like of shape (n_source_samples, d) and (n_samples, d)
        The clean source :math:`X_s^0` (checked, not used) and the corrupted target
        :math:`X_t`.
    n_shared : int, default=8
        With ``n_target``, the rank bound ``n_shared + n_target`` (at least 1) of the fit.
    n_source : int, default=3
        Not used (R-T-PCA's only).
    n_target : int, default=3
        See ``n_shared``.
    alpha : float, default=1.0
        Weight of the squared reconstruction error (:math:`\alpha`).
    beta : float, default=0.1
        Weight of the l1 norm of the sparse errors (:math:`\beta`).
    **options
        ``accelerate``, ``max_iter``, ``tol``: options of
        :class:`~robustpca.estimators._transfer.RankConstrainedRobustPCA`.

    Returns
    -------
    ndarray of shape (n_samples, d)
        The recovered low-rank target :math:`\hat X_t`.
    """
    _check_options("r_pca", options)
    _, Xt = _check_pair(source, target)
    n_shared, n_source, n_target = _check_ranks(n_shared, n_source, n_target)
    return _rpca(Xt, n_shared + n_target, alpha, beta, options)


def s_pca(
    source, target, *, n_shared=8, n_source=3, n_target=3, alpha=1.0, beta=0.1, **options
) -> np.ndarray:
    r"""S-PCA: best rank-``n_shared + n_target`` approximation of ``[source; target]``.

    Parameters
    ----------
    source, target : array-like of shape (n_source_samples, d) and (n_samples, d)
        The clean source :math:`X_s^0` and the corrupted target :math:`X_t`.
    n_shared : int, default=8
        With ``n_target``, the rank ``n_shared + n_target`` (at least 1) of the approximation.
    n_source : int, default=3
        Not used (R-T-PCA's only).
    n_target : int, default=3
        See ``n_shared``.
    alpha, beta : float, default=1.0, 0.1
        Not used (the robust methods' weights).
    **options
        Not used: the robust methods' solver options ``accelerate``, ``max_iter``,
        ``tol``; any other keyword is a TypeError.

    Returns
    -------
    ndarray of shape (n_samples, d)
        The recovered low-rank target :math:`\hat X_t`.
    """
    _check_options("s_pca", options)
    Xs, Xt = _check_pair(source, target)
    n_shared, n_source, n_target = _check_ranks(n_shared, n_source, n_target)
    return _truncated(np.vstack([Xs, Xt]), n_shared + n_target)[Xs.shape[0] :]


def pca_recover(
    source, target, *, n_shared=8, n_source=3, n_target=3, alpha=1.0, beta=0.1, **options
) -> np.ndarray:
    r"""PCA: best rank-``n_shared + n_target`` approximation of the target.

    Parameters
    ----------
    source, target : array-like of shape (n_source_samples, d) and (n_samples, d)
        The clean source :math:`X_s^0` (checked, not used) and the corrupted target
        :math:`X_t`.
    n_shared : int, default=8
        With ``n_target``, the rank ``n_shared + n_target`` (at least 1) of the approximation.
    n_source : int, default=3
        Not used (R-T-PCA's only).
    n_target : int, default=3
        See ``n_shared``.
    alpha, beta : float, default=1.0, 0.1
        Not used (the robust methods' weights).
    **options
        Not used: the robust methods' solver options ``accelerate``, ``max_iter``,
        ``tol``; any other keyword is a TypeError.

    Returns
    -------
    ndarray of shape (n_samples, d)
        The recovered low-rank target :math:`\hat X_t`.
    """
    _check_options("pca_recover", options)
    Xt = _check_pair(source, target)[1]
    n_shared, n_source, n_target = _check_ranks(n_shared, n_source, n_target)
    return _truncated(Xt, n_shared + n_target)


def r_2step_pca(
    source, target, *, n_shared=8, n_source=3, n_target=3, alpha=1.0, beta=0.1, **options
) -> np.ndarray:
    r"""R-2Step-PCA: :math:`M_c` from robust PCA of the stack, then :math:`M_t` from the rest.

    Parameters
    ----------
    source, target : array-like of shape (n_source_samples, d) and (n_samples, d)
        The clean source :math:`X_s^0` and the corrupted target :math:`X_t`.
    n_shared : int, default=8
        Rank bound of the robust PCA of the stack, whose target rows are :math:`A_t M_c`; 0
        drops the step.
    n_source : int, default=3
        Not used (R-T-PCA's only).
    n_target : int, default=3
        Rank bound of the robust PCA of :math:`X_t - A_t M_c`, giving :math:`M_t`; 0 drops
        the step (``n_shared + n_target >= 1``).
    alpha : float, default=1.0
        Weight of the squared reconstruction error (:math:`\alpha`).
    beta : float, default=0.1
        Weight of the l1 norm of the sparse errors (:math:`\beta`).
    **options
        ``accelerate``, ``max_iter``, ``tol``: options of
        :class:`~robustpca.estimators._transfer.RankConstrainedRobustPCA`.

    Returns
    -------
    ndarray of shape (n_samples, d)
        The recovered low-rank target :math:`\hat X_t`.
    """
    _check_options("r_2step_pca", options)
    Xs, Xt = _check_pair(source, target)
    n_shared, n_source, n_target = _check_ranks(n_shared, n_source, n_target)
    stack = np.vstack([Xs, Xt])
    shared = _rpca(stack, n_shared, alpha, beta, options, "n_shared")[Xs.shape[0] :]
    return shared + _rpca(Xt - shared, n_target, alpha, beta, options, "n_target")


#: The methods of Guo (2013), sec. 5, by the names of Tables 1-2.
COMPARISON_METHODS: dict[str, Callable[..., np.ndarray]] = {
    "R-T-PCA": r_t_pca,
    "R-S-PCA": r_s_pca,
    "R-PCA": r_pca,
    "S-PCA": s_pca,
    "PCA": pca_recover,
    "R-2Step-PCA": r_2step_pca,
}


def recover_target(method: str, source, target, **params) -> np.ndarray:
    """Run the comparison method named ``method`` (a key of :data:`COMPARISON_METHODS`).

    Parameters
    ----------
    method : str
        One of ``'R-T-PCA'``, ``'R-S-PCA'``, ``'R-PCA'``, ``'S-PCA'``, ``'PCA'``,
        ``'R-2Step-PCA'``.
    source, target : array-like of shape (n_source_samples, d) and (n_samples, d)
        The clean source and the corrupted target.
    **params
        ``n_shared``, ``n_source``, ``n_target``, ``alpha``, ``beta`` and solver options.

    Returns
    -------
    ndarray of shape (n_samples, d)
        The recovered low-rank target.
    """
    try:
        func = COMPARISON_METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"method={method!r} is not one of {sorted(COMPARISON_METHODS)}.") from None
    return func(source, target, **params)
