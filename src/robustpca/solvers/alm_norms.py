r"""The spectral norms behind the convex solvers' penalties and their range.

:func:`spectral_norm` is the largest singular value of the (centred) data, which sets
PCP's default penalty and the ALM's starting :math:`\mu`; :func:`gamma_max` is the
penalty beyond which outlier pursuit and CRPCA-OM return no low-rank part
(:mod:`robustpca.solvers.penalty_range`). Both take float32 data by row blocks.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from ..prox import OVERSAMPLES
from .alm_blocks import _blocks, _row_norms

__all__ = ["gamma_max", "spectral_norm"]


def _times(X, center, V):
    """``(X - 1 c^T) @ V`` without forming ``X - 1 c^T``."""
    XV = _product(X, V)
    if center is not None:
        XV -= center @ V
    return XV


def _product(X: np.ndarray, V: np.ndarray, transpose: bool = False) -> np.ndarray:
    """``X @ V`` (``X.T @ V`` with ``transpose``) in float64. NumPy would copy a float32
    ``X`` whole into float64 for every product; here it is cast by row blocks."""
    if X.dtype == np.float64:
        return X.T @ V if transpose else X @ V
    out = np.zeros((X.shape[1] if transpose else X.shape[0], *V.shape[1:]))
    for rows in _blocks(X.shape[0], X.shape[1]):
        block = X[rows].astype(np.float64)
        if transpose:
            out += block.T @ V[rows]
        else:
            out[rows] = block @ V
    return out


def spectral_norm(
    X: np.ndarray, rng: np.random.Generator, *, rtol: float = 1e-6, center=None
) -> float:
    """Largest singular value of ``X`` (of ``X - center`` when ``center`` is given, without
    forming it): exact for small ``X``, else Lanczos (ARPACK's ``eigsh``) on the Gram
    operator of the short side, to a relative accuracy of about ``rtol`` (its Ritz value
    is a lower bound that converges from below), started from a vector of ``rng``.

    Lanczos needs a fraction of the products of block power iteration where the top singular
    values are close. Should ARPACK not converge, LAPACK's singular values are the fallback.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data (float32 is cast to float64 by row blocks).
    rng : numpy.random.Generator
        Draws Lanczos's starting vector.
    rtol : float, default=1e-6
        ARPACK's relative tolerance on the top eigenvalue of the Gram operator.
    center : ndarray of shape (n_features,) or None, default=None
        Subtracted from every row, without forming ``X - center``.

    Returns
    -------
    float
    """
    side = min(X.shape)
    if side <= 4 * OVERSAMPLES:
        return _exact_norm(X, center)
    n, d = X.shape

    def gram(v):  # (X - 1c^T)^T (X - 1c^T) v, or (X - 1c^T)(X - 1c^T)^T v for wide X
        if d <= n:
            y = _times(X, center, v)
            z = _product(X, y, transpose=True)
            return z if center is None else z - center * y.sum()
        y = _product(X, v, transpose=True)
        if center is not None:
            y -= center * v.sum()
        return _times(X, center, y)

    operator = LinearOperator((side, side), matvec=gram, dtype=np.float64)
    try:
        top = eigsh(
            operator,
            k=1,
            which="LA",
            tol=rtol,
            v0=rng.standard_normal(side),
            return_eigenvectors=False,
        )[0]
    except ArpackNoConvergence:
        return _exact_norm(X, center)
    return float(np.sqrt(max(top, 0.0)))


def _exact_norm(X: np.ndarray, center) -> float:
    A = X if center is None else X - center
    return float(sla.svdvals(A, check_finite=False)[0]) if A.size else 0.0


def gamma_max(X: np.ndarray, center: np.ndarray | None = None) -> float:
    r"""Smallest :math:`\gamma` for which ``Z = 0`` solves problem (29) on ``X - center``.

    :math:`Z = 0` is optimal iff some subgradient of :math:`\lVert X\rVert_{2,1}`, the
    rows of ``X`` scaled to unit norm (``G``, zero rows may stay zero), lies in
    :math:`\gamma\,\partial\lVert 0\rVert_* = \{W : \lVert W\rVert_2 \le \gamma\}`;
    so the threshold is :math:`\lVert G\rVert_2 \le \lVert G\rVert_F \le \sqrt{n}`.
    ``G`` is the only ``X``-sized array formed.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    center : ndarray of shape (n_features,) or None, default=None
        Subtracted from every row first.

    Returns
    -------
    float
    """
    G = np.array(X, dtype=np.float64) if center is None else np.subtract(X, center)
    norms = _row_norms(G)
    np.divide(G, norms[:, None], out=G, where=norms[:, None] > 0)
    G[norms == 0] = 0.0
    return spectral_norm(G, np.random.default_rng(0), rtol=1e-10)
