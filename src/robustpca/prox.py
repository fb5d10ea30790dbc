r"""Proximal operators: the closed-form steps of the convex robust PCA solvers.

Each operator is the minimiser of a quadratic plus a norm,

.. math:: \operatorname{prox}_{\tau f}(V) = \arg\min_Y \tfrac12 \lVert Y - V\rVert_F^2
          + \tau f(Y),

for the entry-wise l1 norm (:func:`soft_threshold`), the per-sample l2,1 norm
(:func:`l21_shrinkage`, one sample per row) and the nuclear norm
(:func:`singular_value_thresholding`); :func:`rank_truncation` is the projection on the
matrices of rank at most ``k`` (Eckart-Young). They are the steps of the augmented
Lagrangian methods in :mod:`robustpca.solvers.alm` (Lin, Chen & Ma 2010; Nie et al.
2014, Algorithm 3) and follow the one-function-per-operator style of TensorLy's
``tenalg/proximal.py``.

Singular value thresholding and rank truncation need only the singular triplets above
the threshold (or the top ``k``). For a large matrix with few of them,
:func:`truncated_svd` computes them by randomised subspace iteration with a Rayleigh-Ritz
step (Halko, Martinsson & Tropp 2011, Algorithms 4.4 and 5.1), iterated until every
wanted triplet has a residual :math:`\lVert Xv_i - \sigma_i u_i\rVert_2 \le
\mathrm{rtol}\,\sigma_1` (the other residual, :math:`X^\top u_i - \sigma_i v_i`, is zero
by construction), and falls back to the exact LAPACK SVD (``gesdd``) when that does not
happen within ``max_iter`` passes, when the matrix is small, or when the wanted triplets
are more than a fifth of the spectrum. Every function says which route it took.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import linalg as sla

from ._validation import check_matrix, check_positive_int, check_threshold, check_threshold_array

__all__ = [
    "SVDFactors",
    "l21_shrinkage",
    "nuclear_norm",
    "partial_svt_factors",
    "rank_truncation",
    "singular_value_thresholding",
    "soft_threshold",
    "svt_factors",
    "truncated_svd",
]

#: Matrices whose smaller side is at most this use the exact SVD.
SMALL_SIDE = 64
#: The partial route is used while (wanted + oversampling) <= this fraction of min(m, n).
PARTIAL_FRACTION = 0.2
#: Extra random directions in the subspace iteration (Halko et al. use 5 to 10).
OVERSAMPLES = 10
#: Default relative residual tolerance of the partial route.
PARTIAL_RTOL = 1e-10
#: Default number of subspace-iteration passes before falling back to the exact SVD.
PARTIAL_MAX_ITER = 12


class SVDFactors(NamedTuple):
    """Singular triplets ``X ~ (U * s) @ Vt`` and how they were computed.

    Parameters
    ----------
    U : ndarray of shape (m, r)
        Left singular vectors, as columns.
    s : ndarray of shape (r,)
        Singular values, decreasing (less the threshold, from :func:`svt_factors`).
    Vt : ndarray of shape (r, n)
        Right singular vectors, as rows.
    method : {"full", "partial", "truncated"}
        LAPACK's exact SVD (``gesdd``); randomised subspace iteration converged to the
        residual tolerance; or (only from :func:`svt_factors` with ``grow=False``) the
        rank cap was reached, so singular values above the threshold beyond it are missing.
    """

    U: np.ndarray
    s: np.ndarray
    Vt: np.ndarray
    method: str

    def to_array(self) -> np.ndarray:
        """The matrix ``(U * s) @ Vt`` of the triplets."""
        return (self.U * self.s) @ self.Vt


def soft_threshold(X, threshold: float | np.ndarray) -> np.ndarray:
    r"""Entry-wise soft thresholding, the proximal operator of the l1 norm.

    .. math:: \mathcal{S}_\tau(X) = \arg\min_Y \tfrac12\lVert Y - X\rVert_F^2
              + \tau \lVert Y\rVert_1 = \operatorname{sign}(X)\max(|X| - \tau, 0).

    Parameters
    ----------
    X : array-like
        Any shape; not modified.
    threshold : float or ndarray
        :math:`\tau \ge 0`; an array broadcastable to ``X`` gives every entry (or row,
        or block) its own threshold (the weighted l1 norm :math:`\sum_{ij}\tau_{ij}
        |Y_{ij}|`). A 0-d array is a scalar; an array that would enlarge ``X`` by
        broadcasting is refused.

    Returns
    -------
    ndarray of the shape of ``X``

    Raises
    ------
    ValueError
        If ``threshold`` is negative or not finite somewhere, or does not broadcast to
        the shape of ``X``.
    TypeError
        If ``threshold`` is not real.

    Examples
    --------
    >>> from robustpca.prox import soft_threshold
    >>> soft_threshold([-3.0, -0.5, 0.0, 2.0], 1.0)
    array([-2.,  0.,  0.,  1.])
    >>> soft_threshold([[3.0, 3.0], [3.0, 3.0]], [[1.0], [2.0]])
    array([[2., 2.],
           [1., 1.]])
    """
    X = np.asarray(X, dtype=np.float64)
    t: float | np.ndarray
    if np.ndim(threshold) == 0:
        t = check_threshold(threshold)
    else:
        t = check_threshold_array(threshold, X.shape)
    return X - np.clip(X, -t, t)


def l21_shrinkage(X, threshold: float) -> np.ndarray:
    r"""Per-sample (row) shrinkage, the proximal operator of the l2,1 norm.

    .. math:: \arg\min_Y \tfrac12\lVert Y - X\rVert_F^2 + \tau \sum_i \lVert y_i\rVert_2,
              \qquad y_i = \max\!\Bigl(1 - \frac{\tau}{\lVert x_i\rVert_2}, 0\Bigr) x_i ,

    with one sample per row (the :math:`e_i` step of Nie et al. 2014, Algorithm 3, and
    the column shrinkage of Xu et al. 2012 in their ``d x n`` layout). Rows with norm at
    most :math:`\tau` become exactly zero. The norms of rows whose sum of squares would
    under- or overflow are taken scaled, so the operator is scale-equivariant.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_features,)
        Not modified (1-D: one sample).
    threshold : float
        :math:`\tau \ge 0` (a 0-d array is a float).

    Returns
    -------
    ndarray of the shape of X

    Examples
    --------
    >>> from robustpca.prox import l21_shrinkage
    >>> l21_shrinkage([[3.0, 4.0], [0.3, 0.4]], 1.0)
    array([[2.4, 3.2],
           [0. , 0. ]])
    """
    t = check_threshold(threshold)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim not in (1, 2):
        raise ValueError(f"X must be a 1-D (one sample) or 2-D array, got shape {X.shape}.")
    norms = _row_norms(X)
    scale = np.zeros_like(norms)
    np.divide(t, norms, out=scale, where=norms > t)
    return X * np.where(norms > t, 1.0 - scale, 0.0)


def _row_norms(X: np.ndarray) -> np.ndarray:
    """The l2 norms along the last axis of ``X``, kept as a length-1 axis. Only rows whose
    sum of squares under- or overflows (entries below about 1e-154 or above 1e154) are
    recomputed, scaled by their largest entry: ordinary data pay for one comparison."""
    with np.errstate(over="ignore"):
        norms = np.linalg.norm(X, axis=-1, keepdims=True)
    flat = norms.ravel()
    redo = (flat < np.sqrt(np.finfo(np.float64).tiny)) | (flat == np.inf)
    if redo.any():
        R = X.reshape(flat.size, X.shape[-1])[redo]
        top = np.max(np.abs(R), axis=1, keepdims=True, initial=0.0)
        usable = np.isfinite(top) & (top > 0)  # zero rows stay 0, infinite entries inf
        top = np.where(usable, top, 1.0)
        scaled = top[:, 0] * np.linalg.norm(R / top, axis=1)
        flat[redo] = np.where(usable[:, 0], scaled, flat[redo])
    return flat.reshape(norms.shape)


def nuclear_norm(X) -> float:
    r"""Sum of the singular values, :math:`\lVert X\rVert_* = \operatorname{Tr}
    (X^\top X)^{1/2}` (exact SVD).

    Parameters
    ----------
    X : array-like of shape (m, n)
        The matrix (not modified).

    Returns
    -------
    float

    Examples
    --------
    >>> from robustpca.prox import nuclear_norm
    >>> nuclear_norm([[3.0, 0.0], [0.0, -4.0]])
    7.0
    """
    return float(sla.svdvals(check_matrix(X), check_finite=False).sum())


def _full_svd(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    try:
        return sla.svd(X, full_matrices=False, check_finite=False)
    except np.linalg.LinAlgError:  # pragma: no cover - gesdd failures are rare
        return sla.svd(X, full_matrices=False, check_finite=False, lapack_driver="gesvd")


def _orth(Y: np.ndarray) -> np.ndarray:
    return sla.qr(Y, mode="economic", check_finite=False)[0]


def _subspace_iteration(X, n_wanted, n_columns, rng, init, rtol, max_iter, certify=None):
    """Top singular triplets by subspace iteration with Rayleigh-Ritz.

    ``n_wanted(s)`` says, for the current Ritz values ``s``, how many leading triplets
    must have converged, or ``None`` to stop at once (the caller wants more columns).
    ``certify(s, residuals)``, given the residuals of every Ritz triplet, must also hold
    for the iteration to count as converged. Returns ``(U, s, Vt, status)`` with
    ``n_columns`` Ritz triplets and ``status`` one of ``'converged'``, ``'stopped'`` or
    ``'slow'`` (would not converge within ``max_iter`` passes at the observed rate).
    """
    n = X.shape[1]
    omega = rng.standard_normal((n, n_columns))
    if init is not None and init.shape[0] > 0:
        keep = min(init.shape[0], n_columns - OVERSAMPLES)
        if keep > 0:
            omega[:, :keep] = init[:keep].T
    Q = _orth(X @ omega)
    previous = np.inf
    for passes in range(1, max_iter + 1):
        Ub, s, Vt = sla.svd(Q.T @ X, full_matrices=False, check_finite=False)
        U = Q @ Ub
        wanted = n_wanted(s)
        if wanted is None:
            return U, s, Vt, "stopped"
        XV = X @ Vt.T
        every = wanted if certify is None else s.size
        residual = np.linalg.norm(XV[:, :every] - U[:, :every] * s[:every], axis=0)
        top = s[0] if s[0] > 0 else 1.0
        worst = residual[:wanted].max(initial=0.0) / top
        if worst <= rtol:
            if certify is None or certify(s, residual):
                return U, s, Vt, "converged"
            # not certified: the next triplet must settle, at the rate measured below
            worst = max(worst, residual[wanted] / top) if wanted < s.size else worst
            if worst <= rtol:
                return U, s, Vt, "converged"
        rate = worst / previous
        if passes >= 3 and (rate >= 1 or worst * rate ** (max_iter - passes) > rtol):
            break
        previous = worst
        Q = _orth(XV)
    return U, s, Vt, "slow"


def _partial_route(m: int, n: int, n_wanted: int, solver: str) -> bool:
    if solver == "full":
        return False
    if solver not in ("auto", "partial"):
        raise ValueError(f"solver must be 'auto', 'full' or 'partial', got {solver!r}.")
    side = min(m, n)
    columns = n_wanted + OVERSAMPLES
    if solver == "partial":
        return columns < side
    return side > SMALL_SIDE and columns <= PARTIAL_FRACTION * side


def truncated_svd(
    X,
    n_components: int,
    *,
    solver: str = "auto",
    rng: np.random.Generator | None = None,
    init: np.ndarray | None = None,
    rtol: float = PARTIAL_RTOL,
    max_iter: int = PARTIAL_MAX_ITER,
) -> SVDFactors:
    r"""The top ``n_components`` singular triplets of ``X``, largest first.

    Parameters
    ----------
    X : array-like of shape (m, n)
    n_components : int
        Number ``k`` of triplets, ``0 <= k <= min(m, n)``.
    solver : {'auto', 'full', 'partial'}, default='auto'
        ``'full'``: LAPACK's exact SVD (``gesdd``), truncated. ``'partial'``: randomised
        subspace iteration on ``k + 10`` directions with a Rayleigh-Ritz step, repeated
        until every wanted triplet satisfies :math:`\lVert Xv_i - \sigma_iu_i\rVert_2 \le
        \mathrm{rtol}\,\sigma_1` (then :math:`\sigma_i` is within that distance of a
        singular value of ``X``), with the exact SVD as fallback after ``max_iter``
        passes. ``'auto'`` takes the partial route when ``min(m, n) > 64`` and
        ``k + 10 <= min(m, n) / 5``, the exact one otherwise.
    rng : numpy.random.Generator, optional
        Draws the random start of the partial route (default: seed 0).
    init : ndarray of shape (r, n), optional
        Rows spanning a guess of the top right singular subspace (for example the
        ``Vt`` of a nearby matrix); used as the start of the partial route.
    rtol : float, default=1e-10
    max_iter : int, default=12

    Returns
    -------
    SVDFactors
        ``U`` (m, k), ``s`` (k,), ``Vt`` (k, n) and the route taken (``'full'`` or
        ``'partial'``).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.prox import truncated_svd
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)) @ rng.normal(size=(3, 200))
    >>> top = truncated_svd(X, 3, rng=rng)
    >>> top.method, bool(np.allclose(top.s, np.linalg.svd(X, compute_uv=False)[:3]))
    ('partial', True)
    """
    X = check_matrix(X)
    m, n = X.shape
    k = check_positive_int(n_components, "n_components", minimum=0, maximum=min(m, n))
    if _partial_route(m, n, k, solver) and k > 0:
        rng = np.random.default_rng(0) if rng is None else rng
        U, s, Vt, status = _subspace_iteration(
            X, lambda s: k, k + OVERSAMPLES, rng, init, rtol, max_iter
        )
        if status == "converged":
            return SVDFactors(U[:, :k], s[:k], Vt[:k], "partial")
    U, s, Vt = _full_svd(X)
    return SVDFactors(U[:, :k], s[:k], Vt[:k], "full")


def svt_factors(
    X,
    threshold: float,
    *,
    rank_hint: int | None = None,
    grow: bool = True,
    solver: str = "auto",
    rng: np.random.Generator | None = None,
    init: np.ndarray | None = None,
    rtol: float = PARTIAL_RTOL,
    max_iter: int = PARTIAL_MAX_ITER,
    certify: bool = True,
) -> SVDFactors:
    r"""Factors of :func:`singular_value_thresholding`: ``U``, ``s - threshold``, ``Vt``.

    Only the triplets with :math:`\sigma_i > \tau` are returned (``s`` holds
    :math:`\sigma_i - \tau > 0`), so ``len(s)`` is the rank of the result.

    With ``rank_hint`` (a guess ``k`` of how many singular values exceed the threshold,
    e.g. the ``svp`` prediction of Lin et al. 2010 in an ALM solver) and
    ``solver='auto'`` or ``'partial'``, the top ``k`` triplets are computed by the
    partial route of :func:`truncated_svd`. If all ``k`` Ritz values exceed the
    threshold (they are lower bounds of the singular values, so then
    :math:`\sigma_k > \tau` for sure), ``grow=True`` doubles ``k`` and repeats, warm
    started, until one falls below it; ``grow=False`` instead returns the ``k``
    thresholded triplets as they are, flagged ``method='truncated'`` (what Lin et
    al.'s code does with PROPACK in the early ALM iterations). Without a hint, when
    the wanted triplets exceed a fifth of the spectrum, or when the partial route
    converges too slowly, the exact SVD is used.

    Parameters
    ----------
    X : array-like of shape (m, n)
    threshold : float
        :math:`\tau \ge 0`.
    rank_hint : int, optional
    grow : bool, default=True
    solver, rng, init, rtol, max_iter
        See :func:`truncated_svd`.
    certify : bool, default=True
        On the partial route, accept the triplets only once the next Ritz value, within
        its residual, is below the threshold (no singular value above it left out). An
        ALM whose duality gap certifies its fit may skip this for speed.

    Returns
    -------
    SVDFactors

    Examples
    --------
    >>> from robustpca.prox import svt_factors
    >>> svt_factors([[3.0, 0.0], [0.0, 1.0]], 2.0).s
    array([1.])
    """
    tau = check_threshold(threshold)
    X = check_matrix(X)
    m, n = X.shape
    side = min(m, n)
    k = (
        max(1, check_positive_int(rank_hint, "rank_hint", minimum=0))
        if rank_hint is not None
        else side
    )
    if rank_hint is not None or solver == "partial":
        rng = np.random.default_rng(0) if rng is None else rng
        while _partial_route(m, n, k, solver):
            factors, ritz = _partial_svt_attempt(X, tau, k, rng, init, rtol, max_iter, certify)
            if factors is None:  # too slow: the exact SVD
                break
            if factors.method == "partial" or not grow:
                return factors
            k, init = min(2 * k, side), ritz  # all k above the threshold: ask for more
    elif solver not in ("auto", "full"):
        raise ValueError(f"solver must be 'auto', 'full' or 'partial', got {solver!r}.")
    U, s, Vt = _full_svd(X)
    keep = int(np.count_nonzero(s > tau))
    return SVDFactors(U[:, :keep], s[:keep] - tau, Vt[:keep], "full")


def partial_svt_factors(
    X,
    threshold: float,
    *,
    rank_hint: int,
    rng: np.random.Generator | None = None,
    init: np.ndarray | None = None,
    rtol: float = PARTIAL_RTOL,
    max_iter: int = PARTIAL_MAX_ITER,
) -> SVDFactors | None:
    r"""One partial-route attempt of :func:`svt_factors` (``grow=False``), without fallback.

    Runs the warm-started subspace iteration of :func:`truncated_svd` on ``rank_hint + 10``
    directions. Where it returns None the caller chooses its own fallback (the ALM solvers
    take a Gram route, :mod:`robustpca.solvers.alm_svt`, which needs no copy of ``X``).

    Parameters
    ----------
    X : array-like of shape (m, n)
        Not copied; the iteration holds a few ``(m + n) x (rank_hint + 10)`` blocks.
    threshold : float
        :math:`\tau \ge 0`.
    rank_hint : int
        Guess of how many singular values exceed ``threshold`` (at least 1 is used).
    rng : numpy.random.Generator or None, default=None
        Draws the random start (None: seed 0).
    init : ndarray of shape (r, n) or None, default=None
        Rows spanning a guess of the top right singular subspace, used in the start.
    rtol : float, default=1e-10
        Residual tolerance relative to the top singular value (:func:`truncated_svd`).
    max_iter : int, default=12
        Most subspace-iteration passes.

    Returns
    -------
    SVDFactors or None
        What :func:`svt_factors` with ``grow=False`` returns on the partial route
        (``method='partial'`` or ``'truncated'``), or None where it would take the exact
        SVD: the iteration converges too slowly, or ``rank_hint + 10 >= min(m, n)``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.prox import partial_svt_factors
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)) @ rng.normal(size=(3, 200))
    >>> f = partial_svt_factors(X, 1.0, rank_hint=5, rng=rng)
    >>> f.method, f.s.size
    ('partial', 3)
    """
    tau = check_threshold(threshold)
    X = check_matrix(X)
    k = max(1, check_positive_int(rank_hint, "rank_hint", minimum=0))
    if k + OVERSAMPLES >= min(X.shape):
        return None
    rng = np.random.default_rng(0) if rng is None else rng
    return _partial_svt_attempt(X, tau, k, rng, init, rtol, max_iter)[0]


def _partial_svt_attempt(X, tau, k, rng, init, rtol, max_iter, certify=True):
    """One subspace iteration on ``k + OVERSAMPLES`` directions for the triplets above
    ``tau``: the partial route of :func:`svt_factors` and :func:`partial_svt_factors`.

    Returns ``(factors, ritz)``: ``factors`` are the converged triplets above ``tau``
    (``method='partial'``), the ``k`` thresholded leading ones when all ``k`` exceed
    ``tau`` (``'truncated'``: more are wanted), or ``None`` when the iteration is too
    slow; ``ritz`` holds all the right Ritz vectors, the warm start of a larger attempt.
    """

    def n_wanted(s):
        # every triplet above the threshold; None when all k are (ask for more)
        count = int(np.count_nonzero(s[:k] > tau))
        return None if count == k else count

    def below(s, residual):
        # Ritz values are lower bounds: the next one, within its residual of a singular
        # value, must be below tau, or a singular value above it is still to come (as
        # alm_svt's block step checks)
        count = int(np.count_nonzero(s[:k] > tau))
        return count == s.size or s[count] + residual[count] <= tau

    U, s, Vt, status = _subspace_iteration(
        X, n_wanted, k + OVERSAMPLES, rng, init, rtol, max_iter, certify=below if certify else None
    )
    if status == "converged":
        count = int(np.count_nonzero(s[:k] > tau))
        return SVDFactors(U[:, :count], s[:count] - tau, Vt[:count], "partial"), Vt
    if status == "stopped":
        return SVDFactors(U[:, :k], s[:k] - tau, Vt[:k], "truncated"), Vt
    return None, Vt


def singular_value_thresholding(X, threshold: float, **kwargs) -> np.ndarray:
    r"""Singular value thresholding, the proximal operator of the nuclear norm.

    .. math:: \mathcal{D}_\tau(X) = \arg\min_Y \tfrac12\lVert Y - X\rVert_F^2
              + \tau\lVert Y\rVert_* = U (\Sigma - \tau I)_+ V^\top ,

    for :math:`X = U\Sigma V^\top` (Cai, Candès & Shen 2010, Theorem 2.1). Keyword
    arguments go to :func:`svt_factors`; by default the exact SVD is used.

    Parameters
    ----------
    X : array-like of shape (m, n)
        The matrix to shrink (not modified).
    threshold : float
        :math:`\tau \ge 0`.

    Returns
    -------
    ndarray of shape (m, n)
        Of rank the number of singular values of ``X`` above ``threshold``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.prox import singular_value_thresholding
    >>> singular_value_thresholding(np.diag([3.0, 1.0]), 2.0)
    array([[1., 0.],
           [0., 0.]])
    """
    return svt_factors(X, threshold, **kwargs).to_array()


def rank_truncation(X, rank: int, **kwargs) -> np.ndarray:
    r"""Best approximation of rank at most ``rank`` (Eckart-Young), the projection on
    :math:`\{Y : \operatorname{rank} Y \le k\}`.

    .. math:: \mathcal{T}_k(X) = \arg\min_{\operatorname{rank} Y \le k}
              \lVert Y - X\rVert_F = \sum_{i \le k} \sigma_i u_i v_i^\top .

    Keyword arguments go to :func:`truncated_svd` (partial route for a large matrix and
    a small ``k`` by default). When :math:`\sigma_k = \sigma_{k+1}` the minimiser is not
    unique and one of them is returned.

    Parameters
    ----------
    X : array-like of shape (m, n)
        The matrix to approximate (not modified).
    rank : int
        ``0 <= rank <= min(m, n)``.

    Returns
    -------
    ndarray of shape (m, n)
        Of rank at most ``rank``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.prox import rank_truncation
    >>> rank_truncation(np.diag([3.0, 2.0, 1.0]), 2).diagonal()
    array([3., 2., 0.])
    """
    X = check_matrix(X)
    return truncated_svd(
        X, check_positive_int(rank, "rank", minimum=0, maximum=min(X.shape)), **kwargs
    ).to_array()
