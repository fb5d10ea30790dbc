r"""The projection on matrices of rank at most ``k`` (Eckart-Young), warm-started.

The proximal steps of R-T-PCA (Guo 2013, Algorithm 1, eqs. (16)-(17)) project each block
on :math:`\{M : \operatorname{rank}(M) \le k\}`, the truncated SVD. As the iterates change
little, :class:`RankProjector` takes no full SVD: the top right singular vectors of the
previous projection (plus ``OVERSAMPLE``) start one step of subspace iteration on
:math:`Y^\top Y` with a Rayleigh-Ritz extraction. It is accepted where
:math:`\lVert Y^\top Y V_k - V_k \Lambda_k \rVert_F` is at most ``RITZ_RTOL`` of
:math:`\lVert \Lambda_k \rVert_F` (:math:`\Lambda` the squared singular values) and no
larger eigenvalue lies outside :math:`V_k`: converged Ritz pairs are eigenpairs but not
necessarily the top ones, so the energy of :math:`Y` off :math:`V_k` must bound them
below the k-th, else a short Lanczos run on the complement must find none
(:func:`~robustpca.linalg.eigen.deflated_top`). Else a second step, then the exact
eigenpairs of the smaller Gram matrix (:func:`robustpca.linalg.top_eigh`). Accepted
projections differ from exact ones by about that tolerance
(``benchmarks/bench_transfer.py``), and R-T-PCA's objective still never increases beyond
rounding: the Ritz error enters it quadratically.

References
----------
Y. Guo, "Robust transfer principal component analysis with rank constraints", NIPS 2013,
Algorithm 1.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.lapack import dpotrf, dsyevd, dtrtri
from scipy.sparse.linalg import LinearOperator

from ..linalg import positive_eigen_mask, top_eigh
from ..linalg.eigen import WARM_CHECK_STEPS, deflated_top

__all__ = ["RankProjector"]

#: A Rayleigh-Ritz projection is accepted within this relative residual (module docstring).
RITZ_RTOL = 1e-7
#: Extra directions carried by the warm-started subspace iteration.
OVERSAMPLE = 5
#: Subspace-iteration steps tried before the exact projection.
MAX_POWER_STEPS = 2
#: A warm start is kept only if its smallest Ritz value exceeds this fraction of the largest.
RANK_FLOOR = 1e-12
#: Cholesky-QR is used only while the normalised block is this well conditioned (the
#: orthogonality error of V grows like eps / CHOLQR_RTOL**2).
CHOLQR_RTOL = 1e-4


def _truncate_exact(Y: np.ndarray, rank: int, n_vectors: int):
    """Best rank-``rank`` approximation ``M`` of ``Y`` and its top ``n_vectors`` right
    vectors ``V`` (d, n_vectors) with their squared singular values ``lam``, from the top
    eigenpairs of the smaller of ``Y^T Y`` and ``Y Y^T`` (no SVD of ``Y``); ``V, lam`` are
    ``None`` where ``Y`` has fewer than ``n_vectors`` positive singular values."""
    m, d = Y.shape
    if m >= d:
        vals, V = top_eigh(Y.T @ Y, n_vectors)
        keep = positive_eigen_mask(vals)
        V, vals = V[:, keep], vals[keep]
        M = (Y @ V[:, :rank]) @ V[:, :rank].T
    else:
        vals, U = top_eigh(Y @ Y.T, n_vectors)
        keep = positive_eigen_mask(vals)
        U, vals = U[:, keep], vals[keep]
        M = U[:, :rank] @ (U[:, :rank].T @ Y)
        V = (Y.T @ U) / np.sqrt(vals)[None, :]
    if V.shape[1] < n_vectors:
        return M, None, None
    return M, V, vals


class RankProjector:
    """Projection on ``{M : rank(M) <= rank}`` (Eckart-Young) for a slowly moving input.

    The top right singular vectors of the last input warm-start the next (module
    docstring). Call it on each ``Y`` of shape ``shape`` for ``M``, the projection.

    Parameters
    ----------
    rank : int
        The largest rank kept.
    shape : tuple of (int, int)
        The shape of the matrices projected.
    exact : bool, default=False
        Always take the exact projection (also where the kept subspace is not small
        against the matrix, where the warm start would not pay).

    Attributes
    ----------
    n_steps, n_exact : int
        The subspace-iteration steps and the exact projections taken so far.
    """

    def __init__(self, rank: int, shape: tuple[int, int], *, exact: bool = False):
        self.rank = rank
        m, d = shape
        self.n_vectors = min(rank + OVERSAMPLE, m, d)
        # the warm start only pays when the kept subspace is small against the matrix
        self.exact = exact or 2 * self.n_vectors >= min(m, d)
        self.basis: np.ndarray | None = None  # Ritz vectors of the last input
        self.inverse_values: np.ndarray | None = None  # 1 / their Ritz values
        self.n_steps = 0
        self.n_exact = 0
        self._rng = np.random.default_rng(0)  # the check's starts: reproducible fits

    def _keep(self, V, lam) -> None:
        """Store a warm start if every Ritz value is positive and has a finite inverse
        (else: exact next time)."""
        inverse = None if V is None or not lam[-1] > RANK_FLOOR * lam[0] else _inverse(lam)
        self.basis, self.inverse_values = (None, None) if inverse is None else (V, inverse)

    def _larger_outside(self, Y: np.ndarray, Vk: np.ndarray, lam: np.ndarray) -> bool:
        """Whether :math:`Y^\top Y` may have an eigenvalue above the k-th Ritz value
        outside ``Vk``: converged Ritz pairs are eigenpairs, not necessarily the top ones
        (a new dominant direction orthogonal to the warm start is never seen). Not where
        the energy of ``Y`` off ``Vk`` bounds it below, else as a Lanczos check on the
        complement finds (:func:`~robustpca.linalg.eigen.deflated_top`)."""
        k = Vk.shape[1]
        least = lam[k - 1] + RITZ_RTOL * abs(lam[0])
        if float(np.vdot(Y, Y)) - float(np.sum(lam[:k])) < least:
            return False
        return deflated_top(_gram_operator(Y), Vk, WARM_CHECK_STEPS, self._rng) > least

    def __call__(self, Y: np.ndarray) -> np.ndarray:
        """The best approximation of ``Y`` of rank at most ``rank``.

        Parameters
        ----------
        Y : ndarray of shape ``shape``
            The matrix to project.

        Returns
        -------
        ndarray of shape ``shape``
        """
        if self.rank == 0:
            return np.zeros_like(Y)
        k = self.rank
        V = None if self.exact else self.basis
        scale = self.inverse_values
        for _ in range(MAX_POWER_STEPS if V is not None else 0):
            self.n_steps += 1
            W = Y.T @ (Y @ V)  # one step of subspace iteration on Y^T Y
            W *= scale  # columns of about unit norm (V holds Ritz vectors)
            L, info = dpotrf(W.T @ W, lower=1, clean=1)  # Cholesky-QR: V = W L^{-T}
            diag = L.diagonal()  # positive when info == 0
            if info != 0 or diag.min() < CHOLQR_RTOL * diag.max():  # V would lose orthogonality
                break
            V = W @ dtrtri(L, lower=1)[0].T
            C = Y @ V
            lam, T, info = dsyevd(C.T @ C, compute_v=1)  # Rayleigh-Ritz in span(V)
            if info != 0:
                break
            T = T[:, ::-1]  # descending
            V, C, lam = V @ T, C @ T, lam[::-1]
            Vk, Ck, lam_k = V[:, :k], C[:, :k], lam[:k]
            residual = Y.T @ Ck - Vk * lam_k  # (Y^T Y - lambda) v for the kept pairs
            converged = np.vdot(residual, residual) <= RITZ_RTOL**2 * np.vdot(lam_k, lam_k)
            if converged and not self._larger_outside(Y, Vk, lam):
                self._keep(V, lam)
                return Ck @ Vk.T  # Y V_k V_k^T
            if converged:  # a larger direction lies outside the warm start
                break
            scale = _inverse(np.maximum(lam, RANK_FLOOR * lam[0])) if lam[0] > 0 else None
            if scale is None:
                break
        self.n_exact += 1
        M, V, lam = _truncate_exact(Y, k, self.n_vectors)
        self._keep(V, lam)
        return M


def _inverse(values: np.ndarray) -> np.ndarray | None:
    """``1 / values``, or None where one overflows (Ritz values of data near the
    underflow, whose warm start would scale by inf)."""
    with np.errstate(over="ignore", divide="ignore"):
        inverse = 1.0 / values
    return inverse if np.isfinite(inverse).all() else None


def _gram_operator(Y: np.ndarray) -> LinearOperator:
    """:math:`Y^\top Y` as an operator (two products a vector, no ``d x d`` matrix)."""
    return LinearOperator((Y.shape[1],) * 2, matvec=lambda v: Y.T @ (Y @ v), dtype=np.float64)
