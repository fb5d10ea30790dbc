"""Subspace distances between row bases of shape ``(k, n_features)``."""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla

from .._validation import real_array

__all__ = [
    "projector_distance",
    "subspace_angles",
]


def _row_basis(A, name: str) -> np.ndarray:
    A = real_array(A, name)
    if A.ndim != 2 or A.shape[0] == 0:
        raise ValueError(
            f"{name} must be a 2-D (k, n_features) array with k >= 1, got shape {A.shape}."
        )
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} must be finite.")
    return A


def _row_bases(A, B) -> tuple[np.ndarray, np.ndarray]:
    """Two row bases (:func:`_row_basis`) of the same ``n_features``."""
    A = _row_basis(A, "A")
    B = _row_basis(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"A and B must have the same number of columns, got {A.shape[1]} and {B.shape[1]}."
        )
    return A, B


def subspace_angles(A, B) -> np.ndarray:
    """Principal angles between the row spaces of ``A`` and ``B``, in radians.

    A thin wrapper around :func:`scipy.linalg.subspace_angles` for bases stored as rows
    (the layout of ``components_``). Rows need not be orthonormal, nor independent: the
    angles are those of the spans, as SciPy computes them, so rows that are dependent
    (to :func:`scipy.linalg.orth`'s tolerance) add no angle.

    Parameters
    ----------
    A, B : array-like of shape (k_a, n_features) and (k_b, n_features)
        Rows spanning the two subspaces, one direction per row.

    Returns
    -------
    ndarray of shape (min(r_a, r_b),)
        Angles in [0, pi/2], largest first (SciPy's order), with ``r_a`` and ``r_b`` the
        ranks of ``A`` and ``B``: ``min(k_a, k_b)`` angles for bases of full row rank,
        fewer for rank-deficient ones, none when a basis is zero.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import subspace_angles
    >>> A = np.array([[1.0, 0.0, 0.0]])
    >>> B = np.array([[1.0, 1.0, 0.0]])
    >>> np.degrees(subspace_angles(A, B)).round(6)
    array([45.])
    >>> subspace_angles([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], np.eye(3)[:2])  # rank 1
    array([0.])
    """
    A, B = _row_bases(A, B)
    return sla.subspace_angles(A.T, B.T)


def _orthonormal_rows(A: np.ndarray) -> np.ndarray:
    r"""An orthonormal basis of the row space of ``A`` (``A`` itself if it is one).

    Any other ``A`` is re-orthonormalised, however close to orthonormal: a tolerance
    would let its deviation into the distance. The rows are first scaled to a largest
    entry of 1 (the span is unchanged; no square overflows); well-conditioned rows then
    take the symmetric (Lowdin) orthonormalisation :math:`(AA^\top)^{-1/2}A`, two small
    products, and the others :func:`scipy.linalg.orth`, which also finds the rank.
    """
    k = A.shape[0]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if np.array_equal(A @ A.T, np.eye(k)):
            return A
    top = np.max(np.abs(A), axis=1, keepdims=True)
    A = A / np.where(top > 0, top, 1.0)
    w, V = np.linalg.eigh(A @ A.T)
    if w[0] > 0.25 * w[-1]:  # cond(A) < 2: the Gram matrix loses no accuracy
        return (V / np.sqrt(w)) @ (V.T @ A)
    return sla.orth(A.T).T


def projector_distance(A, B) -> float:
    r"""Frobenius distance between the orthogonal projectors on two row spaces.

    .. math::
        \lVert P_A - P_B \rVert_F
        = \sqrt{k_a + k_b - 2 \lVert A B^\top \rVert_F^2},
        \qquad P_A = A^\top A ,

    for orthonormal rows, computed without forming the ``n_features x n_features``
    projectors. It is evaluated as :math:`\sqrt{\lVert A - AB^\top B\rVert_F^2 +
    \lVert B - BA^\top A\rVert_F^2}`, the same quantity at the same
    ``O(k_a k_b n_features)`` cost, which keeps full precision for nearby subspaces
    (the difference form above cancels and is accurate only to about
    :math:`\sqrt{\varepsilon_{\text{mach}}} \approx 10^{-8}`). Rows that are not
    orthonormal are first replaced by an orthonormal basis of their span.

    For equal dimensions the distance is :math:`\sqrt{2}\,\lVert \sin\theta
    \rVert_2` with :math:`\theta` the principal angles; unlike a difference of bases,
    it ignores sign flips and rotations within the subspace.

    Parameters
    ----------
    A : array-like of shape (k_a, n_features)
        Rows spanning the first subspace (e.g. a fitted ``components_``).
    B : array-like of shape (k_b, n_features)
        Rows spanning the second (e.g. the planted basis).

    Returns
    -------
    float
        Between 0 (same subspace) and :math:`\sqrt{k_a + k_b}`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.metrics import projector_distance
    >>> A = np.eye(3)[:2]
    >>> projector_distance(A, -A[::-1])
    0.0
    >>> round(projector_distance(A, np.eye(3)[1:]), 6)
    1.414214
    """
    A, B = _row_bases(A, B)
    A, B = _orthonormal_rows(A), _orthonormal_rows(B)
    C = A @ B.T
    # ||A (I - P_B)||_F^2 + ||B (I - P_A)||_F^2 = k_a + k_b - 2 ||A B^T||_F^2, summed from
    # the residuals so that small distances keep full precision (the difference form
    # cancels and is only accurate to about sqrt(machine epsilon)).
    res_a = np.linalg.norm(A - C @ B, "fro")
    res_b = np.linalg.norm(B - C.T @ A, "fro")
    return float(np.hypot(res_a, res_b))
