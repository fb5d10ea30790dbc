r"""Choosing the number of components from a (robust) eigenvalue spectrum.

``n_components`` may be given three ways throughout robustpca:

* an ``int`` ``k``: kept as it is (validated);
* a ``float`` in ``(0, 1)``: the smallest ``k`` whose cumulative share of the total
  (robust) variance reaches it, :math:`\sum_{j \le k} l_j / \sum_j l_j \ge` ``n_components``;
* ``"auto"``: the rule of R's rrcov for ``k = 0`` (``PcaClassic``, ``PcaHubert``; Hubert,
  Rousseeuw & Vanden Branden 2005, sec. 3.1): start from
  :math:`k_0 = \min(r, k_{\max}, j^*)` where :math:`r` is the rank and :math:`j^*` the
  first index with :math:`l_j / l_1 \le 10^{-3}` (the eigenvalue-ratio guard); if the
  first :math:`k_0` eigenvalues explain more than 80% of the total, take the smallest
  :math:`k` explaining at least 80%, otherwise keep :math:`k_0`.

References
----------
M. Hubert, P. J. Rousseeuw, K. Vanden Branden, "ROBPCA: a new approach to robust
principal component analysis", Technometrics 47(1), 2005, sec. 3.1 (choice of k).
V. Todorov, P. Filzmoser, "An object-oriented framework for robust multivariate
analysis", J. Stat. Softw. 32(3), 2009 (rrcov; the rule is in its ``R/PcaClassic.R``).
"""

from __future__ import annotations

import numbers
from typing import cast

import numpy as np

from ._validation import check_nonnegative_float, check_positive_int, real_array

__all__ = ["select_n_components", "spherical_spectrum"]

#: Share of the total variance the ``"auto"`` rule aims at (rrcov).
AUTO_VARIANCE_SHARE = 0.8
#: rrcov's guard: components with ``l_j / l_1 <= 1e-3`` end the search.
AUTO_EIGENVALUE_RATIO = 1e-3


def _spectrum(eigenvalues) -> np.ndarray:
    if np.asarray(eigenvalues).dtype.kind not in "iuf":  # text, booleans, objects
        kind = np.asarray(eigenvalues).dtype
        raise TypeError(f"eigenvalues must be real numbers, got an array of dtype {kind}.")
    ev = real_array(eigenvalues, "eigenvalues")
    if ev.ndim > 1:  # a matrix is no spectrum: its entries are not its eigenvalues
        raise ValueError(f"eigenvalues must be 1-D, got an array of shape {ev.shape}.")
    ev = ev.ravel()
    if ev.size == 0:
        raise ValueError("eigenvalues must hold at least one value.")
    if not np.all(np.isfinite(ev)):
        raise ValueError("eigenvalues contain NaN or infinity.")
    ev = np.sort(ev)[::-1]  # descending
    # round-off negatives of a positive semi-definite spectrum are zeros; others are not
    if ev[-1] < -ev.size * np.finfo(np.float64).eps * max(abs(ev[0]), abs(ev[-1])):
        raise ValueError(
            f"eigenvalues must be those of a positive semi-definite matrix; {ev[-1]:.3g} is "
            "negative beyond rounding."
        )
    return np.clip(ev, 0.0, None)


def _numerical_rank(ev: np.ndarray) -> int:
    """Eigenvalues above ``len(ev) * eps * l_1`` (at least 1)."""
    if ev[0] <= 0:
        return 1
    return max(int(np.sum(ev > ev.size * np.finfo(np.float64).eps * ev[0])), 1)


def select_n_components(
    eigenvalues,
    n_components,
    *,
    kmax: int = 10,
    rank: int | None = None,
) -> int:
    """Number of components from a spectrum: an int as is, a variance share, or ``"auto"``.

    Parameters
    ----------
    eigenvalues : array-like of shape (m,)
        All (robust) eigenvalues available, the variances along the principal axes
        (sorted descending here; round-off negatives count as zero). Their sum is the
        total variance the shares are taken of.
    n_components : int, float in (0, 1) or "auto"
        ``int``: returned after checking ``1 <= n_components <= m``. ``float``: the
        smallest ``k`` with a cumulative share ``>= n_components`` of the total.
        ``"auto"``: rrcov's rule for ``k = 0`` (module docstring).
    kmax : int, default=10
        Upper bound of the ``"auto"`` rule (rrcov's ``kmax``; ``PcaHubert`` defaults to
        10, ``PcaClassic`` to the number of features). Ignored otherwise.
    rank : int, optional
        Rank of the data (rrcov's ``r``); by default the number of eigenvalues above
        ``m * eps * l_1``.

    Returns
    -------
    int
        The number of components, between 1 and ``m``. A spectrum of zeros (all samples
        equal) gives 1.

    Examples
    --------
    >>> from robustpca.rank_selection import select_n_components
    >>> ev = [6.0, 2.0, 1.0, 0.5, 0.5]
    >>> select_n_components(ev, "auto")   # 6 + 2 = 80% of 10
    2
    >>> select_n_components(ev, 0.85), select_n_components(ev, 3)
    (3, 3)
    """
    ev = _spectrum(eigenvalues)
    if ev[0] > 0:  # only ratios matter: in units of a power of two (exact), no overflow
        ev = ev / np.ldexp(1.0, int(np.frexp(ev[0])[1]) - 1)
    m = ev.size
    if rank is not None:
        rank = check_positive_int(rank, "rank")
    if isinstance(n_components, str):
        if n_components != "auto":
            raise ValueError(
                f"n_components must be an int, a float in (0, 1) or 'auto', got {n_components!r}."
            )
        if isinstance(kmax, bool) or not isinstance(kmax, numbers.Integral) or kmax < 1:
            raise ValueError(f"kmax={kmax!r} must be an int >= 1.")
        return _auto(ev, int(kmax), rank)
    if isinstance(n_components, bool):
        raise TypeError(f"n_components must be an int, a float or 'auto', got {n_components!r}.")
    if isinstance(n_components, numbers.Integral):
        if not 1 <= cast(int, n_components) <= m:
            raise ValueError(
                f"n_components={n_components} must be between 1 and the {m} eigenvalues."
            )
        return int(n_components)
    if isinstance(n_components, numbers.Real):
        share = float(n_components)
        if not 0.0 < share < 1.0:
            raise ValueError(
                f"n_components={n_components!r} as a float must lie in (0, 1) (a share of "
                "the variance)."
            )
        total = ev.sum()
        if total <= 0:
            return 1
        cumulative = np.cumsum(ev) / total
        return min(int(np.searchsorted(cumulative, share, side="left")) + 1, m)
    raise TypeError(
        f"n_components must be an int, a float in (0, 1) or 'auto', got "
        f"{type(n_components).__name__} ({n_components!r})."
    )


def _auto(ev: np.ndarray, kmax: int, rank: int | None) -> int:
    """rrcov's ``k = 0`` rule (``R/PcaClassic.R``, ``R/PcaHubert.R``), 1-based there."""
    r = _numerical_rank(ev) if rank is None else max(min(int(rank), ev.size), 1)
    total = ev.sum()
    if total <= 0:
        return 1
    kmax = max(min(kmax, r), 1)
    small = np.flatnonzero(ev / ev[0] <= AUTO_EIGENVALUE_RATIO)
    # the first small eigenvalue's 1-based index: rrcov keeps it within the candidates
    k = min(r, int(small[0]) + 1, kmax) if small.size else min(r, kmax)
    cumulative = np.cumsum(ev[:k]) / total
    if cumulative[k - 1] > AUTO_VARIANCE_SHARE:
        k = int(np.flatnonzero(cumulative >= AUTO_VARIANCE_SHARE)[0]) + 1
    return k


def spherical_spectrum(X, *, max_iter: int = 200, tol: float = 1e-10) -> tuple[np.ndarray, int]:
    r"""A robust eigenvalue spectrum: spherical PCA (Locantore et al. 1999).

    The spatial median :math:`m` (Weiszfeld iterations), the principal axes :math:`v_j`
    of the data projected on the unit sphere around it, :math:`(x_i - m) / \lVert x_i -
    m\rVert`, and the robust eigenvalues :math:`l_j = \operatorname{MAD}((x_i - m)^\top
    v_j)^2`, sorted descending (rrcov's ``PcaLocantore``). The directions and the centre
    have a 50% breakdown point and cost one SVD, which is why the estimators without
    consistent eigenvalues of their own choose ``n_components="auto"`` or a variance share
    on this spectrum.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    max_iter : int, default=200
        Weiszfeld iterations for the spatial median.
    tol : float, default=1e-10
        Change of the median, relative to its norm or (where it is smaller) the largest
        entry of ``X``, that stops them.

    Returns
    -------
    eigenvalues : ndarray of shape (rank,)
        The squared MADs of the data along the directions with variance, descending.
    rank : int
        Number of directions with variance (nonzero singular values of the sphered data).

    References
    ----------
    N. Locantore, J. S. Marron, D. G. Simpson, N. Tripoli, J. T. Zhang, K. L. Cohen,
    "Robust principal component analysis for functional data", Test 8(1), 1999.
    """
    from .linalg import svd_right
    from .robust_scale import mad

    max_iter = check_positive_int(max_iter, "max_iter")
    tol = check_nonnegative_float(tol, "tol")
    X = real_array(X, "X")
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite (no NaN or inf).")
    # in units of a power of two near the largest entry (exact): the stopping test is
    # relative to the data's scale, and the norms neither overflow nor underflow
    top = float(np.max(np.abs(X)))
    # 2**(e - 1) <= top < 2**e: 2**e itself is infinite for entries from 2**1023 up
    unit = float(np.ldexp(1.0, int(np.frexp(top)[1]) - 1)) if top > 0 else 1.0
    X = X / unit
    centre = np.median(X, axis=0)
    for _ in range(max_iter):
        dist = np.linalg.norm(X - centre, axis=1)
        keep = dist > 0
        if not keep.any():
            break
        w = 1.0 / dist[keep]
        new = (w @ X[keep]) / w.sum()
        step = np.linalg.norm(new - centre)
        centre = new
        if step <= tol * max(cast(float, np.linalg.norm(centre)), 1.0):
            break
    Xc = X - centre
    norms = np.linalg.norm(Xc, axis=1)
    Y = Xc[norms > 0] / norms[norms > 0, None]
    if Y.shape[0] == 0:
        return np.zeros(1), 1
    s, Vt = svd_right(Y)
    rank = max(int(np.sum(s > max(Y.shape) * np.finfo(np.float64).eps * s[0])), 1)
    ev = mad(Xc @ Vt[:rank].T, axis=0) ** 2
    with np.errstate(over="ignore"):  # squares past the float range are inf, as X**2's
        return np.sort(ev)[::-1] * unit * unit, rank
