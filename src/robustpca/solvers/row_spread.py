"""The spread of a set of rows about their mean, gathered chunk by chunk."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["RowSpread"]


@dataclass(frozen=True)
class RowSpread:
    """Count, mean and sum of squared distances to the mean of a set of rows (the trace
    of :class:`~robustpca.solvers.chunked.Moments`' scatter, without the ``d x d``
    scatter); ``+`` merges two sets by the same pairwise update, with no cancellation.

    Parameters
    ----------
    count : float
        The number of rows.
    mean : ndarray of shape (n_features,)
        Their mean.
    sum_sq : float
        :math:`\\sum_i \\lVert x_i - \\bar x \\rVert^2`.
    """

    count: float
    mean: np.ndarray
    sum_sq: float

    @classmethod
    def of(cls, x: np.ndarray) -> RowSpread:
        """The spread of the rows of ``x`` (a chunk), by the two-pass formula.

        Parameters
        ----------
        x : ndarray of shape (n_rows, n_features)
            The rows; none gives a count of 0.

        Returns
        -------
        RowSpread
        """
        if len(x) == 0:
            return cls(0.0, np.zeros(x.shape[1]), 0.0)
        mean = x.mean(axis=0, dtype=np.float64)
        deviations = x - mean
        return cls(float(len(x)), mean, float(np.einsum("ij,ij->", deviations, deviations)))

    def __add__(self, other: RowSpread) -> RowSpread:
        if other.count == 0:
            return self
        if self.count == 0:
            return other
        total = self.count + other.count
        delta = other.mean - self.mean
        between = float(delta @ delta) * (self.count * other.count / total)
        mean = self.mean + delta * (other.count / total)
        return RowSpread(total, mean, self.sum_sq + other.sum_sq + between)

    @property
    def spread(self) -> float:
        """The rows' mean squared distance to their mean (0 for no rows)."""
        return self.sum_sq / self.count if self.count else 0.0
