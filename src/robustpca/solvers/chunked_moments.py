"""The moments of sets of rows summed over chunks: count, mean and scatter, merged
pairwise, as the chunked MCD and ROBPCA carry them.

:class:`QRMoments` carries the scatter as the triangular factor of the centred rows, so
that singular values and ranks read from it are those of an SVD of the rows;
:func:`scatter_moments` sums the scatter itself, for passes that read no rank.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from .chunked import Moments, block_moments

__all__ = ["QRMoments", "count_of", "covariance_of", "scatter_moments"]


@dataclass(frozen=True)
class QRMoments:
    """Count, mean and triangular factor of the centred scatter of a set of rows; ``+``
    merges two sets (the mean shift enters as one more row of ``R``).

    Parameters
    ----------
    count : float
        Number of rows.
    mean : ndarray of shape (n_features,)
        Their mean.
    R : ndarray of shape (k, n_features)
        Upper triangular, ``k <= n_features``: ``R^T R`` is the centred scatter.
    """

    count: float
    mean: np.ndarray
    R: np.ndarray

    @classmethod
    def of(cls, Z: np.ndarray) -> QRMoments:
        """The moments of the rows of ``Z``, ``R`` by a QR factorization of the centred rows.

        Parameters
        ----------
        Z : ndarray of shape (n_rows, n_features)
            The rows; none gives a count of 0 and an empty ``R``.

        Returns
        -------
        QRMoments
        """
        if Z.shape[0] == 0:
            return cls(0.0, np.zeros(Z.shape[1]), np.zeros((0, Z.shape[1])))
        mean = Z.mean(axis=0)
        R = linalg.qr(Z - mean, mode="r", check_finite=False)[0]
        return cls(float(Z.shape[0]), mean, R[: Z.shape[1]])

    def __add__(self, other: QRMoments) -> QRMoments:
        if other.count == 0:
            return self
        if self.count == 0:
            return other
        total = self.count + other.count
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.count / total)
        stacked = np.vstack([self.R, other.R, np.sqrt(self.count * other.count / total) * delta])
        R = linalg.qr(stacked, mode="r", check_finite=False)[0][: delta.size]
        return QRMoments(total, mean, R)

    def covariance(self) -> np.ndarray:
        """The centred scatter divided by ``count - 1`` (``np.cov``'s)."""
        return self.R.T @ self.R / max(self.count - 1, 1)


def scatter_moments(Z: np.ndarray) -> Moments:
    """:class:`~robustpca.solvers.chunked.Moments` of the rows ``Z``: cheaper where no rank
    is read from the scatter (the C-steps, ``centred.T @ centred`` in memory too).

    Parameters
    ----------
    Z : ndarray of shape (n_rows, n_features)
        The rows, each of weight 1.

    Returns
    -------
    Moments
    """
    return block_moments(Z, np.ones(Z.shape[0]))


def covariance_of(m) -> np.ndarray:
    """The scatter of ``QRMoments`` or ``Moments`` divided by ``count - 1`` (at least 1).

    Parameters
    ----------
    m : QRMoments or Moments
        Moments with a scatter (``Moments.weight`` is the count).

    Returns
    -------
    ndarray of shape (n_features, n_features)
    """
    if isinstance(m, QRMoments):
        return m.covariance()
    return m.scatter / max(m.weight - 1, 1)


def count_of(m) -> float:
    """The number of rows of ``QRMoments`` or ``Moments``.

    Parameters
    ----------
    m : QRMoments or Moments
        ``QRMoments.count`` or ``Moments.weight`` is returned.

    Returns
    -------
    float
    """
    return m.count if isinstance(m, QRMoments) else m.weight
