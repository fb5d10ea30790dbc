"""The rows of an MCD exact fit: every row on the affine hull of a singular h-subset.

Where more than ``h`` rows lie on a hyperplane, every h-subset of them has covariance
determinant 0, and the MCD criterion cannot choose among them: which ``h`` of those rows
FAST-MCD holds is an accident of its random starts. robustbase then returns the mean and
covariance of *all* the rows on the hyperplane, with weight 1 for them and 0 for the
others (``rffastmcd.f``, ``rfexact``; ``covMcd``'s ``"on.hyperplane"`` singularity), so
that the fit depends on the hyperplane alone.

Here the hull is the affine hull of the h-subset: every direction in which it has no
variance. robustbase takes one hyperplane, the eigenvector of the least eigenvalue;
where there are several such directions that one is arbitrary, and its hyperplane can
take in rows off the subset's hull. With one direction the two are the same rows.
robustbase counts a row as on its hyperplane within ``1e-8`` of its standardized
coordinates; here within ``sqrt(eps)`` of the subset's largest standard deviation, or
the subset's own distance from its hull (its null eigenvalues are rounding, or close to
it), whichever is larger, plus the rounding of a distance at the row's norm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AffineHull", "coordinate_plane"]

_EPS = np.finfo(np.float64).eps


@dataclass(frozen=True)
class AffineHull:
    """The affine hull of a singular h-subset.

    Attributes
    ----------
    location : ndarray of shape (p,)
        A point of the hull (the subset's mean).
    null : ndarray of shape (p, m)
        Orthonormal directions off the hull.
    tol : float
        The distance within which a row is on the hull.
    """

    location: np.ndarray
    null: np.ndarray
    tol: float

    @classmethod
    def of(cls, location: np.ndarray, covariance: np.ndarray, h: int) -> AffineHull:
        """The hull of an h-subset, singular as :func:`~robustpca.solvers.mcd.raw_log_det`
        decides: its directions of eigenvalue at most ``p eps`` of the largest (numpy's
        ``matrix_rank`` tolerance), or the least one where only the determinant's sign
        said singular.

        Parameters
        ----------
        location : ndarray of shape (p,)
            The subset's mean.
        covariance : ndarray of shape (p, p)
            The subset's covariance (divisor ``h - 1``).
        h : int
            The subset's size.
        """
        p = covariance.shape[0]
        values, vectors = np.linalg.eigh(covariance)
        top = max(float(values[-1]), 0.0)
        zero = values <= top * p * _EPS
        if not zero.any():
            zero[0] = True
        # the subset's own squared distances from the hull sum to (h - 1) times its null
        # eigenvalues: twice that bound keeps every row of the subset on the hull
        within = float(np.sqrt((h - 1) * np.clip(values[zero], 0.0, None).sum()))
        return cls(location, vectors[:, zero], 2.0 * within + np.sqrt(_EPS * top))

    @classmethod
    def coordinate(cls, p: int, column: int, value: float) -> AffineHull:
        """The hyperplane where coordinate ``column`` equals ``value`` (to rounding).

        Parameters
        ----------
        p : int
            The number of coordinates.
        column : int
            The coordinate fixed on the hyperplane.
        value : float
            Its value there.
        """
        location, null = np.zeros(p), np.zeros((p, 1))
        location[column], null[column] = value, 1.0
        return cls(location, null, 0.0)

    def excess(self, Z: np.ndarray) -> np.ndarray:
        """Each row's distance from the hull beyond the tolerance: at most 0 on it.

        Parameters
        ----------
        Z : ndarray of shape (n, p)
            The rows.

        Returns
        -------
        ndarray of shape (n,)
        """
        centred = Z - self.location
        off = np.linalg.norm(centred @ self.null, axis=1)
        rounding = 64 * _EPS * (np.linalg.norm(centred, axis=1) + np.linalg.norm(self.location))
        return off - self.tol - rounding

    def contains(self, Z: np.ndarray) -> np.ndarray:
        """Whether each row of ``Z`` lies on the hull.

        Parameters
        ----------
        Z : ndarray of shape (n, p)
            The rows.

        Returns
        -------
        ndarray of bool of shape (n,)
        """
        return self.excess(Z) <= 0.0


def coordinate_plane(X: np.ndarray, h: int) -> AffineHull | None:
    """robustbase's exact fit on a coordinate hyperplane (``rffastmcd.f``'s check before
    any search, exact-fit code 3): the hyperplane of the first column whose h-th
    smallest absolute deviation from its median is zero.

    Such a column holds at least ``h > n / 2`` equal values, so its median is that value
    and every h-subset of those rows is singular: which of them the random search would
    hold is an accident of its starts, which robustbase's check takes out of the fit.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The rows.
    h : int
        The subset's size.

    Returns
    -------
    AffineHull or None
        The column's hyperplane at its median (:meth:`AffineHull.coordinate`); None
        where no column has ``h`` rows at its median.
    """
    median = np.median(X, axis=0)
    hit = np.flatnonzero((X == median).sum(axis=0) >= h)
    if hit.size == 0:
        return None
    return AffineHull.coordinate(X.shape[1], int(hit[0]), float(median[hit[0]]))
