r"""The steps of the chunked reweighting loop (:func:`~.chunked.minimize_reweighted_chunked`).

A step is what one pass of the loop does on each chunk of rows, then in memory:
``prepare`` a chunk at the current state, its ``residuals`` (for the weights), its
weighted ``stats`` (added up over the chunks by the runner), and ``solve`` for the next
state from the sums. :class:`WeightedPCAStep` is problem (14) of Nie et al. (2014), the
step of RPCA-OM, PCA-GM, RWL-AN and PCA; :class:`SubspaceIterationStep` is R1-PCA's
(Ding et al. 2006).

References
----------
F. Nie, J. Yuan and H. Huang, "Optimal Mean Robust Principal Component Analysis",
ICML 2014, problem (14).
C. Ding, D. Zhou, X. He and H. Zha, "R1-PCA: rotational invariant L1-norm principal
component analysis for robust subspace factorization", ICML 2006.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..linalg import positive_eigen_mask, top_eigh
from .chunked import Moments, block_moments
from .r1_pca import _orth_qr

__all__ = ["SubspaceIterationStep", "SubspaceState", "WeightedPCAStep"]


@dataclass(frozen=True)
class SubspaceState:
    """An iterate of the weighted-PCA step.

    Parameters
    ----------
    mean : ndarray of shape (n_features,)
        The centre.
    basis : ndarray of shape (n_features, r)
        The usable basis, ``r <= k`` (directions of positive variance).
    eigvals : ndarray of shape (r,)
        Their eigenvalues.
    """

    mean: np.ndarray
    basis: np.ndarray
    eigvals: np.ndarray


@dataclass(frozen=True)
class WeightedPCAStep:
    """Problem (14) of Nie et al. (2014) in passes (RPCA-OM, PCA-GM, RWL-AN, PCA).

    Parameters
    ----------
    n_components : int
        ``k``; 0 with ``location_only`` (a weighted mean, Algorithm 1 of Oh & Kwak).
    center : ndarray or None, default=None
        A fixed centre (PCA-GM's :math:`m_G`); ``None`` estimates the weighted mean.
    location_only : bool, default=False
        Gather the weighted mean only (no scatter, no subspace).
    zero_rtol : float, default=0.0
        Residual norms at most ``zero_rtol * ||x_i - b||`` are set to 0 (RWL-AN).
    """

    n_components: int
    center: np.ndarray | None = None
    location_only: bool = False
    zero_rtol: float = 0.0

    def prepare(self, x, state: SubspaceState):
        """The chunk centred on ``state.mean`` (a new array).

        Parameters
        ----------
        x : ndarray of shape (n_rows, n_features)
            A chunk of rows.
        state : SubspaceState
            The current iterate.

        Returns
        -------
        ndarray of shape (n_rows, n_features)
        """
        return x - state.mean

    def residuals(self, xc, state: SubspaceState) -> np.ndarray:
        """Residual norms of the centred rows to ``state``'s subspace.

        Parameters
        ----------
        xc : ndarray of shape (n_rows, n_features)
            The chunk from :meth:`prepare`.
        state : SubspaceState
            The current iterate.

        Returns
        -------
        ndarray of shape (n_rows,)
        """
        U = state.basis
        R = xc - (xc @ U) @ U.T if U.shape[1] else xc
        r = np.sqrt(np.einsum("ij,ij->i", R, R))
        if self.zero_rtol:
            r[r <= self.zero_rtol * np.sqrt(np.einsum("ij,ij->i", xc, xc))] = 0.0
        return r

    def stats(self, xc, state: SubspaceState, w) -> Moments:
        """Weighted moments of the chunk, about ``state.mean``.

        Parameters
        ----------
        xc : ndarray of shape (n_rows, n_features)
            The chunk from :meth:`prepare`; overwritten.
        state : SubspaceState
            The current iterate; its mean is the reference of the scatter.
        w : ndarray of shape (n_rows,)
            The rows' weights.

        Returns
        -------
        Moments
        """
        return block_moments(None, w, scatter=not self.location_only, reference=state.mean, xc=xc)

    def solve(self, moments: Moments, previous: SubspaceState | None = None) -> SubspaceState:
        """The next iterate, from the moments of a pass: the weighted mean (or the
        fixed centre) and the top ``k`` eigenvectors of the scatter about it.

        Parameters
        ----------
        moments : Moments
            The sum of the chunks' :meth:`stats`.
        previous : SubspaceState or None, default=None
            Not used (the step is closed-form).

        Returns
        -------
        SubspaceState
        """
        d = moments.mean.shape[0]
        if self.location_only:
            return SubspaceState(moments.mean, np.empty((d, 0)), np.empty(0))
        if self.center is None:  # the scatter is gathered unless location_only
            mean, S = moments.mean, cast(np.ndarray, moments.scatter)
        else:
            mean, S = self.center, moments.scatter_about(self.center)
        vals, vecs = top_eigh(0.5 * (S + S.T), self.n_components)
        usable = positive_eigen_mask(vals)
        return SubspaceState(mean, vecs[:, usable], vals[usable])


@dataclass(frozen=True)
class SubspaceIterationStep:
    r"""R1-PCA's step (Ding et al. 2006): :math:`U \leftarrow \mathrm{orth}(C_w U)`.

    The state is ``U`` (d, r); the pass gathers :math:`C_w U = \sum_i w_i (x_i - \bar x)
    (x_i - \bar x)^\top U` (d, r), and the residuals are
    :math:`\sqrt{\lVert x_i - \bar x\rVert^2 - \lVert U^\top (x_i - \bar x)\rVert^2}`,
    the formula of :func:`~robustpca.solvers.solve_r1_pca`'s scatter route.

    Parameters
    ----------
    mean : ndarray of shape (n_features,)
        The fixed centre :math:`\bar x`.
    """

    mean: np.ndarray

    def prepare(self, x, U):
        """The centred chunk and its projections on ``U``.

        Parameters
        ----------
        x : ndarray of shape (n_rows, n_features)
            A chunk of rows.
        U : ndarray of shape (n_features, r)
            The current basis.

        Returns
        -------
        tuple of ndarray
            ``(xc, xc @ U)``.
        """
        xc = x - self.mean
        return xc, xc @ U

    def residuals(self, aux, U) -> np.ndarray:
        """Residual norms of the centred rows to the span of ``U``.

        Parameters
        ----------
        aux : tuple of ndarray
            From :meth:`prepare`.
        U : ndarray of shape (n_features, r)
            The current basis (its projections are in ``aux``).

        Returns
        -------
        ndarray of shape (n_rows,)
        """
        xc, proj = aux
        r2 = np.einsum("ij,ij->i", xc, xc) - np.einsum("ij,ij->i", proj, proj)
        return np.sqrt(np.maximum(r2, 0.0))

    def stats(self, aux, U, w) -> np.ndarray:
        """The chunk's part of :math:`C_w U`.

        Parameters
        ----------
        aux : tuple of ndarray
            From :meth:`prepare`.
        U : ndarray of shape (n_features, r)
            The current basis (its projections are in ``aux``).
        w : ndarray of shape (n_rows,)
            The rows' weights.

        Returns
        -------
        ndarray of shape (n_features, r)
        """
        xc, proj = aux
        return xc.T @ (w[:, None] * proj)

    def solve(self, CwU: np.ndarray, previous: np.ndarray) -> np.ndarray:
        """The next basis, the orthonormal factor of :math:`C_w U`.

        Parameters
        ----------
        CwU : ndarray of shape (n_features, r)
            The sum of the chunks' :meth:`stats`.
        previous : ndarray of shape (n_features, r)
            The current basis, returned where it has no column.

        Returns
        -------
        ndarray of shape (n_features, r)
        """
        return previous if previous.shape[1] == 0 else _orth_qr(CwU)
